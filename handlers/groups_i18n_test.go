package handlers

import (
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"
	"github.com/gin-gonic/gin"
	"github.com/gorilla/websocket"

	"rmqconsole/cluster/clustertest"
	"rmqconsole/groups"
	"rmqconsole/i18n"
	"rmqconsole/rocketmq"
	"rmqconsole/store"
)

// getIn is get with the request in lang, as the language middleware would set it.
func (r *groupRouter) getIn(t *testing.T, lang, path string) *httptest.ResponseRecorder {
	t.Helper()
	rec := httptest.NewRecorder()
	req := httptest.NewRequest(http.MethodGet, path, nil)
	r.ServeHTTP(rec, req.WithContext(i18n.With(req.Context(), i18n.Match(lang))))
	return rec
}

// The group list and the group page read in Chinese for a Chinese request, with
// RocketMQ's Chinese words, and say no English sentence of theirs.
func TestGroupPagesInChinese(t *testing.T) {
	r := newGroupRouter(t, true)
	list := doc(t, r.getIn(t, "zh-CN", "/groups"))
	if h := list.Find("h1").Text(); h != "消费者组" {
		t.Errorf("list heading %q", h)
	}
	if th := list.Find(`[data-testid="groups-table"] thead`).Text(); !strings.Contains(th, "堆积量") || !strings.Contains(th, "消费延迟") {
		t.Errorf("list headers %q", th)
	}
	page := doc(t, r.getIn(t, "zh-CN", "/groups/orders"))
	main := page.Text()
	for _, want := range []string{"消费者组", "重置位点", "消费位点", "最大位点", "重平衡时间线", "上线。"} {
		if !strings.Contains(main, want) {
			t.Errorf("the Chinese group page lacks %q", want)
		}
	}
	for _, english := range []string{"Total lag", "Rebalance timeline", "Expected against actual assignment", "joined."} {
		if strings.Contains(main, english) {
			t.Errorf("the Chinese group page says %q", english)
		}
	}
	if en := doc(t, r.get(t, "/groups/orders")).Text(); !strings.Contains(en, "Rebalance timeline") {
		t.Error("a request without a language is not answered in English")
	}
}

// A live frame is rendered in the language its context carries.
func TestLiveFrameInTheViewersLanguage(t *testing.T) {
	u := &groups.Update{Detail: sampleDetail(), History: &groups.History{}, Full: true}
	zh, err := GroupFrames{}.Render(i18n.With(context.Background(), i18n.Match("zh-CN")), u)
	if err != nil {
		t.Fatal(err)
	}
	en, err := GroupFrames{}.Render(context.Background(), u)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(zh[0]), "总堆积量") || strings.Contains(string(zh[0]), "Total lag") {
		t.Errorf("Chinese frame: %s", zh[0])
	}
	if !strings.Contains(string(en[0]), "Total lag") {
		t.Errorf("English frame: %s", en[0])
	}
}

// Two viewers of one group in two languages over the websocket, through the language
// middleware: each reads its frames in its own language.
func TestGroupWebsocketSpeaksEachViewersLanguage(t *testing.T) {
	gin.SetMode(gin.TestMode)
	fg := &fakeGroups{list: sampleList(), detail: map[string]*groups.Detail{"orders": sampleDetail()}}
	lv := groups.NewLive(fg, groups.LiveOptions{Interval: 20 * time.Millisecond, Renderer: GroupFrames{}})
	t.Cleanup(lv.Close)
	r := newEngine()
	r.Use(Localize)
	r.GET("/ws/groups/:group", (&GroupLive{Env: &Env{Log: slog.New(slog.DiscardHandler)}, Live: lv}).Serve)
	srv := httptest.NewServer(r)
	defer srv.Close()
	url := "ws" + strings.TrimPrefix(srv.URL, "http") + "/ws/groups/orders"
	for _, c := range []struct{ accept, want, not string }{
		{"zh-CN,zh;q=0.9", "总堆积量", "Total lag"},
		{"en-US", "Total lag", "总堆积量"},
	} {
		conn, _, err := websocket.DefaultDialer.Dial(url, http.Header{"Origin": {srv.URL}, "Accept-Language": {c.accept}})
		if err != nil {
			t.Fatal(err)
		}
		_ = conn.SetReadDeadline(time.Now().Add(5 * time.Second))
		_, msg, err := conn.ReadMessage()
		conn.Close()
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(msg), c.want) || strings.Contains(string(msg), c.not) {
			t.Errorf("viewer reading %s got %.300s", c.accept, msg)
		}
	}
}

