package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"rmqconsole/dev"
)

// shot keeps screenshots of the page as it is at 1280 px and at 390 px (a phone), then
// returns to 1280 px.
func shot(t *testing.T, ctx context.Context, name string) {
	t.Helper()
	for _, w := range []int64{1280, 390} {
		Do(t, ctx, fmt.Sprintf("%d px wide", w), chromedp.EmulateViewport(w, 900))
		Screenshot(t, ctx, fmt.Sprintf("%s-%d", name, w))
	}
	Do(t, ctx, "back to 1280 px", chromedp.EmulateViewport(1280, 900))
}

// submit clicks a button that posts a form and waits for the next page.
func submit(t *testing.T, ctx context.Context, what, button, then string) {
	t.Helper()
	Get(t, ctx, "mark the page", chromedp.Evaluate[bool](`document.body.dataset.old = "1"; true`))
	Do(t, ctx, what, chromedp.Click(chromedp.CSS(button)))
	sel, _ := json.Marshal(then)
	// The page is replaced: asking it while it navigates fails, so each look is one
	// script, tried again until the new page has what is awaited.
	dev.Eventually(t, 60*time.Second, what+": the next page", func() error {
		tctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		defer cancel()
		ok, err := chromedp.Run(tctx, chromedp.Evaluate[bool](`!document.body.dataset.old && document.readyState === "complete" && !!document.querySelector(`+string(sel)+`)`))
		if err != nil {
			return err
		}
		if !ok {
			return fmt.Errorf("not yet")
		}
		return nil
	})
}

