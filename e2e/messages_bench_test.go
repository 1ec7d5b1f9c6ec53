package e2e

import (
	"context"
	"fmt"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/apache/rocketmq-client-go/v2/primitive"
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

// pageTimingJS says, after a navigation, when the first rows were painted and when the
// page became interactive (its deferred scripts ran: DOMContentLoaded done), in ms.
const pageTimingJS = `(() => {
  const n = performance.getEntriesByType("navigation")[0];
  const fcp = performance.getEntriesByName("first-contentful-paint")[0];
  return {paint: fcp ? fcp.startTime : -1, interactive: n.domContentLoadedEventEnd - n.startTime};
})()`

// BenchmarkMessages2000Rows opens the newest 2000 messages of a topic in Chromium and
// reports when the first rows are painted and the page is interactive; the same page
// with 20 rows, opened in the same run, is the baseline.
//
//	RMQC_TEST_NAMESRV=… go test -run '^$' -bench Messages2000Rows -benchtime 10x ./e2e/
func BenchmarkMessages2000Rows(b *testing.B) {
	cl := dev.RequireCluster(b)
	big := seedTopic(b, cl, "bench-2000", 2100)
	small := seedTopic(b, cl, "bench-20", 20)
	con := StartConsole(b, "RMQC_NAMESRV="+cl.NameServer)
	ctx := Browser(b)
	open := func(q url.Values, rows int) map[string]float64 {
		Do(b, ctx, "open the result", chromedp.Navigate(con.URL+"/messages?"+q.Encode()),
			chromedp.WaitVisible(chromedp.CSS(`[data-testid="messages-table"] tbody tr`)))
		if n := Get(b, ctx, "count rows", chromedp.Evaluate[int](`document.querySelectorAll('[data-testid="message-row"]').length`)); n != rows {
			b.Fatalf("%d rows, want %d", n, rows)
		}
		return Get(b, ctx, "read the timing", chromedp.Evaluate[map[string]float64](pageTimingJS))
	}
	open(big, 2000) // warm the console's route cache and the browser's asset cache
	var sum [4]float64
	n := 0
	for b.Loop() {
		t2000 := open(big, 2000)
		t20 := open(small, 20)
		sum[0] += t2000["paint"]
		sum[1] += t2000["interactive"]
		sum[2] += t20["paint"]
		sum[3] += t20["interactive"]
		n++
	}
	f := float64(n)
	b.ReportMetric(sum[0]/f, "ms-paint-2000")
	b.ReportMetric(sum[1]/f, "ms-interactive-2000")
	b.ReportMetric(sum[2]/f, "ms-paint-20")
	b.ReportMetric(sum[3]/f, "ms-interactive-20")
	b.ReportMetric(sum[1]/sum[3], "x-interactive-vs-20")
}
