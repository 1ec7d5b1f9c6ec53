package handlers

import (
	"log/slog"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/gin-gonic/gin"

	"rmqconsole/auth"
	"rmqconsole/lookup"
	"rmqconsole/masking"
)

// A viewer's live tail shows each message masked as the message pages do, and says so.
func TestAViewersTailShowsMessagesMasked(t *testing.T) {
	gin.SetMode(gin.ReleaseMode)
	p, err := masking.New(masking.Config{Rules: []masking.RuleConfig{{Topic: "ord*", Patterns: []string{`\d+`}}}})
	if err != nil {
		t.Fatal(err)
	}
	r := newEngine()
	r.Use(func(c *gin.Context) { c.Set(RoleKey, auth.Viewer) })
	hub := lookup.NewTailHub(burstTail, lookup.TailOptions{Window: time.Hour})
	h := &Messages{Env: &Env{Log: slog.New(slog.DiscardHandler)}, Tails: hub, Heavy: NewHeavyGate(1), Masking: p}
	r.GET("/ws/topics/:topic/tail", h.TailWS)
	srv := httptest.NewServer(r)
	defer srv.Close()

	conn := dialTail(t, srv, "/ws/topics/orders/tail")
	defer conn.Close()
	for {
		var f map[string]any
		if err := conn.ReadJSON(&f); err != nil {
			t.Fatal(err)
		}
		if f["type"] != "message" {
			continue
		}
		if f["body"] != "order-"+masking.Marker || f["masked"] != true {
			t.Fatalf("a viewer's tail frame shows body %q, masked %v", f["body"], f["masked"])
		}
		return
	}
}
