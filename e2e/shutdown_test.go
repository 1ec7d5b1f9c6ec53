package e2e

import (
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"rmqconsole/dev"
)

// Ctrl-C stops the console within a few seconds while pages watch a group and a broker
// live and the background loops (the lag collector, the live pollers) run, and each
// live page is told the console is going away (close code 1012, on which the page
// reconnects by itself) instead of having its connection cut. The bound is generous:
// it is there to catch a shutdown that waits on its viewers or loops, not to time one.
func TestInterruptStopsPromptlyWithLiveViewers(t *testing.T) {
	cl := dev.RequireCluster(t)
	topic := newTopic(t, cl, "e2e-stop", 2)
	group := dev.UniqueName("e2e-stop-cg")
	dev.StartConsumerProcess(t, cl.NameServer, group, topic)
	con := StartConsole(t, "RMQC_NAMESRV="+cl.NameServer, "RMQC_GROUP_POLL=1s", "RMQC_METRICS_INTERVAL=1s")
	waitOnline(t, con, group, 1)

	closed := map[string]chan error{}
	for _, path := range []string{"/ws/groups/" + group, "/ws/brokers/" + cl.Brokers[0].Name} {
		conn, _, err := websocket.DefaultDialer.Dial("ws"+strings.TrimPrefix(con.URL, "http")+path, http.Header{"Origin": {con.URL}})
		if err != nil {
			t.Fatalf("open %s: %v", path, err)
		}
		t.Cleanup(func() { conn.Close() })
		// The first frame says the page's poller runs.
		_ = conn.SetReadDeadline(time.Now().Add(60 * time.Second))
		if _, _, err := conn.ReadMessage(); err != nil {
			t.Fatalf("first frame of %s: %v", path, err)
		}
		_ = conn.SetReadDeadline(time.Time{})
		end := make(chan error, 1)
		closed[path] = end
		go func() {
			for {
				if _, _, err := conn.ReadMessage(); err != nil {
					end <- err
					return
				}
			}
		}()
	}

	const bound = 5 * time.Second
	began := time.Now()
	exitErr, ok := con.Interrupt(bound)
	t.Logf("the console exited %s after SIGINT", time.Since(began).Round(time.Millisecond))
	if !ok {
		t.Fatalf("the console still runs %s after SIGINT, with live viewers and its background loops\n%s", bound, con.Log())
	}
	if exitErr != nil {
		t.Errorf("the console exited with %v after SIGINT, want status 0\n%s", exitErr, con.Log())
	}
	for path, end := range closed {
		var ce *websocket.CloseError
		select {
		case err := <-end:
			if !errors.As(err, &ce) || ce.Code != websocket.CloseServiceRestart {
				t.Errorf("%s ended with %v, want close code %d (the console is restarting)", path, err, websocket.CloseServiceRestart)
			}
		case <-time.After(bound):
			t.Errorf("%s still open %s after the console exited", path, bound)
		}
	}
}
