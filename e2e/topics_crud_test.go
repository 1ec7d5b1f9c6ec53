package e2e

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"rmqconsole/dev"
)

// apiClient is a signed-in user of the console's API (a cookie jar, as a script would
// keep its session).
type apiClient struct {
	t    *testing.T
	base string
	c    *http.Client
}

func signedInClient(t *testing.T, con *Console, name string) *apiClient {
	t.Helper()
	jar, _ := cookiejar.New(nil)
	c := &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	res, err := c.PostForm(con.URL+"/login", url.Values{"name": {name}, "password": {e2ePassword}})
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusSeeOther {
		t.Fatalf("sign in as %s: %d", name, res.StatusCode)
	}
	return &apiClient{t: t, base: con.URL, c: c}
}

// call sends a JSON request and decodes the answer into out (when not nil).
func (a *apiClient) call(method, path, body string, out any) int {
	a.t.Helper()
	var r io.Reader
	if body != "" {
		r = strings.NewReader(body)
	}
	req, _ := http.NewRequest(method, a.base+path, r)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Origin", a.base) // as the console's page sends it with the session cookie
	res, err := a.c.Do(req)
	if err != nil {
		a.t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	if out != nil {
		if err := json.Unmarshal(b, out); err != nil {
			a.t.Fatalf("%s %s: %d %s", method, path, res.StatusCode, b)
		}
	}
	return res.StatusCode
}

type topicChangeAnswer struct {
	Topic   string `json:"topic"`
	Created bool   `json:"created"`
	Status  string `json:"status"`
	Error   string `json:"error"`
	Code    string `json:"code"`
	Entry   struct {
		ID     int64    `json:"id"`
		Status string   `json:"status"`
		Mode   string   `json:"mode"`
		Actor  string   `json:"actor"`
		Seq    int64    `json:"seq"`
		Topics []string `json:"topics"`
		Params struct {
			Before map[string]*struct{ Perm, ReadQueueNums, WriteQueueNums int } `json:"before"`
			After  map[string]*struct{ Perm, ReadQueueNums, WriteQueueNums int } `json:"after"`
		} `json:"params"`
		Queues []struct {
			BrokerName string `json:"brokerName"`
			Error      string `json:"error"`
		} `json:"queues"`
	} `json:"entry"`
}

// everyBroker is the route mqadmin should show: the same queues on each broker.
func everyBroker(cl *dev.Cluster, rq dev.RouteQueues) map[string]dev.RouteQueues {
	m := map[string]dev.RouteQueues{}
	for _, b := range cl.Brokers {
		m[b.Name] = rq
	}
	return m
}

func mqadminRouteIs(t *testing.T, cl *dev.Cluster, topic string, want map[string]dev.RouteQueues) {
	t.Helper()
	dev.Eventually(t, 30*time.Second, "mqadmin topicRoute shows "+fmt.Sprint(want), func() error {
		got, err := cl.TopicRouteByMQAdmin(t.Context(), topic)
		if want == nil {
			if errors.Is(err, dev.ErrNoRoute) {
				return nil
			}
			return fmt.Errorf("route %v (%v), want none", got, err)
		}
		if err != nil {
			return err
		}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			return fmt.Errorf("route %v", got)
		}
		return nil
	})
}

