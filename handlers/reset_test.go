package handlers

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"
	"github.com/gin-gonic/gin"

	"rmqconsole/fault"
	"rmqconsole/i18n"
	"rmqconsole/resets"
	"rmqconsole/rocketmq"
	"rmqconsole/store"
)

var rsNow = time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)

// rsFake stands in for the reset service: the handlers' job is to read input, pick the
// status and render what the service answers; the service is tested on its own and
// against the real broker.
type rsFake struct {
	plan  func(resets.Request) (*resets.Plan, error)
	apply func(resets.Confirmation) (*store.AuditEntry, error)
	// refused are the applies whose input was refused and handed over for the record.
	refused []resets.Asked
}

func (f *rsFake) Snapshot(ctx context.Context, group, topic string) (*resets.Snapshot, error) {
	return &resets.Snapshot{Group: group, Topics: []string{"orders"}, OnlineKnown: true}, nil
}
func (f *rsFake) Plan(ctx context.Context, req resets.Request) (*resets.Plan, error) {
	return f.plan(req)
}
func (f *rsFake) Preview(id string) (*resets.Plan, bool) { return nil, false }
func (f *rsFake) ExpiresAt(p *resets.Plan) time.Time     { return p.At.Add(15 * time.Minute) }
func (f *rsFake) Apply(ctx context.Context, c resets.Confirmation) (*store.AuditEntry, error) {
	return f.apply(c)
}
func (f *rsFake) RefuseInput(ctx context.Context, who resets.Who, group string, asked resets.Asked, errs error) *store.AuditEntry {
	f.refused = append(f.refused, asked)
	return nil
}

func rsPlan(req resets.Request) *resets.Plan {
	q := resets.QueuePlan{QueueState: resets.QueueState{Queue: rocketmq.MessageQueue{Topic: "orders", BrokerName: "broker-a", QueueID: 0},
		Addr: "10.0.0.1:10911", Current: 120, Max: 130}, Target: 0}
	return &resets.Plan{ID: "fresh-plan", Hash: "abc", Request: req, Topics: []string{"orders"}, Queues: []resets.QueuePlan{q}, At: rsNow,
		Warnings: []i18n.Message{i18n.Plain("No client of group g is online.")}}
}

func rsRouter(f ResetService, audit AuditReader) *gin.Engine {
	gin.SetMode(gin.ReleaseMode)
	r := newEngine()
	env := &Env{Log: slog.New(slog.DiscardHandler)}
	h := &Resets{Env: env, Service: f, Now: func() time.Time { return rsNow }}
	r.GET("/groups/:group/reset", h.Form)
	r.POST("/groups/:group/reset/preview", h.Preview)
	r.POST("/groups/:group/reset/apply", h.Apply)
	r.POST("/api/v1/groups/:group/reset-preview", h.PreviewAPI)
	r.POST("/api/v1/groups/:group/resets", h.ApplyAPI)
	if audit != nil {
		a := &Audit{Env: env, Entries: audit}
		r.GET("/audit", a.List)
		r.GET("/audit/export", a.Export)
		r.GET("/audit/:id", a.Show)
		r.GET("/api/v1/audit", a.ListAPI)
		r.GET("/api/v1/audit/:id", a.ShowAPI)
	}
	return r
}

func rsDo(t *testing.T, h http.Handler, method, target, contentType, body string) *httptest.ResponseRecorder {
	t.Helper()
	req := httptest.NewRequest(method, target, strings.NewReader(body))
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, req)
	return w
}

