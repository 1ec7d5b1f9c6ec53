package handlers

import (
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gin-gonic/gin"

	"rmqconsole/alerts"
	"rmqconsole/store"
)

// The rules API, which any viewer may read, shows where a rule notifies but not the
// webhook's secret path and query, as the page and the audit log do not.
func TestAlertRulesAPIHidesTheWebhookSecret(t *testing.T) {
	st, err := store.Open(context.Background(), filepath.Join(t.TempDir(), "console.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	svc := alerts.NewService(st, alerts.Options{})
	const secret = "T000/B000/XXXXSECRET"
	if _, err := svc.Create(t.Context(), alerts.Who{Actor: "olga"}, alerts.RuleInput{Group: "order-*", Threshold: 10,
		WebhookURL: "https://hooks.slack.com/services/" + secret, Format: alerts.FormatSlack}); err != nil {
		t.Fatal(err)
	}
	gin.SetMode(gin.TestMode)
	r := newEngine()
	h := &Alerts{Env: &Env{Log: slog.New(slog.DiscardHandler)}, Rules: svc}
	r.GET("/api/v1/alert-rules", h.List)
	r.POST("/api/v1/alert-rules", h.CreateAPI)
	rec := httptest.NewRecorder()
	r.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/api/v1/alert-rules", nil))
	if rec.Code != 200 || !strings.Contains(rec.Body.String(), `"webhookUrl":"https://hooks.slack.com/…"`) {
		t.Errorf("list: %d %s, want the webhook as https://hooks.slack.com/…", rec.Code, rec.Body)
	}
	rec = httptest.NewRecorder()
	req := httptest.NewRequest(http.MethodPost, "/api/v1/alert-rules", strings.NewReader(
		`{"group":"billing","threshold":5,"webhookUrl":"https://oapi.dingtalk.com/robot/send?access_token=`+secret+`","format":"dingtalk"}`))
	req.Header.Set("Content-Type", "application/json")
	r.ServeHTTP(rec, req)
	if rec.Code != http.StatusCreated || strings.Contains(rec.Body.String(), secret) {
		t.Errorf("create: %d %s, want 201 without the token", rec.Code, rec.Body)
	}
}
