package e2e

import (
	"bufio"
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/apache/rocketmq-client-go/v2/primitive"
	"github.com/chromedp/chromedp"

	"rmqconsole/dev"
	"rmqconsole/dev/rmqclient"
)

// An operator opens a topic's live tail from its page and sees messages appear as they
// are sent; paused, the page draws no row and counts those that arrive; resumed, rows
// appear again.
func TestLiveTailInTheBrowser(t *testing.T) {
	cl := dev.RequireCluster(t)
	dir := t.TempDir()
	addUser(t, dir, "otto", "operator")
	con := StartConsole(t, "RMQC_NAMESRV="+cl.NameServer, "RMQC_DATA_DIR="+dir)
	op := signedInClient(t, con, "otto")
	topic := dev.UniqueName("e2e-tail")
	var ans topicChangeAnswer
	if code := op.call(http.MethodPost, "/api/v1/topics", `{"topic":"`+topic+`","readQueueNums":4,"writeQueueNums":4}`, &ans); code != http.StatusCreated {
		t.Fatalf("create: %d %+v", code, ans)
	}
	// Sent by a client of RocketMQ's own, as an application would.
	p := rmqclient.StartProducer(t, cl.NameServer, "")
	sent := 0
	send := func() error {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		r, err := p.SendSync(ctx, primitive.NewMessage(topic, fmt.Appendf(nil, "tail-%d", sent)))
		if err != nil || r.Status != primitive.SendOK {
			return fmt.Errorf("send: %v %v", err, r)
		}
		sent++
		return nil
	}
	dev.Eventually(t, 30*time.Second, "the new topic takes a message", send)

	browser := Browser(t)
	ctx, closeTab := newTab(t, browser)
	defer closeTab()
	Do(t, ctx, "open the topic", chromedp.Navigate(con.URL+"/topics/"+url.PathEscape(topic)))
	signIn(t, ctx, "otto", e2ePassword)
	Do(t, ctx, "open its live tail", chromedp.WaitVisible(chromedp.CSS(`[data-testid="topic-tail-link"]`)),
		chromedp.Click(chromedp.CSS(`[data-testid="topic-tail-link"]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="tail-table"]`)))
	Do(t, ctx, "see the tail start", chromedp.Poll[chromedp.Void](`(document.querySelector('[data-testid="tail-started"]')?.textContent || "").startsWith("Live since")`,
		chromedp.WithPollingTimeout(30*time.Second)))
	rows := func(n int) chromedp.Action[chromedp.Void] {
		return chromedp.Poll[chromedp.Void](fmt.Sprintf(`document.querySelectorAll('#tail-rows tr[data-testid="message-row"]').length >= %d`, n),
			chromedp.WithPollingTimeout(30*time.Second))
	}
	for range 3 {
		if err := send(); err != nil {
			t.Fatal(err)
		}
	}
	Do(t, ctx, "see the three rows", rows(3))
	// /metrics shows the tail, its one viewer and the rows it was sent.
	dev.Eventually(t, 10*time.Second, "/metrics shows the tail", func() error {
		if m := tailMetrics(t, op); m.tails != 1 || m.viewers != 1 || m.sent < 3 {
			return fmt.Errorf("after 3 rows: %+v, want 1 tail, 1 viewer, ≥ 3 rows sent", m)
		}
		return nil
	})

	Do(t, ctx, "pause", chromedp.Click(chromedp.CSS(`[data-testid="tail-pause"]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="tail-resume"]`)))
	for range 2 {
		if err := send(); err != nil {
			t.Fatal(err)
		}
	}
	Do(t, ctx, "see the paused rows counted", chromedp.Poll[chromedp.Void](
		`Number(document.querySelector('[data-testid="tail-skipped"]').dataset.count) >= 2`, chromedp.WithPollingTimeout(30*time.Second)))
	Screenshot(t, ctx, "live-tail-paused")
	if m := tailMetrics(t, op); m.skipped < 2 {
		t.Errorf("paused: /metrics %+v, want ≥ 2 rows skipped", m)
	}
	shown := Get(t, ctx, "count the rows", chromedp.Evaluate[int](`document.querySelectorAll('#tail-rows tr[data-testid="message-row"]').length`))
	skipped := TextNow(t, ctx, "read the count", `[data-testid="tail-skipped"]`)
	if shown != 3 || skipped != "· 2 rows not drawn (too fast, or paused)" {
		t.Errorf("paused: %d rows drawn, count %q; want 3 rows and 2 not drawn", shown, skipped)
	}

	// The socket drops (as when the network does): the page reconnects, and stays
	// paused, counting on from 2.
	Do(t, ctx, "drop the socket", chromedp.Evaluate[chromedp.Void](dropTailSocket))
	Do(t, ctx, "see the socket open again", chromedp.Poll[chromedp.Void](`window.__tailOpens >= 1`, chromedp.WithPollingTimeout(30*time.Second)))
	if s := TextNow(t, ctx, "read the indicator", `[data-testid="live-indicator"]`); s != "live again" {
		t.Errorf("after the reconnect the page says %q, want live again", s)
	}
	dev.Eventually(t, 30*time.Second, "rows sent after the reconnect are counted", func() error {
		if err := send(); err != nil {
			return err
		}
		if n := Get(t, ctx, "read the count", chromedp.Evaluate[int](`Number(document.querySelector('[data-testid="tail-skipped"]').dataset.count)`)); n < 3 {
			return fmt.Errorf("%d rows counted after the reconnect, want ≥ 3", n)
		}
		return nil
	})
	shown = Get(t, ctx, "count the rows", chromedp.Evaluate[int](`document.querySelectorAll('#tail-rows tr[data-testid="message-row"]').length`))
	skipped = TextNow(t, ctx, "read the count", `[data-testid="tail-skipped"]`)
	resumeShown := Get(t, ctx, "look for Resume", chromedp.Evaluate[bool](`!!document.querySelector('[data-testid="tail-resume"]')`))
	// Those sent before the new socket's tail started are not seen at all: the count is
	// at least 3, and says what the page counted.
	counted := Get(t, ctx, "read the count", chromedp.Evaluate[int](`Number(document.querySelector('[data-testid="tail-skipped"]').dataset.count)`))
	if want := fmt.Sprintf("· %d rows not drawn (too fast, or paused)", counted); shown != 3 || skipped != want || !resumeShown {
		t.Errorf("reconnected while paused: %d rows drawn, count %q, Resume shown %v; want 3 rows, %q, Resume", shown, skipped, resumeShown, want)
	}

	Do(t, ctx, "resume", chromedp.Click(chromedp.CSS(`[data-testid="tail-resume"]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="tail-pause"]`)))
	if err := send(); err != nil {
		t.Fatal(err)
	}
	Do(t, ctx, "see a row again", rows(4))
	if n := Get(t, ctx, "no broker failing", chromedp.Evaluate[int](`document.querySelectorAll('#tail-failures [data-testid="broker-failure"]').length`)); n != 0 {
		t.Errorf("%d brokers named failing", n)
	}

	// The last viewer leaves: the tail stops, and /metrics says so.
	Do(t, ctx, "leave the tail", chromedp.Click(chromedp.CSS(`[data-testid="tail-topic-link"]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="topic-tail-link"]`)))
	dev.Eventually(t, 10*time.Second, "/metrics shows no tail", func() error {
		if m := tailMetrics(t, op); m.tails != 0 || m.viewers != 0 {
			return fmt.Errorf("after the last viewer left: %+v, want no tail and no viewer", m)
		}
		return nil
	})
}

