package e2e

import (
	"context"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"rmqconsole/dev"
)

// fieldStatesJS lists every visible field of the form as name|aria-invalid|error text|
// error colour|tick image, what a user sees of its state.
const fieldStatesJS = `(() => Array.from(document.querySelectorAll(%q + ' input:not([type=hidden]), ' + %q + ' select')).map(e => {
	const id = e.getAttribute('aria-describedby'), err = id && document.getElementById(id);
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
// green tick on a field nobody checked.
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
}
