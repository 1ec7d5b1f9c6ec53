package handlers

import (
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/gin-gonic/gin"

	"rmqconsole/cluster/clustertest"
	"rmqconsole/groups"
	"rmqconsole/i18n"
	"rmqconsole/rocketmq"
)

// said is a catalogue message as the groups service puts it in its results.
func said(id string) i18n.Text { return i18n.TextOf(i18n.M(id)) }

type fakeClients struct{ asked []bool }

func (f *fakeClients) Client(_ context.Context, group, id string, jstack bool) (*groups.ClientInfo, error) {
	f.asked = append(f.asked, jstack)
	switch id {
	case "10.0.0.5@go":
		ci := &groups.ClientInfo{Group: group, ClientID: id, ClientAddr: "10.0.0.5:4000", Language: "GO", Version: "v2.1.1",
			ConsumeType: "push", MessageModel: "CLUSTERING", ConsumeMode: groups.ModeOrderly, JstackAsked: jstack, CheckedAt: time.Unix(1_700_000_000, 0),
			Settings: []groups.ClientSetting{
				{Name: said("client.setting.listener"), Meaning: said("client.setting.listener.meaning"), Value: said("client.setting.listener.orderly"), Property: "PROP_CONSUMEORDERLY"},
				{Name: said("client.setting.pullBatch"), Meaning: said("client.setting.pullBatch.meaning")}},
			Properties:    map[string]string{"PROP_CONSUMEORDERLY": "true", "PROP_CLIENT_VERSION": "v2.1.1"},
			Subscriptions: []groups.Subscription{{Topic: "T", Expression: "*", ExpressionType: "TAG"}},
			Queues: []groups.ProcessQueue{{Topic: "T", BrokerName: "broker-a", QueueID: 3, ProcessQueueInfo: rocketmq.ProcessQueueInfo{
				CommitOffset: 120, CachedMsgCount: 7, CachedMsgMinOffset: 120, CachedMsgMaxOffset: 126, Locked: true, LastLockTimestamp: 1_699_999_998_000}}},
			Topics: []groups.TopicConsume{{Topic: "T", ConsumeStatus: rocketmq.ConsumeStatus{ConsumeOKTPS: 2.5, ConsumeFailedMsgs: 4}}}}
		if jstack {
			ci.Jstack = "goroutine 1 [running]:"
		}
		return ci, nil
	case "10.0.0.7@grpc":
		return &groups.ClientInfo{Group: group, ClientID: id, ConsumeType: "pop", Unavailable: plain("This client consumes by POP, as RocketMQ 5 gRPC clients do through the Proxy.")}, nil
	}
	return nil, groups.ClientNotFound(group, id)
}

func clientRouter(f *fakeClients) *gin.Engine {
	gin.SetMode(gin.TestMode)
	r := newEngine()
	h := &GroupClient{Env: &Env{Log: slog.New(slog.DiscardHandler)}, Clients: f}
	r.GET("/groups/:group/clients/:clientId", h.Show)
	r.GET("/api/v1/groups/:group/clients/:clientId", h.API)
	return r
}

