package handlers

import (
	"context"
	"log/slog"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/gin-gonic/gin"

	"rmqconsole/auth"
	"rmqconsole/fault"
	"rmqconsole/resets"
	"rmqconsole/rocketmq"
	"rmqconsole/store"
)

// fakeSeveral plans two groups, one refused as a system group, and applies the other.
type fakeSeveral struct{ asked []resets.SeveralRequest }

func (f *fakeSeveral) PlanSeveral(_ context.Context, r resets.SeveralRequest) (*resets.SeveralPlan, error) {
	f.asked = append(f.asked, r)
	req := r.Request
	req.Group, req.Topic = "g", r.Topic
	p := &resets.Plan{ID: "p1", Request: req, Topics: []string{r.Topic}, At: rsNow, Queues: []resets.QueuePlan{{
		QueueState: resets.QueueState{Queue: rocketmq.MessageQueue{Topic: r.Topic, BrokerName: "b", QueueID: 0}, Current: 5, Max: 9}, Target: 0}}}
	return &resets.SeveralPlan{ID: "s1", Request: r, At: rsNow, Groups: []resets.GroupPlan{
		{Group: "CID_RMQ_SYS_x", Err: fault.InvalidField("group", "resets.input.system_group", "Group", "CID_RMQ_SYS_x")},
		{Group: "g", Plan: p}}}, nil
}

func (f *fakeSeveral) ApplySeveral(_ context.Context, c resets.SeveralConfirmation) (*resets.SeveralResult, error) {
	if c.PlanID != "s1" || !c.Confirmed {
		return nil, fault.List{{Code: fault.Invalid, Field: "confirm", Msg: fault.New(fault.Invalid, "resets.input.confirm").Msg}}
	}
	after := int64(0)
	entry := &store.AuditEntry{ID: 7, StartedAt: rsNow, FinishedAt: rsNow, Group: "g", Topics: []string{"orders"}, Mode: "earliest",
		Params: []byte(`{}`), Status: store.AuditApplied, Result: []store.AuditQueue{{Topic: "orders", BrokerName: "b", Before: 5, Target: 0, After: &after}}}
	sum := &store.AuditEntry{ID: 8, StartedAt: rsNow, FinishedAt: rsNow, Topics: []string{"orders"}, Mode: resets.ModeSeveral,
		Params: []byte(`{"groups":[{"group":"CID_RMQ_SYS_x","status":"refused","error":"system"},{"group":"g","auditId":7,"status":"applied"}]}`),
		Status: store.AuditPartial}
	return &resets.SeveralResult{Summary: sum, Groups: []resets.GroupOutcome{
		{Group: "CID_RMQ_SYS_x", Err: fault.InvalidField("group", "resets.input.system_group", "Group", "CID_RMQ_SYS_x")},
		{Group: "g", Entry: entry}}}, nil
}

func (f *fakeSeveral) ExpiresAt(p *resets.Plan) time.Time { return p.At.Add(time.Minute) }

// The API of several groups reads the topic, the pattern and the mode's fields, answers
// each group's preview or refusal, and applies with one confirmation.
func TestSeveralResetsAPI(t *testing.T) {
	gin.SetMode(gin.ReleaseMode)
	r := newEngine()
	r.Use(func(c *gin.Context) { c.Set(RoleKey, auth.Operator) })
	f := &fakeSeveral{}
	h := &SeveralResets{Env: &Env{Log: slog.New(slog.DiscardHandler)}, Service: f, Now: func() time.Time { return rsNow }}
	r.POST("/api/v1/resets/preview", h.PreviewAPI)
	r.POST("/api/v1/resets", h.ApplyAPI)
	r.POST("/topics/:topic/resets/preview", h.Preview)
	r.POST("/topics/:topic/resets/apply", h.Apply)

	w := rsDo(t, r, "POST", "/api/v1/resets/preview", "application/json", `{"topic":"orders","groupPattern":"*","mode":"earliest"}`)
	if w.Code != http.StatusOK || len(f.asked) != 1 || f.asked[0].GroupPattern != "*" || f.asked[0].Request.Mode != resets.ModeEarliest ||
		!strings.Contains(w.Body.String(), `"groupsToReset":1`) || !strings.Contains(w.Body.String(), `"groupsRefused":1`) {
		t.Fatalf("%d %s asked %+v", w.Code, w.Body.String(), f.asked)
	}
	for _, bad := range []string{`{"topic":"orders","groupPattern":"*","mode":"undo"}`, `{"topic":"orders","mode":"earliest","groups":["g"],"shift":"x"}`} {
		if w := rsDo(t, r, "POST", "/api/v1/resets/preview", "application/json", bad); w.Code != http.StatusBadRequest {
			t.Errorf("%s: %d %s, want 400", bad, w.Code, w.Body.String())
		}
	}
	w = rsDo(t, r, "POST", "/api/v1/resets", "application/json", `{"planId":"s1","confirm":true}`)
	if w.Code != http.StatusOK || !strings.Contains(w.Body.String(), `"auditId":7`) || !strings.Contains(w.Body.String(), `"status":"partial"`) {
		t.Errorf("apply: %d %s", w.Code, w.Body.String())
	}
	if w := rsDo(t, r, "POST", "/api/v1/resets", "application/json", `{"planId":"s1"}`); w.Code != http.StatusBadRequest {
		t.Errorf("apply without confirm: %d %s", w.Code, w.Body.String())
	}

	// The page: one confirmation naming how many groups and queues move, the refused
	// group named; then each group's outcome and the summary.
	w = rsDo(t, r, "POST", "/topics/orders/resets/preview", "application/x-www-form-urlencoded", "groupPattern=*&mode=earliest")
	doc := rsDoc(t, w)
	if btn := doc.Find(`[data-testid="several-apply"]`).Text(); w.Code != http.StatusOK || !strings.Contains(btn, "Reset 1 group(s) of topic orders") ||
		!strings.Contains(btn, "1 queue(s) move") || !strings.Contains(doc.Find(`[data-testid="several-refused"]`).Text(), "CID_RMQ_SYS_x") {
		t.Errorf("preview page %d: button %q, refused %q", w.Code, btn, doc.Find(`[data-testid="several-refused"]`).Text())
	}
	// Bad input: the form again (422), each mistake under its field and announced, as
	// every form of the console says it.
	w = rsDo(t, r, "POST", "/topics/orders/resets/preview", "application/x-www-form-urlencoded", "groups=g&mode=shift&shift=x")
	doc = rsDoc(t, w)
	if e := doc.Find(`#err-shift[role="alert"]`); w.Code != http.StatusUnprocessableEntity || e.Length() != 1 || e.Text() == "" {
		t.Errorf("bad shift: %d, field error %q (%d announced)", w.Code, doc.Find(`[data-testid="err-shift"]`).Text(), e.Length())
	}
	w = rsDo(t, r, "POST", "/topics/orders/resets/apply", "application/x-www-form-urlencoded", "planId=s1&confirm=1")
	doc = rsDoc(t, w)
	if w.Code != http.StatusOK || doc.Find(`[data-testid="several-summary"]`).AttrOr("href", "") != "/audit/8" ||
		doc.Find(`tr[data-group="g"] a`).AttrOr("href", "") != "/audit/7" {
		t.Errorf("result page %d: %s", w.Code, doc.Find("main").Text())
	}
}
