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

	"rmqconsole/lookup"
	"rmqconsole/store"
)

// scanFrames opens the deep scan's socket and reads its frames until the console closes
// it; it answers the frames and the close error.
func scanFrames(t *testing.T, srv *httptest.Server, target string) ([]string, error) {
	t.Helper()
	conn, res, err := websocket.DefaultDialer.Dial("ws"+strings.TrimPrefix(srv.URL, "http")+target, http.Header{"Origin": {srv.URL}})
	if err != nil {
		status := 0
		if res != nil {
			status = res.StatusCode
		}
		t.Fatalf("the socket did not open (%d): %v", status, err)
	}
	defer conn.Close()
	_ = conn.SetReadDeadline(time.Now().Add(10 * time.Second))
	var frames []string
	for {
		_, msg, err := conn.ReadMessage()
		if err != nil {
			return frames, err
		}
		frames = append(frames, string(msg))
	}
}

// The deep scan's socket streams the matches and ends with a frame that says how the
// scan ended; a scan refused (every heavy-query slot taken) opens the socket all the
// same and says why in that last frame, and closes normally: a refused handshake would
// leave the page reconnecting again and again without a word.
func TestDeepScanSocketSaysHowItEndedOrWhyItWasRefused(t *testing.T) {
	gin.SetMode(gin.ReleaseMode)
	r := newEngine()
	reads := &readLog{}
	h := &Messages{Env: &Env{Log: slog.New(slog.DiscardHandler)}, Lookup: lookup.New(msgFake(100), lookup.Options{}), Heavy: NewHeavyGate(1),
		Now: func() time.Time { return msgT0.Add(time.Hour) }, Reads: &ReadAudit{Log: reads}}
	r.GET("/ws/messages/scan", h.ScanWS)
	srv := httptest.NewServer(r)
	defer srv.Close()
	target := rangeURL("/ws/messages/scan", "scan", "deep")

	frames, err := scanFrames(t, srv, target)
	all := strings.Join(frames, "\n")
	if !websocket.IsCloseError(err, websocket.CloseNormalClosure) || !strings.Contains(all, `data-ended="true"`) ||
		strings.Count(all, `data-testid="message-row"`) != 100 || !strings.Contains(all, "Scanned 100 of 100 in range, matched 100") {
		t.Errorf("scan with a free slot: close %v, frames:\n%s", err, all)
	}

	// The rows showed the bodies' previews: one read with the rows shown.
	if len(reads.reads) != 1 || reads.reads[0].Mode != store.ReadListMode || reads.reads[0].Rows != 100 || reads.reads[0].Format != "page" {
		t.Errorf("the scan recorded %+v, want one list read of 100 rows", reads.reads)
	}

	leave, ok := h.Heavy.enter()
	if !ok {
		t.Fatal("the only slot is still taken after the scan ended")
	}
	defer leave()
	frames, err = scanFrames(t, srv, target)
	all = strings.Join(frames, "\n")
	if !websocket.IsCloseError(err, websocket.CloseNormalClosure) || len(frames) != 1 || !strings.Contains(all, `data-ended="true"`) ||
		!strings.Contains(all, "the most it runs at once") {
		t.Errorf("scan with every slot taken: close %v, frames:\n%s", err, all)
	}
	if len(reads.reads) != 1 {
		t.Errorf("a refused scan showed no body, yet %d reads are recorded", len(reads.reads))
	}
}

// On a named cluster the scan's rows link to that cluster's message pages, as every
// page and live frame of it does.
func TestDeepScanRowsLinkWithinTheirCluster(t *testing.T) {
	gin.SetMode(gin.ReleaseMode)
	r := newEngine()
	h := &Messages{Env: &Env{Log: slog.New(slog.DiscardHandler), Base: "/c/east"}, Lookup: lookup.New(msgFake(3), lookup.Options{}),
		Heavy: NewHeavyGate(1), Now: func() time.Time { return msgT0.Add(time.Hour) }}
	r.GET("/ws/messages/scan", h.ScanWS)
	srv := httptest.NewServer(r)
	defer srv.Close()
	frames, _ := scanFrames(t, srv, rangeURL("/ws/messages/scan", "scan", "deep"))
	all := strings.Join(frames, "\n")
	if n := strings.Count(all, `href="/c/east/messages/`); n < 3 || strings.Contains(all, `href="/messages/`) {
		t.Errorf("%d links on cluster east's pages, want one a row at least and none elsewhere:\n%s", n, all)
	}
}

// Stopped from its page in the middle, the scan's last frame still comes: it says the
// scan was stopped and what it had read, and the slot the scan held is free.
func TestDeepScanStoppedFromItsPageSaysSo(t *testing.T) {
	gin.SetMode(gin.ReleaseMode)
	r := newEngine()
	pulling := make(chan struct{}, 16)
	hold := func(ctx context.Context) { pulling <- struct{}{}; <-ctx.Done() } // every pull waits for the Stop
	h := &Messages{Env: &Env{Log: slog.New(slog.DiscardHandler)}, Lookup: lookup.New(msgFake(100), lookup.Options{BeforeScanPull: hold}),
		Heavy: NewHeavyGate(1), Now: func() time.Time { return msgT0.Add(time.Hour) }}
	r.GET("/ws/messages/scan", h.ScanWS)
	srv := httptest.NewServer(r)
	defer srv.Close()
	conn, _, err := websocket.DefaultDialer.Dial("ws"+strings.TrimPrefix(srv.URL, "http")+rangeURL("/ws/messages/scan", "scan", "deep"), http.Header{"Origin": {srv.URL}})
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	select {
	case <-pulling:
	case <-time.After(10 * time.Second):
		t.Fatal("the scan never pulled")
	}
	if err := conn.WriteMessage(websocket.TextMessage, []byte(`{"action":"stop"}`)); err != nil {
		t.Fatal(err)
	}
	_ = conn.SetReadDeadline(time.Now().Add(10 * time.Second))
	var frames []string
	for {
		_, msg, err := conn.ReadMessage()
		if err != nil {
			break
		}
		frames = append(frames, string(msg))
	}
	all := strings.Join(frames, "\n")
	if !strings.Contains(all, `data-ended="true"`) || !strings.Contains(all, "The scan was stopped after") || !strings.Contains(all, "Scanned 0 of 100 in range, matched 0") {
		t.Errorf("stopped scan's frames:\n%s", all)
	}
	leave, ok := h.Heavy.enter()
	if !ok {
		t.Fatal("the only slot is still taken after the scan was stopped")
	}
	leave()
}
