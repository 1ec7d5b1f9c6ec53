package e2e

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"rmqconsole/dev"
)

// fieldStatesJS lists every visible field of the form as name|aria-invalid|error text|
// error colour|tick image, what a user sees of its state.
const fieldStatesJS = `(() => Array.from(document.querySelectorAll(%q + ' input:not([type=hidden]), ' + %q + ' select')).map(e => {
	const err = (e.getAttribute('aria-describedby') || '').split(/\s+/).map(id => id && document.getElementById(id)).find(x => x);
	const msg = err ? err.textContent.trim() : '';
	return [e.name, e.getAttribute('aria-invalid'), msg, msg ? getComputedStyle(err).color : '', getComputedStyle(e).backgroundImage.slice(0, 40)].join('|');
}).join('\n'))()`

func fieldStates(t *testing.T, ctx context.Context, form string) string {
	t.Helper()
	return Get(t, ctx, "read the fields of "+form, chromedp.Evaluate[string](strings.NewReplacer("%q", "'"+form+"'").Replace(fieldStatesJS)))
}

// setField types value into the field as a whole (chromedp's SetValue refuses "").
func setField(sel, value string) chromedp.Action[chromedp.Void] {
	return chromedp.Evaluate[chromedp.Void](`document.querySelector(` + quoteJS(sel) + `).value = ` + quoteJS(value))
}

// After an htmx search swaps the result in, every field of the form shows what a full
// reload of the same URL shows: an error in red beside a field marked invalid, and no
// green tick on a field nobody checked. A form posted with several mistakes tells them
// all at once.
func TestFormStateAfterSwapMatchesReload(t *testing.T) {
	cl := dev.RequireCluster(t)
	con := StartConsole(t, "RMQC_NAMESRV="+cl.NameServer)
	ctx := Browser(t)

	for _, c := range []struct {
		name, path, form, result string
		fill                     []chromedp.Action[chromedp.Void]
		wantInvalid              string
	}{
		{"message key search", "/messages?tab=key", "form.message-search", `[data-testid="messages-result"]`, []chromedp.Action[chromedp.Void]{
			setField("#f-topic", ""),
			setField("#f-key", "two keys"),
			chromedp.Click(chromedp.CSS(`[data-testid="search"]`)),
		}, "topic|true"},
		{"groups filter", "/groups", "form.filters", `[data-testid="groups-list"]`, []chromedp.Action[chromedp.Void]{
			setField("#groups-q", strings.Repeat("g", 300)),
			chromedp.Click(chromedp.CSS(`form.filters button[type=submit]`)),
		}, "q|true"},
	} {
		Do(t, ctx, "open "+c.name, chromedp.Navigate(con.URL+c.path), chromedp.WaitVisible(chromedp.CSS(c.form)))
		if s := fieldStates(t, ctx, c.form); strings.Contains(s, "|false|") {
			t.Errorf("%s: an untouched field is marked valid:\n%s", c.name, s)
		}
		Do(t, ctx, "mark the shown result", chromedp.Evaluate[chromedp.Void](`document.querySelector('`+c.result+`').dataset.stale = "1"`))
		Do(t, ctx, "send bad input to "+c.name, c.fill...)
		Do(t, ctx, "wait for the swap", chromedp.WaitReady(chromedp.CSS(c.result+`:not([data-stale])`)))
		swapped := fieldStates(t, ctx, c.form)
		Do(t, ctx, "reload "+c.name, chromedp.Reload(), chromedp.WaitVisible(chromedp.CSS(c.form)))
		reloaded := fieldStates(t, ctx, c.form)
		if swapped != reloaded {
			t.Errorf("%s: after the swap the fields show\n%s\nbut a reload shows\n%s", c.name, swapped, reloaded)
		}
		if !strings.Contains(reloaded, c.wantInvalid) {
			t.Errorf("%s: no field %q in\n%s", c.name, c.wantInvalid, reloaded)
		}
	}

	// The alert rule form, posted whole with three mistakes, tells all three at once,
	// each beside its field, and keeps what was typed.
	Do(t, ctx, "add a rule with three mistakes", chromedp.Navigate(con.URL+"/alerts"),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="rule-form"]`)),
		setField(`[data-testid="rule-form"] input[name=group]`, "bad name!"),
		setField(`[data-testid="rule-form"] input[name=threshold]`, "-5"),
		setField(`[data-testid="rule-form"] input[name=for]`, "soon"),
		setField(`[data-testid="rule-form"] input[name=webhookUrl]`, "https://hooks.example/x"),
		chromedp.Evaluate[chromedp.Void](`window.oldPage = true`),
		chromedp.Click(chromedp.CSS(`[data-testid="rule-add"]`)),
	)
	// The answer is a new page: wait for it, not in one step with the click (the
	// navigation ends that step's script).
	dev.Eventually(t, 30*time.Second, "the form's answer loads", func() error {
		if !Get(t, ctx, "check the page", chromedp.Evaluate[bool](`!window.oldPage && document.readyState === "complete" && !!document.querySelector('[data-testid="rule-form"]')`)) {
			return fmt.Errorf("still the page before")
		}
		return nil
	})
	var told []string
	for _, f := range strings.Split(fieldStates(t, ctx, `[data-testid="rule-form"]`), "\n") {
		if p := strings.Split(f, "|"); len(p) > 2 && p[1] == "true" && p[2] != "" {
			told = append(told, p[0])
		}
	}
	if got := strings.Join(told, " "); got != "group threshold for" {
		t.Errorf("the alert rule form with three mistakes marks %q with a sentence, want group threshold for:\n%s", got, fieldStates(t, ctx, `[data-testid="rule-form"]`))
	}
	if v := Get(t, ctx, "read the kept group", chromedp.Value(`[data-testid="rule-form"] input[name=group]`)); v != "bad name!" {
		t.Errorf("the group field keeps %q, want what was typed", v)
	}
	Screenshot(t, ctx, "alerts-three-mistakes")
}
