package server

import (
	"bufio"
	"context"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"rmqconsole/dev"
	"rmqconsole/rocketmq"
)

// newLiveApp builds the real console on the local RocketMQ without the background lag
// collector, so every broker request it makes is the live view's.
func newLiveApp(t *testing.T, ns string, extra ...string) (*App, *httptest.Server) {
	t.Helper()
	args := append([]string{"--listen", "127.0.0.1:0", "--data-dir", t.TempDir(), "--namesrv", ns,
		"--metrics-interval", "0", "--topic-figures-interval", "0", "--group-poll", "500ms"}, extra...)
	cfg, err := ParseConfig(args, noEnv, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	a, err := New(context.Background(), cfg, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(a.Handler())
	t.Cleanup(func() { srv.Close(); a.Close() })
	return a, srv
}

// configuredGroups makes groups that exist only as subscription configs on every broker:
// no client, no offsets.
func configuredGroups(t *testing.T, cl *dev.Cluster, n int) []string {
	t.Helper()
	c, err := rocketmq.New(rocketmq.Config{NameServer: cl.NameServer})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	var out []string
	for range n {
		g := dev.UniqueName("live-cg")
		for _, b := range cl.Brokers {
			if err := c.UpdateSubscriptionGroup(t.Context(), b.Addr, rocketmq.SubscriptionGroupConfig{GroupName: g, ConsumeEnable: true}); err != nil {
				t.Fatal(err)
			}
		}
		out = append(out, g)
	}
	return out
}

// liveDial opens the live view of group as a browser on the console's page would.
func liveDial(t *testing.T, srv *httptest.Server, group string) *websocket.Conn {
	t.Helper()
	ws, _, err := websocket.DefaultDialer.Dial("ws"+strings.TrimPrefix(srv.URL, "http")+"/ws/groups/"+group, http.Header{"Origin": {srv.URL}})
	if err != nil {
		t.Fatalf("dial the live view of %s: %v", group, err)
	}
	t.Cleanup(func() { ws.Close() })
	return ws
}

// liveAnswer reads a live view's first frame and, when the console refused it, the close
// code that follows; code 0 means the view is streaming.
func liveAnswer(t *testing.T, ws *websocket.Conn) (first string, code int) {
	t.Helper()
	_ = ws.SetReadDeadline(time.Now().Add(30 * time.Second))
	_, msg, err := ws.ReadMessage()
	if err != nil {
		t.Fatalf("no first frame: %v", err)
	}
	if !strings.Contains(string(msg), `data-final="true"`) {
		return string(msg), 0
	}
	_, _, err = ws.ReadMessage()
	var ce *websocket.CloseError
	if !errors.As(err, &ce) {
		t.Fatalf("after the refusal %q: %v, want a close", msg, err)
	}
	return string(msg), ce.Code
}

// liveMetric reads one of the live view's series from /metrics.
func liveMetric(t *testing.T, a *App, name string) float64 {
	t.Helper()
	sc := bufio.NewScanner(strings.NewReader(grpServe(t, a, "/metrics").Body.String()))
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), name+" "); ok {
			f, err := strconv.ParseFloat(v, 64)
			if err != nil {
				t.Fatal(err)
			}
			return f
		}
	}
	t.Fatalf("/metrics has no %s", name)
	return 0
}

