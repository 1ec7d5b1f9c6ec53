package e2e

import (
	"context"
	"io"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"rmqconsole/dev"
)

// The real broker at the size the scale goals name: 10 000 groups and 5 000 topics,
// seeded into its config files (dev.Seed), so that it holds them from its first start.
const (
	scaleGroups = 10000
	scaleTopics = 5000
)

func scaleSeed() *dev.Seed {
	return &dev.Seed{Groups: dev.SeedNames("scale-g-", scaleGroups), Topics: dev.SeedNames("scale-t-", scaleTopics)}
}

// groupRowsJS counts the rows of the group list in the page.
const groupRowsJS = `document.querySelectorAll('[data-testid="groups-table"] tbody tr[data-group]').length`

// openGroupList opens the group list and answers how long the first rows took to show,
// from the navigation's start as the browser timed it (performance.now() counts from it).
func openGroupList(tb testing.TB, ctx context.Context, con *Console) time.Duration {
	Do(tb, ctx, "open the group list",
		chromedp.Navigate(con.URL+"/groups"),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="groups-table"] tbody tr[data-group]`)),
	)
	ms := Get(tb, ctx, "when the first rows showed", chromedp.Evaluate[float64](`performance.now()`))
	return time.Duration(ms * float64(time.Millisecond))
}

// On a real broker holding 10 000 groups and 5 000 topics, the group list shows its
// first page of rows and the count of every group, and loads the next pages in place as
// its More row scrolls into view, each group once; the topic list shows its first page
// of the 5 000 topics. How long the first rows take is BenchmarkGroupListTenThousandGroups'
// to measure (make bench), not this test's.
func TestGroupListOfTenThousandGroupsOnARealBroker(t *testing.T) {
	cl := dev.RequireSeededCluster(t, scaleSeed())
	con := StartConsole(t, "RMQC_NAMESRV="+cl.NameServer)
	ctx := Browser(t)

	took := openGroupList(t, ctx, con)
	t.Logf("first rows of %d groups after %s", scaleGroups, took.Round(time.Millisecond))
	if n := Get(t, ctx, "rows", chromedp.Evaluate[int](groupRowsJS)); n != 50 {
		t.Errorf("the first page shows %d rows; want 50", n)
	}
	count := TextNow(t, ctx, "the count", `[data-testid="groups-count"]`)
	if digits := regexp.MustCompile(`\D`).ReplaceAllString(count, ""); !strings.Contains(digits, "10000") {
		t.Errorf("the count says %q; want the 10 000 groups", count)
	}
	Do(t, ctx, "mark the document", chromedp.Evaluate[chromedp.Void](`window.__samePagedDocument = true`))
	for _, want := range []int{100, 150} {
		Do(t, ctx, "scroll to the More row",
			chromedp.Evaluate[chromedp.Void](`document.querySelector('[data-testid="groups-more"]').scrollIntoView()`))
		Get(t, ctx, "the next rows load in place", chromedp.Poll[bool](
			groupRowsJS+` >= `+strconv.Itoa(want), chromedp.WithPollingTimeout(30*time.Second)))
	}
	rows := Get(t, ctx, "the rows", chromedp.Evaluate[[]string](
		`Array.from(document.querySelectorAll('[data-testid="groups-table"] tbody tr[data-group]')).map(r => r.dataset.group)`))
	seen := map[string]bool{}
	for _, r := range rows {
		if seen[r] {
			t.Errorf("%s is listed twice after loading in place", r)
		}
		seen[r] = true
	}
	if !Get(t, ctx, "same document", chromedp.Evaluate[bool](`window.__samePagedDocument === true`)) {
		t.Errorf("the next rows reloaded the page instead of loading in place")
	}

	res, err := http.Get(con.URL + "/topics")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if n := strings.Count(string(body), `data-topic="scale-t-`); res.StatusCode != http.StatusOK || n != 50 {
		t.Errorf("the topic list: %d with %d seeded topics on its first page; want 200 with 50", res.StatusCode, n)
	}
}

// BenchmarkGroupListTenThousandGroups: how long the group list takes, on a real broker
// holding 10 000 groups and 5 000 topics, to show its first rows in Chromium (from the
// navigation's start, as the browser times it), and the server time of the API's first
// page read afresh (refresh=1: every broker asked again) and from the list kept
// between reads.
//
//	go test -run '^$' -bench BenchmarkGroupListTenThousandGroups -benchtime 5x ./e2e/
func BenchmarkGroupListTenThousandGroups(b *testing.B) {
	cl := dev.RequireSeededCluster(b, scaleSeed())
	con := StartConsole(b, "RMQC_NAMESRV="+cl.NameServer)
	ctx := Browser(b)
	openGroupList(b, ctx, con) // the console's first read of the broker, not measured
	api := func(path string) time.Duration {
		start := time.Now()
		res, err := http.Get(con.URL + path)
		if err != nil {
			b.Fatal(err)
		}
		io.Copy(io.Discard, res.Body)
		res.Body.Close()
		if res.StatusCode != http.StatusOK {
			b.Fatalf("GET %s: %d", path, res.StatusCode)
		}
		return time.Since(start)
	}
	var browser, fresh, kept time.Duration
	for b.Loop() {
		browser += openGroupList(b, ctx, con)
		fresh += api("/api/v1/groups?refresh=1")
		kept += api("/api/v1/groups")
	}
	n := float64(b.N)
	b.ReportMetric(float64(browser.Milliseconds())/n, "first-rows-ms")
	b.ReportMetric(float64(fresh.Microseconds())/1000/n, "api-fresh-ms")
	b.ReportMetric(float64(kept.Microseconds())/1000/n, "api-kept-ms")
}
