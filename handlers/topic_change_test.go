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
	"rmqconsole/fault"
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
	r.PUT("/api/v1/topics/:topic", h.UpdateAPI)
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
	f := &fakeChanges{err: fault.InvalidField("confirm", "topics.input.confirm.wrong", "Typed", `"order"`, "Topic", "orders").Because("bad_confirm")}
	r := changeRouter(f)
	rec := postForm(r, "/topics/orders/delete", url.Values{"confirm": {"order"}}, true)
	doc, _ := goquery.NewDocumentFromReader(rec.Body)
	if rec.Code != http.StatusOK || f.deletes[0].Confirm != "order" || !strings.Contains(doc.Find(`[data-testid="err-confirm"]`).Text(), "nothing was deleted") {
		t.Fatalf("delete refusal: %d %q", rec.Code, doc.Find(`[data-testid="err-confirm"]`).Text())
	}
	f.err = fault.InvalidField("readQueueNums", "topics.input.queues.readQueueNums", "N", 0, "Max", 1024).Because("bad_readQueueNums")
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

func sendJSON(r http.Handler, method, path, body string) *httptest.ResponseRecorder {
	req := httptest.NewRequest(method, path, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	w := httptest.NewRecorder()
	r.ServeHTTP(w, req)
	return w
}

// The create form and POST /api/v1/topics only create: a topic that exists is a 409
// saying so next to the name, with a link to the topic's page, whose form updates it.
// Only the topic page's form and PUT /api/v1/topics/{topic} ask for an update.
func TestTopicCreateOfAnExistingTopicIsAConflictWithTheWayToChangeIt(t *testing.T) {
	f := &fakeChanges{err: topics.Exists("orders")}
	r := changeRouter(f)
	v := url.Values{"topic": {"orders"}, "readQueueNums": {"8"}, "writeQueueNums": {"4"}, "perm": {"6"},
		"orig_perm": {"6"}, "orig_writeQueueNums": {"8"}} // a create form sent what an update form sends
	for _, htmx := range []bool{false, true} {
		rec := postForm(r, "/topics", v, htmx)
		doc, _ := goquery.NewDocumentFromReader(rec.Body)
		want := http.StatusConflict
		if htmx {
			want = http.StatusOK // htmx swaps 2xx only
		}
		if rec.Code != want || !strings.Contains(doc.Find(`[data-testid="err-topic"]`).Text(), "exists already") {
			t.Fatalf("htmx %v: %d, topic error %q", htmx, rec.Code, doc.Find(`[data-testid="err-topic"]`).Text())
		}
		if href, _ := doc.Find(`[data-testid="topic-exists-link"]`).Attr("href"); href != "/topics/orders" {
			t.Errorf("htmx %v: link to the topic %q", htmx, href)
		}
		if val, _ := doc.Find(`[data-testid="f-writeQueueNums"]`).Attr("value"); val != "4" {
			t.Errorf("htmx %v: the form lost what was typed: %q", htmx, val)
		}
	}
	if got := f.saves[0]; got.Update || got.WriteQueueNums == nil || *got.WriteQueueNums != 4 || got.ReadQueueNums == nil {
		t.Fatalf("the create form asked %+v, want a create with every field", got)
	}

	w := sendJSON(r, http.MethodPost, "/api/v1/topics", `{"topic":"orders","writeQueueNums":4}`)
	var e struct {
		Error, Code, Topic, Edit, Update string
	}
	if err := json.Unmarshal(w.Body.Bytes(), &e); err != nil || w.Code != http.StatusConflict || e.Code != "topic_exists" || e.Topic != "orders" ||
		e.Edit != "/topics/orders" || e.Update != "/api/v1/topics/orders" || !strings.Contains(e.Error, "PUT /api/v1/topics/orders") {
		t.Fatalf("API create of an existing topic: %d %s", w.Code, w.Body)
	}
	if f.saves[len(f.saves)-1].Update {
		t.Fatal("POST /api/v1/topics asked for an update")
	}

	f.err = nil
	postForm(r, "/topics/orders", url.Values{"writeQueueNums": {"4"}, "orig_writeQueueNums": {"8"}, "orig_perm": {"6"}}, true)
	if got := f.saves[len(f.saves)-1]; !got.Update || got.Topic != "orders" {
		t.Fatalf("the topic page's form asked %+v, want an update of orders", got)
	}
	if w := sendJSON(r, http.MethodPut, "/api/v1/topics/orders", `{"writeQueueNums":4}`); w.Code != http.StatusOK {
		t.Fatalf("PUT: %d %s", w.Code, w.Body)
	}
	if got := f.saves[len(f.saves)-1]; !got.Update || got.Topic != "orders" || *got.WriteQueueNums != 4 {
		t.Fatalf("PUT asked %+v, want an update of orders", got)
	}
	n := len(f.saves)
	w = sendJSON(r, http.MethodPut, "/api/v1/topics/orders", `{"topic":"billing","writeQueueNums":4}`)
	if w.Code != http.StatusBadRequest || !strings.Contains(w.Body.String(), `"bad_topic"`) || len(f.saves) != n {
		t.Fatalf("PUT naming another topic in its body: %d %s, %d saves", w.Code, w.Body, len(f.saves)-n)
	}
	f.err = topics.NotFound("orders")
	if w := sendJSON(r, http.MethodPut, "/api/v1/topics/orders", `{"writeQueueNums":4}`); w.Code != http.StatusNotFound || !strings.Contains(w.Body.String(), `"topic_not_found"`) {
		t.Fatalf("PUT of a topic that does not exist: %d %s", w.Code, w.Body)
	}
}
