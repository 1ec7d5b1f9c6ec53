package server

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"

	"rmqconsole/auth"
	"rmqconsole/i18n"
	"rmqconsole/resets"
	"rmqconsole/store"
)

// recordEntry appends a finished audit entry straight to the app's log.
func recordEntry(t *testing.T, a *App, e *store.AuditEntry) *store.AuditEntry {
	t.Helper()
	if e.Status == "" {
		e.Status = store.AuditRefused
	}
	if err := a.store.Audit().Record(context.Background(), e); err != nil {
		t.Fatal(err)
	}
	return e
}

// The audit export goes through the same defusing CSV writer as the messages export: a
// reason typed as a formula opens in a spreadsheet as text, not as a live link.
func TestAuditCSVExportDefusesFormulas(t *testing.T) {
	a := newAuthApp(t)
	recordEntry(t, a, &store.AuditEntry{Actor: "@vic", Group: "billing", Mode: "latest",
		Reason: `=HYPERLINK("http://x","y")`, Error: i18n.PlainText("+1 refused"), Topics: []string{"orders"}})
	rec := httptest.NewRecorder()
	a.Handler().ServeHTTP(rec, newRequest(http.MethodGet, "/audit/export?format=csv", nil))
	rows, err := csv.NewReader(bytes.NewReader(rec.Body.Bytes())).ReadAll()
	if err != nil || rec.Code != http.StatusOK || len(rows) != 2 {
		t.Fatalf("audit CSV export: %d %v, %d rows: %s", rec.Code, err, len(rows), rec.Body)
	}
	col := map[string]string{}
	for i, name := range rows[0] {
		col[name] = rows[1][i]
	}
	if col["reason"] != `'=HYPERLINK("http://x","y")` || col["actor"] != "'@vic" || col["error"] != "'+1 refused" {
		t.Fatalf("reason %q, actor %q, error %q: want each behind an apostrophe", col["reason"], col["actor"], col["error"])
	}
	if col["duration_ms"] != "0" || col["group"] != "billing" {
		t.Fatalf("plain cells changed: duration_ms %q, group %q", col["duration_ms"], col["group"])
	}
}

// postAs sends a POST as the signed-in user name (no cookie: anonymous).
func postAs(t *testing.T, a *App, name, path, contentType, body string) *httptest.ResponseRecorder {
	t.Helper()
	req := newRequest(http.MethodPost, path, strings.NewReader(body))
	req.Header.Set("Content-Type", contentType)
	if name != "" {
		req.AddCookie(sessionCookie(t, a, name))
	}
	rec := httptest.NewRecorder()
	a.Handler().ServeHTTP(rec, req)
	return rec
}

func auditEntries(t *testing.T, a *App, f store.AuditFilter) []store.AuditEntry {
	t.Helper()
	es, _, err := a.store.Audit().List(context.Background(), f)
	if err != nil {
		t.Fatal(err)
	}
	return es
}