// A group is created from the groups list, its settings previewed (each broker's
// current and new value) and applied, what mqadmin then exports, then changed again
// and deleted, in the browser.
func TestGroupSettingsInTheBrowser(t *testing.T) {
	cl := dev.RequireCluster(t)
	dir := t.TempDir()
	addUser(t, dir, "ada", "admin")
	con := StartConsole(t, "RMQC_NAMESRV="+cl.NameServer, "RMQC_DATA_DIR="+dir)
	ctx := Browser(t)
	group := dev.UniqueName("e2e-settings")
	Do(t, ctx, "open the groups", chromedp.EmulateViewport(1280, 900), chromedp.Navigate(con.URL+"/groups"))
	signIn(t, ctx, "ada", e2ePassword)
	Do(t, ctx, "open the create form", chromedp.WaitVisible(chromedp.CSS(`[data-testid="group-create"]`)),
		chromedp.Click(chromedp.CSS(`[data-testid="group-create"] summary`)),
		chromedp.SetValue(chromedp.CSS(`[data-testid="f-new-group"]`), group))
	submit(t, ctx, "go to the new group's settings", `[data-testid="group-create-form"] button`, `[data-testid="settings-none"]`)

	Do(t, ctx, "fill the settings",
		chromedp.SetValue(chromedp.CSS(`[data-testid="f-retryMaxTimes"]`), "5"),
		chromedp.SetValue(chromedp.CSS(`[data-testid="f-consumeEnable"]`), "false"))
	submit(t, ctx, "preview the new group", `[data-testid="settings-preview-button"]`, `[data-testid="settings-preview"]`)
	changes := Get(t, ctx, "read the preview", chromedp.Evaluate[string](`Array.from(document.querySelectorAll('[data-testid="preview-change"]')).map(r => r.dataset.field + "=" + r.querySelector('[data-testid="new"]').textContent.trim()).join(",")`))
	if !strings.Contains(changes, "retryMaxTimes=5") || !strings.Contains(changes, "consumeEnable=false") {
		t.Fatalf("preview shows %s", changes)
	}
	shot(t, ctx, "group-settings-create-preview")
	Do(t, ctx, "confirm", chromedp.Click(chromedp.CSS(`[data-testid="confirm"]`)))
	submit(t, ctx, "apply", `[data-testid="apply"]`, `[data-testid="change-result"]`)
	if st := TextNow(t, ctx, "status", `[data-testid="change-status"]`); st != "applied" {
		t.Fatalf("outcome %q: %s", st, TextNow(t, ctx, "result", `[data-testid="change-result"]`))
	}
	shot(t, ctx, "group-settings-create-applied")
	for _, b := range cl.Brokers {
		gs, err := cl.GroupConfigsByMQAdmin(t.Context(), b.Addr)
		if err != nil {
			t.Fatal(err)
		}
		if g := gs[group]; g["retryMaxTimes"] != float64(5) || g["consumeEnable"] != false {
			t.Fatalf("mqadmin on %s: %v", b.Name, g)
		}
	}

	drifted := len(cl.Brokers) > 1
	if drifted {
		// Behind the console's back: mqadmin writes the second master a whole new
		// configuration, its defaults with 2 retries.
		if _, err := cl.MQAdmin(t.Context(), "updateSubGroup", "-b", cl.Brokers[1].Addr, "-g", group, "-r", "2"); err != nil {
			t.Fatal(err)
		}
		Do(t, ctx, "read the settings again", chromedp.Navigate(con.URL+"/groups/"+group+"/settings"),
			chromedp.WaitVisible(chromedp.CSS(`tr[data-field="retryMaxTimes"] [data-testid="drift-mark"]`)))
		if v := Get(t, ctx, "the drifted field", chromedp.Value(chromedp.CSS(`[data-testid="f-retryMaxTimes"]`))); v != "" {
			t.Errorf("a field the masters disagree on starts as %q", v)
		}
	}

	// Changed again: only retryQueueNums; the preview shows just that field.
	Do(t, ctx, "raise the retry queues", chromedp.SetValue(chromedp.CSS(`[data-testid="f-retryQueueNums"]`), "2"))
	submit(t, ctx, "preview the change", `[data-testid="settings-preview-button"]`, `[data-testid="settings-preview"]`)
	changes = Get(t, ctx, "read the preview", chromedp.Evaluate[string](`Array.from(document.querySelectorAll('[data-testid="preview-change"]')).map(r => r.dataset.field + ":" + r.querySelector('[data-testid="current"]').textContent.trim() + "→" + r.querySelector('[data-testid="new"]').textContent.trim()).join(",")`))
	var want []string
	for range cl.Brokers {
		want = append(want, "retryQueueNums:1→2")
	}
	if changes != strings.Join(want, ",") {
		t.Fatalf("update preview shows %s, want %s", changes, strings.Join(want, ","))
	}
	if drifted && Get(t, ctx, "drift shown", chromedp.Evaluate[int](`document.querySelectorAll('[data-testid="drift-row"]').length`)) == 0 {
		t.Error("the preview does not say where the masters differ")
	}
	shot(t, ctx, "group-settings-update-preview")
	Do(t, ctx, "confirm", chromedp.Click(chromedp.CSS(`[data-testid="confirm"]`)))
	submit(t, ctx, "apply", `[data-testid="apply"]`, `[data-testid="change-result"]`)
	if st := TextNow(t, ctx, "status", `[data-testid="change-status"]`); st != "applied" {
		t.Fatalf("update outcome %q", st)
	}
	shown := Get(t, ctx, "shown", chromedp.Evaluate[string](`Array.from(document.querySelectorAll('tr[data-field="retryMaxTimes"] td')).map(td => td.textContent.trim()).join(",")`))
	if want := "5"; drifted && shown != "5,2" || !drifted && shown != want {
		t.Errorf("after the update the page shows retryMaxTimes %q, want each master's kept", shown)
	}

	Do(t, ctx, "confirm the delete", chromedp.SetValue(chromedp.CSS(`[data-testid="f-confirm"]`), group))
	submit(t, ctx, "delete", `[data-testid="group-delete-button"]`, `[data-testid="entry-rows"]`)
	Screenshot(t, ctx, "group-delete-entry")
	gs, err := cl.GroupConfigsByMQAdmin(t.Context(), cl.Brokers[0].Addr)
	if err != nil || gs[group] != nil {
		t.Fatalf("mqadmin after the delete: %v %v", err, gs[group])
	}
}

