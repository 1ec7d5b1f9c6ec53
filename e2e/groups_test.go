package e2e

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"rmqconsole/dev"
)

// waitOnline polls the console's API until the group has n clients.
func waitOnline(t testing.TB, con *Console, group string, n int) {
	t.Helper()
	deadline := time.Now().Add(90 * time.Second)
	for {
		res, err := http.Get(con.URL + "/api/v1/groups/" + group)
		if err == nil {
			var d struct {
				Clients []any `json:"clients"`
			}
			_ = json.NewDecoder(res.Body).Decode(&d)
			res.Body.Close()
			if len(d.Clients) == n {
				return
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("group %s never had %d clients online", group, n)
		}
		time.Sleep(300 * time.Millisecond)
	}
}

func newTopic(t testing.TB, cl *dev.Cluster, prefix string, queues int) string {
	t.Helper()
	topic := dev.UniqueName(prefix)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if err := cl.CreateTopic(ctx, topic, queues); err != nil {
		t.Fatal(err)
	}
	return topic
}

// The group page open in a browser: a consumer starts, and its client row and the
// timeline's "joined" entry appear without a reload; it stops, and "left" appears.
func TestGroupPageUpdatesLiveAsConsumersJoinAndLeave(t *testing.T) {
	cl := dev.RequireCluster(t)
	topic := newTopic(t, cl, "e2e-live", 4)
	group := dev.UniqueName("e2e-live-cg")
	first := dev.StartConsumerProcess(t, cl.NameServer, group, topic)
	con := StartConsole(t, "RMQC_NAMESRV="+cl.NameServer, "RMQC_GROUP_POLL=1s")
	waitOnline(t, con, group, 1)
	ctx := Browser(t)

	Do(t, ctx, "open the group page and wait for the live connection",
		chromedp.Navigate(con.URL+"/groups/"+group),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="clients-table"]`)),
		chromedp.WaitVisible(chromedp.CSS(`#live-indicator.live-on`)),
	)
	if n := Get(t, ctx, "count queue rows", chromedp.Evaluate[int](`document.querySelectorAll('#queues-body tr[data-testid="queue-row"]').length`)); n < 4 {
		t.Errorf("%d queue rows, want the topic's 4 (and the retry queue)", n)
	}
	// A marker that a reload would wipe.
	Do(t, ctx, "mark the page", chromedp.Evaluate[chromedp.Void](`window.__sameDocument = true`))

	second := dev.StartConsumerProcess(t, cl.NameServer, group, topic)
	row := `[data-testid="clients-table"] tr[data-client$="@` + second.Instance + `"]`
	joined := `[data-testid="timeline-event"][data-kind="joined"]`
	Do(t, ctx, "see the new client and its joined event appear",
		chromedp.WaitVisible(chromedp.CSS(row)),
		chromedp.WaitVisible(chromedp.CSS(joined)),
	)
	if txt := TextNow(t, ctx, "read the timeline", joined); !strings.Contains(txt, second.Instance) {
		t.Errorf("joined entry %q does not name the new client", txt)
	}
	// Queues move to it: some row of the queue table names it as owner.
	Do(t, ctx, "see queues move to the new client",
		chromedp.WaitVisible(chromedp.CSS(`#queues-body td[data-testid="queue-owner"] span[title$="@`+second.Instance+`"]`)))
	if !Get(t, ctx, "check the document was not reloaded", chromedp.Evaluate[bool](`window.__sameDocument === true`)) {
		t.Fatal("the page reloaded; it must update in place")
	}

	first.Stop()
	left := `[data-testid="timeline-event"][data-kind="left"]`
	Do(t, ctx, "see the left event", chromedp.WaitVisible(chromedp.CSS(left)))
	if txt := TextNow(t, ctx, "read the left entry", left); !strings.Contains(txt, first.Instance) {
		t.Errorf("left entry %q does not name the client that stopped", txt)
	}
	Do(t, ctx, "see the stopped client's row go",
		chromedp.WaitNotPresent(chromedp.CSS(`[data-testid="clients-table"] tr[data-client$="@`+first.Instance+`"]`)))
	if !Get(t, ctx, "the chart is drawn", chromedp.Evaluate[bool](`!!document.querySelector('#lag-chart .uplot')`)) {
		t.Error("the total lag chart was not drawn")
	}
	// One point per poll reaches the chart, and rows draw their lag sparkline.
	Get(t, ctx, "see the chart grow", chromedp.Poll[bool](
		`parseInt(document.getElementById('lag-chart').getAttribute('data-points') || '0', 10) >= 5`,
		chromedp.WithPollingTimeout(20*time.Second)))
	Do(t, ctx, "see sparklines drawn", chromedp.WaitVisible(chromedp.CSS(`#queues-body svg.spark path`)))
	// Each frame's "checked" time reads as an age as soon as it arrives, not as a raw
	// timestamp until the next one-second tick.
	for i := range 12 {
		txt := TextNow(t, ctx, "read the checked age", `[data-testid="group-checked"]`)
		if !strings.HasSuffix(strings.TrimSpace(txt), "ago") {
			t.Errorf("sample %d: the checked time reads %q, want an age", i, txt)
			break
		}
		time.Sleep(170 * time.Millisecond)
	}
	// The time axis spans the samples (at least the last minute), not uPlot's default
	// of a thousand days around a lone point.
	if span := Get(t, ctx, "read the chart's time span", chromedp.Evaluate[string](`document.getElementById('lag-chart').getAttribute('data-x-span')`)); span == "" {
		t.Error("the chart did not report its time span")
	} else if s, _ := strconv.Atoi(span); s < 60 || s > 3600 {
		t.Errorf("the chart's time axis spans %s s, want the samples' span (at least 60 s)", span)
	}
}