// The audit log records what was attempted against the cluster and what was denied: a
// mistyped preview or a missing confirm box changed nothing and attempted nothing, so it
// is not an entry; an apply refused for the caller's role is.
func TestFormMistakesAreNotAuditEvents(t *testing.T) {
	a := newAuthApp(t, "--namesrv", "127.0.0.1:1")
	addUsers(t, a, roleUsers)
	const form = "application/x-www-form-urlencoded"
	for _, tc := range []struct {
		path, ctype, body string
		want              int
	}{
		{"/groups/billing/reset/preview", form, "topic=orders&mode=timestamp&timestamp=2026-11-29T10:00&tz=Mars/Olympus", http.StatusUnprocessableEntity},
		{"/groups/billing/reset/preview", form, "topic=orders&mode=sideways", http.StatusUnprocessableEntity},
		{"/groups/billing/reset/apply", form, "topic=orders&mode=latest&planId=p1", http.StatusUnprocessableEntity},
		{"/api/v1/groups/billing/reset-preview", "application/json", `{"mode":"shift","shift":"ten"}`, http.StatusBadRequest},
		{"/api/v1/groups/billing/resets", "application/json", `{"topic":"orders","mode":"latest","planId":"p1"}`, http.StatusBadRequest},
	} {
		if rec := postAs(t, a, "otto", tc.path, tc.ctype, tc.body); rec.Code != tc.want {
			t.Fatalf("POST %s %s: %d, want %d: %.300s", tc.path, tc.body, rec.Code, tc.want, rec.Body)
		}
	}
	if es := auditEntries(t, a, store.AuditFilter{}); len(es) != 0 {
		t.Fatalf("form mistakes were written to the audit log: %d entries, first %+v", len(es), es[0])
	}
	// A viewer's preview changes nothing either; a viewer's apply is a denied attempt.
	if rec := postAs(t, a, "vera", "/api/v1/groups/billing/reset-preview", "application/json", `{"topic":"orders","mode":"latest"}`); rec.Code != http.StatusForbidden {
		t.Fatalf("viewer preview: %d", rec.Code)
	}
	if rec := postAs(t, a, "vera", "/groups/billing/reset/apply", form, "topic=orders&mode=latest&reason=skip+backlog"); rec.Code != http.StatusForbidden {
		t.Fatalf("viewer apply: %d", rec.Code)
	}
	es := auditEntries(t, a, store.AuditFilter{})
	if len(es) != 1 || es[0].Status != store.AuditRefused || es[0].Actor != "vera" || es[0].Mode != "latest" ||
		es[0].Reason != "skip backlog" || !strings.Contains(es[0].Error.String(), "may not reset consumer offsets") {
		t.Fatalf("want one refused apply by vera, got %+v", es)
	}
}

// A viewer cannot fill the disk through refusals: each stores a few bounded fields (never
// the raw body), and past resets.RefusalsPerWindow in a window the rest of one actor's
// refusals are counted in one entry.
func TestRefusalsAreBoundedAndCountedPerActor(t *testing.T) {
	a := newAuthApp(t, "--namesrv", "127.0.0.1:1")
	addUsers(t, a, map[string]auth.Role{"vic": auth.Viewer, "vera": auth.Viewer})
	huge := strings.Repeat("x", 60<<10)
	body := `{"topic":"orders","mode":"latest","reason":"` + huge + `","brokerName":"` + strings.Repeat("b", 2000) + `"}`
	const n = 30
	for range n {
		if rec := postAs(t, a, "vic", "/api/v1/groups/billing/resets", "application/json", body); rec.Code != http.StatusForbidden {
			t.Fatalf("viewer apply: %d %.200s", rec.Code, rec.Body)
		}
	}
	if rec := postAs(t, a, "vera", "/api/v1/groups/billing/resets", "application/json", body); rec.Code != http.StatusForbidden {
		t.Fatalf("viewer apply: %d", rec.Code)
	}
	es := auditEntries(t, a, store.AuditFilter{Actor: "vic"})
	if len(es) != resets.RefusalsPerWindow {
		t.Fatalf("%d of vic's %d refusals recorded one by one, want %d", len(es), n, resets.RefusalsPerWindow)
	}
	for _, e := range es {
		if size := len(e.Reason) + len(e.Params) + len(e.Error.String()) + len(e.Group); size > 2<<10 ||
			len([]rune(e.Reason)) > resets.RefusalTextMax || strings.Contains(string(e.Params), huge[:1000]) {
			t.Fatalf("a refusal stores %d bytes (reason %d characters, params %s)", size, len([]rune(e.Reason)), e.Params[:min(len(e.Params), 200)])
		}
	}
	// Another actor has a window of their own.
	if es := auditEntries(t, a, store.AuditFilter{Actor: "vera"}); len(es) != 1 {
		t.Fatalf("vera's refusal: %d entries", len(es))
	}
	a.def.svc.resets.Close() // ends the window now instead of in a minute
	es = auditEntries(t, a, store.AuditFilter{Actor: "vic"})
	want := fmt.Sprintf("and %d more refusals by vic in the last minute", n-resets.RefusalsPerWindow)
	if len(es) != resets.RefusalsPerWindow+1 || !strings.Contains(es[0].Error.String(), want) || es[0].Group != "billing" {
		t.Fatalf("after the window: %d entries, newest %+v; want one more saying %q", len(es), es[0], want)
	}
	if rep, err := a.store.Audit().Verify(context.Background()); err != nil || !rep.Intact {
		t.Fatalf("chain: %+v %v", rep, err)
	}
}

