package handlers

import (
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"
	"github.com/gin-gonic/gin"

	"rmqconsole/auth"
	"rmqconsole/store"
	"rmqconsole/topics"
)

// fakeChanges records what the handlers ask the topics service to change.
type fakeChanges struct {
	saves   []topics.SaveRequest
	deletes []topics.DeleteRequest
	err     error
}

func (f *fakeChanges) Save(_ context.Context, _ topics.Who, r topics.SaveRequest) (*topics.Saved, error) {
	f.saves = append(f.saves, r)
	if f.err != nil {
		return nil, f.err
	}
	return &topics.Saved{Entry: &store.AuditEntry{ID: 7, Mode: topics.ModeUpdate, Status: store.AuditApplied, Topics: []string{r.Topic},
		Result: []store.AuditQueue{{Topic: r.Topic, BrokerName: "broker-a"}}}}, nil
}

func (f *fakeChanges) Delete(_ context.Context, _ topics.Who, r topics.DeleteRequest) (*topics.Saved, error) {
	f.deletes = append(f.deletes, r)
	if f.err != nil {
		return nil, f.err
	}
	return &topics.Saved{Entry: &store.AuditEntry{ID: 8, Mode: topics.ModeDelete, Status: store.AuditApplied}}, nil
}

func (f *fakeChanges) Placement(context.Context) ([]topics.BrokerPlace, error) {
	return []topics.BrokerPlace{{Name: "broker-a", Cluster: "DefaultCluster", Is5: true}, {Name: "broker-b", Cluster: "DefaultCluster"}}, nil
}

func changeRouter(f *fakeChanges) *gin.Engine {
	gin.SetMode(gin.ReleaseMode)
	r := newEngine()
	r.Use(func(c *gin.Context) { c.Set(RoleKey, auth.Operator) })
	h := &Topics{Env: &Env{Log: slog.New(slog.DiscardHandler)}, Changes: f}
	r.POST("/topics", h.SaveForm)
	r.POST("/topics/:topic", h.SaveForm)
	r.POST("/topics/:topic/delete", h.DeleteForm)
	r.POST("/api/v1/topics", h.SaveAPI)
	return r
}

func postForm(r http.Handler, path string, v url.Values, htmx bool) *httptest.ResponseRecorder {
	req := httptest.NewRequest(http.MethodPost, path, strings.NewReader(v.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	if htmx {
		req.Header.Set("HX-Request", "true")
	}
	rec := httptest.NewRecorder()
	r.ServeHTTP(rec, req)
	return rec
}

// The update form sends back what it started from: only the fields the operator changed
// reach the service, so a topic whose brokers differ keeps each broker's other values.
func TestTopicUpdateFormSendsOnlyWhatChanged(t *testing.T) {
	f := &fakeChanges{}
	r := changeRouter(f)
	v := url.Values{"readQueueNums": {"8"}, "writeQueueNums": {"16"}, "perm": {"6"}, "messageType": {"normal"},
		"orig_readQueueNums": {"8"}, "orig_writeQueueNums": {"8"}, "orig_perm": {"6"}, "orig_messageType": {"normal"}, "orig_order": {"false"},
		"brokerNames": {"broker-a", "broker-b"}}
	rec := postForm(r, "/topics/orders", v, true)
	if rec.Code != http.StatusOK || len(f.saves) != 1 {
		t.Fatalf("update: %d, %d saves", rec.Code, len(f.saves))
	}
	got := f.saves[0]
	if got.Topic != "orders" || got.WriteQueueNums == nil || *got.WriteQueueNums != 16 || got.ReadQueueNums != nil || got.Perm != nil ||
		got.Order != nil || got.MessageType != "" || strings.Join(got.BrokerNames, ",") != "broker-a,broker-b" {
		t.Fatalf("update asked %+v, want only 16 write queues on both brokers", got)
	}
	doc, _ := goquery.NewDocumentFromReader(rec.Body)
	if st := doc.Find(`[data-testid="change-status"]`).Text(); st != "applied" {
		t.Fatalf("outcome %q", st)
	}
	if o, _ := doc.Find(`input[name="orig_writeQueueNums"]`).Attr("value"); o != "16" {
		t.Fatalf("the form starts again from %q write queues, want the saved 16", o)
	}

	// The create form sends every field, and a count that is not a number is said next
	// to its field without asking the service.
	v = url.Values{"topic": {"new-topic"}, "readQueueNums": {"four"}, "writeQueueNums": {"4"}, "perm": {"6"}}
	rec = postForm(r, "/topics", v, false)
	doc, _ = goquery.NewDocumentFromReader(rec.Body)
	if rec.Code != http.StatusUnprocessableEntity || len(f.saves) != 1 || !strings.Contains(doc.Find(`[data-testid="err-readQueueNums"]`).Text(), "whole number") {
		t.Fatalf("bad count: %d, %d saves, %q", rec.Code, len(f.saves), doc.Find(`[data-testid="err-readQueueNums"]`).Text())
	}
	if val, _ := doc.Find(`[data-testid="f-topic"]`).Attr("value"); val != "new-topic" {
		t.Fatalf("the form lost the name: %q", val)
	}
}

// What the service refuses comes back as a 400 with the field's code in the API, and
// next to the field in the delete form.
func TestTopicChangeRefusalsAnswered(t *testing.T) {
	f := &fakeChanges{err: &topics.InputError{Field: "confirm", Message: "The name typed to confirm is not orders: nothing was deleted."}}
	r := changeRouter(f)
	rec := postForm(r, "/topics/orders/delete", url.Values{"confirm": {"order"}}, true)
	doc, _ := goquery.NewDocumentFromReader(rec.Body)
	if rec.Code != http.StatusOK || f.deletes[0].Confirm != "order" || !strings.Contains(doc.Find(`[data-testid="err-confirm"]`).Text(), "nothing was deleted") {
		t.Fatalf("delete refusal: %d %q", rec.Code, doc.Find(`[data-testid="err-confirm"]`).Text())
	}
	f.err = &topics.InputError{Field: "readQueueNums", Message: "0 read queues: a topic has between 1 and 1024 queues per broker."}
	req := httptest.NewRequest(http.MethodPost, "/api/v1/topics", strings.NewReader(`{"topic":"orders","readQueueNums":0}`))
	req.Header.Set("Content-Type", "application/json")
	w := httptest.NewRecorder()
	r.ServeHTTP(w, req)
	var e APIError
	if err := json.Unmarshal(w.Body.Bytes(), &e); err != nil || w.Code != http.StatusBadRequest || e.Code != "bad_readQueueNums" || !strings.Contains(e.Error, "between 1 and 1024") {
		t.Fatalf("API refusal: %d %s", w.Code, w.Body)
	}
	if got := f.saves[0]; got.ReadQueueNums == nil || *got.ReadQueueNums != 0 {
		t.Fatalf("API asked %+v", got)
	}
}
