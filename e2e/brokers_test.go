package e2e

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"rmqconsole/dev"
)

// The broker list and a broker's page in a real browser: from the overview's broker
// count to every broker's row, then one broker's figures and configuration.
func TestBrokerPagesShowRuntimeAndConfig(t *testing.T) {
	cl := dev.RequireCluster(t)
	con := StartConsole(t, "RMQC_NAMESRV="+cl.NameServer)
	ctx := Browser(t)
	b := cl.Brokers[0]

	Do(t, ctx, "open the brokers from the overview's count",
		chromedp.Navigate(con.URL+"/"),
		chromedp.Click(chromedp.CSS(`a[data-testid="broker-count"]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="brokers-table"]`)),
	)
	rows := TextNow(t, ctx, "read the brokers", `[data-testid="brokers-table"] tbody`)
	for _, m := range append(cl.Brokers, cl.Slaves...) {
		if !strings.Contains(rows, m.Addr) {
			t.Errorf("broker %s at %s missing: %s", m.Name, m.Addr, rows)
		}
	}
	Do(t, ctx, "open the broker's page",
		chromedp.Click(chromedp.CSS(`tr[data-addr="`+b.Addr+`"] a`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="broker-config"]`)),
	)
	if v := TextNow(t, ctx, "read the version", `tr[data-addr="`+b.Addr+`"] [data-testid="broker-version"]`); v != cl.Version {
		t.Errorf("version %q, want %s", v, cl.Version)
	}
	// The configuration (some four hundred keys) is closed, by section, until opened: the
	// page fits a few screens at a laptop's width, and a key is a click or a filter away.
	Do(t, ctx, "look at the page at 1280 px", chromedp.EmulateViewport(1280, 900))
	if h := Get(t, ctx, "measure the page", chromedp.Evaluate[int](`document.documentElement.scrollHeight`)); h > 3000 {
		t.Errorf("the broker page is %d px tall at 1280 px, want under 3000 with the configuration closed", h)
	}
	Do(t, ctx, "open the configuration's identity section",
		chromedp.Click(chromedp.CSS(`[data-testid="config-process"] > summary`)),
		chromedp.Click(chromedp.CSS(`[data-section="identity"] > summary`)),
		chromedp.WaitVisible(chromedp.CSS(`tr[data-key="brokerName"]`)))
	if v := Get(t, ctx, "read brokerName", chromedp.Text(chromedp.CSS(`tr[data-key="brokerName"] [data-testid="config-value"]`))); strings.TrimSpace(v) != b.Name {
		t.Errorf("config brokerName %q, want %s", v, b.Name)
	}
	Do(t, ctx, "filter the configuration by a key",
		chromedp.SetValue(chromedp.CSS(`#config-filter`), "flushdisk"),
		chromedp.Submit(chromedp.CSS(`#config-filter`)),
		chromedp.WaitVisible(chromedp.CSS(`tr[data-key="flushDiskType"]`)))
	if n := Get(t, ctx, "count the filtered keys", chromedp.Evaluate[int](`document.querySelectorAll('[data-testid="config-process"] tr[data-key]').length`)); n != 1 {
		t.Errorf("the filter flushdisk shows %d keys, want flushDiskType alone", n)
	}
	for _, lang := range []string{"en", "zh-CN"} {
		Do(t, ctx, "set the browser's language to "+lang, browserLanguage(t, ctx, lang))
		for _, scheme := range []string{"light", "dark"} {
			for _, width := range []int64{1280, 800, 390} {
				Do(t, ctx, fmt.Sprintf("open the broker page at %d px, %s, %s", width, scheme, lang),
					colorScheme(scheme), chromedp.EmulateViewport(width, 900),
					chromedp.Navigate(con.URL+"/brokers/"+b.Name), chromedp.WaitVisible(chromedp.CSS(`[data-testid="config-process"]`)))
				viewShot(t, ctx, fmt.Sprintf("broker-%s-%s-%d", lang, scheme, width))
			}
		}
	}
	Do(t, ctx, "back to the broker page in English", browserLanguage(t, ctx, "en"), colorScheme("light"), chromedp.EmulateViewport(1400, 1000),
		chromedp.Navigate(con.URL+"/brokers/"+b.Name), chromedp.WaitVisible(chromedp.CSS(`[data-testid="config-process"]`)))
	if loc := Get(t, ctx, "location", chromedp.Location()); !strings.HasSuffix(loc, "/brokers/"+b.Name) {
		t.Errorf("at %s", loc)
	}
	// The TPS chart is live: points arrive over the websocket without a reload.
	Do(t, ctx, "mark the page and wait for the chart to gain points",
		chromedp.Evaluate[chromedp.Void](`window.__sameDocument = true`),
		chromedp.WaitVisible(chromedp.CSS(`#live-indicator.live-on`)),
		chromedp.Poll[chromedp.Void](`Number(document.getElementById("tps-chart").getAttribute("data-points") || 0) >= 2`,
			chromedp.WithPollingTimeout(25*time.Second)),
	)
	if !Get(t, ctx, "same document", chromedp.Evaluate[bool](`window.__sameDocument === true`)) {
		t.Error("the page reloaded instead of updating live")
	}
	// The chart's times read as every other time of the console: UTC, ISO, on the axis
	// and in the legend, never the browser's locale ("12/6/26 4:27am").
	ticks := Get(t, ctx, "read the chart's axis", chromedp.Evaluate[string](`document.getElementById("tps-chart").getAttribute("data-x-ticks") || ""`))
	if !regexp.MustCompile(`^\d\d:\d\d:\d\d(\|\d\d:\d\d:\d\d)*$`).MatchString(ticks) {
		t.Errorf("the chart's time axis says %q, want UTC times of day (15:04:05|…)", ticks)
	}
	legend := Get(t, ctx, "read the chart's legend", chromedp.Evaluate[string](`(document.querySelector("#tps-chart .u-legend .u-series:first-child .u-value") || {}).textContent || ""`))
	if !regexp.MustCompile(`^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC$`).MatchString(legend) {
		t.Errorf("the chart's legend says %q, want 2006-01-02 15:04:05 UTC", legend)
	}
	Screenshot(t, ctx, "broker-chart")
}

// The broker list a process a page: the More row is in view, so every further process
// loads in place, each once, and the plain Next link follows the rows shown until there
// is no page left.
func TestBrokerListLoadsFurtherPagesInPlace(t *testing.T) {
	cl := dev.RequireCluster(t)
	procs := append(append([]dev.Broker{}, cl.Brokers...), cl.Slaves...)
	if len(procs) < 2 {
		t.Skip("the cluster has one broker process; paging needs two")
	}
	con := StartConsole(t, "RMQC_NAMESRV="+cl.NameServer)
	ctx := Browser(t)
	Do(t, ctx, "open the brokers one a page",
		chromedp.Navigate(con.URL+"/brokers?limit=1"),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="brokers-table"]`)),
		chromedp.Evaluate[chromedp.Void](`window.__samePagedDocument = true`),
	)
	Get(t, ctx, "every process loads in place", chromedp.Poll[bool](
		fmt.Sprintf(`document.querySelectorAll('[data-testid="brokers-table"] tbody tr[data-addr]').length >= %d && !document.querySelector('[data-testid="brokers-more"]')`, len(procs)),
		chromedp.WithPollingTimeout(20*time.Second)))
	addrs := Get(t, ctx, "the rows", chromedp.Evaluate[[]string](`Array.from(document.querySelectorAll('[data-testid="brokers-table"] tbody tr[data-addr]')).map(r => r.dataset.addr)`))
	if len(addrs) != len(procs) {
		t.Errorf("%d rows after loading in place, want the %d processes once each: %v", len(addrs), len(procs), addrs)
	}
	for _, p := range procs {
		if !slices.Contains(addrs, p.Addr) {
			t.Errorf("process %s at %s never loaded: %v", p.Name, p.Addr, addrs)
		}
	}
	if !Get(t, ctx, "same document", chromedp.Evaluate[bool](`window.__samePagedDocument === true`)) {
		t.Errorf("the further rows reloaded the page instead of loading in place")
	}
	if n := Get(t, ctx, "count the tables", chromedp.Evaluate[int](`document.querySelectorAll('[data-testid="brokers-table"], main h1').length`)); n != 2 {
		t.Errorf("%d broker tables and headings after loading in place; want one of each (rows alone, not a page in a row)", n)
	}
	if Get(t, ctx, "the Next link", chromedp.Evaluate[bool](`!!document.querySelector('a[data-testid="brokers-next"]')`)) {
		t.Errorf("every process is shown, yet the Next page link is still offered")
	}
}