func getPage(t *testing.T, a *App, path string) (*httptest.ResponseRecorder, *goquery.Document) {
	t.Helper()
	rec := httptest.NewRecorder()
	a.Handler().ServeHTTP(rec, newRequest(http.MethodGet, path, nil))
	doc, err := goquery.NewDocumentFromReader(bytes.NewReader(rec.Body.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	return rec, doc
}

// Refusals are marked apart from what reached the cluster, say why in the list, and can
// be hidden, on the page, in its exports and in the API.
func TestAuditListShowsRefusalsApartAndCanHideThem(t *testing.T) {
	a := newAuthApp(t)
	applied := recordEntry(t, a, &store.AuditEntry{Actor: "otto", Group: "billing", Mode: "latest", Status: store.AuditApplied})
	refused := recordEntry(t, a, &store.AuditEntry{Actor: "vera", Group: "billing", Mode: "latest",
		Error: i18n.PlainText("Refused at apply: Your role, viewer, may not reset consumer offsets.")})
	_, doc := getPage(t, a, "/audit")
	row := doc.Find(fmt.Sprintf(`tr[data-entry="%d"]`, refused.ID))
	if !row.HasClass("refused") || !strings.Contains(row.Find(`[data-testid="entry-refusal"]`).Text(), "may not reset") ||
		row.Find(".status-refused").Length() != 1 {
		t.Fatalf("refused row not marked apart: %s", row.Text())
	}
	if r := doc.Find(fmt.Sprintf(`tr[data-entry="%d"]`, applied.ID)); r.HasClass("refused") || r.Find(".status-ok").Length() != 1 {
		t.Fatalf("applied row: %s", r.Text())
	}
	rec, doc := getPage(t, a, "/audit?hideRefused=1")
	if rec.Code != http.StatusOK || doc.Find("tr[data-entry]").Length() != 1 || doc.Find(fmt.Sprintf(`tr[data-entry="%d"]`, applied.ID)).Length() != 1 {
		t.Fatalf("hiding refusals: %d, %d rows", rec.Code, doc.Find("tr[data-entry]").Length())
	}
	if _, ok := doc.Find(`[data-testid="af-hide-refused"]`).Attr("checked"); !ok {
		t.Fatal("the box is not ticked on the filtered page")
	}
	if href, _ := doc.Find(`[data-testid="export-csv"]`).Attr("href"); !strings.Contains(href, "hideRefused=1") {
		t.Fatalf("export link %q does not keep the filter", href)
	}
	rec = httptest.NewRecorder()
	a.Handler().ServeHTTP(rec, newRequest(http.MethodGet, "/api/v1/audit?hideRefused=true", nil))
	var list struct{ Entries []struct{ ID int64 } }
	if err := json.Unmarshal(rec.Body.Bytes(), &list); err != nil || len(list.Entries) != 1 || list.Entries[0].ID != applied.ID {
		t.Fatalf("API hiding refusals: %d %s", rec.Code, rec.Body)
	}
	if rec, _ := getPage(t, a, "/audit?hideRefused=maybe"); rec.Code != http.StatusUnprocessableEntity || !strings.Contains(rec.Body.String(), "hideRefused is true or false") {
		t.Fatalf("bad hideRefused: %d", rec.Code)
	}
}

// The detail page lists what was asked as fields, says "nothing was changed" once, and an
// id that is not one is told what is wrong with it.
func TestAuditEntryPageReadsAsFields(t *testing.T) {
	a := newAuthApp(t)
	e := recordEntry(t, a, &store.AuditEntry{Actor: "otto", Group: "billing", Mode: "timestamp", Topics: []string{"orders"},
		Params: json.RawMessage(`{"topic":"orders","mode":"timestamp","timestampMs":1795946400000,"timeZone":"Europe/Paris"}`),
		Error:  i18n.PlainText("Refused at apply: Offsets moved since the preview, so nothing was changed: queue broker-a/0 of orders moved back from 5 to 2. Check the fresh preview, then apply it.")})
	rec, doc := getPage(t, a, fmt.Sprintf("/audit/%d", e.ID))
	params := doc.Find(`[data-testid="entry-params"]`)
	if rec.Code != http.StatusOK || params.Find(`dd[data-param="topic"]`).Text() != "orders" ||
		params.Find(`dd[data-param="timestampMs"]`).Text() != "1795946400000" || params.Find(`dd[data-param="timeZone"]`).Text() != "Europe/Paris" ||
		strings.Contains(params.Text(), "{") {
		t.Fatalf("parameters shown as %q", params.Text())
	}
	if n := strings.Count(strings.ToLower(doc.Find("main").Text()), "nothing was changed"); n != 1 {
		t.Fatalf(`the page says "nothing was changed" %d times`, n)
	}
	for id, want := range map[string]string{
		"0":                      "entry ids start at 1",
		"-3":                     "entry ids start at 1",
		"abc":                    "whole number such as 42",
		"99999999999999999999":   "larger than any entry id",
		strings.Repeat("9x", 99): "whole number",
	} {
		rec, doc := getPage(t, a, "/audit/"+id)
		msg := doc.Find("main").Text()
		if rec.Code != http.StatusNotFound || !strings.Contains(msg, want) || strings.Contains(msg, "ids are numbers") || strings.Contains(msg, strings.Repeat("9x", 30)) {
			t.Errorf("/audit/%.20s: %d %q, want 404 saying %q", id, rec.Code, strings.TrimSpace(msg), want)
		}
	}
}

// A missing confirm box is said once on the reset page.
func TestResetPageSaysNothingWasChangedOnce(t *testing.T) {
	a := newAuthApp(t, "--namesrv", "127.0.0.1:1")
	addUsers(t, a, roleUsers)
	rec := postAs(t, a, "otto", "/groups/billing/reset/apply", "application/x-www-form-urlencoded", "topic=orders&mode=latest&planId=p1")
	doc, _ := goquery.NewDocumentFromReader(bytes.NewReader(rec.Body.Bytes()))
	if n := strings.Count(strings.ToLower(doc.Find("main").Text()), "nothing was changed"); rec.Code != http.StatusUnprocessableEntity || n != 1 {
		t.Fatalf(`apply without the box: %d, "nothing was changed" %d times: %s`, rec.Code, n, doc.Find("main").Text())
	}
}

// A change that is not a reset (a topic updated on two brokers, one of which failed; a
// message resent) reads as what it did: its configuration before and after field by
// field, one row per broker or message with the failure named, and none of a reset's
// preview, plan or queue table.
func TestAuditShowsChangesOtherThanResets(t *testing.T) {
	a := newAuthApp(t)
	upd := recordEntry(t, a, &store.AuditEntry{Actor: "otto", Topics: []string{"orders"}, Mode: "topic-update", Status: store.AuditPartial,
		Params: json.RawMessage(`{"topic":"orders","perm":4,"brokerNames":["broker-a","broker-b"],` +
			`"before":{"broker-a":{"perm":6,"readQueueNums":8},"broker-b":{"perm":6,"readQueueNums":8}},` +
			`"after":{"broker-a":{"perm":4,"readQueueNums":8},"broker-b":{"perm":4,"readQueueNums":8}}}`),
		Result: []store.AuditQueue{{Topic: "orders", BrokerName: "broker-a", BrokerAddr: "10.0.0.1:10911"},
			{Topic: "orders", BrokerName: "broker-b", BrokerAddr: "10.0.0.2:10911", Error: i18n.PlainText("broker-b: i/o timeout")}}})
	resend := recordEntry(t, a, &store.AuditEntry{Actor: "otto", Group: "billing", Topics: []string{"%DLQ%billing"}, Mode: "message-resend",
		Status: store.AuditApplied, Params: json.RawMessage(`{"msgId":"7F000001"}`),
		Result: []store.AuditQueue{{Topic: "orders", BrokerName: "broker-a", QueueID: 3, Before: -1, Target: 1200, Note: i18n.PlainText("msgId 7F000001")}}})
	reset := recordEntry(t, a, &store.AuditEntry{Actor: "otto", Group: "billing", Mode: "latest", Status: store.AuditApplied, Topics: []string{"orders"},
		Result: []store.AuditQueue{{Topic: "orders", BrokerName: "broker-a"}, {Topic: "orders", BrokerName: "broker-a", QueueID: 1}}})

	_, doc := getPage(t, a, "/audit")
	for id, want := range map[int64]string{upd.ID: "2 brokers", resend.ID: "1 message", reset.ID: "2 queues"} {
		if got := strings.TrimSpace(doc.Find(fmt.Sprintf(`tr[data-entry="%d"] [data-testid="entry-changed"]`, id)).Text()); got != want {
			t.Errorf("entry %d changed %q, want %q", id, got, want)
		}
	}

	rec, doc := getPage(t, a, fmt.Sprintf("/audit/%d", upd.ID))
	main := doc.Find("main")
	if rec.Code != http.StatusOK || !strings.Contains(main.Find(`[data-testid="entry-text"]`).Text(), "1 of 2 brokers failed") ||
		!strings.Contains(main.Find(`[data-testid="entry-mode"]`).Text(), "Topic updated") {
		t.Fatalf("update entry: %d %q", rec.Code, main.Find(`[data-testid="entry-text"]`).Text())
	}
	perm := main.Find(`[data-testid="entry-config"] tr[data-field="broker-a · perm"]`)
	if !perm.HasClass("changed") || perm.Find(`[data-testid="cfg-before"]`).Text() != "6" || !strings.HasPrefix(perm.Find(`[data-testid="cfg-after"]`).Text(), "4") {
		t.Fatalf("perm of broker-a shown as %q", perm.Text())
	}
	if q := main.Find(`tr[data-field="broker-b · readQueueNums"]`); q.HasClass("changed") || q.Length() != 1 {
		t.Fatalf("an unchanged field is marked changed or missing: %q", q.Text())
	}
	if p := main.Find(`[data-testid="entry-params"]`).Text(); strings.Contains(p, "before") || !strings.Contains(p, "broker-b") {
		t.Fatalf("parameters %q repeat before/after or lose the brokers", p)
	}
	failed := main.Find(`[data-testid="entry-rows"] tr[data-broker="broker-b"] [data-testid="row-outcome"]`)
	if !failed.HasClass("status-bad") || !strings.Contains(failed.Text(), "i/o timeout") ||
		main.Find(`tr[data-broker="broker-a"] .status-ok`).Length() != 1 {
		t.Fatalf("rows: %q", main.Find(`[data-testid="entry-rows"]`).Text())
	}
	if href, _ := main.Find(`[data-testid="entry-topic"]`).Attr("href"); href != "/topics/orders" || main.Find(`[data-testid="row-queue"]`).Length() != 0 ||
		main.Find(`[data-testid="entry-queues"]`).Length() != 0 || strings.Contains(main.Text(), "reset it again") ||
		strings.Contains(main.Text(), "online at preview") || main.Find(`[data-testid="entry-group"]`).Length() != 0 {
		t.Fatalf("a topic change shows a reset's parts (topic link %q)", href)
	}

	_, doc = getPage(t, a, fmt.Sprintf("/audit/%d", resend.ID))
	if main := doc.Find("main"); !strings.Contains(main.Find(`[data-testid="entry-text"]`).Text(), "every message (1)") ||
		main.Find(`[data-testid="entry-group"]`).Length() != 1 || main.Find(`[data-testid="entry-config"]`).Length() != 0 ||
		!strings.Contains(main.Find(`[data-testid="entry-rows"]`).Text(), "msgId 7F000001") ||
		main.Find(`[data-testid="row-queue"]`).Text() != "3" || main.Find(`[data-testid="row-offset"]`).Text() != "1,200" {
		t.Fatalf("resend entry: %q", main.Text())
	}
	_, doc = getPage(t, a, fmt.Sprintf("/audit/%d", reset.ID))
	if doc.Find(`[data-testid="entry-queues"]`).Length() != 1 || doc.Find(`[data-testid="entry-rows"]`).Length() != 0 {
		t.Fatal("a reset entry lost its queue table")
	}
}
