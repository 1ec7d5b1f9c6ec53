package handlers

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/gin-gonic/gin"
	"github.com/gorilla/websocket"

	"rmqconsole/lookup"
	"rmqconsole/rocketmq"
)

// burstTail is a tail that starts, stores 120 messages in one queue at once, and then
// finds broker-b failing.
func burstTail(ctx context.Context, q lookup.TailQuery, emit func(lookup.TailEvent)) error {
	emit(lookup.TailEvent{Started: time.UnixMilli(1_700_000_000_000)})
	ms := make([]lookup.Message, 120)
	for i := range ms {
		ms[i] = lookup.Message{BrokerName: "broker-a", Message: &rocketmq.Message{Topic: q.Topic, QueueOffset: int64(i),
			StoreTimestamp: 1_700_000_000_000 + int64(i), Body: []byte(fmt.Sprintf("order-%d", i))}}
	}
	emit(lookup.TailEvent{Messages: ms})
	emit(lookup.TailEvent{FailuresChanged: true, Failures: []lookup.BrokerFailure{
		{Broker: "broker-b", Addr: "10.0.0.2:10911", Topic: q.Topic, Op: "live tail", Err: errors.New("connection refused")}}})
	<-ctx.Done()
	return nil
}

func dialTail(t *testing.T, srv *httptest.Server, target string) *websocket.Conn {
	t.Helper()
	conn, res, err := websocket.DefaultDialer.Dial("ws"+strings.TrimPrefix(srv.URL, "http")+target, http.Header{"Origin": {srv.URL}})
	if err != nil {
		status := 0
		if res != nil {
			status = res.StatusCode
		}
		t.Fatalf("the socket did not open (%d): %v", status, err)
	}
	_ = conn.SetReadDeadline(time.Now().Add(10 * time.Second))
	return conn
}

// The tail's socket sends JSON frames: when it started, each message with the fields
// the messages API gives it, at most 50 messages and then one frame with the count of
// the others, and the failing brokers by name. A bad filter is refused before the
// upgrade, as the messages API refuses it; the page's socket gets HTML frames.
func TestTailSocketSendsFiftyMessagesThenTheCountOfTheRest(t *testing.T) {
	gin.SetMode(gin.ReleaseMode)
	r := newEngine()
	hub := lookup.NewTailHub(burstTail, lookup.TailOptions{Window: time.Hour})
	h := &Messages{Env: &Env{Log: slog.New(slog.DiscardHandler)}, Tails: hub, Heavy: NewHeavyGate(1)}
	r.GET("/ws/topics/:topic/tail", h.TailWS)
	srv := httptest.NewServer(r)
	defer srv.Close()

	conn := dialTail(t, srv, "/ws/topics/orders/tail")
	defer conn.Close()
	kinds := map[string]int{}
	var offsets []int64
	var skipped int64
	var failures string
	for range 53 {
		var f map[string]any
		if err := conn.ReadJSON(&f); err != nil {
			t.Fatalf("after %v: %v", kinds, err)
		}
		kind, _ := f["type"].(string)
		kinds[kind]++
		switch kind {
		case "message":
			if f["topic"] != "orders" || !strings.HasPrefix(f["body"].(string), "order-") || f["storeTimestamp"] == nil {
				t.Errorf("message frame %v", f)
			}
			offsets = append(offsets, int64(f["queueOffset"].(float64)))
		case "skipped":
			skipped += int64(f["skipped"].(float64))
		case "failures":
			b, _ := json.Marshal(f["failures"])
			failures = string(b)
		}
	}
	if kinds["started"] != 1 || kinds["message"] != 50 || kinds["skipped"] != 1 || kinds["failures"] != 1 || skipped != 70 {
		t.Errorf("frames %v, %d skipped; want started, 50 messages, 70 skipped, failures", kinds, skipped)
	}
	for i, o := range offsets {
		if o != int64(i) {
			t.Fatalf("message offsets %v, want 0..49 in order", offsets)
		}
	}
	if !strings.Contains(failures, `"broker":"broker-b"`) || !strings.Contains(failures, "connection refused") {
		t.Errorf("failures frame %s, want broker-b named with its error", failures)
	}
	if hub.Starts() != 1 {
		t.Errorf("%d tails started", hub.Starts())
	}

	// The page's socket joins the same tail and gets its state as HTML.
	page := dialTail(t, srv, "/ws/topics/orders/tail?frames=html")
	defer page.Close()
	var html []string
	for range 2 {
		_, b, err := page.ReadMessage()
		if err != nil {
			t.Fatal(err)
		}
		html = append(html, string(b))
	}
	all := strings.Join(html, "\n")
	if !strings.Contains(all, `id="tail-started"`) || !strings.Contains(all, "2023-11-14 22:13:20.000 UTC") || !strings.Contains(all, "broker-b") {
		t.Errorf("page frames:\n%s", all)
	}
	if hub.Starts() != 1 {
		t.Errorf("a second viewer started a second tail (%d)", hub.Starts())
	}

	res, err := http.Get(srv.URL + "/ws/topics/orders/tail?where=" + "a%20%3D")
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var e struct{ Error, Code string }
	_ = json.NewDecoder(res.Body).Decode(&e)
	if res.StatusCode != http.StatusBadRequest || e.Error == "" {
		t.Errorf("a bad where: %d %+v, want 400 with a sentence", res.StatusCode, e)
	}
}