func rsDoc(t *testing.T, w *httptest.ResponseRecorder) *goquery.Document {
	t.Helper()
	doc, err := goquery.NewDocumentFromReader(bytes.NewReader(w.Body.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	return doc
}

// A stale preview answers 409 with a fresh preview to check, on the page and in the API.
func TestResetApplyConflictShowsFreshPreview(t *testing.T) {
	f := &rsFake{apply: func(c resets.Confirmation) (*store.AuditEntry, error) {
		return nil, &fault.Error{Code: fault.Conflict, Msg: i18n.M("resets.conflict.moved", "Reasons", "queue broker-a/0 of orders moved back from 120 to 100"),
			Err: &resets.Rejected{Fresh: rsPlan(c.Request), EntryID: 7,
				Reasons: []i18n.Message{i18n.M("resets.stale.back", "Broker", "broker-a", "Queue", 0, "Topic", "orders", "From", 120, "To", 100)}}}
	}}
	r := rsRouter(f, nil)
	w := rsDo(t, r, "POST", "/api/v1/groups/g/resets", "application/json", `{"topic":"orders","mode":"earliest","planId":"old","confirm":true}`)
	var body struct {
		Error   string
		Code    string
		AuditID int64 `json:"auditId"`
		Preview *struct {
			PlanID string `json:"planId"`
			Queues []struct {
				TargetOffset int64 `json:"targetOffset"`
				Delta        int64 `json:"delta"`
			} `json:"queues"`
		}
	}
	if err := json.Unmarshal(w.Body.Bytes(), &body); err != nil {
		t.Fatal(err)
	}
	if w.Code != http.StatusConflict || body.Code != "conflict" || body.AuditID != 7 || body.Preview == nil ||
		body.Preview.PlanID != "fresh-plan" || body.Preview.Queues[0].Delta != -120 {
		t.Fatalf("API: %d %s", w.Code, w.Body)
	}

	w = rsDo(t, r, "POST", "/groups/g/reset/apply", "application/x-www-form-urlencoded", "topic=orders&mode=earliest&planId=old&confirm=1")
	doc := rsDoc(t, w)
	if w.Code != http.StatusConflict {
		t.Fatalf("page: %d", w.Code)
	}
	if n := doc.Find(`[data-testid="reset-notice"]`).Text(); !strings.Contains(n, "Offsets moved") || !strings.Contains(n, "audit entry #7") {
		t.Errorf("notice %q", n)
	}
	if b := doc.Find(`[data-testid="apply"]`).Text(); !strings.Contains(b, "Reset queue broker-a/0 of topic orders of group g to the earliest offset") {
		t.Errorf("fresh preview's button %q", b)
	}
	if id, _ := doc.Find(`input[name="planId"]`).Attr("value"); id != "fresh-plan" {
		t.Errorf("apply form posts plan %q, want the fresh one", id)
	}
}

// When the audit log cannot be written the answer says nothing changed (503).
func TestResetApplyWithAuditDownSaysNothingChanged(t *testing.T) {
	f := &rsFake{apply: func(resets.Confirmation) (*store.AuditEntry, error) {
		err := errors.New("attempt to write a readonly database")
		return nil, fault.Wrap(err, fault.Unavailable, "resets.audit_unavailable", "Error", err.Error()).Because("audit_unavailable")
	}}
	r := rsRouter(f, nil)
	w := rsDo(t, r, "POST", "/api/v1/groups/g/resets", "application/json", `{"topic":"orders","mode":"latest","planId":"p","confirm":true}`)
	if w.Code != http.StatusServiceUnavailable || !strings.Contains(w.Body.String(), `"code":"audit_unavailable"`) || !strings.Contains(w.Body.String(), "nothing was changed") {
		t.Fatalf("API: %d %s", w.Code, w.Body)
	}
	w = rsDo(t, r, "POST", "/groups/g/reset/apply", "application/x-www-form-urlencoded", "topic=orders&mode=latest&planId=p&confirm=1&reason=skip+poison")
	doc := rsDoc(t, w)
	if w.Code != http.StatusServiceUnavailable || !strings.Contains(doc.Find(`[data-testid="reset-error"]`).Text(), "nothing was changed") {
		t.Fatalf("page: %d %s", w.Code, doc.Find("main").Text())
	}
	if v, _ := doc.Find(`[data-testid="f-reason"]`).Attr("value"); v != "skip poison" {
		t.Errorf("the form lost the reason: %q", v)
	}
}

// Input the handler cannot read is refused before the service plans, and shown next to
// its field with the rest of the form kept.
func TestResetPreviewRefusesUnreadableInput(t *testing.T) {
	f := &rsFake{plan: func(resets.Request) (*resets.Plan, error) { t.Fatal("planned bad input"); return nil, nil }}
	r := rsRouter(f, nil)
	w := rsDo(t, r, "POST", "/groups/g/reset/preview", "application/x-www-form-urlencoded",
		"topic=orders&mode=timestamp&timestamp=2026-11-29T10:00&tz=Mars/Olympus")
	doc := rsDoc(t, w)
	if w.Code != http.StatusUnprocessableEntity || !strings.Contains(doc.Find(`[data-testid="err-tz"]`).Text(), "Mars/Olympus") {
		t.Fatalf("%d: %s", w.Code, doc.Find("main").Text())
	}
	if v, _ := doc.Find(`[data-testid="f-timestamp"]`).Attr("value"); v != "2026-11-29T10:00" {
		t.Errorf("timestamp not kept: %q", v)
	}
	w = rsDo(t, r, "POST", "/api/v1/groups/g/reset-preview", "application/json", `{"mode":"shift","shift":"ten"}`)
	if w.Code != http.StatusBadRequest || !strings.Contains(w.Body.String(), `"field":"body"`) {
		t.Fatalf("API: %d %s", w.Code, w.Body)
	}
}

// A time typed in a zone means that zone's time; the API takes RFC 3339 and epoch ms.
func TestResetTimeIsReadInItsZone(t *testing.T) {
	var got []time.Time
	f := &rsFake{plan: func(req resets.Request) (*resets.Plan, error) {
		got = append(got, req.Timestamp)
		return rsPlan(req), nil
	}}
	r := rsRouter(f, nil)
	rsDo(t, r, "POST", "/groups/g/reset/preview", "application/x-www-form-urlencoded", "topic=orders&mode=timestamp&timestamp=2026-11-29T11:00:00&tz=Europe/Paris")
	rsDo(t, r, "POST", "/api/v1/groups/g/reset-preview", "application/json", `{"topic":"orders","mode":"timestamp","timestamp":"2026-11-29T10:00:00Z"}`)
	rsDo(t, r, "POST", "/api/v1/groups/g/reset-preview", "application/json", `{"topic":"orders","mode":"timestamp","timestamp":1795946400000}`)
	want := time.Date(2026, 11, 29, 10, 0, 0, 0, time.UTC)
	if len(got) != 3 {
		t.Fatalf("planned %d times", len(got))
	}
	for i, g := range got {
		if !g.Equal(want) {
			t.Errorf("request %d read as %s, want %s", i, g.UTC(), want)
		}
	}
}

// The audit pages: 404 for an unknown entry, bad filters refused, the JSON shape, and a
// CSV export with one row per queue.
func TestAuditPagesAndExports(t *testing.T) {
	st, err := store.Open(context.Background(), filepath.Join(t.TempDir(), "console.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	after := int64(0)
	e := &store.AuditEntry{StartedAt: rsNow, Actor: "alice", ActorAddr: "10.0.0.7", Cluster: "ns:9876", Group: "g",
		Topics: []string{"orders"}, Mode: "earliest", Params: json.RawMessage(`{"mode":"earliest"}`), Reason: "replay",
		Plan:   store.AuditPlan{Hash: "abc", Queues: []store.AuditQueue{{Topic: "orders", BrokerName: "broker-a", QueueID: 0, Before: 120, Target: 0}}},
		Status: store.AuditPending}
	if err := st.Audit().Begin(context.Background(), e); err != nil {
		t.Fatal(err)
	}
	e.Status, e.FinishedAt = store.AuditApplied, rsNow.Add(2*time.Second)
	e.Result = []store.AuditQueue{{Topic: "orders", BrokerName: "broker-a", QueueID: 0, Before: 120, Target: 0, After: &after}}
	if err := st.Audit().Finish(context.Background(), e); err != nil {
		t.Fatal(err)
	}
	r := rsRouter(&rsFake{}, st.Audit())

	if w := rsDo(t, r, "GET", "/audit/42", "", ""); w.Code != http.StatusNotFound {
		t.Errorf("unknown entry: %d", w.Code)
	}
	if w := rsDo(t, r, "GET", "/api/v1/audit?status=deleted", "", ""); w.Code != http.StatusBadRequest {
		t.Errorf("unknown status: %d %s", w.Code, w.Body)
	}
	w := rsDo(t, r, "GET", "/audit?since=yesterday", "", "")
	if doc := rsDoc(t, w); w.Code != http.StatusUnprocessableEntity || doc.Find(`[data-testid="err-since"]`).Text() == "" {
		t.Errorf("bad since: %d", w.Code)
	}
	w = rsDo(t, r, "GET", "/audit?group=g", "", "")
	doc := rsDoc(t, w)
	if w.Code != http.StatusOK || !strings.Contains(doc.Find(`[data-testid="chain"]`).Text(), "Hash chain intact") ||
		doc.Find(`[data-testid="entry-status"]`).Text() != "applied" {
		t.Errorf("list: %d %s", w.Code, doc.Find("main").Text())
	}
	var got map[string]any
	w = rsDo(t, r, "GET", "/api/v1/audit/1", "", "")
	if err := json.Unmarshal(w.Body.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"id", "status", "actor", "actorAddr", "cluster", "group", "topics", "mode", "params", "reason",
		"startedAt", "finishedAt", "durationMs", "queues", "hash", "prevHash", "seq"} {
		if _, ok := got[k]; !ok {
			t.Errorf("entry JSON lacks %q: %s", k, w.Body)
		}
	}
	q := got["queues"].([]any)[0].(map[string]any)
	if q["before"] != 120.0 || q["target"] != 0.0 || q["after"] != 0.0 {
		t.Errorf("queue JSON %v", q)
	}
	w = rsDo(t, r, "GET", "/audit/export?"+url.Values{"format": {"csv"}, "group": {"g"}}.Encode(), "", "")
	rows, err := csv.NewReader(w.Body).ReadAll()
	if err != nil || len(rows) != 2 || rows[0][0] != "id" || !strings.HasPrefix(w.Header().Get("Content-Disposition"), "attachment") {
		t.Fatalf("CSV: %v %q", err, rows)
	}
	if rows[1][4] != "alice" || rows[1][14] != "orders" || rows[1][17] != "120" || rows[1][19] != "0" {
		t.Errorf("CSV row %q", rows[1])
	}
}