// A live view the console refuses says why in the viewer's language, in place of the
// page's live indicator, then closes with a code the page does not reconnect after.
func TestRefusedLiveViewSaysWhyInTheViewersLanguage(t *testing.T) {
	gin.SetMode(gin.TestMode)
	fg := &fakeGroups{list: sampleList(), detail: map[string]*groups.Detail{"orders": sampleDetail()}}
	lv := groups.NewLive(fg, groups.LiveOptions{Interval: 20 * time.Millisecond, Renderer: GroupFrames{},
		Known: func(_ context.Context, g string) error { return groups.NotFound(g) }})
	t.Cleanup(lv.Close)
	r := gin.New()
	r.Use(Localize)
	r.GET("/ws/groups/:group", (&GroupLive{Env: &Env{Log: slog.New(slog.DiscardHandler)}, Live: lv}).Serve)
	srv := httptest.NewServer(r)
	defer srv.Close()
	conn, _, err := websocket.DefaultDialer.Dial("ws"+strings.TrimPrefix(srv.URL, "http")+"/ws/groups/ghost",
		http.Header{"Origin": {srv.URL}, "Accept-Language": {"zh-CN"}})
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	_ = conn.SetReadDeadline(time.Now().Add(5 * time.Second))
	_, msg, err := conn.ReadMessage()
	if err != nil || !strings.Contains(string(msg), "没有 Broker 或 Proxy 知道消费者组 ghost") || !strings.Contains(string(msg), `id="live-indicator"`) ||
		!strings.Contains(string(msg), `data-final="true"`) {
		t.Fatalf("refusal frame %v %s", err, msg)
	}
	_, _, err = conn.ReadMessage()
	if ce, ok := err.(*websocket.CloseError); !ok || ce.Code != wsCloseNotFound || ce.Text != "group not found" {
		t.Fatalf("after the refusal: %v, want close %d", err, wsCloseNotFound)
	}
	if st := lv.Stats(); st.Watchers != 0 {
		t.Fatalf("the refused group is watched: %+v", st)
	}
}

