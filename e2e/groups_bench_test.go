package e2e

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"net/http"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/gorilla/websocket"

	"rmqconsole/dev"
	"rmqconsole/groups/groupstest"
	"rmqconsole/rocketmq"
)

// Benchmarks of the consumer group pages on the real binary and the real broker. They
// read the console's own /metrics (broker requests, polls) and its process RSS.

// scrape sums the samples of each named metric in the console's /metrics.
func scrape(b *testing.B, con *Console, names ...string) map[string]float64 {
	b.Helper()
	res, err := http.Get(con.URL + "/metrics")
	if err != nil {
		b.Fatal(err)
	}
	defer res.Body.Close()
	out := map[string]float64{}
	sc := bufio.NewScanner(res.Body)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		line := sc.Text()
		for _, n := range names {
			if strings.HasPrefix(line, n+" ") || strings.HasPrefix(line, n+"{") {
				f := strings.Fields(line)
				v, _ := strconv.ParseFloat(f[len(f)-1], 64)
				out[n] += v
			}
		}
	}
	return out
}

// rssMiB is the console process's resident memory.
func rssMiB(b *testing.B, con *Console) float64 {
	b.Helper()
	status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", con.cmd.Process.Pid))
	if err != nil {
		b.Fatal(err)
	}
	for _, line := range strings.Split(string(status), "\n") {
		if strings.HasPrefix(line, "VmRSS:") {
			kb, _ := strconv.ParseFloat(strings.Fields(line)[1], 64)
			return kb / 1024
		}
	}
	b.Fatal("no VmRSS")
	return 0
}

const (
	brokerRequests = "rmqconsole_broker_requests_total"
	livePolls      = "rmqconsole_live_group_polls_total"
	liveViewers    = "rmqconsole_live_group_viewers"
)

// BenchmarkLiveViewers opens V websocket viewers on one group (three real consumers) and
// counts the console's requests to RocketMQ per poll: with one watcher per group they
// must not depend on V. It also reports the console's RSS with V viewers.
func BenchmarkLiveViewers(b *testing.B) {
	cl := dev.RequireCluster(b)
	topic := newTopic(b, cl, "bench-live", 8)
	group := dev.UniqueName("bench-live-cg")
	for range 3 {
		dev.StartConsumerProcess(b, cl.NameServer, group, topic)
	}
	for _, viewers := range []int{1, 200} {
		b.Run(fmt.Sprintf("viewers=%d", viewers), func(b *testing.B) {
			// No background lag collection: only the watcher talks to RocketMQ. Every
			// viewer comes from this one address: let it have them all.
			con := StartConsole(b, "RMQC_NAMESRV="+cl.NameServer, "RMQC_GROUP_POLL=1s", "RMQC_METRICS_INTERVAL=0", "RMQC_LOG_LEVEL=info",
				fmt.Sprintf("RMQC_LIVE_VIEWS_PER_USER=%d", viewers))
			waitOnline(b, con, group, 3)
			url := "ws" + strings.TrimPrefix(con.URL, "http") + "/ws/groups/" + group
			var wg sync.WaitGroup
			conns := make([]*websocket.Conn, viewers)
			for i := range conns {
				c, _, err := websocket.DefaultDialer.Dial(url, http.Header{"Origin": {con.URL}})
				if err != nil {
					b.Fatalf("viewer %d: %v", i, err)
				}
				conns[i] = c
				wg.Go(func() {
					for {
						if _, _, err := c.ReadMessage(); err != nil {
							return
						}
					}
				})
			}
			defer func() {
				for _, c := range conns {
					c.Close()
				}
				wg.Wait()
			}()
			waitMetric(b, con, liveViewers, func(v float64) bool { return v == float64(viewers) })
			// Let the watcher settle (first ticks, route caches) before counting.
			start := scrape(b, con, livePolls)[livePolls]
			waitMetric(b, con, livePolls, func(v float64) bool { return v >= start+3 })
			m0 := scrape(b, con, brokerRequests, livePolls)
			for b.Loop() { // one iteration: one poll of the group
				cur := scrape(b, con, livePolls)[livePolls]
				waitMetric(b, con, livePolls, func(v float64) bool { return v >= cur+1 })
			}
			m1 := scrape(b, con, brokerRequests, livePolls)
			polls := m1[livePolls] - m0[livePolls]
			b.ReportMetric((m1[brokerRequests]-m0[brokerRequests])/polls, "requests/poll")
			b.ReportMetric(rssMiB(b, con), "rss-MiB")
			b.ReportMetric(float64(viewers), "viewers")
		})
	}
}