// A broker's configuration key is changed in the browser (preview with each process's
// current and new value, apply, read back), and the drift page shows the cluster's
// processes side by side.
func TestBrokerConfigInTheBrowser(t *testing.T) {
	cl := dev.RequireCluster(t)
	dir := t.TempDir()
	addUser(t, dir, "ada", "admin")
	con := StartConsole(t, "RMQC_NAMESRV="+cl.NameServer, "RMQC_DATA_DIR="+dir)
	ctx := Browser(t)
	b := cl.Brokers[0]
	const key = "commercialBaseCount" // scales accounting figures only: the shared cluster does not notice
	cfg, err := cl.BrokerConfigByMQAdmin(t.Context(), b.Addr)
	if err != nil {
		t.Fatal(err)
	}
	was := cfg[key]
	n, _ := strconv.Atoi(was)
	next := strconv.Itoa(n + 1)
	t.Cleanup(func() {
		for _, p := range append(append([]dev.Broker{}, cl.Brokers...), cl.Slaves...) {
			if p.Name == b.Name {
				cl.UpdateBrokerConfigByMQAdmin(context.Background(), p.Addr, key, was)
			}
		}
	})
	Do(t, ctx, "open the drift page", chromedp.EmulateViewport(1280, 900), chromedp.Navigate(con.URL+"/brokers/config-drift"))
	signIn(t, ctx, "ada", e2ePassword)
	Do(t, ctx, "see the clusters", chromedp.WaitVisible(chromedp.CSS(`[data-testid="drift-cluster"]`)))
	shot(t, ctx, "broker-config-drift")

	Do(t, ctx, "open the broker's configuration form", chromedp.Navigate(con.URL+"/brokers/"+b.Name+"/config"),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="brokerconfig-form"]`)),
		chromedp.SetValue(chromedp.CSS(`[data-testid="f-config"]`), "noSuchSetting=1"))
	submit(t, ctx, "preview an unknown key", `[data-testid="brokerconfig-preview-button"]`, `[data-testid="err-config"]`)
	if msg := TextNow(t, ctx, "the sentence", `[data-testid="err-config"]`); !strings.Contains(msg, "has no key noSuchSetting") {
		t.Fatalf("an unknown key: %q", msg)
	}
	Do(t, ctx, "ask the change", chromedp.SetValue(chromedp.CSS(`[data-testid="f-config"]`), key+"="+next))
	submit(t, ctx, "preview", `[data-testid="brokerconfig-preview-button"]`, `[data-testid="brokerconfig-preview"]`)
	row := TextNow(t, ctx, "the preview's row", `[data-testid="preview-change"][data-field="`+key+`"]`)
	if !regexp.MustCompile(key + `\s+` + was + `\s+` + next).MatchString(row) {
		t.Fatalf("preview row %q, want %s %s → %s", row, key, was, next)
	}
	shot(t, ctx, "broker-config-preview")
	Do(t, ctx, "confirm", chromedp.Click(chromedp.CSS(`[data-testid="confirm"]`)))
	submit(t, ctx, "apply", `[data-testid="apply"]`, `[data-testid="change-result"]`)
	if st := TextNow(t, ctx, "status", `[data-testid="change-status"]`); st != "applied" {
		t.Fatalf("outcome %q: %s", st, TextNow(t, ctx, "result", `[data-testid="change-result"]`))
	}
	shot(t, ctx, "broker-config-applied")
	if cfg, err := cl.BrokerConfigByMQAdmin(t.Context(), b.Addr); err != nil || cfg[key] != next {
		t.Fatalf("mqadmin getBrokerConfig: %s = %q (%v), want %s", key, cfg[key], err, next)
	}
}

// On a cluster with ACL 2.0 on, an admin creates a user (the password typed again to
// apply, never shown), gives it a policy, and sees both as mqadmin reads them.
func TestACLInTheBrowser(t *testing.T) {
	cl := dev.RequireCluster(t)
	admin, ok := dev.AccountFor(cl.NameServer)
	if !ok || strings.HasPrefix(cl.Version, "4.") {
		if os.Getenv("RMQC_TEST_ACL") == "true" && !strings.HasPrefix(cl.Version, "4.") {
			t.Fatal("RMQC_TEST_ACL=true but the test cluster has ACL off")
		}
		t.Skip("needs a 5.x cluster with ACL 2.0 on: run on `rmqdev up --acl` with RMQC_TEST_NAMESRV")
	}
	dir := t.TempDir()
	addUser(t, dir, "ada", "admin")
	con := StartConsole(t, "RMQC_NAMESRV="+cl.NameServer, "RMQC_DATA_DIR="+dir, "RMQC_ACCESS_KEY="+admin.AccessKey, "RMQC_SECRET_KEY="+admin.SecretKey)
	ctx := Browser(t)
	name := dev.UniqueName("e2e-user")
	const password = "e2e-user-password"
	Do(t, ctx, "open the ACL page", chromedp.EmulateViewport(1280, 900), chromedp.Navigate(con.URL+"/acl"))
	signIn(t, ctx, "ada", e2ePassword)
	Do(t, ctx, "fill the user form", chromedp.WaitVisible(chromedp.CSS(`[data-testid="acl-user-form-form"]`)),
		chromedp.SetValue(chromedp.CSS(`[data-testid="f-username"]`), name),
		chromedp.SetValue(chromedp.CSS(`[data-testid="f-password"]`), password))
	submit(t, ctx, "preview the user", `[data-testid="acl-user-preview"]`, `[data-testid="acl-preview"]`)
	if html := Get(t, ctx, "the page", chromedp.Evaluate[string](`document.documentElement.outerHTML`)); strings.Contains(html, password) {
		t.Fatal("the preview page holds the password")
	}
	shot(t, ctx, "acl-user-preview")
	Do(t, ctx, "type the password again and confirm", chromedp.SetValue(chromedp.CSS(`[data-testid="f-password-again"]`), password),
		chromedp.Click(chromedp.CSS(`[data-testid="confirm"]`)))
	submit(t, ctx, "apply", `[data-testid="apply"]`, `[data-testid="change-result"]`)
	if st := TextNow(t, ctx, "status", `[data-testid="change-status"]`); st != "applied" {
		t.Fatalf("outcome %q: %s", st, TextNow(t, ctx, "result", `[data-testid="change-result"]`))
	}
	shot(t, ctx, "acl-user-applied")

	Do(t, ctx, "fill the policy form",
		chromedp.SetValue(chromedp.CSS(`[data-testid="f-subject"]`), "User:"+name),
		chromedp.SetValue(chromedp.CSS(`[data-testid="f-entries"]`), "Topic:e2e-orders Pub,Sub Allow 10.0.0.0/8\nGroup:e2e-* Sub Allow"))
	submit(t, ctx, "preview the policy", `[data-testid="acl-policy-preview"]`, `[data-testid="acl-preview"]`)
	shot(t, ctx, "acl-policy-preview")
	Do(t, ctx, "confirm", chromedp.Click(chromedp.CSS(`[data-testid="confirm"]`)))
	submit(t, ctx, "apply", `[data-testid="apply"]`, `[data-testid="change-result"]`)
	if st := TextNow(t, ctx, "status", `[data-testid="change-status"]`); st != "applied" {
		t.Fatalf("policy outcome %q: %s", st, TextNow(t, ctx, "result", `[data-testid="change-result"]`))
	}
	out, err := cl.MQAdmin(t.Context(), "getAcl", "-s", "User:"+name, "-c", cl.ClusterName)
	if err != nil || !strings.Contains(out, "Topic:e2e-orders") || !strings.Contains(out, "Group:e2e-*") {
		t.Fatalf("mqadmin getAcl: %v\n%s", err, out)
	}
	Do(t, ctx, "delete the user", chromedp.SetValue(chromedp.CSS(`[data-testid="f-delete-name"]`), name),
		chromedp.SetValue(chromedp.CSS(`[data-testid="f-delete-confirm"]`), name))
	submit(t, ctx, "delete", `[data-testid="acl-delete-button"]`, `[data-testid="change-result"]`)
	if out, err := cl.MQAdmin(t.Context(), "listUser", "-c", cl.ClusterName); err != nil || strings.Contains(out, name) {
		t.Fatalf("mqadmin listUser after the delete: %v\n%s", err, out)
	}
}
