package server

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"rmqconsole/handlers"
)

// newLoggedApp is newAuthApp with the console's log kept for the test to read.
func newLoggedApp(t *testing.T, flags ...string) (*App, *syncWriter) {
	t.Helper()
	logBuf := &syncWriter{w: &bytes.Buffer{}}
	args := append([]string{"--listen", "127.0.0.1:0", "--data-dir", t.TempDir()}, flags...)
	cfg, err := ParseConfig(args, noEnv, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	a, err := New(context.Background(), cfg, slog.New(slog.NewTextHandler(logBuf, &slog.HandlerOptions{Level: slog.LevelDebug})))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(a.Close)
	return a, logBuf
}

// A SQLite failure behind the audit pages is the console's own failure: 500 internal,
// logged with the operation, and never a 502 blaming a broker that was not asked.
func TestAuditStoreFailureIsInternalNotBroker(t *testing.T) {
	a, logBuf := newLoggedApp(t)
	if _, err := a.store.SQL().Exec(`ALTER TABLE audit_entries RENAME TO audit_entries_gone`); err != nil {
		t.Fatal(err)
	}
	rec := httptest.NewRecorder()
	a.Handler().ServeHTTP(rec, newRequest(http.MethodGet, "/audit", nil))
	body := rec.Body.String()
	if i := strings.Index(body, "</nav>"); i >= 0 {
		body = body[i:] // the navigation links to Brokers on every page
	}
	if rec.Code != http.StatusInternalServerError || strings.Contains(strings.ToLower(body), "broker") || !strings.Contains(body, "RocketMQ was not involved") {
		t.Fatalf("GET /audit with a broken database: %d %.400s, want 500 saying the console failed", rec.Code, body)
	}
	for _, p := range []string{"/api/v1/audit", "/api/v1/audit/1"} {
		rec = httptest.NewRecorder()
		a.Handler().ServeHTTP(rec, newRequest(http.MethodGet, p, nil))
		var e handlers.APIError
		if err := json.Unmarshal(rec.Body.Bytes(), &e); err != nil || rec.Code != http.StatusInternalServerError || e.Code != "internal" {
			t.Fatalf("GET %s with a broken database: %d %s, want 500 internal", p, rec.Code, rec.Body)
		}
	}
	if log := logBuf.String(); !strings.Contains(log, `op="GET /api/v1/audit/:id"`) || !strings.Contains(log, "no such table") {
		t.Fatalf("the failure is not logged with its operation:\n%s", log)
	}
}

// syncWriter lets the log be written by request goroutines and read by the test.
type syncWriter struct {
	mu sync.Mutex
	w  *bytes.Buffer
}

// String is what was logged so far.
func (s *syncWriter) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.w.String()
}

func (s *syncWriter) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.w.Write(p)
}
