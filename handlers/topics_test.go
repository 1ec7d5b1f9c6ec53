package handlers

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gin-gonic/gin"

	"rmqconsole/cluster"
	"rmqconsole/topics"
)

// A fake behind TopicReader: what the real cluster answers is tested in package topics
// and server; here the handlers' statuses, shapes and words.
type fakeTopics struct {
	mu     sync.Mutex
	list   *topics.List
	detail map[string]*topics.Detail
	calls  int
}

func (f *fakeTopics) List(context.Context, bool, bool) (*topics.List, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls++
	return f.list, nil
}

func (f *fakeTopics) Detail(_ context.Context, q topics.DetailQuery) (*topics.Detail, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls++
	if d, ok := f.detail[q.Topic]; ok {
		return d, nil
	}
	return nil, topics.NotFound(q.Topic)
}

func f64(v float64) *float64 { return &v }

func topicsRouter(f *fakeTopics) *gin.Engine {
	gin.SetMode(gin.ReleaseMode)
	r := newEngine()
	h := &Topics{Env: &Env{Log: slog.New(slog.DiscardHandler)}}
	if f != nil {
		h.Topics = f
	}
	r.GET("/topics", h.List)
	r.GET("/topics/:topic", h.Show)
	r.GET("/api/v1/topics", h.ListAPI)
	r.GET("/api/v1/topics/:topic", h.ShowAPI)
	return r
}

func sampleTopics() *fakeTopics {
	now := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	fail := cluster.BrokerFailure{Broker: "broker-b", Addr: "10.0.0.2:10911", Op: "topic stats", Err: errors.New("i/o timeout")}
	return &fakeTopics{
		list: &topics.List{CheckedAt: now, Failures: []cluster.BrokerFailure{fail}, Topics: []topics.Summary{
			{Topic: "orders", Type: topics.TypeFIFO, ReadQueues: 8, WriteQueues: 8, Perm: 6, Brokers: []string{"broker-a", "broker-b"}, PutTPS: f64(12.5), Messages: 1200, StatsFrom: 1},
			{Topic: "payments", Type: topics.TypeNormal, ReadQueues: 4, WriteQueues: 4, Perm: 6, Brokers: []string{"broker-a"}, PutTPS: f64(1), Messages: 90000, StatsFrom: 1},
			{Topic: "%RETRY%billing", Type: topics.TypeNormal, ReadQueues: 1, WriteQueues: 1, Perm: 6, Brokers: []string{"broker-a"}, System: true, StatsFrom: 1},
		}},
		detail: map[string]*topics.Detail{"orders": {Topic: "orders", Type: topics.TypeFIFO, CheckedAt: now, Messages: 1200, StatsFrom: 1, GroupsFrom: 1,
			Route:     []topics.BrokerRoute{{Broker: "broker-a", Master: "10.0.0.1:10911", ReadQueues: 4, WriteQueues: 4, Perm: 6}},
			Queues:    []topics.Queue{{Broker: "broker-a", QueueID: 0, MinOffset: 0, MaxOffset: 1200, LastUpdate: now.UnixMilli()}},
			Groups:    []topics.GroupLag{{Group: "billing", Lag: 42}},
			Producers: topics.Producers{Listed: true, Groups: []topics.ProducerGroup{{Group: "order-service", Connections: []topics.ProducerConnection{{ClientID: "10.1.1.1@77", ClientAddr: "10.1.1.1:5555", Language: "JAVA", VersionName: "5.3.3", Brokers: []string{"broker-a"}}}}}},
			Failures:  []cluster.BrokerFailure{fail},
		}, "refused": {Topic: "refused", Type: topics.TypeNormal, CheckedAt: now,
			Route: []topics.BrokerRoute{{Broker: "broker-a", Master: "10.0.0.1:10911", ReadQueues: 4, WriteQueues: 4, Perm: 6}},
			Failures: []cluster.BrokerFailure{
				{Broker: "broker-a", Addr: "10.0.0.1:10911", Op: "topic stats", Err: errors.New("no permission")},
				{Broker: "broker-a", Addr: "10.0.0.1:10911", Op: "consumer groups", Err: errors.New("no permission")}},
		}},
	}
}