// The group list in a browser: filtering narrows the table in place and the address
// keeps the filter (a deep link); the group links to its page.
func TestGroupListFiltersAndLinks(t *testing.T) {
	cl := dev.RequireCluster(t)
	topic := newTopic(t, cl, "e2e-list", 2)
	group := dev.UniqueName("e2e-list-cg")
	dev.StartConsumerProcess(t, cl.NameServer, group, topic)
	con := StartConsole(t, "RMQC_NAMESRV="+cl.NameServer)
	waitOnline(t, con, group, 1)
	ctx := Browser(t)
	// The list answers a page at a time and the shared cluster may hold many groups:
	// the first page is the one with this run's group on it.
	Do(t, ctx, "open the list, fresh",
		chromedp.Navigate(con.URL+"/groups?refresh=1&q="+group),
		chromedp.WaitVisible(chromedp.CSS(`tr[data-group="`+group+`"]`)),
		chromedp.Evaluate[chromedp.Void](`window.__sameDocument = true`),
		chromedp.SetValue(chromedp.CSS(`#groups-q`), group[len(group)-10:]),
		chromedp.Click(chromedp.CSS(`form.filters button[type=submit]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="groups-count"]`)),
	)
	Get(t, ctx, "the table narrows to the group", chromedp.Poll[bool](
		`document.querySelectorAll('[data-testid="groups-table"] tbody tr').length === 1`, chromedp.WithPollingTimeout(10*time.Second)))
	if loc := Get(t, ctx, "location", chromedp.Location()); !strings.Contains(loc, "q="+group[len(group)-10:]) {
		t.Errorf("the address %s does not keep the filter", loc)
	}
	if !Get(t, ctx, "same document", chromedp.Evaluate[bool](`window.__sameDocument === true`)) {
		t.Error("filtering reloaded the page instead of swapping the list")
	}
	if txt := Get(t, ctx, "clients cell", chromedp.Text(chromedp.CSS(`tr[data-group="`+group+`"] [data-testid="group-clients"]`))); strings.TrimSpace(txt) != "1" {
		t.Errorf("clients cell %q, want 1", txt)
	}
	Do(t, ctx, "follow the group link",
		chromedp.Click(chromedp.CSS(`tr[data-group="`+group+`"] a`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="group-name"]`)),
	)
	if name := Get(t, ctx, "group name", chromedp.Text(chromedp.CSS(`[data-testid="group-name"]`))); name != group {
		t.Errorf("followed to %q, want %q", name, group)
	}

	// Two rows a page, system groups shown (every cluster has several): the More row is
	// in view, so the following pages load in place, one after another, each group once.
	Do(t, ctx, "open the list two rows a page",
		chromedp.Navigate(con.URL+"/groups?system=1&limit=2"),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="groups-next"]`)),
		chromedp.Evaluate[chromedp.Void](`window.__samePagedDocument = true`),
	)
	Get(t, ctx, "further rows load in place", chromedp.Poll[bool](
		`document.querySelectorAll('[data-testid="groups-table"] tbody tr[data-group]').length >= 6`,
		chromedp.WithPollingTimeout(20*time.Second)))
	rows := Get(t, ctx, "the rows", chromedp.Evaluate[[]string](`Array.from(document.querySelectorAll('[data-testid="groups-table"] tbody tr[data-group]')).map(r => r.dataset.group)`))
	seen := map[string]bool{}
	for _, g := range rows {
		if seen[g] {
			t.Errorf("%s is listed twice after loading in place: %v", g, rows)
		}
		seen[g] = true
	}
	if !Get(t, ctx, "same document", chromedp.Evaluate[bool](`window.__samePagedDocument === true`)) {
		t.Errorf("the further rows reloaded the page (%d rows) instead of loading in place", len(rows))
	}
	// The plain Next link follows the rows loaded in place: it leads past every row now
	// shown (or is gone with the last page), not to the second page.
	if !Get(t, ctx, "the Next link", chromedp.Evaluate[bool](`(() => {
		const n = document.querySelectorAll('[data-testid="groups-table"] tbody tr[data-group]').length;
		const a = document.querySelector('a[data-testid="groups-next"]');
		return a ? new URL(a.href).searchParams.get('shown') === String(n) : !document.querySelector('[data-testid="groups-more"]');
	})()`)) {
		t.Errorf("after rows loaded in place, the Next page link still leads to a page already shown: %s",
			Get(t, ctx, "its address", chromedp.Evaluate[string](`(document.querySelector('a[data-testid="groups-next"]') || {}).href || ""`)))
	}
}

