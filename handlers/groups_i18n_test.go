package handlers

import (
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/gin-gonic/gin"
	"github.com/gorilla/websocket"

	"rmqconsole/groups"
	"rmqconsole/i18n"
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
		Known: func(_ context.Context, g string) error { return &groups.NotFoundError{Group: g} }})
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
	if ce, ok := err.(*websocket.CloseError); !ok || ce.Code != wsCloseNotFound {
		t.Fatalf("after the refusal: %v, want close %d", err, wsCloseNotFound)
	}
	if st := lv.Stats(); st.Watchers != 0 {
		t.Fatalf("the refused group is watched: %+v", st)
	}
}