func waitMetric(b *testing.B, con *Console, name string, ok func(float64) bool) {
	b.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for {
		if ok(scrape(b, con, name)[name]) {
			return
		}
		if time.Now().After(deadline) {
			b.Fatalf("%s never reached the expected value", name)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// BenchmarkGroupsPage is GET /groups on the real binary with RMQC_BENCH_GROUPS groups
// (default 1000; package groups' benchmark seeds them the same way): cold (refresh=1:
// a full pass over the brokers, then the page) and warm (from the cache). Reported:
// ms/page and broker requests per page.
func BenchmarkGroupsPage(b *testing.B) {
	cl := dev.RequireCluster(b)
	n := 1000
	if v, err := strconv.Atoi(os.Getenv("RMQC_BENCH_GROUPS")); err == nil && v > 0 {
		n = v
	}
	c, err := rocketmq.New(rocketmq.Config{NameServer: cl.NameServer, Timeout: 10 * time.Second})
	if err != nil {
		b.Fatal(err)
	}
	groupstest.SeedGroups(b, cl, c, n)
	c.Close()
	con := StartConsole(b, "RMQC_NAMESRV="+cl.NameServer, "RMQC_METRICS_INTERVAL=0", "RMQC_LOG_LEVEL=info")
	get := func(b *testing.B, path string) {
		res, err := http.Get(con.URL + path)
		if err != nil {
			b.Fatal(err)
		}
		body, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if res.StatusCode != 200 || strings.Count(string(body), "<tr data-group=") < n {
			b.Fatalf("GET %s: %d with %d rows", path, res.StatusCode, strings.Count(string(body), "<tr data-group="))
		}
	}
	for _, c := range []struct{ name, path string }{{"cold", "/groups?refresh=1"}, {"warm", "/groups"}} {
		b.Run(c.name, func(b *testing.B) {
			get(b, "/groups") // the first read of cluster info and caches
			m0 := scrape(b, con, brokerRequests)[brokerRequests]
			start := time.Now()
			for b.Loop() {
				get(b, c.path)
			}
			b.ReportMetric(float64(time.Since(start).Milliseconds())/float64(b.N), "ms/page")
			b.ReportMetric((scrape(b, con, brokerRequests)[brokerRequests]-m0)/float64(b.N), "requests/page")
		})
	}
}

// BenchmarkJoinToBrowser measures, at a 1 s poll, how long from a consumer's Start
// returning to its client row showing in a group page open in Chromium; one sample per
// iteration (run with -benchtime=20x). Reported: median-ms and p95-ms.
func BenchmarkJoinToBrowser(b *testing.B) {
	cl := dev.RequireCluster(b)
	topic := newTopic(b, cl, "bench-lat", 4)
	group := dev.UniqueName("bench-lat-cg")
	dev.StartConsumerProcess(b, cl.NameServer, group, topic)
	con := StartConsole(b, "RMQC_NAMESRV="+cl.NameServer, "RMQC_GROUP_POLL=1s", "RMQC_METRICS_INTERVAL=0", "RMQC_LOG_LEVEL=info")
	waitOnline(b, con, group, 1)
	ctx := Browser(b)
	// The page records, in browser time, when each client row first appears.
	Do(b, ctx, "open the page and watch for rows",
		chromedp.Navigate(con.URL+"/groups/"+group),
		chromedp.WaitVisible(chromedp.CSS(`#live-indicator.live-on`)),
		chromedp.Evaluate[chromedp.Void](`window.__seen = {};
			new MutationObserver(function () {
				document.querySelectorAll('[data-testid="clients-table"] tr[data-client]').forEach(function (tr) {
					var id = tr.getAttribute('data-client');
					if (!window.__seen[id]) window.__seen[id] = Date.now();
				});
			}).observe(document.getElementById('group-live'), {childList: true, subtree: true});`),
	)
	var lat []float64
	for b.Loop() {
		c := dev.StartConsumerProcess(b, cl.NameServer, group, topic)
		var seenMs float64
		deadline := time.Now().Add(30 * time.Second)
		for seenMs == 0 {
			seenMs = Get(b, ctx, "read", chromedp.Evaluate[float64](fmt.Sprintf(
				`(function(){for (var k in window.__seen) if (k.endsWith('@%s')) return window.__seen[k]; return 0})()`, c.Instance)))
			if time.Now().After(deadline) {
				b.Fatal("the new client's row never appeared")
			}
			time.Sleep(20 * time.Millisecond)
		}
		lat = append(lat, float64(time.UnixMilli(int64(seenMs)).Sub(c.Started).Milliseconds()))
		c.Stop()
		Do(b, ctx, "wait for the row to go", chromedp.WaitNotPresent(chromedp.CSS(`tr[data-client$="@`+c.Instance+`"]`)))
	}
	slices.Sort(lat)
	// Nearest-rank percentiles.
	q := func(p float64) float64 { return lat[max(0, int(math.Ceil(p*float64(len(lat))))-1)] }
	b.ReportMetric(q(0.5), "median-ms")
	b.ReportMetric(q(0.95), "p95-ms")
	b.ReportMetric(lat[len(lat)-1], "max-ms")
}
