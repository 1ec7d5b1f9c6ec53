package server

import (
	"bytes"
	"context"
	"encoding/csv"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"rmqconsole/auth"
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
		Reason: `=HYPERLINK("http://x","y")`, Error: "+1 refused", Topics: []string{"orders"}})
	rec := httptest.NewRecorder()
	a.Handler().ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/audit/export?format=csv", nil))
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
	req := httptest.NewRequest(http.MethodPost, path, strings.NewReader(body))
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
		es[0].Reason != "skip backlog" || !strings.Contains(es[0].Error, "may not reset consumer offsets") {
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
		if size := len(e.Reason) + len(e.Params) + len(e.Error) + len(e.Group); size > 2<<10 ||
			len([]rune(e.Reason)) > resets.RefusalTextMax || strings.Contains(string(e.Params), huge[:1000]) {
			t.Fatalf("a refusal stores %d bytes (reason %d characters, params %s)", size, len([]rune(e.Reason)), e.Params[:min(len(e.Params), 200)])
		}
	}
	// Another actor has a window of their own.
	if es := auditEntries(t, a, store.AuditFilter{Actor: "vera"}); len(es) != 1 {
		t.Fatalf("vera's refusal: %d entries", len(es))
	}
	a.resets.Close() // ends the window now instead of in a minute
	es = auditEntries(t, a, store.AuditFilter{Actor: "vic"})
	want := fmt.Sprintf("and %d more refusals by vic in the last minute", n-resets.RefusalsPerWindow)
	if len(es) != resets.RefusalsPerWindow+1 || !strings.Contains(es[0].Error, want) || es[0].Group != "billing" {
		t.Fatalf("after the window: %d entries, newest %+v; want one more saying %q", len(es), es[0], want)
	}
	if rep, err := a.store.Audit().Verify(context.Background()); err != nil || !rep.Intact {
		t.Fatalf("chain: %+v %v", rep, err)
	}
}