// Topics created, updated and deleted through the API by an operator are what RocketMQ's
// mqadmin then shows, each change one sealed audit entry with its brokers; a viewer is
// refused (403) and bad input is a 400 naming the field, with nothing changed and no
// audit entry; `rmqconsole audit verify` finds the chain intact afterwards.
func TestTopicChangesThroughTheAPI(t *testing.T) {
	cl := dev.RequireCluster(t)
	dir := t.TempDir()
	addUser(t, dir, "vera", "viewer")
	addUser(t, dir, "otto", "operator")
	con := StartConsole(t, "RMQC_NAMESRV="+cl.NameServer, "RMQC_DATA_DIR="+dir)
	viewer, op := signedInClient(t, con, "vera"), signedInClient(t, con, "otto")
	topic := dev.UniqueName("e2e-api-topic")
	create := `{"topic":"` + topic + `","readQueueNums":3,"writeQueueNums":3,"perm":6,"clusterName":"` + cl.ClusterName + `"}`

	var e APIErrorBody
	if code := viewer.call(http.MethodPost, "/api/v1/topics", create, &e); code != http.StatusForbidden || !strings.Contains(e.Error, "may not") {
		t.Fatalf("viewer's create: %d %+v", code, e)
	}
	if code := viewer.call(http.MethodDelete, "/api/v1/topics/"+topic+"?confirm="+topic, "", nil); code != http.StatusForbidden {
		t.Fatalf("viewer's delete: %d", code)
	}

	var ans topicChangeAnswer
	if code := op.call(http.MethodPost, "/api/v1/topics", create, &ans); code != http.StatusCreated || !ans.Created || ans.Status != "applied" ||
		ans.Entry.Mode != "topic-create" || ans.Entry.Actor != "otto" || ans.Entry.Seq == 0 || len(ans.Entry.Queues) != len(cl.Brokers) {
		t.Fatalf("create: %d %+v", code, ans)
	}
	mqadminRouteIs(t, cl, topic, everyBroker(cl, dev.RouteQueues{Read: 3, Write: 3, Perm: 6}))
	if st, err := cl.TopicStatusByMQAdmin(t.Context(), topic); err != nil || len(st) != len(cl.Brokers) || st[cl.Brokers[0].Name] != 3 {
		t.Fatalf("mqadmin topicStatus: %v %v", st, err)
	}

	// A create of the topic that now exists changes nothing, through the API or the
	// form: 409, with the way to change it.
	var exists struct {
		Error, Code, Edit, Update string
	}
	if code := op.call(http.MethodPost, "/api/v1/topics", `{"topic":"`+topic+`","writeQueueNums":4}`, &exists); code != http.StatusConflict ||
		exists.Code != "topic_exists" || exists.Edit != "/topics/"+topic || exists.Update != "/api/v1/topics/"+topic {
		t.Fatalf("create of the existing topic through the API: %d %+v", code, exists)
	}
	form := url.Values{"topic": {topic}, "readQueueNums": {"3"}, "writeQueueNums": {"4"}, "perm": {"6"}, "brokerNames": {cl.Brokers[0].Name}}
	req, _ := http.NewRequest(http.MethodPost, con.URL+"/topics", strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Origin", con.URL)
	res, err := op.c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	page, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != http.StatusConflict || !strings.Contains(string(page), "exists already") ||
		!strings.Contains(string(page), `data-testid="topic-exists-link"`) || !strings.Contains(string(page), `href="/topics/`+topic+`"`) {
		t.Fatalf("create of the existing topic through the form: %d %.2000s", res.StatusCode, page)
	}
	mqadminRouteIs(t, cl, topic, everyBroker(cl, dev.RouteQueues{Read: 3, Write: 3, Perm: 6}))

	// Update (PUT): only the permission; the queue counts stay as they are.
	ans = topicChangeAnswer{}
	if code := op.call(http.MethodPut, "/api/v1/topics/"+topic, `{"perm":4}`, &ans); code != http.StatusOK || ans.Created ||
		ans.Entry.Mode != "topic-update" || ans.Entry.Params.Before[cl.Brokers[0].Name].Perm != 6 || ans.Entry.Params.After[cl.Brokers[0].Name].Perm != 4 {
		t.Fatalf("update: %d %+v", code, ans)
	}
	mqadminRouteIs(t, cl, topic, everyBroker(cl, dev.RouteQueues{Read: 3, Write: 3, Perm: 4}))

	// Bad input: each a 400 (404 for a topic that does not exist), nothing changed.
	bad := []struct {
		method, path, body string
		status             int
		says               string
	}{
		{http.MethodPost, "/api/v1/topics", `{"topic":"` + topic + `","readQueueNums":0}`, 400, "between 1 and 1024"},
		{http.MethodPost, "/api/v1/topics", `{"topic":"` + topic + `","writeQueueNums":10000}`, 400, "between 1 and 1024"},
		{http.MethodPost, "/api/v1/topics", `{"topic":"` + topic + `","perm":5}`, 400, "Permission 5"},
		{http.MethodPost, "/api/v1/topics", `{"topic":"` + topic + `","brokerNames":["nope"]}`, 400, "no broker named nope"},
		{http.MethodPost, "/api/v1/topics", `{"topic":"` + topic + `","clusterName":"Nope"}`, 400, "no cluster named Nope"},
		{http.MethodPost, "/api/v1/topics", `{"topic":"bad name"}`, 400, "not a valid topic name"},
		{http.MethodPost, "/api/v1/topics", `{"topic":"` + topic + `","readQueueNum":4}`, 400, "readQueueNum"},
		{http.MethodPost, "/api/v1/topics", `{"topic":"%RETRY%billing","perm":6}`, 400, "retry topic"},
		{http.MethodDelete, "/api/v1/topics/" + topic + "?confirm=" + topic + "x", "", 400, "is not " + topic},
		{http.MethodDelete, "/api/v1/topics/" + topic, "", 400, "to confirm"},
		{http.MethodDelete, "/api/v1/topics/TBW102?confirm=TBW102", "", 400, "system topics"},
		{http.MethodDelete, "/api/v1/topics/%25DLQ%25billing?confirm=%25DLQ%25billing", "", 400, "dead-letter topic"},
		{http.MethodDelete, "/api/v1/topics/" + topic + "-nope?confirm=" + topic + "-nope", "", 404, "does not exist"},
		{http.MethodPut, "/api/v1/topics/" + topic + "-nope", `{"perm":4}`, 404, "does not exist"},
		{http.MethodPut, "/api/v1/topics/" + topic, `{"topic":"` + topic + `-other","perm":6}`, 400, "the path " + topic},
	}
	for _, b := range bad {
		var e APIErrorBody
		if code := op.call(b.method, b.path, b.body, &e); code != b.status || !strings.Contains(e.Error, b.says) {
			t.Errorf("%s %s %s: %d %q, want %d saying %q", b.method, b.path, b.body, code, e.Error, b.status, b.says)
		}
	}
	// Nothing changed: the console's own read of the route (mqadmin checked it above).
	var shown struct {
		Route []struct {
			Broker      string `json:"brokerName"`
			ReadQueues  int    `json:"readQueueNums"`
			WriteQueues int    `json:"writeQueueNums"`
			Perm        int    `json:"perm"`
		} `json:"route"`
	}
	op.call(http.MethodGet, "/api/v1/topics/"+topic, "", &shown)
	if len(shown.Route) != len(cl.Brokers) {
		t.Fatalf("after the refusals the topic's route is %+v", shown.Route)
	}
	for _, r := range shown.Route {
		if r.ReadQueues != 3 || r.WriteQueues != 3 || r.Perm != 4 {
			t.Errorf("after the refusals %s has %+v", r.Broker, r)
		}
	}

	ans = topicChangeAnswer{}
	if code := op.call(http.MethodDelete, "/api/v1/topics/"+topic+"?confirm="+topic, "", &ans); code != http.StatusOK || ans.Entry.Mode != "topic-delete" ||
		ans.Status != "applied" || len(ans.Entry.Queues) != len(cl.Brokers) {
		t.Fatalf("delete: %d %+v", code, ans)
	}
	mqadminRouteIs(t, cl, topic, nil)

	var list struct {
		Entries []struct{ Mode, Status string } `json:"entries"`
	}
	op.call(http.MethodGet, "/api/v1/audit?topic="+url.QueryEscape(topic), "", &list)
	var modes []string
	for _, en := range list.Entries {
		modes = append(modes, en.Mode+":"+en.Status)
	}
	if strings.Join(modes, ",") != "topic-delete:applied,topic-update:applied,topic-create:applied" {
		t.Errorf("audit entries of the topic %v, want delete, update, create, all applied (no entry for the refusals)", modes)
	}
	con.Stop(t)
	out, err := exec.Command(Binary(t), "audit", "verify", "--data-dir", dir).CombinedOutput()
	// Three changes, and vera's and otto's sign-ins.
	if err != nil || !strings.Contains(string(out), "audit chain intact: 5 finished entries") || !strings.Contains(string(out), "0 in progress") {
		t.Errorf("audit verify: %v\n%s", err, out)
	}
}

// APIErrorBody is the API's error answer.
type APIErrorBody struct {
	Error string `json:"error"`
	Code  string `json:"code"`
}

// An operator creates a topic from the topics page, changes it on its page (only the
// field changed is changed) and deletes it by typing its name; a mistyped name and a
// queue count of 0 are refused next to the field with what was typed kept. mqadmin sees
// each change, and the audit entry page shows the delete broker by broker. A viewer
// sees no form.
func TestTopicChangesInTheBrowser(t *testing.T) {
	cl := dev.RequireCluster(t)
	dir := t.TempDir()
	addUser(t, dir, "vera", "viewer")
	addUser(t, dir, "otto", "operator")
	con := StartConsole(t, "RMQC_NAMESRV="+cl.NameServer, "RMQC_DATA_DIR="+dir)
	browser := Browser(t)
	topic := dev.UniqueName("e2e-ui-topic")

	vctx, closeV := newTab(t, browser)
	Do(t, vctx, "open the topics as a viewer", chromedp.Navigate(con.URL+"/topics"))
	signIn(t, vctx, "vera", e2ePassword)
	Do(t, vctx, "see the list", chromedp.WaitVisible(chromedp.CSS(`[data-testid="topic-change-note"]`)))
	if n := Get(t, vctx, "count forms", chromedp.Evaluate[int](`document.querySelectorAll('[data-testid="topic-save-form"]').length`)); n != 0 {
		t.Errorf("a viewer sees %d topic forms", n)
	}
	Do(t, vctx, "sign out", chromedp.Click(chromedp.CSS(`form[action="/logout"] button`)), chromedp.WaitVisible(chromedp.CSS(`[data-testid="login-form"]`)))
	closeV()

	ctx, closeTab := newTab(t, browser)
	defer closeTab()
	ready := chromedp.Poll[chromedp.Void](`window.htmx !== undefined && document.readyState === "complete"`, chromedp.WithPollingTimeout(10*time.Second))
	Do(t, ctx, "open the topics as an operator", chromedp.Navigate(con.URL+"/topics"))
	signIn(t, ctx, "otto", e2ePassword)
	Do(t, ctx, "see the create form", chromedp.WaitVisible(chromedp.CSS(`[data-testid="topic-save-form"]`)), ready)
	if n := Get(t, ctx, "count broker boxes", chromedp.Evaluate[int](`document.querySelectorAll('[data-testid="f-broker"]:checked').length`)); n != len(cl.Brokers) {
		t.Errorf("%d brokers ticked, want every broker (%d)", n, len(cl.Brokers))
	}
	submitSave := func(what string) {
		Get(t, ctx, "mark the form", chromedp.Evaluate[bool](`document.querySelector('#topic-save').dataset.old = "1"; true`))
		// A click by script: a pointer click lands where the button was when it was measured,
		// and a page still settling can move it.
		Do(t, ctx, what,
			chromedp.Evaluate[chromedp.Void](`document.querySelector('[data-testid="topic-save-button"]').click()`),
			chromedp.Poll[chromedp.Void](`!document.querySelector('#topic-save').dataset.old`, chromedp.WithPollingTimeout(30*time.Second)))
	}
	// The browser's own min check would stop the form; the console must refuse it too.
	Get(t, ctx, "lift the browser's check", chromedp.Evaluate[bool](`document.querySelector('[data-testid="f-readQueueNums"]').removeAttribute("min"); true`))
	Do(t, ctx, "fill a queue count of 0",
		chromedp.SetValue(chromedp.CSS(`[data-testid="f-topic"]`), topic),
		chromedp.SetValue(chromedp.CSS(`[data-testid="f-readQueueNums"]`), "0"),
		chromedp.SetValue(chromedp.CSS(`[data-testid="f-writeQueueNums"]`), "2"))
	submitSave("create with 0 read queues")
	if msg := Get(t, ctx, "read the field error", chromedp.Text(chromedp.CSS(`[data-testid="err-readQueueNums"]`))); !strings.Contains(msg, "between 1 and 1024") {
		t.Errorf("0 read queues: %q", msg)
	}
	Screenshot(t, ctx, "topic-create-refused")
	if v := Get(t, ctx, "the name kept", chromedp.Value(chromedp.CSS(`[data-testid="f-topic"]`))); v != topic {
		t.Errorf("the form kept the name %q, want %s", v, topic)
	}
	if res := pageFetch(t, ctx, "GET", "/api/v1/topics/"+topic, ""); res.Status != http.StatusNotFound {
		t.Fatalf("the refused topic exists: %d %s", res.Status, res.Body)
	}
	Do(t, ctx, "fix the count", chromedp.SetValue(chromedp.CSS(`[data-testid="f-readQueueNums"]`), "2"))
	submitSave("create the topic")
	if st := Get(t, ctx, "read the outcome", chromedp.Text(chromedp.CSS(`[data-testid="change-status"]`))); st != "applied" {
		t.Fatalf("create outcome %q: %s", st, Get(t, ctx, "result", chromedp.Text(chromedp.CSS(`#topic-save`))))
	}
	mqadminRouteIs(t, cl, topic, everyBroker(cl, dev.RouteQueues{Read: 2, Write: 2, Perm: 6}))

	// The create form again with the name it now has: refused next to the name, with a
	// link to the topic's page, and the topic keeps its 2 write queues.
	Do(t, ctx, "open the create form again", chromedp.Navigate(con.URL+"/topics"), chromedp.WaitVisible(chromedp.CSS(`[data-testid="topic-save-form"]`)), ready)
	Do(t, ctx, "fill the existing name with 4 write queues",
		chromedp.SetValue(chromedp.CSS(`[data-testid="f-topic"]`), topic),
		chromedp.SetValue(chromedp.CSS(`[data-testid="f-readQueueNums"]`), "2"),
		chromedp.SetValue(chromedp.CSS(`[data-testid="f-writeQueueNums"]`), "4"))
	submitSave("create the existing topic")
	if msg := Get(t, ctx, "read the name's error", chromedp.Text(chromedp.CSS(`[data-testid="err-topic"]`))); !strings.Contains(msg, "exists already") {
		t.Errorf("create of the existing topic: %q", msg)
	}
	if href := Get(t, ctx, "read the link to the topic", chromedp.Evaluate[string](
		`document.querySelector('[data-testid="topic-exists-link"]').getAttribute('href')`)); href != "/topics/"+topic {
		t.Errorf("the link to change the topic is %q", href)
	}
	Screenshot(t, ctx, "topic-create-exists")
	mqadminRouteIs(t, cl, topic, everyBroker(cl, dev.RouteQueues{Read: 2, Write: 2, Perm: 6}))

	// Its page: write queues raised to 4, the rest as it is.
	Do(t, ctx, "open the topic's page", chromedp.Navigate(con.URL+"/topics/"+topic), chromedp.WaitVisible(chromedp.CSS(`[data-testid="topic-save-form"]`)), ready)
	if v := Get(t, ctx, "read queues shown", chromedp.Value(chromedp.CSS(`[data-testid="f-readQueueNums"]`))); v != "2" {
		t.Errorf("the update form shows %s read queues, want 2", v)
	}
	Do(t, ctx, "raise the write queues", chromedp.SetValue(chromedp.CSS(`[data-testid="f-writeQueueNums"]`), "4"))
	submitSave("update the topic")
	if st := Get(t, ctx, "read the outcome", chromedp.Text(chromedp.CSS(`[data-testid="change-status"]`))); st != "applied" {
		t.Fatalf("update outcome %q", st)
	}
	Screenshot(t, ctx, "topic-updated")
	mqadminRouteIs(t, cl, topic, everyBroker(cl, dev.RouteQueues{Read: 2, Write: 4, Perm: 6}))

	submitDelete := func(confirm string) {
		Get(t, ctx, "mark the form", chromedp.Evaluate[bool](`document.querySelector('#topic-delete').dataset.old = "1"; true`))
		Do(t, ctx, "delete, confirming with "+confirm,
			chromedp.SetValue(chromedp.CSS(`[data-testid="f-confirm"]`), confirm),
			chromedp.Click(chromedp.CSS(`[data-testid="topic-delete-button"]`)))
	}
	submitDelete(topic + "-typo")
	Do(t, ctx, "see the refusal", chromedp.Poll[chromedp.Void](`!!document.querySelector('#topic-delete') && !document.querySelector('#topic-delete').dataset.old`, chromedp.WithPollingTimeout(30*time.Second)))
	if msg := Get(t, ctx, "read the confirm error", chromedp.Text(chromedp.CSS(`[data-testid="err-confirm"]`))); !strings.Contains(msg, "nothing was deleted") {
		t.Errorf("a mistyped confirmation: %q", msg)
	}
	submitDelete(topic)
	waitLocation(t, ctx, con.URL+"/audit/")
	Do(t, ctx, "see the entry", chromedp.WaitVisible(chromedp.CSS(`[data-testid="entry-rows"]`)))
	rows := Get(t, ctx, "read the rows", chromedp.Evaluate[string](`Array.from(document.querySelectorAll('[data-testid="entry-row"]')).map(r => r.dataset.broker + ":" + r.querySelector('[data-testid="row-outcome"]').textContent.trim()).join(",")`))
	var want []string
	for _, b := range cl.Brokers {
		want = append(want, b.Name+":done")
	}
	if rows != strings.Join(want, ",") || !strings.Contains(Get(t, ctx, "mode", chromedp.Text(chromedp.CSS(`[data-testid="entry-mode"]`))), "Topic deleted") {
		t.Errorf("the delete's entry shows rows %q, want %q", rows, strings.Join(want, ","))
	}
	Screenshot(t, ctx, "topic-delete-entry")
	mqadminRouteIs(t, cl, topic, nil)
}