// A topic whose every broker refused its stats and its groups (a user without rights,
// brokers down) reads as unknown there, not as 0 messages and no consumer group.
func TestTopicPageSaysUnknownWhereNoBrokerAnswered(t *testing.T) {
	r := topicsRouter(sampleTopics())
	doc := msgDoc(t, msgGet(t, r, "/topics/refused"))
	if got := doc.Find(`[data-testid="topic-stored"]`).Text(); got != "unknown" {
		t.Errorf("stored messages %q, want unknown", got)
	}
	if doc.Find(`[data-testid="topic-groups-unlisted"]`).Length() != 1 || doc.Find(`[data-testid="topic-groups-empty"]`).Length() != 0 {
		t.Errorf("groups section: %s", doc.Find(`[data-testid="topic-groups"]`).Text())
	}
	doc = msgDoc(t, msgGet(t, r, "/topics/orders"))
	if got := doc.Find(`[data-testid="topic-stored"]`).Text(); got != "1,200" {
		t.Errorf("stored messages %q on a topic whose broker answered", got)
	}
	var j TopicDetailJSON
	if err := json.Unmarshal(msgGet(t, r, "/api/v1/topics/refused").Body.Bytes(), &j); err != nil || j.StatsFrom != 0 || j.GroupsFrom != 0 || len(j.Errors) != 2 {
		t.Errorf("API: %+v %v", j, err)
	}
}

// The list API keeps the fields it always had, adds the figures, hides system topics
// unless asked, filters and sorts, and names the broker that failed.
func TestTopicsListAPI(t *testing.T) {
	r := topicsRouter(sampleTopics())
	rec := msgGet(t, r, "/api/v1/topics")
	var j struct {
		Topics []map[string]any `json:"topics"`
		Errors []BrokerErrorJSON
	}
	if err := json.Unmarshal(rec.Body.Bytes(), &j); err != nil || rec.Code != http.StatusOK {
		t.Fatalf("%d %v %s", rec.Code, err, rec.Body.String())
	}
	if len(j.Topics) != 2 {
		t.Fatalf("system topic listed without asking: %v", j.Topics)
	}
	for _, k := range []string{"topic", "readQueues", "writeQueues", "brokers", "system", "type", "perm", "putTps", "messages"} {
		if _, ok := j.Topics[0][k]; !ok {
			t.Errorf("field %s missing: %v", k, j.Topics[0])
		}
	}
	if len(j.Errors) != 1 || j.Errors[0].Broker != "broker-b" || !strings.Contains(j.Errors[0].Error, "timeout") {
		t.Errorf("errors %+v", j.Errors)
	}
	rec = msgGet(t, r, "/api/v1/topics?sort=messages&desc=1&system=1")
	json.Unmarshal(rec.Body.Bytes(), &j)
	if len(j.Topics) != 3 || j.Topics[0]["topic"] != "payments" {
		t.Errorf("sorted by messages: %v", j.Topics)
	}
	rec = msgGet(t, r, "/api/v1/topics?type=fifo&q=ORD")
	json.Unmarshal(rec.Body.Bytes(), &j)
	if len(j.Topics) != 1 || j.Topics[0]["topic"] != "orders" {
		t.Errorf("filtered: %v", j.Topics)
	}
}

// Bad input is a 4xx sentence and reaches no broker; an unknown topic is a 404.
func TestTopicsBadInput(t *testing.T) {
	f := sampleTopics()
	r := topicsRouter(f)
	for _, tc := range []struct {
		path   string
		status int
		words  string
	}{
		{"/api/v1/topics?sort=size", 400, "Cannot sort by"},
		{"/api/v1/topics?type=urgent", 400, "not a message type"},
		{"/api/v1/topics?system=maybe", 400, "system must be"},
		{"/api/v1/topics/bad%20name", 400, "not a topic name"},
		{"/topics/bad%20name", 400, "not a topic name"},
		{"/api/v1/topics/orders?producerGroup=a%20b", 400, "not a producer group name"},
		{"/topics?sort=size", 422, "Cannot sort by"},
	} {
		before := f.calls
		rec := msgGet(t, r, tc.path)
		if rec.Code != tc.status || !strings.Contains(rec.Body.String(), tc.words) {
			t.Errorf("%s: %d %.300s", tc.path, rec.Code, rec.Body.String())
		}
		if f.calls != before && tc.status == 400 {
			t.Errorf("%s reached the service", tc.path)
		}
	}
	rec := msgGet(t, r, "/api/v1/topics/nosuch")
	if rec.Code != http.StatusNotFound || !strings.Contains(rec.Body.String(), "topic_not_found") {
		t.Errorf("unknown topic API: %d %s", rec.Code, rec.Body.String())
	}
	rec = msgGet(t, r, "/topics/nosuch")
	if rec.Code != http.StatusNotFound || !strings.Contains(rec.Body.String(), "does not exist") {
		t.Errorf("unknown topic page: %d", rec.Code)
	}
}

