package e2e

import (
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
	rows := Get(t, ctx, "read the brokers", chromedp.Text(chromedp.CSS(`[data-testid="brokers-table"] tbody`)))
	for _, m := range append(cl.Brokers, cl.Slaves...) {
		if !strings.Contains(rows, m.Addr) {
			t.Errorf("broker %s at %s missing: %s", m.Name, m.Addr, rows)
		}
	}
	Do(t, ctx, "open the broker's page",
		chromedp.Click(chromedp.CSS(`tr[data-addr="`+b.Addr+`"] a`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="broker-config"]`)),
	)
	if v := Get(t, ctx, "read the version", chromedp.Text(chromedp.CSS(`tr[data-addr="`+b.Addr+`"] [data-testid="broker-version"]`))); v != cl.Version {
		t.Errorf("version %q, want %s", v, cl.Version)
	}
	if v := Get(t, ctx, "read brokerName", chromedp.Text(chromedp.CSS(`tr[data-key="brokerName"] [data-testid="config-value"]`))); strings.TrimSpace(v) != b.Name {
		t.Errorf("config brokerName %q, want %s", v, b.Name)
	}
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
}