func TestClientPageShowsItsRunningInfoAndAsksForTheDumpOnlyOnRequest(t *testing.T) {
	f := &fakeClients{}
	r := &groupRouter{Engine: clientRouter(f)}
	rec := r.get(t, "/groups/orders/clients/10.0.0.5@go")
	if rec.Code != http.StatusOK {
		t.Fatalf("status %d: %s", rec.Code, rec.Body.String())
	}
	page := doc(t, rec)
	if m := strings.TrimSpace(page.Find(`[data-testid="client-summary"] [data-testid="client-mode"]`).Text()); m != "orderly" {
		t.Errorf("listener %q", m)
	}
	if s := page.Find(`[data-testid="client-settings"] tr[data-setting="Pull batch size"]`).Text(); !strings.Contains(s, "not reported by this client") {
		t.Errorf("pull batch row %q: want it to say the client does not report it", s)
	}
	row := page.Find(`[data-testid="process-queue"][data-queue="T/broker-a/3"]`)
	if row.Find(`[data-testid="pq-cached"]`).Text() != "7" || row.Find(`[data-testid="pq-committed"]`).Text() != "120" || !strings.Contains(row.Find(`[data-testid="pq-locked"]`).Text(), "yes") {
		t.Errorf("process queue row %q", row.Text())
	}
	if page.Find(`[data-testid="topic-failed"]`).Text() != "4" {
		t.Errorf("failed messages %q", page.Find(`[data-testid="topic-failed"]`).Text())
	}
	if href, _ := page.Find(`[data-testid="jstack-link"]`).Attr("href"); href != "/groups/orders/clients/10.0.0.5@go?jstack=1#thread-dump" {
		t.Errorf("thread dump link %q", href)
	}
	if len(f.asked) != 1 || f.asked[0] {
		t.Errorf("asked %v: a plain page must not ask the client for a dump", f.asked)
	}
	page = doc(t, r.get(t, "/groups/orders/clients/10.0.0.5@go?jstack=1"))
	if page.Find(`[data-testid="jstack"]`).Text() != "goroutine 1 [running]:" || !f.asked[1] {
		t.Errorf("dump %q after asking (asked %v)", page.Find(`[data-testid="jstack"]`).Text(), f.asked)
	}

	page = doc(t, r.get(t, "/groups/orders/clients/10.0.0.7@grpc"))
	if u := page.Find(`[data-testid="client-unavailable"]`).Text(); !strings.Contains(u, "gRPC") || page.Find(`[data-testid="client-settings"]`).Length() != 0 {
		t.Errorf("gRPC client page: %q", u)
	}

	rec = r.get(t, "/api/v1/groups/orders/clients/10.0.0.5@go")
	var out struct {
		ClientID    string `json:"clientId"`
		ConsumeMode string `json:"consumeMode"`
		Queues      []struct {
			QueueID        int   `json:"queueId"`
			CachedMsgCount int64 `json:"cachedMsgCount"`
			Locked         bool  `json:"locked"`
			Dropped        *bool `json:"dropped"`
		} `json:"queues"`
	}
	if err := json.Unmarshal(rec.Body.Bytes(), &out); err != nil {
		t.Fatal(err)
	}
	if out.ConsumeMode != "orderly" || len(out.Queues) != 1 || out.Queues[0].QueueID != 3 || out.Queues[0].CachedMsgCount != 7 || !out.Queues[0].Locked || out.Queues[0].Dropped == nil {
		t.Errorf("API %s", rec.Body.String())
	}
	for path, want := range map[string]int{
		"/api/v1/groups/orders/clients/10.0.0.9@gone": http.StatusNotFound,
		"/api/v1/groups/orders/clients/bad%01id":      http.StatusBadRequest,
		"/api/v1/groups/bad%20group/clients/x":        http.StatusBadRequest,
	} {
		rec := r.get(t, path)
		if rec.Code != want {
			t.Errorf("%s: status %d, want %d", path, rec.Code, want)
			continue
		}
		if e := apiError(t, rec); want == http.StatusNotFound && (e.Code != "client_not_found" || !strings.Contains(e.Error, "not online")) {
			t.Errorf("%s: %+v", path, e)
		}
	}
}

// goClient is the fake cluster with its clients reporting what a rocketmq-client-go
// consumer without a thread pool reports (PROP_THREADPOOL_CORE_SIZE -1).
type goClient struct{ *clustertest.Fake }

func (g goClient) ConsumerRunningInfo(ctx context.Context, addr, group, clientID string, jstack bool) (*rocketmq.ConsumerRunningInfo, error) {
	info, err := g.Fake.ConsumerRunningInfo(ctx, addr, group, clientID, jstack)
	if err == nil {
		info.Properties["PROP_THREADPOOL_CORE_SIZE"] = "-1"
	}
	return info, err
}

// What the console says of a client's settings beyond their raw value — a Go client's
// listener, its thread pool of one goroutine per message — reads in the reader's
// language on the client page; the API answers the English it always has.
func TestClientSettingsReadInTheReadersLanguage(t *testing.T) {
	cf := clustertest.New()
	cf.AddBroker("broker-a", "10.0.0.1:10911")
	cf.AddTopic("orders", 2)
	cf.AddGroup(&clustertest.Group{Name: "billing", Topics: []string{"orders"}, Clients: []clustertest.Client{{ID: "10.0.0.5@go"}}})
	gin.SetMode(gin.TestMode)
	r := gin.New()
	h := &GroupClient{Env: &Env{Log: slog.New(slog.DiscardHandler)}, Clients: groups.NewService(goClient{cf}, groups.Options{})}
	r.GET("/groups/:group/clients/:clientId", h.Show)
	r.GET("/api/v1/groups/:group/clients/:clientId", h.API)

	page := getChinese(t, r, "/groups/billing/clients/10.0.0.5@go")
	for key, want := range map[string]string{
		"Listener":              "并发消费（MessageListenerConcurrently）",
		"Consume threads (min)": "-1（没有线程池：每条消息一个 goroutine，直到客户端的上限）",
	} {
		row := page.Find(`[data-testid="client-settings"] tr[data-setting="` + key + `"]`)
		if got := strings.TrimSpace(row.Find("td").First().Text()); got != want {
			t.Errorf("%s on the Chinese page: %q, want %q", key, got, want)
		}
	}

	rec := (&groupRouter{Engine: r}).get(t, "/api/v1/groups/billing/clients/10.0.0.5@go")
	var out struct {
		Settings []struct{ Name, Value string } `json:"settings"`
	}
	if err := json.Unmarshal(rec.Body.Bytes(), &out); err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"Listener": "concurrently (MessageListenerConcurrently)",
		"Consume threads (min)": "-1 (no thread pool: one goroutine per message, up to the client's limit)"}
	for _, s := range out.Settings {
		if w, ok := want[s.Name]; ok && s.Value != w {
			t.Errorf("API %s: %q, want %q", s.Name, s.Value, w)
		}
		delete(want, s.Name)
	}
	if len(want) > 0 {
		t.Errorf("API settings %+v lack %v", out.Settings, want)
	}
}
