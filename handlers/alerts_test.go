package handlers

import (
	"context"
	"github.com/PuerkitoBio/goquery"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gin-gonic/gin"

	"rmqconsole/alerts"
	"rmqconsole/auth"
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

// A rule refused for bad input, a rule that does not exist and an id that is none are
// said in the reader's language: on the form next to the field, in the API with the
// code it always answered and the field it concerns.
func TestAlertRuleRefusalsSayWhyAndWhere(t *testing.T) {
	st, err := store.Open(context.Background(), filepath.Join(t.TempDir(), "console.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	gin.SetMode(gin.TestMode)
	r := gin.New()
	r.Use(Localize, func(c *gin.Context) { c.Set(RoleKey, auth.Operator) })
	h := &Alerts{Env: &Env{Log: slog.New(slog.DiscardHandler)}, Rules: alerts.NewService(st, alerts.Options{})}
	r.GET("/alerts", h.Show)
	r.POST("/alerts", h.Create)
	r.POST("/api/v1/alert-rules", h.CreateAPI)
	r.DELETE("/api/v1/alert-rules/:id", h.DeleteAPI)
	call := func(method, target, ctype, body string) *httptest.ResponseRecorder {
		rec := httptest.NewRecorder()
		req := httptest.NewRequest(method, target, strings.NewReader(body))
		req.Header.Set("Content-Type", ctype)
		req.Header.Set("Accept-Language", "zh-CN")
		r.ServeHTTP(rec, req)
		return rec
	}

	rec := call(http.MethodPost, "/api/v1/alert-rules", "application/json", `{"group":"billing","threshold":5,"webhookUrl":"ftp://hooks.example/x"}`)
	if e := apiError(t, rec); rec.Code != http.StatusBadRequest || e.Code != "bad_request" || e.Kind != "invalid" || e.Field != "webhookUrl" || !strings.Contains(e.Error, "http") {
		t.Errorf("bad webhook in the API: %d %+v", rec.Code, e)
	}
	rec = call(http.MethodDelete, "/api/v1/alert-rules/41", "", "")
	if e := apiError(t, rec); rec.Code != http.StatusNotFound || e.Code != "alert_rule_not_found" || !strings.Contains(e.Error, "告警规则 41") {
		t.Errorf("deleting a rule that does not exist: %d %+v", rec.Code, e)
	}
	rec = call(http.MethodDelete, "/api/v1/alert-rules/x1", "", "")
	if e := apiError(t, rec); rec.Code != http.StatusBadRequest || e.Code != "bad_id" || e.Field != "id" {
		t.Errorf("an id that is none: %d %+v", rec.Code, e)
	}

	for fields, form := range map[string]string{
		"threshold":                "group=billing&threshold=many&webhookUrl=https://hooks.example/x",
		"webhookUrl":               "group=billing&threshold=5&webhookUrl=ftp://hooks.example/x",
		"group threshold for":      "group=bad+name!&threshold=-5&for=soon&webhookUrl=https://hooks.example/x",
		"threshold for webhookUrl": "group=billing&threshold=&for=-1m&webhookUrl=not+a+url",
	} {
		rec = call(http.MethodPost, "/alerts", "application/x-www-form-urlencoded", form)
		page := doc(t, rec)
		var marked, said []string
		page.Find(`[data-testid="rule-form"] input[aria-invalid="true"]`).Each(func(_ int, in *goquery.Selection) {
			name, _ := in.Attr("name")
			marked = append(marked, name)
			s := strings.TrimSpace(page.Find(`[data-testid="err-` + name + `"]`).Text())
			if s == "" || englishRun.MatchString(rocketMQNames.ReplaceAllString(s, "·")) {
				t.Errorf("form with a bad %s: field %s says %q, want a Chinese sentence beside it", fields, name, s)
			}
			said = append(said, s)
		})
		if rec.Code != http.StatusUnprocessableEntity || strings.Join(marked, " ") != fields {
			t.Errorf("form with a bad %s: %d, fields marked %v (%q): want every one marked, each with its sentence", fields, rec.Code, marked, said)
		}
	}
	// The API names every mistake in one answer.
	rec = call(http.MethodPost, "/api/v1/alert-rules", "application/json", `{"group":"bad name!","threshold":-5,"for":"soon","webhookUrl":"ftp://x"}`)
	e := apiError(t, rec)
	if rec.Code != http.StatusBadRequest || e.Kind != "invalid" || e.Field != "group" ||
		!strings.Contains(e.Error, "bad name!") || !strings.Contains(e.Error, "-5") || !strings.Contains(e.Error, "soon") || !strings.Contains(e.Error, "http") {
		t.Errorf("a rule with four mistakes in the API: %d %+v, want one 400 naming all four", rec.Code, e)
	}
}

// A delivery links to its subject's page: a broker's by its rule, or, once the rule is
// deleted, by the kind of subject its JSON body named; a deleted rule's Slack text,
// which names none, links to the group's page as before.
func TestADeletedRulesDeliveryLinksByItsSubjectsKind(t *testing.T) {
	r := store.AlertRule{ID: 1, Metric: alerts.MetricDiskFull}
	rules := map[int64]store.AlertRule{1: r}
	body := string(alerts.Body(r, store.AlertState{Group: "broker-a"}, "firing", time.Now(), "", ""))
	for _, c := range []struct {
		d    store.AlertDelivery
		want string
	}{
		{store.AlertDelivery{RuleID: 1, Group: "broker-a", Body: body}, "/brokers/broker-a"},
		{store.AlertDelivery{RuleID: 2, Group: "broker-a", Body: body}, "/brokers/broker-a"},
		{store.AlertDelivery{RuleID: 2, Group: "orders", Body: `{"text":"[FIRING] …"}`}, "/groups/orders"},
	} {
		if got := alertDeliveryURL(rules, c.d); got != c.want {
			t.Errorf("delivery of rule %d about %s links %q, want %q", c.d.RuleID, c.d.Group, got, c.want)
		}
	}
}

// The rule form offers every metric alerts knows, each once, said in words: the groups'
// in the list, the brokers' and NameServers' grouped apart. The API's shape of a rule
// names them all too.
func TestTheRuleFormOffersEveryMetric(t *testing.T) {
	st, err := store.Open(context.Background(), filepath.Join(t.TempDir(), "console.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	gin.SetMode(gin.TestMode)
	r := newEngine()
	r.Use(func(c *gin.Context) { c.Set(RoleKey, auth.Operator) })
	h := &Alerts{Env: &Env{Log: slog.New(slog.DiscardHandler)}, Rules: alerts.NewService(st, alerts.Options{})}
	r.GET("/alerts", h.Show)
	rec := httptest.NewRecorder()
	r.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/alerts", nil))
	doc, err := goquery.NewDocumentFromReader(rec.Body)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range alerts.Metrics {
		o := doc.Find(`select[name="metric"] option[value="` + m + `"]`)
		inGroup := o.ParentsFiltered("optgroup").Length() == 1
		if o.Length() != 1 || strings.Contains(o.Text(), "alerts.") || inGroup != (alerts.Target(m) != alerts.TargetGroup) {
			t.Errorf("metric %s: %d options %q, grouped apart %v", m, o.Length(), o.Text(), inGroup)
		}
		if !strings.Contains(alertRuleShape, `"`+m+`"`) {
			t.Errorf("the rule's shape leaves out %s", m)
		}
	}
	if n := doc.Find(`select[name="metric"] option`).Length(); n != len(alerts.Metrics) {
		t.Errorf("%d options, want %d", n, len(alerts.Metrics))
	}
}
