package e2e

import (
	"regexp"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"rmqconsole/dev"
)

// The home page in a real browser: navigation works and the live cluster shows the
// local broker with its version.
func TestHomeShowsClusterAndNavigates(t *testing.T) {
	cl := dev.RequireCluster(t)
	con := StartConsole(t, "RMQC_NAMESRV="+cl.NameServer)
	ctx := Browser(t)

	Do(t, ctx, "open the overview",
		chromedp.Navigate(con.URL+"/"),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="brokers"]`)),
	)
	brokers := Get(t, ctx, "read the broker table", chromedp.Text(chromedp.CSS(`[data-testid="brokers"] tbody`)))
	for _, b := range cl.Brokers {
		if !strings.Contains(brokers, b.Name) || !strings.Contains(brokers, b.Addr) {
			t.Errorf("broker %s at %s missing from the overview:\n%s", b.Name, b.Addr, brokers)
		}
	}
	version := Get(t, ctx, "read the version", chromedp.Text(chromedp.CSS(`[data-testid="broker-version"]`)))
	if version != cl.Version { // as people say it, not the broker's V5_3_3
		t.Errorf("broker version shown %q, want %q", version, cl.Version)
	}
	// The cards count, rather than only link: groups online and with lag, messages
	// stored per second.
	for _, card := range []string{"groups-online", "groups-lagging", "put-tps"} {
		txt := Get(t, ctx, "read "+card, chromedp.Text(chromedp.CSS(`[data-testid="`+card+`"]`)))
		if !regexp.MustCompile(`^\d[\d,.]*( with lag)?$`).MatchString(txt) {
			t.Errorf("card %s reads %q, want a number", card, txt)
		}
	}
	ns := Get(t, ctx, "read NameServers", chromedp.Text(chromedp.CSS(`[data-testid="nameservers"] tbody`)))
	if !strings.Contains(ns, cl.NameServer) || !strings.Contains(ns, "answers") {
		t.Errorf("NameServer table %q does not say %s answers", ns, cl.NameServer)
	}

	// The navigation leads to each section, and the current one is marked.
	for _, link := range []struct{ testid, path string }{
		{"nav-messages", "/messages"}, {"nav-topics", "/topics"}, {"nav-groups", "/groups"}, {"nav-brokers", "/brokers"}, {"nav-audit", "/audit"},
	} {
		Do(t, ctx, "follow "+link.testid,
			chromedp.Navigate(con.URL+"/"),
			chromedp.Click(chromedp.CSS(`[data-testid="`+link.testid+`"]`)),
			chromedp.WaitVisible(chromedp.CSS(`[data-testid="`+link.testid+`"][aria-current="page"]`)),
		)
		loc := Get(t, ctx, "location", chromedp.Location())
		if !strings.HasSuffix(strings.SplitN(loc, "?", 2)[0], link.path) {
			t.Errorf("after clicking %s the browser is at %s, want %s", link.testid, loc, link.path)
		}
	}
}

// A broker-less, NameServer-less console still renders and says what to do.
func TestHomeWithoutClusterExplainsWhatToDo(t *testing.T) {
	con := StartConsole(t, "RMQC_NAMESRV=")
	ctx := Browser(t)
	Do(t, ctx, "open the overview", chromedp.Navigate(con.URL+"/"),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="no-cluster"]`)))
	txt := Get(t, ctx, "read", chromedp.Text(chromedp.CSS(`[data-testid="no-cluster"]`)))
	if !strings.Contains(txt, "RMQC_NAMESRV") {
		t.Errorf("empty state %q does not name RMQC_NAMESRV", txt)
	}
}
