package server

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"
	"github.com/gorilla/websocket"

	"rmqconsole/auth"
	"rmqconsole/dev"
	"rmqconsole/dev/rmqclient"
	"rmqconsole/resets"
	"rmqconsole/store"
)

// rightsFile is the rights table the tests configure: two teams, each operating its
// own topics and groups, and every viewer reading the metadata of all of them.
const rightsFile = `[[clusters]]
name = "default"
namesrv = [%q]

[[rights]]
subjects = ["user:paula"]
topics = ["payments-*"]
groups = ["payments-*"]
actions = ["read-metadata", "read-bodies", "reset", "send", "manage-groups"]

[[rights]]
subjects = ["user:oscar"]
topics = ["orders-*"]
groups = ["orders-*"]
actions = ["read-metadata", "read-bodies", "reset", "send", "manage-groups"]

[[rights]]
subjects = ["user:petra"]
topics = ["payments-*"]
groups = ["payments-*"]
actions = ["read-metadata", "read-audit"]

[[rights]]
subjects = ["role:viewer"]
topics = ["*"]
groups = ["*"]
actions = ["read-metadata"]
`

// A payments operator sees only the payments team's topics and groups, through the API
// and the pages, with a session or an API token; the orders team's group cannot be
// reset by them (refused and audited, whether the group is named in the path, in a
// request body or matched by a pattern), and its pages answer a sentence, not the
// group. The orders operator is the mirror image, the viewer reads everything, and an
// admin is not narrowed.
func TestATeamSeesOnlyItsTopicsAndGroupsAndCannotResetAnotherTeamsGroup(t *testing.T) {
	if testing.Short() {
		t.Skip("needs the local RocketMQ")
	}
	cl := dev.RequireCluster(t)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	// One suffix for all four names, so one filter finds them among the cluster's others.
	suffix := strings.TrimPrefix(dev.UniqueName("x"), "x-")
	payTopic, ordTopic, payGroup, ordGroup := "payments-"+suffix, "orders-"+suffix, "payments-g-"+suffix, "orders-g-"+suffix
	for _, topic := range []string{payTopic, ordTopic} {
		if err := cl.CreateTopic(ctx, topic, 2); err != nil {
			t.Fatal(err)
		}
	}
	for _, g := range []string{payGroup, ordGroup} {
		if _, err := cl.MQAdmin(ctx, "updateSubGroup", "-c", cl.ClusterName, "-g", g); err != nil {
			t.Fatal(err)
		}
	}
	// An orders group consuming a payments topic: a pattern over that topic's groups
	// reaches the other team's group.
	rmqclient.StartCountingConsumer(t, cl.NameServer, ordGroup, payTopic)
	conf := filepath.Join(t.TempDir(), "console.toml")
	if err := os.WriteFile(conf, []byte(fmt.Sprintf(rightsFile, cl.NameServer)), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg, err := ParseConfig([]string{"--listen", "127.0.0.1:0", "--data-dir", t.TempDir(), "--config", conf, "--metrics-interval", "0"}, noEnv, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	a, err := New(context.Background(), cfg, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(a.Close)
	addUsers(t, a, map[string]auth.Role{"paula": auth.Operator, "oscar": auth.Operator, "vera": auth.Viewer, "ada": auth.Admin, "petra": auth.Operator})
	secret, _, err := a.sec.auth.CreateToken(ctx, "paula", "ci", "paula")
	if err != nil {
		t.Fatal(err)
	}
	type caller func(*http.Request)
	cookie := func(name string) caller {
		c := sessionCookie(t, a, name)
		return func(r *http.Request) { r.AddCookie(c) }
	}
	paula, oscar, vera, ada := cookie("paula"), cookie("oscar"), cookie("vera"), cookie("ada")
	paulaToken := caller(func(r *http.Request) { r.Header.Set("Authorization", "Bearer "+secret) })
	call := func(who caller, method, target, body string) *httptest.ResponseRecorder {
		t.Helper()
		var rd io.Reader
		if body != "" {
			rd = strings.NewReader(body)
		}
		req := newRequest(method, target, rd)
		if body != "" {
			req.Header.Set("Content-Type", "application/json")
		}
		who(req)
		rec := httptest.NewRecorder()
		a.Handler().ServeHTTP(rec, req)
		return rec
	}
	names := func(who caller, list, field string) map[string]bool {
		t.Helper()
		rec := call(who, http.MethodGet, "/api/v1/"+list+"?refresh=1&q="+suffix, "")
		if rec.Code != http.StatusOK {
			t.Fatalf("%s: %d %s", list, rec.Code, rec.Body)
		}
		var out map[string]json.RawMessage
		var rows []map[string]any
		if err := json.Unmarshal(rec.Body.Bytes(), &out); err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(out[list], &rows); err != nil {
			t.Fatal(err)
		}
		seen := map[string]bool{}
		for _, row := range rows {
			seen[row[field].(string)] = true
		}
		return seen
	}

	// Lists: each team its own, the viewer and the admin both.
	for _, tc := range []struct {
		who      string
		c        caller
		pay, ord bool
	}{{"paula", paula, true, false}, {"paula's token", paulaToken, true, false}, {"oscar", oscar, false, true},
		{"vera", vera, true, true}, {"ada", ada, true, true}} {
		topics, groups := names(tc.c, "topics", "topic"), names(tc.c, "groups", "group")
		if topics[payTopic] != tc.pay || topics[ordTopic] != tc.ord || groups[payGroup] != tc.pay || groups[ordGroup] != tc.ord {
			t.Errorf("%s lists payments %v/%v and orders %v/%v, want payments %v and orders %v", tc.who,
				topics[payTopic], groups[payGroup], topics[ordTopic], groups[ordGroup], tc.pay, tc.ord)
		}
	}
	// The list pages show the same.
	page := call(paula, http.MethodGet, "/groups?refresh=1&q="+suffix, "").Body.String()
	if !strings.Contains(page, payGroup) || strings.Contains(page, ordGroup) {
		t.Errorf("paula's groups page: payments shown %v, orders shown %v", strings.Contains(page, payGroup), strings.Contains(page, ordGroup))
	}
	page = call(paula, http.MethodGet, "/topics?refresh=1&q="+suffix, "").Body.String()
	if !strings.Contains(page, payTopic) || strings.Contains(page, ordTopic) {
		t.Errorf("paula's topics page: payments shown %v, orders shown %v", strings.Contains(page, payTopic), strings.Contains(page, ordTopic))
	}

	// Her own group: read, and its page offers the reset.
	if rec := call(paula, http.MethodGet, "/api/v1/groups/"+payGroup, ""); rec.Code != http.StatusOK {
		t.Errorf("paula reads %s: %d %.300s", payGroup, rec.Code, rec.Body)
	}
	doc := func(rec *httptest.ResponseRecorder) *goquery.Document {
		d, err := goquery.NewDocumentFromReader(rec.Body)
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	if d := doc(call(paula, http.MethodGet, "/groups/"+payGroup, "")); d.Find(`[data-testid="reset-link"]`).Length() != 1 {
		t.Error("paula's own group page offers no reset")
	} else if d.Find(`[data-testid="nav-audit"]`).Length() != 0 {
		t.Error("paula, whose rights do not cover the audit log, is offered its link")
	}
	if rec := call(paula, http.MethodGet, "/api/v1/audit", ""); rec.Code != http.StatusForbidden {
		t.Errorf("paula reads the audit log: %d", rec.Code)
	}
	if d := doc(call(ada, http.MethodGet, "/groups/"+payGroup, "")); d.Find(`[data-testid="nav-audit"]`).Length() != 1 {
		t.Error("the admin is not offered the audit log")
	}
	// The viewer's rights do not cover resets: the link is hidden from her too.
	if d := doc(call(vera, http.MethodGet, "/groups/"+payGroup, "")); d.Find(`[data-testid="reset-link"]`).Length() != 0 {
		t.Error("the viewer is offered a reset her rights do not allow")
	}
	if d := doc(call(oscar, http.MethodGet, "/groups/"+ordGroup, "")); d.Find(`[data-testid="reset-link"]`).Length() != 1 {
		t.Error("oscar's own group page offers no reset")
	}

	// The other team's group and topic: a sentence, by page and by API, in both languages.
	for _, target := range []string{"/groups/" + ordGroup, "/topics/" + ordTopic, "/groups/" + ordGroup + "/reset", "/api/v1/groups/" + ordGroup,
		"/api/v1/topics/" + ordTopic, "/messages?topic=" + ordTopic} {
		for _, c := range []caller{paula, paulaToken} {
			rec := call(c, http.MethodGet, target, "")
			if rec.Code != http.StatusForbidden || !strings.Contains(rec.Body.String(), "Your rights on cluster default do not let you") {
				t.Errorf("paula GET %s: %d %.400s, want 403 with a sentence", target, rec.Code, rec.Body)
			}
		}
	}
	zh := func(r *http.Request) { paula(r); r.Header.Set("Accept-Language", "zh-CN") }
	if rec := call(zh, http.MethodGet, "/groups/"+ordGroup, ""); rec.Code != http.StatusForbidden || !strings.Contains(rec.Body.String(), "上的权限不允许") {
		t.Errorf("paula's refusal in Chinese: %d %.400s", rec.Code, rec.Body)
	}

	// The pattern finds the orders group once its consumer has registered.
	pattern := `{"topic":"` + payTopic + `","groupPattern":"orders-*","mode":"latest"}`
	var adaPlan struct {
		PlanID string `json:"planId"`
	}
	for deadline := time.Now().Add(60 * time.Second); ; time.Sleep(500 * time.Millisecond) {
		rec := call(ada, http.MethodPost, "/api/v1/resets/preview", pattern)
		if rec.Code == http.StatusOK {
			json.Unmarshal(rec.Body.Bytes(), &adaPlan)
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the orders consumer of %s never showed: %d %.300s", payTopic, rec.Code, rec.Body)
		}
	}

	// The orders group consumes a payments topic: oscar reads his group without that
	// topic's name anywhere (queues, subscriptions, clients, rebalances, live frames),
	// told in a sentence how many topics are left out; the viewer, who may read every
	// topic, sees it.
	var adaGroup struct {
		Clients []struct {
			ClientID      string           `json:"clientId"`
			Subscriptions []map[string]any `json:"subscriptions"`
		} `json:"clients"`
	}
	for deadline := time.Now().Add(60 * time.Second); ; time.Sleep(500 * time.Millisecond) {
		rec := call(ada, http.MethodGet, "/api/v1/groups/"+ordGroup, "")
		json.Unmarshal(rec.Body.Bytes(), &adaGroup)
		if len(adaGroup.Clients) > 0 && strings.Contains(rec.Body.String(), payTopic) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the admin's view of %s never named %s: %.400s", ordGroup, payTopic, rec.Body)
		}
	}
	clientPath := "/groups/" + ordGroup + "/clients/" + url.PathEscape(adaGroup.Clients[0].ClientID)
	for _, target := range []string{"/api/v1/groups/" + ordGroup, "/groups/" + ordGroup, "/api/v1" + clientPath, clientPath,
		"/api/v1/groups/" + ordGroup + "/rebalances", "/api/v1/groups/" + ordGroup + "/lag-history"} {
		rec := call(oscar, http.MethodGet, target, "")
		if rec.Code != http.StatusOK || strings.Contains(rec.Body.String(), payTopic) {
			t.Errorf("oscar GET %s: %d, names %s: %v", target, rec.Code, payTopic, strings.Contains(rec.Body.String(), payTopic))
		}
		if strings.Contains(target, "rebalances") || strings.Contains(target, "lag-history") {
			continue
		}
		if body := rec.Body.String(); !strings.Contains(body, `"hiddenTopics":1`) && !strings.Contains(body, "1 topic is left out here") {
			t.Errorf("oscar GET %s does not say one topic is left out: %.600s", target, body)
		}
	}
	if rec := call(vera, http.MethodGet, "/api/v1/groups/"+ordGroup, ""); !strings.Contains(rec.Body.String(), payTopic) || strings.Contains(rec.Body.String(), "hiddenTopics") {
		t.Errorf("the viewer's view of %s does not name %s, or says topics are hidden: %.400s", ordGroup, payTopic, rec.Body)
	}
	// Live frames: oscar's leave the topic out, the viewer's (rendered apart) name it.
	srv := httptest.NewServer(a.Handler())
	defer srv.Close()
	liveFrame := func(name string) string {
		t.Helper()
		h := http.Header{"Origin": {srv.URL}, "Cookie": {sessionCookie(t, a, name).String()}}
		ws, _, err := websocket.DefaultDialer.Dial("ws"+strings.TrimPrefix(srv.URL, "http")+"/ws/groups/"+ordGroup, h)
		if err != nil {
			t.Fatal(err)
		}
		defer ws.Close()
		_ = ws.SetReadDeadline(time.Now().Add(20 * time.Second))
		var all strings.Builder
		for !strings.Contains(all.String(), "group-clients") || !strings.Contains(all.String(), "group-summary") {
			_, msg, err := ws.ReadMessage()
			if err != nil {
				t.Fatalf("%s's live view of %s: %v after %.300s", name, ordGroup, err, all.String())
			}
			all.Write(msg)
		}
		return all.String()
	}
	if f := liveFrame("oscar"); strings.Contains(f, payTopic) || !strings.Contains(f, "1 topic is left out here") {
		t.Errorf("oscar's live frame names %s: %v, says one topic is left out: %v", payTopic, strings.Contains(f, payTopic), strings.Contains(f, "1 topic is left out here"))
	}
	if f := liveFrame("vera"); !strings.Contains(f, payTopic) {
		t.Errorf("the viewer's live frame does not name %s", payTopic)
	}

	// Her topic's page does not name the orders group consuming it.
	if rec := call(paula, http.MethodGet, "/api/v1/topics/"+payTopic, ""); rec.Code != http.StatusOK || strings.Contains(rec.Body.String(), ordGroup) {
		t.Errorf("paula's topic %s: %d, names the orders group: %v", payTopic, rec.Code, strings.Contains(rec.Body.String(), ordGroup))
	}
	if rec := call(ada, http.MethodGet, "/api/v1/topics/"+payTopic, ""); !strings.Contains(rec.Body.String(), ordGroup) {
		t.Errorf("the admin's view of %s does not name the orders group consuming it: %.300s", payTopic, rec.Body)
	}
	// Resetting the orders group: refused and audited, however it is named.
	reset := `{"topic":"` + ordTopic + `","mode":"latest","reason":"not mine"}`
	for _, tc := range []struct{ who, target, body string }{
		// The admin's preview of the orders group, applied by its id.
		{"an admin's preview", "/api/v1/resets", `{"planId":"` + adaPlan.PlanID + `","confirm":true}`},
		{"path", "/api/v1/groups/" + ordGroup + "/reset-preview", reset},
		{"path, apply", "/api/v1/groups/" + ordGroup + "/resets", reset},
		{"groups", "/api/v1/resets/preview", `{"topic":"` + ordTopic + `","groups":["` + payGroup + `","` + ordGroup + `"],"mode":"latest"}`},
		{"a topic not hers", "/api/v1/resets/preview", `{"topic":"` + ordTopic + `","groups":["` + payGroup + `"],"mode":"latest"}`},
		{"groupPattern", "/api/v1/resets/preview", `{"topic":"` + payTopic + `","groupPattern":"orders-*","mode":"latest"}`},
	} {
		for _, c := range []caller{paula, paulaToken} {
			rec := call(c, http.MethodPost, tc.target, tc.body)
			if rec.Code != http.StatusForbidden || !strings.Contains(rec.Body.String(), "Your rights on cluster default do not let you") {
				t.Errorf("paula's reset by %s: %d %.400s, want 403", tc.who, rec.Code, rec.Body)
			}
		}
	}
	entries, _, err := a.store.Audit().List(ctx, store.AuditFilter{Status: store.AuditRefused})
	if err != nil {
		t.Fatal(err)
	}
	// Twelve refusals: the first resets.RefusalsPerWindow are recorded one by one, the
	// rest counted (the limiter every refusal goes through).
	refused, byID := 0, false
	for _, e := range entries {
		if e.Actor == "paula" && strings.Contains(e.Error.String(), "do not let you") {
			refused++
			byID = byID || (e.Group == ordGroup && len(e.Topics) == 0)
		}
	}
	if refused != resets.RefusalsPerWindow || !byID {
		t.Errorf("%d refused resets audited for paula (want %d), the apply by id among them: %v", refused, resets.RefusalsPerWindow, byID)
	}
	// Other changes named only in a body: a topic of the other team, an alert rule
	// wider than her groups, a dead letter (its topic known only once read).
	for _, tc := range []struct{ target, body string }{
		{"/api/v1/topics", `{"topic":"orders-new-` + suffix + `","readQueueNums":1,"writeQueueNums":1}`},
		{"/api/v1/alert-rules", `{"group":"*","metric":"lag","threshold":10,"for":"1m","webhookUrl":"https://hooks.example.com/x"}`},
		{"/api/v1/messages/resend", `{"ids":["0A0000010000000000000001"],"topic":"%DLQ%` + ordGroup + `"}`},
	} {
		if rec := call(paulaToken, http.MethodPost, tc.target, tc.body); rec.Code != http.StatusForbidden {
			t.Errorf("paula POST %s: %d %.300s, want 403", tc.target, rec.Code, rec.Body)
		}
	}
	// Her own group's preview is not refused by her rights.
	own := `{"topic":"` + payTopic + `","mode":"latest"}`
	if rec := call(paulaToken, http.MethodPost, "/api/v1/groups/"+payGroup+"/reset-preview", own); rec.Code == http.StatusForbidden {
		t.Errorf("paula's preview of her own group refused: %.400s", rec.Body)
	}
	// The admin is not narrowed.
	if rec := call(ada, http.MethodGet, "/api/v1/groups/"+ordGroup, ""); rec.Code != http.StatusOK {
		t.Errorf("ada reads %s: %d", ordGroup, rec.Code)
	}

	// Consuming a message again, named by id only: the message's own topic is checked
	// once it is read. The orders group consumes the payments topic, but oscar may not
	// send to it, so his own group may not consume a payments message again.
	rec := call(ada, http.MethodPost, "/api/v1/topics/"+payTopic+"/messages", `{"body":"again"}`)
	var sent struct {
		MsgID string `json:"msgId"`
	}
	if json.Unmarshal(rec.Body.Bytes(), &sent); rec.Code != http.StatusOK || sent.MsgID == "" {
		t.Fatalf("send to %s: %d %.300s", payTopic, rec.Code, rec.Body)
	}
	again := `{"group":"` + ordGroup + `","clientId":"nobody@x"}`
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(500 * time.Millisecond) {
		// The admin is refused for the client only (after the id lookup found the message).
		rec := call(ada, http.MethodPost, "/api/v1/messages/"+sent.MsgID+"/consume-directly", again)
		if rec.Code != http.StatusNotFound {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("message %s never found: %.300s", sent.MsgID, rec.Body)
		}
	}
	if rec := call(oscar, http.MethodPost, "/api/v1/messages/"+sent.MsgID+"/consume-directly", again); rec.Code != http.StatusForbidden ||
		!strings.Contains(rec.Body.String(), "send messages to topic "+payTopic) {
		t.Errorf("oscar consumes a payments message again by API: %d %.400s, want 403 naming the topic", rec.Code, rec.Body)
	}
	form := newRequest(http.MethodPost, "/messages/"+sent.MsgID+"/consume-directly", strings.NewReader("group="+ordGroup+"&clientId=nobody@x"))
	form.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	oscar(form)
	pageRec := httptest.NewRecorder()
	a.Handler().ServeHTTP(pageRec, form)
	if pageRec.Code != http.StatusForbidden || !strings.Contains(pageRec.Body.String(), "send messages to topic "+payTopic) {
		t.Errorf("oscar consumes a payments message again by the page: %d %.400s, want 403 naming the topic", pageRec.Code, pageRec.Body)
	}
	// Changes named in a body and refused by rights are audited, as refused resets are.
	for _, tc := range []struct{ target, body string }{
		{"/api/v1/topics", `{"topic":"payments-new-` + suffix + `","readQueueNums":1,"writeQueueNums":1}`},
		{"/api/v1/alert-rules", `{"group":"*","metric":"lag","threshold":10,"for":"1m","webhookUrl":"https://hooks.example.com/x"}`},
	} {
		if rec := call(oscar, http.MethodPost, tc.target, tc.body); rec.Code != http.StatusForbidden {
			t.Errorf("oscar POST %s: %d %.300s, want 403", tc.target, rec.Code, rec.Body)
		}
	}
	entries, _, err = a.store.Audit().List(ctx, store.AuditFilter{Status: store.AuditRefused, Actor: "oscar"})
	if err != nil {
		t.Fatal(err)
	}
	modes := map[string]int{}
	for _, e := range entries {
		modes[e.Mode]++
	}
	if modes["rights-send"] != 2 || modes["rights-manage-topics"] != 1 || modes["rights-manage-alerts"] != 1 {
		t.Errorf("oscar's refused changes audited by mode: %v, want rights-send 2 (API and page), rights-manage-topics 1, rights-manage-alerts 1", modes)
	}

	// The audit log, read by petra, whose rights cover the payments team's topics and
	// groups and the log: only the entries naming payments topics and groups alone, by
	// page, entry, API and export; neither another team's nor the cluster-wide ones
	// (which name no topic or group); and a total said to be unknown, not a wrong one.
	petra := cookie("petra")
	record := func(group string, topics ...string) int64 {
		t.Helper()
		e := &store.AuditEntry{StartedAt: time.Now(), FinishedAt: time.Now(), Actor: "ada", ClusterName: "default", Group: group,
			Topics: topics, Mode: "rights-audit-" + suffix, Status: store.AuditRefused, Params: json.RawMessage(`{}`)}
		if err := a.store.Audit().Record(ctx, e); err != nil {
			t.Fatal(err)
		}
		return e.ID
	}
	mine := []int64{record(payGroup, payTopic), record("", payTopic), record(payGroup)}
	theirs := map[int64]string{record(ordGroup, ordTopic): "orders", record(payGroup, ordTopic): "a payments group on an orders topic",
		record(""): "cluster-wide"}
	seen := map[int64]bool{}
	cursor := ""
	for pages := 0; ; pages++ {
		rec := call(petra, http.MethodGet, "/api/v1/audit?limit=2&cursor="+url.QueryEscape(cursor), "")
		var page struct {
			Entries []struct {
				ID int64 `json:"id"`
			} `json:"entries"`
			Total        *int   `json:"total"`
			TotalUnknown bool   `json:"totalUnknown"`
			Next         string `json:"next"`
		}
		if err := json.Unmarshal(rec.Body.Bytes(), &page); rec.Code != http.StatusOK || err != nil {
			t.Fatalf("petra's audit log: %d %v %.300s", rec.Code, err, rec.Body)
		}
		if page.Total != nil || !page.TotalUnknown {
			t.Errorf("petra's audit page says total %v, unknown %v: want no total", page.Total, page.TotalUnknown)
		}
		for _, e := range page.Entries {
			seen[e.ID] = true
		}
		if cursor = page.Next; cursor == "" || pages > 50 {
			break
		}
	}
	for _, id := range mine {
		if !seen[id] {
			t.Errorf("petra's audit log lacks entry %d of her team", id)
		}
		if rec := call(petra, http.MethodGet, fmt.Sprintf("/api/v1/audit/%d", id), ""); rec.Code != http.StatusOK {
			t.Errorf("petra GET her team's entry %d: %d", id, rec.Code)
		}
	}
	for id, what := range theirs {
		if seen[id] {
			t.Errorf("petra's audit log lists the %s entry %d", what, id)
		}
		for _, target := range []string{fmt.Sprintf("/api/v1/audit/%d", id), fmt.Sprintf("/audit/%d", id)} {
			if rec := call(petra, http.MethodGet, target, ""); rec.Code != http.StatusNotFound || strings.Contains(rec.Body.String(), ordGroup) {
				t.Errorf("petra GET %s (%s): %d, want 404 naming nothing", target, what, rec.Code)
			}
		}
	}
	for _, target := range []string{"/audit", "/audit/export?format=json", "/audit/export?format=csv"} {
		body := call(petra, http.MethodGet, target, "").Body.String()
		if !strings.Contains(body, payGroup) || strings.Contains(body, ordGroup) || strings.Contains(body, ordTopic) {
			t.Errorf("petra GET %s: names her group %v, the orders group %v, the orders topic %v", target,
				strings.Contains(body, payGroup), strings.Contains(body, ordGroup), strings.Contains(body, ordTopic))
		}
		if target == "/audit" && !strings.Contains(body, "the total is unknown") {
			t.Errorf("petra's audit page does not say its total is unknown")
		}
	}
	// Small counts and sentences: the overview's groups online, the navigation's firing
	// alerts, and a pattern that matches nothing name only what paula may see.
	home := func(who caller) *goquery.Document { return doc(call(who, http.MethodGet, "/", "")) }
	if n := home(paula).Find(`[data-testid="groups-online"]`).Text(); n != "0" {
		t.Errorf("paula's overview counts %q groups online; none of hers is", n)
	}
	if n := home(ada).Find(`[data-testid="groups-online"]`).Text(); n == "0" || n == "" {
		t.Errorf("the admin's overview counts %q groups online; the orders group is", n)
	}
	rec = call(ada, http.MethodPost, "/api/v1/alert-rules", `{"group":"`+ordGroup+`","metric":"lag","threshold":10,"for":"1m","webhookUrl":"https://hooks.example.com/x"}`)
	var created struct {
		Rule struct {
			ID int64 `json:"id"`
		} `json:"rule"`
	}
	rule := &created.Rule
	if json.Unmarshal(rec.Body.Bytes(), &created); rule.ID == 0 {
		t.Fatalf("alert rule on %s: %d %.300s", ordGroup, rec.Code, rec.Body)
	}
	now := time.Now()
	if err := a.store.SaveAlertStates(ctx, []store.AlertState{{RuleID: rule.ID, Group: ordGroup, State: "firing", Since: now, FiredAt: now}}, nil); err != nil {
		t.Fatal(err)
	}
	if home(paula).Find(`[data-testid="nav-alerts-firing"]`).Length() != 0 || doc(call(paula, http.MethodGet, "/groups/"+payGroup, "")).Find(`[data-testid="nav-alerts-firing"]`).Length() != 0 {
		t.Error("paula's navigation counts an alert firing on the orders group")
	}
	if doc(call(ada, http.MethodGet, "/groups/"+payGroup, "")).Find(`[data-testid="nav-alerts-firing"]`).Length() != 1 {
		t.Error("the admin's navigation does not count the alert firing on the orders group")
	}
	rec = call(paula, http.MethodPost, "/api/v1/resets/preview", `{"topic":"`+payTopic+`","groupPattern":"payments-none-*","mode":"latest"}`)
	if rec.Code == http.StatusOK || rec.Code == http.StatusForbidden || strings.Contains(rec.Body.String(), ordGroup) {
		t.Errorf("paula's pattern matching nothing: %d %.400s, want a refusal naming no orders group", rec.Code, rec.Body)
	}
	if rec := call(ada, http.MethodPost, "/api/v1/resets/preview", `{"topic":"`+payTopic+`","groupPattern":"payments-none-*","mode":"latest"}`); !strings.Contains(rec.Body.String(), ordGroup) {
		t.Errorf("the admin's pattern matching nothing does not list the topic's groups: %.400s", rec.Body)
	}
	var adaAudit struct {
		Total *int `json:"total"`
	}
	if rec := call(ada, http.MethodGet, "/api/v1/audit?limit=1", ""); json.Unmarshal(rec.Body.Bytes(), &adaAudit) != nil || adaAudit.Total == nil || *adaAudit.Total < 6 {
		t.Errorf("the admin's audit log total: %v, want every entry counted: %.300s", adaAudit.Total, rec.Body)
	}
}
