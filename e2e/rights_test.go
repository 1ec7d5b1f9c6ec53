package e2e

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"rmqconsole/dev"
)

// The payments team's operator, in a browser: the groups list shows the payments group
// and not the orders group, the payments group's page offers the reset, and the orders
// group's address answers a sentence saying her rights do not let her see it.
func TestATeamOperatorSeesOnlyItsGroupsInTheBrowser(t *testing.T) {
	skipShort(t)
	cl := dev.RequireCluster(t)
	ctx0, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	suffix := strings.TrimPrefix(dev.UniqueName("x"), "x-")
	payGroup, ordGroup := "payments-g-"+suffix, "orders-g-"+suffix
	for _, g := range []string{payGroup, ordGroup} {
		if _, err := cl.MQAdmin(ctx0, "updateSubGroup", "-c", cl.ClusterName, "-g", g); err != nil {
			t.Fatal(err)
		}
	}
	dir := t.TempDir()
	conf := filepath.Join(dir, "console.toml")
	if err := os.WriteFile(conf, []byte(fmt.Sprintf(`[[clusters]]
name = "default"
namesrv = [%q]

[[rights]]
subjects = ["user:paula"]
topics = ["payments-*"]
groups = ["payments-*"]
actions = ["read-metadata", "reset"]
`, cl.NameServer)), 0o600); err != nil {
		t.Fatal(err)
	}
	addUser(t, dir, "paula", "operator")
	con := StartConsole(t, "RMQC_CONFIG="+conf, "RMQC_DATA_DIR="+dir)
	ctx := Browser(t)
	Do(t, ctx, "open the groups list", chromedp.Navigate(con.URL+"/groups?refresh=1&q="+suffix))
	signIn(t, ctx, "paula", e2ePassword)
	Do(t, ctx, "see the list", chromedp.WaitVisible(chromedp.CSS(`[data-testid="groups-list"]`)))
	list := TextNow(t, ctx, "the list", `[data-testid="groups-list"]`)
	if !strings.Contains(list, payGroup) || strings.Contains(list, ordGroup) {
		t.Errorf("the list shows payments %v, orders %v; want only payments:\n%s", strings.Contains(list, payGroup), strings.Contains(list, ordGroup), list)
	}
	Do(t, ctx, "open her group", chromedp.Navigate(con.URL+"/groups/"+payGroup), chromedp.WaitVisible(chromedp.CSS(`[data-testid="reset-link"]`)))
	Do(t, ctx, "open the other team's group", chromedp.Navigate(con.URL+"/groups/"+ordGroup), chromedp.WaitVisible(chromedp.CSS("main")))
	Screenshot(t, ctx, "rights-refused")
	if page := TextNow(t, ctx, "the page", "main"); !strings.Contains(page, "Your rights on cluster default do not let you see consumer group "+ordGroup) {
		t.Errorf("the other team's group page says:\n%s", page)
	}
}