// A user at the bound of live pages (one here) opens another: the page says so where its
// live indicator was, in place of a reconnection, and stays as loaded; with the first
// page closed, a reload of the second is live.
func TestOneLivePageTooManySaysWhyItIsNotLive(t *testing.T) {
	cl := dev.RequireCluster(t)
	_, group := offlineGroupWithBacklog(t, cl, 3)
	con := StartConsole(t, "RMQC_NAMESRV="+cl.NameServer, "RMQC_LIVE_VIEWS_PER_USER=1")
	browser := Browser(t)

	first, closeFirst := newTab(t, browser)
	Do(t, first, "open the group page, live", chromedp.Navigate(con.URL+"/groups/"+group),
		chromedp.WaitVisible(chromedp.CSS(`#live-indicator.live-on`)))
	second, closeSecond := newTab(t, browser)
	defer closeSecond()
	Do(t, second, "open it again in another tab", chromedp.Navigate(con.URL+"/groups/"+group),
		chromedp.WaitVisible(chromedp.CSS(`#live-indicator[data-final="true"]`)))
	Screenshot(t, second, "live-refused")
	closeFirst()
	// By now the refused socket has long closed: the sentence is still what the page says.
	if txt := TextNow(t, second, "read the indicator", `#live-indicator`); !strings.Contains(txt, "You have 1 live page open") {
		t.Errorf("the refused page's indicator says %q", txt)
	}
	// The console sees the first tab's socket close a moment after the tab goes.
	dev.Eventually(t, 30*time.Second, "a reload of the second page is live once the first is closed", func() error {
		Do(t, second, "reload the second page", chromedp.Reload(),
			chromedp.WaitVisible(chromedp.CSS(`#live-indicator.live-on, #live-indicator[data-final="true"]`)))
		if txt := TextNow(t, second, "read the indicator", `#live-indicator`); strings.Contains(txt, "You have") {
			return errors.New(txt)
		}
		return nil
	})
}
