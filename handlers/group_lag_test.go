package handlers

import (
	"context"
	"log/slog"
	"testing"
	"time"

	"github.com/gin-gonic/gin"

	"rmqconsole/store"
)

// fakeLag records the range it was asked for.
type fakeLag struct{ since, until time.Time }

func (f *fakeLag) LagSamples(_ context.Context, _ string, since, until time.Time) ([]store.LagSample, error) {
	f.since, f.until = since, until
	return nil, nil
}

func (f *fakeLag) RecentLag(context.Context, []string, time.Time) (map[string][]store.LagSample, error) {
	return nil, nil
}

// The lag history takes since and until as RFC 3339 or epoch milliseconds, and refuses
// anything else, or an empty range, with a 400 naming the parameter before the store is
// read.
func TestLagHistoryAPIRange(t *testing.T) {
	gin.SetMode(gin.TestMode)
	f := &fakeLag{}
	r := &groupRouter{Engine: newEngine()}
	r.GET("/api/v1/groups/:group/lag-history", (&GroupLagHistory{Env: &Env{Log: slog.New(slog.DiscardHandler)}, History: f}).API)

	rec := r.get(t, "/api/v1/groups/orders/lag-history?since=1700000000000&until=2023-11-14T23:13:20Z")
	if rec.Code != 200 {
		t.Fatalf("a valid range: %d %s", rec.Code, rec.Body)
	}
	if want := time.UnixMilli(1_700_000_000_000); !f.since.Equal(want) || !f.until.Equal(want.Add(time.Hour)) {
		t.Errorf("read %s – %s, want %s – %s", f.since, f.until, want, want.Add(time.Hour))
	}
	for _, c := range []struct{ query, code string }{
		{"since=yesterday", "bad_since"},
		{"until=soon", "bad_until"},
		{"since=1700000000000&until=1700000000000", "bad_range"},
	} {
		f.since = time.Time{}
		rec := r.get(t, "/api/v1/groups/orders/lag-history?"+c.query)
		if rec.Code != 400 || apiError(t, rec).Code != c.code || !f.since.IsZero() {
			t.Errorf("%s: %d %s (store read: %v), want 400 %s and no read", c.query, rec.Code, rec.Body, !f.since.IsZero(), c.code)
		}
	}
}
