package e2e

import (
	"context"
	"fmt"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/apache/rocketmq-client-go/v2/primitive"
	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"

	"rmqconsole/dev"
	"rmqconsole/dev/rmqclient"
)

// seedTopic stores n messages of about 200 bytes in a new topic and returns the range
// search that finds them.
func seedTopic(b *testing.B, cl *dev.Cluster, prefix string, n int) url.Values {
	b.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	topic := dev.UniqueName(prefix)
	if err := cl.CreateTopic(ctx, topic, 4); err != nil {
		b.Fatal(err)
	}
	begin := time.Now().Add(-2 * time.Second).UTC()
	p := rmqclient.StartProducer(b, cl.NameServer, "")
	for i := 0; i < n; i += 50 {
		var batch []*primitive.Message
		for j := i; j < min(i+50, n); j++ {
			m := primitive.NewMessage(topic, []byte(fmt.Sprintf(`{"n":%d,"pad":"%s"}`, j, strings.Repeat("x", 200))))
			m.WithTag("T").WithKeys([]string{fmt.Sprintf("k-%d", j)})
			batch = append(batch, m)
		}
		if r, err := p.SendSync(ctx, batch...); err != nil || r.Status != primitive.SendOK {
			b.Fatalf("send: %v %v", err, r)
		}
	}
	end := time.Now().Add(2 * time.Second).UTC()
	return url.Values{"tab": {"range"}, "topic": {topic}, "begin": {begin.Format(time.DateTime)}, "end": {end.Format(time.DateTime)}}
}

// timingProbe runs in every page before its own scripts and records, in ms since the
// navigation started:
//   - rows: the first rows are visible. Once the first message row is in the DOM, the
//     next animation frame (the one that paints it) is waited for, and the time taken
//     in the task after it, when that frame is done.
//   - longTaskEnd: when the last long task (a task of more than 50 ms: parsing, layout,
//     scripts) ended.
const timingProbe = `(() => {
  const m = window.__rmqcTiming = {rows: -1, longTaskEnd: 0};
  new PerformanceObserver(l => {
    for (const e of l.getEntries()) m.longTaskEnd = Math.max(m.longTaskEnd, e.startTime + e.duration);
  }).observe({type: "longtask"});
  const mo = new MutationObserver(() => {
    if (!document.querySelector('[data-testid="message-row"]')) return;
    mo.disconnect();
    requestAnimationFrame(() => {
      const ch = new MessageChannel();
      ch.port1.onmessage = () => { m.rows = performance.now(); };
      ch.port2.postMessage(0);
    });
  });
  mo.observe(document, {childList: true, subtree: true});
})()`

// pageTimingJS waits until the page has been quiet for half a second, then answers when
// its first rows were visible and when it became interactive: its deferred scripts ran
// (htmx and the page's handlers are attached, DOMContentLoaded is done) and no long task
// kept the main thread busy after that.
const pageTimingJS = `new Promise(resolve => {
  const m = window.__rmqcTiming;
  const check = () => {
    const n = performance.getEntriesByType("navigation")[0];
    const busy = Math.max(n.domContentLoadedEventEnd, m.longTaskEnd);
    if (m.rows < 0 || n.domContentLoadedEventEnd === 0 || performance.now() - busy < 500) return setTimeout(check, 100);
    resolve({rows: m.rows, interactive: busy, response: n.responseEnd - n.startTime, bytes: n.transferSize});
  };
  check();
})`

// BenchmarkMessages2000Rows opens the newest 2000 messages of a topic in Chromium and
// reports when the first rows are visible and the page is interactive (see timingProbe
// and pageTimingJS); the same page with 20 rows, opened in the same run, is the
// baseline, and the ratios to it are what to compare across machines and runs.
//
//	RMQC_TEST_NAMESRV=… go test -run '^$' -bench Messages2000Rows -benchtime 5x ./e2e/
func BenchmarkMessages2000Rows(b *testing.B) {
	cl := dev.RequireCluster(b)
	big := seedTopic(b, cl, "bench-2000", 2100)
	small := seedTopic(b, cl, "bench-20", 20)
	con := StartConsole(b, "RMQC_NAMESRV="+cl.NameServer)
	ctx := Browser(b)
	Do(b, ctx, "install the timing probe", chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		_, err := cdp.Call(ctx, t, page.AddScriptToEvaluateOnNewDocument, page.AddScriptToEvaluateOnNewDocumentParams{Source: timingProbe})
		return err
	}))
	open := func(q url.Values, summary string) map[string]float64 {
		Do(b, ctx, "open the result", chromedp.Navigate(con.URL+"/messages?"+q.Encode()),
			chromedp.WaitVisible(chromedp.CSS(`[data-testid="messages-table"] tbody tr`)))
		if s := Get(b, ctx, "read the summary", chromedp.Text(chromedp.CSS(`[data-testid="result-summary"]`))); !strings.HasPrefix(s, summary) {
			b.Fatalf("the result says %q, want %q", s, summary)
		}
		return Get(b, ctx, "read the timing", chromedp.Evaluate[map[string]float64](pageTimingJS, chromedp.EvalAwaitPromise))
	}
	open(big, "Newest 2,000 of 2,100") // warm the console's route cache and the browser's asset cache
	var sum [6]float64
	n := 0
	for b.Loop() {
		t2000 := open(big, "Newest 2,000 of 2,100")
		t20 := open(small, "20 messages")
		sum[0] += t2000["rows"]
		sum[1] += t2000["interactive"]
		sum[2] += t20["rows"]
		sum[3] += t20["interactive"]
		sum[4] += t2000["response"]
		sum[5] += t20["response"]
		n++
	}
	f := float64(n)
	b.ReportMetric(sum[0]/f, "ms-rows-2000")
	b.ReportMetric(sum[1]/f, "ms-interactive-2000")
	b.ReportMetric(sum[2]/f, "ms-rows-20")
	b.ReportMetric(sum[3]/f, "ms-interactive-20")
	// When the whole answer had arrived: the console's and the brokers' share.
	b.ReportMetric(sum[4]/f, "ms-response-2000")
	b.ReportMetric(sum[5]/f, "ms-response-20")
	b.ReportMetric(sum[0]/sum[2], "x-rows-vs-20")
	b.ReportMetric(sum[1]/sum[3], "x-interactive-vs-20")
}