// A rebalance the live view recorded reads in Chinese on a Chinese group page read
// later from the database, whoever watched it then: what is stored is what happened (a
// client joined, a queue moved), said from the catalogues when it is read.
func TestRecordedRebalanceReadsInTheReadersLanguage(t *testing.T) {
	st, err := store.Open(context.Background(), filepath.Join(t.TempDir(), "console.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	cf := clustertest.New()
	cf.AddBroker("broker-a", "10.0.0.1:10911")
	cf.AddTopic("orders", 2)
	q0 := rocketmq.MessageQueue{Topic: "orders", BrokerName: "broker-a", QueueID: 0}
	q1 := rocketmq.MessageQueue{Topic: "orders", BrokerName: "broker-a", QueueID: 1}
	cf.AddGroup(&clustertest.Group{Name: "billing", Topics: []string{"orders"},
		Clients: []clustertest.Client{{ID: "10.0.0.5@c1", Holds: []rocketmq.MessageQueue{q0, q1}}}})
	svc := groups.NewService(cf, groups.Options{})
	lv := groups.NewLive(svc, groups.LiveOptions{Interval: 20 * time.Millisecond, Store: st})
	v, err := lv.Watch("billing")
	if err != nil {
		t.Fatal(err)
	}
	waitFor := func(what string, cond func() bool) {
		t.Helper()
		for deadline := time.Now().Add(10 * time.Second); !cond(); time.Sleep(10 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("%s did not happen within 10 s", what)
			}
		}
	}
	waitFor("the watcher's first read", func() bool { _, ok := lv.Latest("billing"); return ok })
	cf.SetClients("billing", clustertest.Client{ID: "10.0.0.5@c1", Holds: []rocketmq.MessageQueue{q0}},
		clustertest.Client{ID: "10.0.0.6@c2", Holds: []rocketmq.MessageQueue{q1}})
	waitFor("a stored move", func() bool {
		stored, _ := st.RebalanceEvents(t.Context(), "billing", 10, time.Time{})
		return slices.ContainsFunc(stored, func(e store.RebalanceEvent) bool { return e.Kind == groups.KindMoved })
	})
	v.Close()
	lv.Close()

	gin.SetMode(gin.TestMode)
	r := gin.New()
	r.GET("/groups/:group", (&GroupShow{Env: &Env{Log: slog.New(slog.DiscardHandler)}, Groups: svc, Events: st}).Show)
	page := getChinese(t, r, "/groups/billing")
	var said []string
	page.Find(`[data-testid="timeline-event"] span`).Each(func(_ int, s *goquery.Selection) { said = append(said, s.Text()) })
	for _, want := range []string{"客户端 10.0.0.6@c2 上线。", "队列 orders broker-a/1 从 10.0.0.5@c1 迁移到 10.0.0.6@c2"} {
		if !slices.ContainsFunc(said, func(s string) bool { return strings.HasPrefix(s, want) }) {
			t.Errorf("the Chinese timeline %q does not say %q", said, want)
		}
	}
	for _, s := range said {
		if run := englishRun.FindString(rocketMQNames.ReplaceAllString(s, "·")); run != "" {
			t.Errorf("the Chinese timeline says %q in English: %q", run, s)
		}
	}
}

// Brokers that all fail to list their consumer groups, while the NameServer answers,
// are named on the Chinese group list in the cluster layer's words and in Chinese —
// not inside an English sentence the service wrapped around the first failure; the
// API answers them as a broker failure, as before.
func TestGroupListOfFailingBrokersSaysWhyInTheReadersLanguage(t *testing.T) {
	cf := clustertest.New()
	cf.AddBroker("broker-a", "10.0.0.1:10911")
	cf.AddTopic("orders", 2)
	cf.Down("10.0.0.1:10911")
	svc := groups.NewService(cf, groups.Options{})
	gin.SetMode(gin.TestMode)
	r := gin.New()
	list := &GroupsList{Env: &Env{Log: slog.New(slog.DiscardHandler)}, Groups: svc}
	r.GET("/groups", list.Show)
	r.GET("/api/v1/groups", list.API)
	say := strings.TrimSpace(getChinese(t, r, "/groups").Find(`[data-testid="groups-error"]`).Text())
	t.Logf("the Chinese group list says: %s", say)
	if !strings.HasPrefix(say, "无法读取消费者组：") || !strings.Contains(say, "broker-a") || !strings.Contains(say, "10.0.0.1:10911") {
		t.Errorf("%q: want the Chinese sentence naming the broker that failed", say)
	}
	if run := englishRun.FindString(rocketMQNames.ReplaceAllString(say, "·")); run != "" {
		t.Errorf("the Chinese sentence says %q in English: %q", run, say)
	}
	rec := httptest.NewRecorder()
	r.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/api/v1/groups", nil))
	if e := apiError(t, rec); rec.Code != http.StatusBadGateway || e.Code != "broker_error" || !strings.Contains(e.Error, "broker-a") {
		t.Errorf("API: %d %s", rec.Code, rec.Body)
	}
}
