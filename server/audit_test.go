package server

import (
	"bytes"
	"context"
	"encoding/csv"
	"net/http"
	"net/http/httptest"
	"testing"

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
