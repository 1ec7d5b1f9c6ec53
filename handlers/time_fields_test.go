package handlers

import (
	"context"
	"log/slog"
	"net/http"
	"path/filepath"
	"testing"
	"time"

	"github.com/gin-gonic/gin"

	"rmqconsole/store"
)

// Every time a form or the API takes is read by one reader (parseTimeInput): the lag
// history and rebalance APIs, the audit filters and a reset's timestamp all take the
// console's zone-less format and a date alone, and all refuse a number too small to be
// epoch milliseconds (epoch seconds, which would otherwise be read as a day in 1970).
func TestEveryTimeFieldReadsTheSameForms(t *testing.T) {
	gin.SetMode(gin.TestMode)
	env := &Env{Log: slog.New(slog.DiscardHandler)}
	want := time.UnixMilli(1_700_000_000_000) // 2023-11-14 22:13:20 UTC

	lag := &fakeLag{}
	r := &groupRouter{Engine: newEngine()}
	r.GET("/api/v1/groups/:group/lag-history", (&GroupLagHistory{Env: env, History: lag}).API)
	if rec := r.get(t, "/api/v1/groups/orders/lag-history?since=2023-11-14+22:13:20"); rec.Code != http.StatusOK || !lag.since.Equal(want) {
		t.Errorf("lag history since 2023-11-14 22:13:20: %d %s, read from %s", rec.Code, rec.Body, lag.since)
	}
	if rec := r.get(t, "/api/v1/groups/orders/lag-history?since=1700000000"); rec.Code != http.StatusBadRequest || apiError(t, rec).Code != "bad_since" {
		t.Errorf("lag history since epoch seconds: %d %s, want 400 bad_since", rec.Code, rec.Body)
	}

	st, err := store.Open(context.Background(), filepath.Join(t.TempDir(), "console.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	ar := rsRouter(&rsFake{}, st.Audit())
	if w := rsDo(t, ar, "GET", "/api/v1/audit?since=2023-11-14", "", ""); w.Code != http.StatusOK {
		t.Errorf("audit since a date: %d %s", w.Code, w.Body)
	}
	if w := rsDo(t, ar, "GET", "/api/v1/audit?since=1700000000", "", ""); w.Code != http.StatusBadRequest {
		t.Errorf("audit since epoch seconds: %d %s, want 400", w.Code, w.Body)
	}

	for _, c := range []struct {
		ts  string
		bad bool
	}{{"2023-11-14 22:13:20", false}, {"2023-11-14", false}, {"1700000000000", false}, {"1700000000", true}} {
		req, errs := resetInput{Topic: "orders", Mode: "timestamp", Timestamp: c.ts}.request("g", want.Add(time.Hour))
		if got := errs.For("timestamp") != nil; got != c.bad {
			t.Errorf("reset timestamp %q: refused %v (%v), want refused %v", c.ts, got, errs, c.bad)
		}
		if !c.bad && !req.Timestamp.Equal(want) && !req.Timestamp.Equal(want.Truncate(24*time.Hour)) {
			t.Errorf("reset timestamp %q read as %s", c.ts, req.Timestamp)
		}
	}
}