// dropTailSocket closes the tail page's socket as a dropped connection would (code 1006,
// which the page's htmx extension reconnects after), and counts the socket's opens after
// it in window.__tailOpens.
const dropTailSocket = `(() => {
	const live = document.getElementById("tail-live");
	window.__tailOpens = 0;
	live.addEventListener("htmx:wsOpen", () => window.__tailOpens++);
	const s = live["htmx-internal-data"].webSocket.socket;
	const closed = s.onclose;
	s.onclose = null;
	s.close();
	closed({code: 1006});
})()`

// liveTailMetrics are the live tails' series of /metrics.
type liveTailMetrics struct{ tails, viewers, sent, skipped float64 }

func tailMetrics(t *testing.T, c *apiClient) liveTailMetrics {
	t.Helper()
	res, err := c.c.Get(c.base + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var m liveTailMetrics
	sc := bufio.NewScanner(res.Body)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		name, v, ok := strings.Cut(sc.Text(), " ")
		f, err := strconv.ParseFloat(v, 64)
		if !ok || err != nil {
			continue
		}
		switch name {
		case "rmqconsole_live_tails":
			m.tails = f
		case "rmqconsole_live_tail_viewers":
			m.viewers = f
		case "rmqconsole_live_tail_rows_sent_total":
			m.sent = f
		case "rmqconsole_live_tail_rows_skipped_total":
			m.skipped = f
		}
	}
	if res.StatusCode != http.StatusOK {
		t.Fatalf("/metrics: %d", res.StatusCode)
	}
	return m
}

// tailWithRows are the steps that bring a topic's live tail page to what an operator sees
// on a busy topic: the tail started, rows drawn for n messages sent through the console's
// API, then paused with two more counted. For the suites that look at every page.
func tailWithRows(con *Console, topic string, n int) []chromedp.Action[chromedp.Void] {
	send := func(n int) chromedp.Action[chromedp.Void] {
		return chromedp.Func(func(context.Context, *chromedp.Target) error {
			for i := range n {
				body := fmt.Sprintf(`{"body":"{\"orderId\":\"o-%d\",\"status\":\"PAID\",\"amount\":129.5,\"customer\":\"c-%d\"}","tags":"Paid","keys":["o-%d"]}`, i, i, i)
				res, err := http.Post(con.URL+"/api/v1/topics/"+url.PathEscape(topic)+"/messages", "application/json", strings.NewReader(body))
				if err != nil {
					return err
				}
				res.Body.Close()
				if res.StatusCode >= 300 {
					return fmt.Errorf("send to %s: %d", topic, res.StatusCode)
				}
			}
			return nil
		})
	}
	return []chromedp.Action[chromedp.Void]{
		chromedp.Poll[chromedp.Void](`!document.querySelector('[data-testid="tail-started"]').textContent.includes('…')`,
			chromedp.WithPollingTimeout(20*time.Second)),
		send(n),
		chromedp.Poll[chromedp.Void](fmt.Sprintf(`document.querySelectorAll('#tail-rows tr[data-testid="message-row"]').length >= %d`, n),
			chromedp.WithPollingTimeout(20*time.Second)),
		chromedp.Click(chromedp.CSS(`[data-testid="tail-pause"]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="tail-resume"]`)),
		send(2),
		chromedp.Poll[chromedp.Void](`Number(document.querySelector('[data-testid="tail-skipped"]').dataset.count) >= 2`,
			chromedp.WithPollingTimeout(20*time.Second)),
	}
}
