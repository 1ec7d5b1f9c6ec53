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

	"rmqconsole/groups"
	"rmqconsole/rocketmq"
)

type fakeClients struct{ asked []bool }

func (f *fakeClients) Client(_ context.Context, group, id string, jstack bool) (*groups.ClientInfo, error) {
	f.asked = append(f.asked, jstack)
	switch id {
	case "10.0.0.5@go":
		ci := &groups.ClientInfo{Group: group, ClientID: id, ClientAddr: "10.0.0.5:4000", Language: "GO", Version: "v2.1.1",
			ConsumeType: "push", MessageModel: "CLUSTERING", ConsumeMode: groups.ModeOrderly, JstackAsked: jstack, CheckedAt: time.Unix(1_700_000_000, 0),
			Settings:      []groups.ClientSetting{{Name: "Listener", Value: "orderly (MessageListenerOrderly)", Property: "PROP_CONSUMEORDERLY"}, {Name: "Pull batch size"}},
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
		return &groups.ClientInfo{Group: group, ClientID: id, ConsumeType: "pop", Unavailable: "This client consumes by POP, as RocketMQ 5 gRPC clients do through the Proxy."}, nil
	}
	return nil, &groups.ClientNotFoundError{Group: group, ClientID: id}
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