// The tail's page opens the socket with the filter as typed and asks for HTML frames;
// a filter that does not parse re-renders the form with its sentence beside the field
// (422) and opens no socket.
func TestTailPageOpensTheSocketOrSaysWhatIsWrongWithTheFilter(t *testing.T) {
	gin.SetMode(gin.ReleaseMode)
	r := newEngine()
	h := &Messages{Env: &Env{Log: slog.New(slog.DiscardHandler)}, Tails: lookup.NewTailHub(burstTail, lookup.TailOptions{})}
	r.GET("/topics/:topic/tail", h.TailPage)

	rec := httptest.NewRecorder()
	r.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/topics/orders/tail?where=region+%3D+%27eu%27", nil))
	d := doc(t, rec)
	ws, _ := d.Find(`[data-testid="tail-live"]`).Attr("ws-connect")
	if rec.Code != http.StatusOK || ws != "/ws/topics/orders/tail?frames=html&where=region+%3D+%27eu%27" ||
		d.Find(`[data-testid="tail-pause"]`).Length() != 1 || d.Find(`#tail-rows`).Length() != 1 {
		t.Errorf("page: %d, ws-connect %q", rec.Code, ws)
	}

	rec = httptest.NewRecorder()
	r.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/topics/orders/tail?where=region+%3D", nil))
	d = doc(t, rec)
	if rec.Code != http.StatusUnprocessableEntity || d.Find(`[ws-connect]`).Length() != 0 ||
		strings.TrimSpace(d.Find(`[data-testid="err-where"]`).Text()) == "" {
		t.Errorf("bad where: %d, err-where %q", rec.Code, d.Find(`[data-testid="err-where"]`).Text())
	}
}

// A socket from another site's page is refused before any tail starts.
func TestTailSocketFromAnotherSiteStartsNoTail(t *testing.T) {
	gin.SetMode(gin.ReleaseMode)
	r := newEngine()
	hub := lookup.NewTailHub(burstTail, lookup.TailOptions{})
	h := &Messages{Env: &Env{Log: slog.New(slog.DiscardHandler)}, Tails: hub}
	r.GET("/ws/topics/:topic/tail", h.TailWS)
	srv := httptest.NewServer(r)
	defer srv.Close()
	_, res, err := websocket.DefaultDialer.Dial("ws"+strings.TrimPrefix(srv.URL, "http")+"/ws/topics/orders/tail", http.Header{"Origin": {"https://evil.example"}})
	if err == nil || res == nil || res.StatusCode != http.StatusForbidden || hub.Starts() != 0 {
		t.Errorf("another origin: %v, %v; %d tails started", err, res, hub.Starts())
	}
}
