package e2e

import (
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"rmqconsole/dev"
)

// A console of two real clusters in a browser: the overview lists both, the header's
// switch leads to the other one, and its navigation, links and keyboard shortcuts stay
// on it; the default cluster keeps its paths without /c/.
func TestClusterSwitch(t *testing.T) {
	skipShort(t)
	prod, test := dev.RequireCluster(t), dev.RequirePrivateCluster(t)
	conf := filepath.Join(t.TempDir(), "clusters.yaml")
	os.WriteFile(conf, []byte(fmt.Sprintf(`clusters:
  - name: prod
    label: Production
    color: red
    namesrv: [%q]
  - name: test
    label: Test
    color: green
    namesrv: [%q]
`, prod.NameServer, test.NameServer)), 0o600)
	con := StartConsole(t, "RMQC_CONFIG="+conf, "RMQC_METRICS_INTERVAL=0")
	ctx := Browser(t)
	path := func() string {
		u, err := url.Parse(Get(t, ctx, "location", chromedp.Location()))
		if err != nil {
			t.Fatal(err)
		}
		return u.Path
	}
	waitPath := func(what, want string) {
		t.Helper()
		deadline := time.Now().Add(15 * time.Second)
		for path() != want {
			if time.Now().After(deadline) {
				t.Fatalf("%s: at %s, want %s", what, path(), want)
			}
			time.Sleep(100 * time.Millisecond)
		}
	}

	Do(t, ctx, "open the overview", chromedp.Navigate(con.URL+"/"), chromedp.WaitVisible(`[data-testid="clusters"]`))
	rows := Get(t, ctx, "cluster rows", chromedp.Evaluate[[]string](
		`Array.from(document.querySelectorAll('[data-testid="cluster-row"]')).map(r => r.dataset.cluster + " " + r.querySelector('[data-testid="cluster-brokers"]').textContent.trim())`))
	if want := []string{fmt.Sprintf("prod %d of %d", len(prod.Brokers), len(prod.Brokers)), fmt.Sprintf("test %d of %d", len(test.Brokers), len(test.Brokers))}; strings.Join(rows, "|") != strings.Join(want, "|") {
		t.Errorf("overview clusters %q, want %q", rows, want)
	}
	if cur := Get(t, ctx, "current cluster", chromedp.Text(`[data-testid="cluster-current"]`)); cur != "Production" {
		t.Errorf("header names %q on /, want Production", cur)
	}

	Do(t, ctx, "switch to test",
		chromedp.Click(`[data-testid="cluster-switch"] summary`),
		chromedp.Click(`[data-testid="cluster-option"][data-cluster="test"]`))
	waitPath("the switch", "/c/test/")
	Do(t, ctx, "see test's overview", chromedp.WaitVisible(`[data-testid="cluster-current"][data-cluster="test"]`))

	Do(t, ctx, "open test's groups", chromedp.Click(`[data-testid="nav-groups"]`))
	waitPath("the groups link", "/c/test/groups")
	Do(t, ctx, "go to the audit log with g a", chromedp.WaitVisible(`[data-testid="nav-audit"]`), chromedp.KeyEvent("g"), chromedp.KeyEvent("a"))
	waitPath("the g a shortcut", "/c/test/audit")
	if cur := Get(t, ctx, "current cluster", chromedp.Text(`[data-testid="cluster-current"]`)); cur != "Test" {
		t.Errorf("header names %q on test's audit log, want Test", cur)
	}

	Do(t, ctx, "back to prod",
		chromedp.Click(`[data-testid="cluster-switch"] summary`),
		chromedp.Click(`[data-testid="cluster-option"][data-cluster="prod"]`))
	waitPath("the switch back", "/c/prod/")
	Do(t, ctx, "open prod's topics", chromedp.WaitVisible(`[data-testid="nav-topics"]`), chromedp.Click(`[data-testid="nav-topics"]`))
	// The default cluster's pages keep their paths without /c/.
	waitPath("prod's topics link", "/topics")
}