// A hundred live views of groups no broker knows start no watcher: each is refused with
// a sentence and close code 4404 after one check, and nothing polls the brokers after
// them. Ten viewers of one real group share its one watcher.
func TestLiveViewsOfUnknownGroupsStartNoWatcher(t *testing.T) {
	if testing.Short() {
		t.Skip("needs the local RocketMQ")
	}
	cl := dev.RequireCluster(t)
	a, srv := newLiveApp(t, cl.NameServer, "--live-views-per-user", "200")
	real := configuredGroups(t, cl, 1)[0]

	before := a.def.rmq.TotalCalls()
	// One view after the other, each kept open: a hundred checks at once on a loaded
	// machine let some time out, and a check that cannot tell watches anyway (a group
	// may be real), which is not what this counts.
	refused := 0
	for range 100 {
		first, code := liveAnswer(t, liveDial(t, srv, dev.UniqueName("no-such-cg"))) // closed at cleanup
		if code == 4404 && strings.Contains(first, "No broker or Proxy knows consumer group") {
			refused++
		}
	}
	checks := a.def.rmq.TotalCalls() - before
	watchers := liveMetric(t, a, "rmqconsole_live_group_watchers")
	t.Logf("100 live views of unknown groups: %d refused, %.0f watchers, %d broker and NameServer requests", refused, watchers, checks)
	if refused != 100 || watchers != 0 {
		// Without the check each view starts a watcher: count what they cost.
		dev.Eventually(t, 60*time.Second, "two polls of each watcher", func() error {
			if p := liveMetric(t, a, "rmqconsole_live_group_polls_total"); p < 200 {
				return errors.New("polls " + strconv.FormatFloat(p, 'f', 0, 64))
			}
			return nil
		})
		t.Fatalf("%d of 100 views refused with 4404; %.0f watchers made %d requests in two polls each", refused, watchers, a.def.rmq.TotalCalls()-before)
	}
	if p := liveMetric(t, a, "rmqconsole_live_group_polls_total"); p != 0 {
		t.Fatalf("%v polls after the refusals", p)
	}

	// Ten viewers of a real group: one watcher, every viewer streaming.
	for range 10 {
		if first, code := liveAnswer(t, liveDial(t, srv, real)); code != 0 || !strings.Contains(first, "id=") {
			t.Fatalf("viewer of %s refused (%d): %.200s", real, code, first)
		}
	}
	if w := liveMetric(t, a, "rmqconsole_live_group_watchers"); w != 1 {
		t.Fatalf("10 viewers of one group: %v watchers", w)
	}
	from, polls := a.def.rmq.TotalCalls(), liveMetric(t, a, "rmqconsole_live_group_polls_total")
	dev.Eventually(t, 30*time.Second, "ten more polls of the real group", func() error {
		if p := liveMetric(t, a, "rmqconsole_live_group_polls_total"); p < polls+10 {
			return errors.New("polls " + strconv.FormatFloat(p, 'f', 0, 64))
		}
		return nil
	})
	perPoll := float64(a.def.rmq.TotalCalls()-from) / (liveMetric(t, a, "rmqconsole_live_group_polls_total") - polls)
	t.Logf("the real group's watcher: %.1f requests a poll for its 10 viewers", perPoll)
	// Refusing a name costs about one poll's reads, once; a watcher costs them every tick.
	if float64(checks) > 100*2*perPoll+100 {
		t.Errorf("100 refusals cost %d requests, more than two polls each (%.1f a poll)", checks, perPoll)
	}
}

// Live views are bounded: a user (here: one address, without users) has at most
// --live-views-per-user open, and at most --live-groups groups are watched at once. Over
// either bound a view is refused with a sentence and close code 4429; a view closed
// makes room, and a group already watched takes more viewers.
func TestLiveViewsAreBoundedPerUserAndInAll(t *testing.T) {
	if testing.Short() {
		t.Skip("needs the local RocketMQ")
	}
	cl := dev.RequireCluster(t)
	_, srv := newLiveApp(t, cl.NameServer, "--live-views-per-user", "3", "--live-groups", "2")
	g := configuredGroups(t, cl, 3)

	open := func(group string) (*websocket.Conn, string, int) {
		t.Helper()
		ws := liveDial(t, srv, group)
		first, code := liveAnswer(t, ws)
		return ws, first, code
	}
	firstView, _, c1 := open(g[0])
	if _, _, c2 := open(g[1]); c1 != 0 || c2 != 0 {
		t.Fatalf("the first two groups: closed with %d and %d", c1, c2)
	}
	if _, say, code := open(g[2]); code != 4429 || !strings.Contains(say, "already watches 2 consumer groups") {
		t.Fatalf("a third group beyond --live-groups 2: %d %.200q", code, say)
	}
	if _, _, code := open(g[0]); code != 0 {
		t.Fatalf("a second viewer of a watched group, third view of the user: closed with %d", code)
	}
	if _, say, code := open(g[0]); code != 4429 || !strings.Contains(say, "You have 3 live pages open") {
		t.Fatalf("a fourth view beyond --live-views-per-user 3: %d %.200q", code, say)
	}
	firstView.Close()
	dev.Eventually(t, 30*time.Second, "a closed view makes room for another", func() error {
		ws := liveDial(t, srv, g[1])
		defer ws.Close()
		if _, code := liveAnswer(t, ws); code != 0 {
			return errors.New("closed with " + strconv.Itoa(code))
		}
		return nil
	})
}
