package e2e

import (
	"context"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"rmqconsole/dev"
)

// The page may be between two documents when asked (a reload under load was seen to
// land right after the chart first showed): wait until it has the chart again.
func chartPoints(t *testing.T, ctx context.Context) int {
	t.Helper()
	Do(t, ctx, "wait for the lag chart", chromedp.WaitReady(`#lag-chart`))
	s := Get(t, ctx, "count the chart's points", chromedp.Evaluate[string](`(document.getElementById('lag-chart') || {getAttribute: () => ""}).getAttribute('data-points') || "0"`))
	n, _ := strconv.Atoi(s)
	return n
}

var (
	legendTime = regexp.MustCompile(`\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC`)
	axisTick   = regexp.MustCompile(`^\d\d:\d\d:\d\d$`)
)

// The lag chart reads without touching it: the legend shows the newest sample, the time
// axis speaks the console's format (UTC), the lag axis starts at 0 so a steady backlog
// is a flat line, and the history is still there when the page is opened again.
func TestLagChartReadsAtAGlance(t *testing.T) {
	cl := dev.RequireCluster(t)
	_, group := offlineGroupWithBacklog(t, cl, 30)
	con := StartConsole(t, "RMQC_NAMESRV="+cl.NameServer, "RMQC_METRICS_INTERVAL=1s")
	browser := Browser(t)
	ctx, closeTab := newTab(t, browser)
	defer closeTab()

	Do(t, ctx, "open the group", chromedp.Navigate(con.URL+"/groups/"+group), chromedp.WaitVisible(chromedp.CSS(`#lag-chart .u-legend`)))
	deadline := time.Now().Add(30 * time.Second)
	for chartPoints(t, ctx) < 6 {
		if time.Now().After(deadline) {
			t.Fatalf("the chart has %d points after 30 s", chartPoints(t, ctx))
		}
		time.Sleep(200 * time.Millisecond)
	}
	legend := Get(t, ctx, "read the legend", chromedp.Text(chromedp.CSS(`#lag-chart .u-legend`)))
	if !legendTime.MatchString(legend) || !strings.Contains(legend, "30") {
		t.Errorf("before any hover the legend reads %q, want the newest sample's time (UTC) and lag 30", legend)
	}
	ticks := Get(t, ctx, "read the time axis", chromedp.Evaluate[string](`document.getElementById('lag-chart').getAttribute('data-x-ticks') || ""`))
	for _, tick := range strings.Split(ticks, "|") {
		if !axisTick.MatchString(tick) {
			t.Errorf("time axis label %q (of %q) is not HH:MM:SS in UTC", tick, ticks)
		}
	}
	if y := Get(t, ctx, "read the lag axis", chromedp.Evaluate[string](`document.getElementById('lag-chart').getAttribute('data-y-min')`)); y != "0" {
		t.Errorf("the lag axis starts at %s, want 0 for a backlog of 30", y)
	}

	// Close the tab, wait until the console stops watching the group, come back.
	seen := chartPoints(t, ctx)
	closeTab()
	stopped := regexp.MustCompile(`msg="stopped watching group".* group=` + regexp.QuoteMeta(group))
	dev.Eventually(t, 60*time.Second, "the console stops watching the group", func() error {
		if stopped.MatchString(con.Log()) {
			return nil
		}
		return errString("still watching")
	})
	// Nobody watches now: let the collector store a few samples before coming back.
	unwatchedFrom := time.Now()
	dev.Eventually(t, 60*time.Second, "the collector stores samples while nobody watches", func() error {
		n := 0
		for _, s := range lagHistory(t, con, group, "").Samples {
			if s.At.After(unwatchedFrom) {
				n++
			}
		}
		if n < 4 {
			return fmt.Errorf("%d samples stored since nobody watches", n)
		}
		return nil
	})
	back := time.Now()
	ctx, closeTab = newTab(t, browser)
	defer closeTab()
	Do(t, ctx, "open the group again", chromedp.Navigate(con.URL+"/groups/"+group), chromedp.WaitVisible(chromedp.CSS(`#lag-chart .u-legend`)))
	if n := chartPoints(t, ctx); n < seen {
		t.Errorf("reopened, the chart starts with %d points; it had %d before", n, seen)
	}
	// While nobody watched, the collector stored a sample a second: the chart draws
	// them, one line with the live points either side, not a blank.
	drawn := Get(t, ctx, "read the series drawn", chromedp.Evaluate[[][]*float64](`document.getElementById('lag-chart').rmqcData`))
	unwatched, breaks := 0, 0
	for i, at := range drawn[0] {
		v := drawn[1][i]
		if v == nil {
			breaks++
		} else if ms := int64(*at * 1000); ms > unwatchedFrom.UnixMilli() && ms < back.UnixMilli() {
			unwatched++
		}
	}
	if unwatched < 4 || breaks != 0 {
		t.Errorf("over the %s nobody watched the chart draws %d points (want the 4 or more stored samples) and breaks the line %d times (want 0)",
			back.Sub(unwatchedFrom).Round(time.Second), unwatched, breaks)
	}
}

// newTab opens a tab of the browser; closing it ends its page, websocket and all.
func newTab(t *testing.T, browser context.Context) (context.Context, context.CancelFunc) {
	t.Helper()
	ctx, cancel := chromedp.NewContext(browser)
	if err := chromedp.Do(ctx); err != nil { // no deadline: it would close the tab
		t.Fatal(err)
	}
	return ctx, cancel
}

type errString string

func (e errString) Error() string { return string(e) }
