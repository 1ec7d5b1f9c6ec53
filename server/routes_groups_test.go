package server

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"
	rmq "github.com/apache/rocketmq-client-go/v2"
	"github.com/apache/rocketmq-client-go/v2/primitive"
	"github.com/apache/rocketmq-client-go/v2/producer"
	"github.com/gorilla/websocket"

	"rmqconsole/dev"
	"rmqconsole/rocketmq"
)

// newGroupsApp builds the real console on the local RocketMQ, reading every group's lag
// for /metrics each second.
func newGroupsApp(t *testing.T, ns string) *App {
	t.Helper()
	return newGroupsAppCollecting(t, ns, "1s")
}

// newGroupsAppCollecting is newGroupsApp with the lag collector reading every group each
// interval ("0" turns it off).
func newGroupsAppCollecting(t *testing.T, ns, interval string) *App {
	t.Helper()
	cfg, err := ParseConfig([]string{"--listen", "127.0.0.1:0", "--data-dir", t.TempDir(), "--namesrv", ns,
		"--metrics-interval", interval, "--group-poll", "500ms"}, noEnv, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	a, err := New(context.Background(), cfg, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(a.Close)
	return a
}

func grpServe(t *testing.T, a *App, target string) *httptest.ResponseRecorder {
	t.Helper()
	rec := httptest.NewRecorder()
	a.Handler().ServeHTTP(rec, newRequest(http.MethodGet, target, nil))
	return rec
}

// offlineGroupWithLag makes a topic with queues, a group with its offsets committed at
// 0 on every queue, then sends n messages nobody consumes: the group's lag is n.
func offlineGroupWithLag(t *testing.T, cl *dev.Cluster, queues, n int) (topic, group string) {
	t.Helper()
	return offlineGroupOn(t, cl, nil, queues, n)
}

// offlineGroupOn is offlineGroupWithLag with the topic and the group on one broker only
// (every broker when on is nil).
func offlineGroupOn(t *testing.T, cl *dev.Cluster, on *dev.Broker, queues, n int) (topic, group string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	topic, group = dev.UniqueName("http-grp"), dev.UniqueName("http-grp-cg")
	brokers := cl.Brokers
	if on != nil {
		brokers = []dev.Broker{*on}
		if err := cl.CreateTopicOn(ctx, topic, queues, *on); err != nil {
			t.Fatal(err)
		}
	} else if err := cl.CreateTopic(ctx, topic, queues); err != nil {
		t.Fatal(err)
	}
	c, err := rocketmq.New(rocketmq.Config{NameServer: cl.NameServer})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	route, err := c.TopicRoute(ctx, topic)
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range brokers {
		if err := c.UpdateSubscriptionGroup(ctx, b.Addr, rocketmq.SubscriptionGroupConfig{GroupName: group, ConsumeEnable: true}); err != nil {
			t.Fatal(err)
		}
		for _, mq := range route.ReadQueues() {
			if mq.BrokerName == b.Name {
				if err := c.UpdateConsumerOffset(ctx, b.Addr, group, mq, 0); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	p, err := rmq.NewProducer(producer.WithNameServer([]string{cl.NameServer}), producer.WithGroupName(dev.UniqueName("pg")),
		producer.WithInstanceName(dev.UniqueName("p")), producer.WithRetry(2), producer.WithSendMsgTimeout(10*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Start(); err != nil {
		t.Fatal(err)
	}
	defer p.Shutdown()
	for i := range n {
		if _, err := p.SendSync(ctx, primitive.NewMessage(topic, []byte(fmt.Sprintf("m%d", i)))); err != nil {
			t.Fatal(err)
		}
	}
	return topic, group
}

// The group routes of the real console against the real broker: the list and detail
// JSON, the page, /metrics with the per-queue lag, and a watched group answered without
// asking the brokers again.
func TestGroupRoutesOnRealBroker(t *testing.T) {
	if testing.Short() {
		t.Skip("needs the local RocketMQ")
	}
	cl := dev.RequireCluster(t)
	const queues, sent = 4, 12
	topic, group := offlineGroupWithLag(t, cl, queues, sent)
	a := newGroupsApp(t, cl.NameServer)

	rec := grpServe(t, a, "/api/v1/groups?refresh=1&q="+group)
	var list struct {
		Groups []struct {
			Group    string   `json:"group"`
			Online   bool     `json:"online"`
			Topics   []string `json:"topics"`
			TotalLag *int64   `json:"totalLag"`
		} `json:"groups"`
	}
	if err := json.Unmarshal(rec.Body.Bytes(), &list); err != nil || rec.Code != 200 || len(list.Groups) != 1 {
		t.Fatalf("%d %v: %s", rec.Code, err, rec.Body)
	}
	if g := list.Groups[0]; g.Online || g.TotalLag == nil || *g.TotalLag != sent || len(g.Topics) != 1 || g.Topics[0] != topic {
		t.Errorf("list entry %+v: want offline, lag %d on %s", g, sent, topic)
	}

	rec = grpServe(t, a, "/api/v1/groups/"+group)
	var d struct {
		Group   string `json:"group"`
		Online  bool   `json:"online"`
		Clients []any  `json:"clients"`
		Queues  []struct {
			Topic          string `json:"topic"`
			BrokerOffset   *int64 `json:"brokerOffset"`
			ConsumerOffset *int64 `json:"consumerOffset"`
			Lag            *int64 `json:"lag"`
			Owner          string `json:"owner"`
		} `json:"queues"`
	}
	if err := json.Unmarshal(rec.Body.Bytes(), &d); err != nil || rec.Code != 200 {
		t.Fatalf("%d %v: %s", rec.Code, err, rec.Body)
	}
	var total int64
	rows := 0
	for _, q := range d.Queues {
		if q.Topic != topic {
			continue
		}
		rows++
		if q.Lag == nil || q.BrokerOffset == nil || q.ConsumerOffset == nil || *q.Lag != *q.BrokerOffset-*q.ConsumerOffset || q.Owner != "" {
			t.Errorf("queue %+v: lag must be broker − consumer offset, no owner offline", q)
			continue
		}
		total += *q.Lag
	}
	if rows != queues*len(cl.Brokers) || total != sent || d.Online || d.Clients == nil || len(d.Clients) != 0 {
		t.Errorf("%d rows with total lag %d, online %v, clients %v: want %d rows, lag %d, offline, []", rows, total, d.Online, d.Clients, queues*len(cl.Brokers), sent)
	}

	rec = grpServe(t, a, "/groups/"+group)
	doc, _ := goquery.NewDocumentFromReader(rec.Body)
	if rec.Code != 200 || doc.Find(`#queues-body tr[data-testid="queue-row"]`).Length() != queues*len(cl.Brokers) {
		t.Errorf("page: %d with %d queue rows", rec.Code, doc.Find(`#queues-body tr[data-testid="queue-row"]`).Length())
	}
	if href, _ := doc.Find(`[data-testid="reset-link"]`).Attr("href"); href != "/groups/"+group+"/reset" {
		t.Errorf("reset link %q", href)
	}

	rec = grpServe(t, a, "/api/v1/groups/"+dev.UniqueName("no-such-group"))
	if rec.Code != 404 || !strings.Contains(rec.Body.String(), `"group_not_found"`) {
		t.Errorf("unknown group: %d %s", rec.Code, rec.Body)
	}

	// /metrics: the background collector reads every group each second.
	deadline := time.Now().Add(30 * time.Second)
	for {
		lags, ok := queueLagMetrics(t, a, group)
		var sum float64
		for _, v := range lags {
			sum += v
		}
		if ok && sum == sent && len(lags) == queues*len(cl.Brokers) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("rmqconsole_consumer_queue_lag for %s: %v (sum %v), want %d queues summing to %d", group, lags, sum, queues*len(cl.Brokers), sent)
		}
		time.Sleep(200 * time.Millisecond)
	}
	body := grpServe(t, a, "/metrics").Body.String()
	for _, m := range []string{`rmqconsole_broker_requests_total{code="GET_CONSUME_STATS"}`, `rmqconsole_http_requests_total{method="GET",route="/api/v1/groups/:group",status="200"}`} {
		if !strings.Contains(body, m) {
			t.Errorf("/metrics lacks %s", m)
		}
	}

	// A watched group: its page and API come from the watcher, not from new broker calls.
	// On a console without the collector, whose reads of every group's connections (and
	// the rebalance sweep's) would blur the count on a cluster of hundreds of groups.
	a = newGroupsAppCollecting(t, cl.NameServer, "0")
	srv := httptest.NewServer(a.Handler())
	defer srv.Close()
	ws, _, err := websocket.DefaultDialer.Dial("ws"+strings.TrimPrefix(srv.URL, "http")+"/ws/groups/"+group, http.Header{"Origin": {srv.URL}})
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	_ = ws.SetReadDeadline(time.Now().Add(10 * time.Second))
	if _, _, err := ws.ReadMessage(); err != nil {
		t.Fatal(err)
	}
	before := a.def.rmq.CallCount(rocketmq.CodeGetConsumerConnectionList)
	for range 5 {
		if rec := grpServe(t, a, "/api/v1/groups/"+group); rec.Code != 200 {
			t.Fatalf("watched group API: %d", rec.Code)
		}
	}
	if calls := a.def.rmq.CallCount(rocketmq.CodeGetConsumerConnectionList) - before; calls > 3 {
		t.Errorf("5 API reads of a watched group made %d connection-list calls; they should come from the watcher (at most its own polls)", calls)
	}
}

// queueLagMetrics reads rmqconsole_consumer_queue_lag samples of group from /metrics.
func queueLagMetrics(t *testing.T, a *App, group string) (map[string]float64, bool) {
	t.Helper()
	out := map[string]float64{}
	sc := bufio.NewScanner(strings.NewReader(grpServe(t, a, "/metrics").Body.String()))
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		line := sc.Text()
		if !strings.HasPrefix(line, "rmqconsole_consumer_queue_lag{") || !strings.Contains(line, `group="`+group+`"`) {
			continue
		}
		i := strings.LastIndexByte(line, ' ')
		v, err := strconv.ParseFloat(line[i+1:], 64)
		if err != nil {
			return nil, false
		}
		out[line[:i]] = v
	}
	return out, len(out) > 0
}

func TestGroupRoutesWithoutCluster(t *testing.T) {
	cfg, err := ParseConfig([]string{"--listen", "127.0.0.1:0", "--data-dir", t.TempDir()}, noEnv, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	a, err := New(context.Background(), cfg, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	if rec := grpServe(t, a, "/api/v1/groups"); rec.Code != 503 || !strings.Contains(rec.Body.String(), "no_cluster") {
		t.Errorf("API: %d %s", rec.Code, rec.Body)
	}
	rec := grpServe(t, a, "/groups")
	if rec.Code != 200 || !strings.Contains(rec.Body.String(), `data-testid="no-cluster"`) {
		t.Errorf("page: %d", rec.Code)
	}
	if rec := grpServe(t, a, "/metrics"); rec.Code != 200 || !strings.Contains(rec.Body.String(), "rmqconsole_http_requests_total") {
		t.Errorf("/metrics without a cluster: %d", rec.Code)
	}
}

func TestGroupSettings(t *testing.T) {
	for _, c := range []struct {
		args []string
		env  map[string]string
		poll time.Duration
		lag  time.Duration
		bad  string
	}{
		{poll: time.Second, lag: 30 * time.Second},
		{args: []string{"--group-poll", "250ms", "--metrics-interval", "0", "--topic-figures-interval", "0"}, poll: 250 * time.Millisecond},
		{env: map[string]string{"RMQC_GROUP_POLL": "2s", "RMQC_METRICS_INTERVAL": "1m"}, poll: 2 * time.Second, lag: time.Minute},
		{args: []string{"--group-poll", "10ms"}, bad: "group-poll"},
		{args: []string{"--metrics-interval", "-1s"}, bad: "metrics-interval"},
		{env: map[string]string{"RMQC_METRICS_INTERVAL": "soon"}, bad: "metrics-interval"},
		{env: map[string]string{"RMQC_LAG_RETENTION": "-1h"}, bad: "lag-retention"},
		{env: map[string]string{"RMQC_LAG_RETENTION": "10m"}, bad: "lag-retention"},
	} {
		getenv := func(k string) string { return c.env[k] }
		cfg, err := ParseConfig(append([]string{"--data-dir", t.TempDir()}, c.args...), getenv, io.Discard)
		if c.bad != "" {
			if err == nil || !strings.Contains(err.Error(), c.bad) {
				t.Errorf("%v %v: error %v, want one naming --%s", c.args, c.env, err, c.bad)
			}
			continue
		}
		if err != nil || cfg.GroupPoll != c.poll || cfg.MetricsInterval != c.lag || cfg.LagRetention != 7*24*time.Hour {
			t.Errorf("%v %v: %v poll %s metrics %s", c.args, c.env, err, cfg.GroupPoll, cfg.MetricsInterval)
		}
	}
}

// A cluster whose NameServer does not answer (nothing listens on its address) is named on
// the Chinese group list in Chinese, around the cluster layer's words for what failed —
// not inside the chain of Go errors the failure travelled through; the API answers it as
// an unavailable cluster, in English, with the code it has always answered.
func TestDownClusterGroupListSaysWhyInTheReadersLanguage(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	stopped := ln.Addr().String()
	ln.Close() // a NameServer that stopped: its port refuses connections
	cfg, err := ParseConfig([]string{"--listen", "127.0.0.1:0", "--data-dir", t.TempDir(), "--namesrv", stopped,
		"--metrics-interval", "0", "--topic-figures-interval", "0"}, noEnv, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	a, err := New(context.Background(), cfg, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()

	req := newRequest(http.MethodGet, "/groups", nil)
	req.Header.Set("Accept-Language", "zh-CN")
	rec := httptest.NewRecorder()
	a.Handler().ServeHTTP(rec, req)
	d, err := goquery.NewDocumentFromReader(rec.Body)
	if err != nil {
		t.Fatal(err)
	}
	say := strings.TrimSpace(d.Find(`[data-testid="groups-error"]`).Text())
	t.Logf("the Chinese group list says: %s", say)
	if rec.Code != http.StatusOK || !strings.HasPrefix(say, "无法读取消费者组：没有 NameServer 应答：连接 "+stopped+" 失败：") {
		t.Errorf("%d %q: want the Chinese sentence naming the NameServer that did not answer", rec.Code, say)
	}
	for _, chain := range []string{"list consumer groups", "list brokers", "cluster info", "no NameServer answered", "connection to"} {
		if strings.Contains(say, chain) {
			t.Errorf("the Chinese sentence holds the error chain's %q: %q", chain, say)
		}
	}

	rec = grpServe(t, a, "/api/v1/groups")
	var e struct{ Error, Code, Kind string }
	if err := json.Unmarshal(rec.Body.Bytes(), &e); err != nil {
		t.Fatal(err)
	}
	if rec.Code != http.StatusServiceUnavailable || e.Kind != "unavailable" || e.Code != "broker_error" || !strings.HasPrefix(e.Error, "no NameServer answered: connection to "+stopped+": ") {
		t.Errorf("API: %d %s", rec.Code, rec.Body)
	}
}
