package e2e

import (
	"context"
	"fmt"
	"math"
	"regexp"
	"slices"
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
	var stored []time.Time
	dev.Eventually(t, 60*time.Second, "the collector stores samples while nobody watches", func() error {
		stored = stored[:0]
		for _, s := range lagHistory(t, con, group, "").Samples {
			if s.At.After(unwatchedFrom) {
				stored = append(stored, s.At)
			}
		}
		if len(stored) < 4 {
			return fmt.Errorf("%d samples stored since nobody watches", len(stored))
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
	// each of them, one line with the live points either side, not a blank. Each is
	// looked for by its own time, not by the test's clock; a stored sample and a live
	// reading less than half a second apart are one point (the live one's), as the
	// chart merges them.
	drawn := Get(t, ctx, "read the series drawn", chromedp.Evaluate[[][]*float64](`document.getElementById('lag-chart').rmqcData`))
	breaks := 0
	var xs []float64
	for i, at := range drawn[0] {
		if drawn[1][i] == nil {
			breaks++
		} else if at != nil {
			xs = append(xs, *at)
		}
	}
	var missing []string
	for _, at := range stored {
		x := float64(at.UnixMilli()) / 1000
		if !slices.ContainsFunc(xs, func(d float64) bool { return math.Abs(d-x) <= 0.5 }) {
			missing = append(missing, at.UTC().Format("15:04:05.000"))
		}
	}
	if len(missing) > 0 || breaks != 0 {
		t.Errorf("over the %s nobody watched the collector stored %d samples; the chart lacks %v and breaks the line %d times (want none and 0); drawn: %v",
			back.Sub(unwatchedFrom).Round(time.Second), len(stored), missing, breaks, xs)
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