// The pages: rows link to the topic, its brokers and messages; the topic page shows
// route, queues, groups (linked) and producers, and names the failing broker.
func TestTopicsPages(t *testing.T) {
	r := topicsRouter(sampleTopics())
	doc := msgDoc(t, msgGet(t, r, "/topics"))
	if n := doc.Find(`[data-testid="topics-table"] tbody tr`).Length(); n != 2 {
		t.Errorf("%d rows", n)
	}
	row := doc.Find(`tr[data-topic="orders"]`)
	if row.Find(`a[href="/topics/orders"]`).Length() != 1 || row.Find(`a[href="/brokers/broker-b"]`).Length() != 1 ||
		row.Find(`a[href^="/messages?tab=range&topic=orders"]`).Length() != 1 {
		t.Errorf("row links: %s", row.Text())
	}
	if got := row.Find(`[data-testid="topic-type"]`).Text(); got != "FIFO" {
		t.Errorf("type %q", got)
	}
	if !strings.Contains(row.Find(`[data-testid="topic-messages"]`).Text(), "partial") {
		t.Errorf("partial figures not marked: %s", row.Text())
	}
	if !strings.Contains(doc.Find(`[data-testid="topics-failure"]`).Text(), "broker-b") {
		t.Errorf("failing broker not named")
	}
	if !strings.Contains(doc.Find(`[data-testid="topics-count"]`).Text(), "1 system, retry and DLQ topics hidden") {
		t.Errorf("count: %s", doc.Find(`[data-testid="topics-count"]`).Text())
	}

	doc = msgDoc(t, msgGet(t, r, "/topics/orders"))
	if doc.Find(`[data-testid="topic-route"] a[href="/brokers/broker-a"]`).Length() != 1 ||
		doc.Find(`[data-testid="topic-groups"] a[href="/groups/billing"]`).Length() != 1 ||
		doc.Find(`[data-testid="topic-messages-link"]`).AttrOr("href", "") != "/messages?tab=range&topic=orders" {
		t.Errorf("topic page links missing")
	}
	if got := doc.Find(`[data-testid="topic-group-lag"]`).Text(); !strings.Contains(got, "42") {
		t.Errorf("lag %q", got)
	}
	if got := doc.Find(`[data-testid="producer-connection"]`).Text(); !strings.Contains(got, "10.1.1.1@77") || !strings.Contains(got, "JAVA") {
		t.Errorf("producer %q", got)
	}
	if !strings.Contains(doc.Find(`[data-testid="topic-failure"]`).Text(), "broker-b") {
		t.Errorf("failing broker not named on the topic page")
	}
}

// Without a cluster the list says so and the API answers 503.
func TestTopicsWithoutCluster(t *testing.T) {
	r := topicsRouter(nil)
	if rec := msgGet(t, r, "/topics"); rec.Code != 200 || msgDoc(t, rec).Find(`[data-testid="no-cluster"]`).Length() != 1 {
		t.Errorf("/topics: %d", rec.Code)
	}
	for _, p := range []string{"/api/v1/topics", "/api/v1/topics/T"} {
		if rec := msgGet(t, r, p); rec.Code != http.StatusServiceUnavailable || !strings.Contains(rec.Body.String(), "no_cluster") {
			t.Errorf("%s: %d", p, rec.Code)
		}
	}
}
