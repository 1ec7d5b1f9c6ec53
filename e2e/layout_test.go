package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"

	"rmqconsole/dev"
)

// colorScheme makes the page prefer the light or the dark theme, as the system setting does.
func colorScheme(scheme string) chromedp.Action[chromedp.Void] {
	return chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		_, err := cdp.Call(ctx, t, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{
			Features: []*emulation.MediaFeature{{Name: "prefers-color-scheme", Value: scheme}}})
		return err
	})
}

// layoutPage is a page to look at, with what to wait for and an optional step that
// brings it to the state worth checking (a preview shown).
type layoutPage struct {
	name, path, ready string
	then              []chromedp.Action[chromedp.Void]
}

// layoutPages are the console's pages with data on them: a topic with messages, an
// offline group with a backlog, its reset preview (alone and among several groups), a
// deep scan, a refused search, the audit log.
func layoutPages(t *testing.T, cl *dev.Cluster, con *Console) []layoutPage {
	t.Helper()
	begin := time.Now().Add(-2 * time.Second).UTC()
	topic, group := offlineGroupWithBacklog(t, cl, 30)
	end := time.Now().Add(2 * time.Second).UTC()
	rng := url.Values{"tab": {"range"}, "topic": {topic}, "begin": {begin.Format(time.RFC3339)}, "end": {end.Format(time.RFC3339)}}
	res, err := http.Get(con.URL + "/api/v1/messages?" + rng.Encode())
	if err != nil {
		t.Fatal(err)
	}
	var list struct {
		Messages []struct{ OffsetMsgID string } `json:"messages"`
	}
	err = json.NewDecoder(res.Body).Decode(&list)
	res.Body.Close()
	if err != nil || len(list.Messages) == 0 {
		t.Fatalf("no message to open: %v %+v", err, list)
	}
	// A topic created, then made read-only: its page with the change forms, and the
	// update's audit entry with its configuration before and after.
	changed := dev.UniqueName("layout-topic")
	var entryID int64
	for _, change := range []struct{ method, path, body string }{
		{http.MethodPost, "/api/v1/topics", `{"topic":"` + changed + `","readQueueNums":2,"writeQueueNums":2}`},
		{http.MethodPut, "/api/v1/topics/" + changed, `{"perm":4}`},
	} {
		req, _ := http.NewRequest(change.method, con.URL+change.path, strings.NewReader(change.body))
		req.Header.Set("Content-Type", "application/json")
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		var ans struct {
			Entry struct{ ID int64 } `json:"entry"`
		}
		err = json.NewDecoder(res.Body).Decode(&ans)
		res.Body.Close()
		if err != nil || res.StatusCode >= 300 {
			t.Fatalf("topic change for the layout: %d %v", res.StatusCode, err)
		}
		entryID = ans.Entry.ID
	}
	dev.Eventually(t, 30*time.Second, "the changed topic has a route", func() error {
		res, err := http.Get(con.URL + "/api/v1/topics/" + changed)
		if err != nil {
			return err
		}
		res.Body.Close()
		if res.StatusCode != http.StatusOK {
			return fmt.Errorf("status %d", res.StatusCode)
		}
		return nil
	})
	return []layoutPage{
		{name: "overview", path: "/", ready: `[data-testid="brokers"]`},
		{name: "topic", path: "/topics/" + changed, ready: `[data-testid="topic-save-form"]`},
		{name: "topic change entry", path: fmt.Sprintf("/audit/%d", entryID), ready: `[data-testid="entry-config"]`},
		{name: "messages", path: "/messages?" + rng.Encode(), ready: `[data-testid="messages-table"]`},
		{name: "refused search", path: "/messages?tab=key&topic=&key=a+b", ready: `[data-testid="form-error"]`},
		{name: "message", path: "/messages/" + list.Messages[0].OffsetMsgID + "?topic=" + topic, ready: `main h1`},
		{name: "groups", path: "/groups", ready: `[data-testid="groups-table"]`},
		{name: "group", path: "/groups/" + group, ready: `[data-testid="queues-table"]`},
		{name: "group settings preview", path: "/groups/" + group + "/settings", ready: `[data-testid="settings-form"]`,
			then: []chromedp.Action[chromedp.Void]{
				chromedp.SetValue(chromedp.CSS(`[data-testid="f-retryMaxTimes"]`), "3"),
				chromedp.Click(chromedp.CSS(`[data-testid="settings-preview-button"]`)),
				chromedp.WaitVisible(chromedp.CSS(`[data-testid="apply-form"]`)),
			}},
		{name: "broker config drift", path: "/brokers/config-drift", ready: `[data-testid="drift-cluster"]`},
		{name: "reset preview", path: "/groups/" + group + "/reset?mode=latest&topic=" + topic, ready: `[data-testid="reset-form"]`,
			then: []chromedp.Action[chromedp.Void]{
				chromedp.Click(chromedp.CSS(`[data-testid="mode-latest"]`)),
				chromedp.Click(chromedp.CSS(`[data-testid="preview-button"]`)),
				chromedp.WaitVisible(chromedp.CSS(`[data-testid="apply-form"]`)),
			}},
		{name: "several groups' reset preview", path: "/topics/" + topic + "/resets", ready: `[data-testid="several-form"]`,
			then: []chromedp.Action[chromedp.Void]{
				chromedp.SetValue(chromedp.CSS(`[data-testid="f-groups"]`), group+"\nno-such-group"),
				chromedp.Click(chromedp.CSS(`[data-testid="mode-latest"]`)),
				chromedp.Click(chromedp.CSS(`[data-testid="several-preview"]`)),
				chromedp.WaitVisible(chromedp.CSS(`[data-testid="several-apply-form"]`)),
			}},
		{name: "deep scan", path: "/messages?" + rng.Encode() + "&scan=deep", ready: `[data-testid="scan-ended"]`},
		{name: "audit", path: "/audit", ready: `main h1`},
		{name: "api", path: "/api", ready: `[data-testid="apidocs-toc"]`},
		{name: "live tail", path: "/topics/" + topic + "/tail", ready: `[data-testid="tail-table"]`, then: tailWithRows(con, topic, 4)},
	}
}

// openPage shows one page at a width and in a theme.
func openPage(t *testing.T, ctx context.Context, con *Console, p layoutPage, width int64, scheme string) {
	t.Helper()
	steps := []chromedp.Action[chromedp.Void]{colorScheme(scheme), chromedp.EmulateViewport(width, 900),
		chromedp.Navigate(con.URL + p.path), chromedp.WaitVisible(chromedp.CSS(p.ready))}
	Do(t, ctx, fmt.Sprintf("open %s at %d px, %s", p.name, width, scheme), append(steps, p.then...)...)
}

// contrastJS lists text (and the icons drawn before it) whose contrast with what is
// behind it is under WCAG AA: 4.5:1 for text, 3:1 for large text, icons and the border
// of a checkbox or radio.
const contrastJS = `(() => {
  const parse = c => { const m = c.match(/[\d.]+/g) || [0, 0, 0, 0]; return [+m[0], +m[1], +m[2], m.length > 3 ? +m[3] : 1]; };
  const over = (f, b) => [0, 1, 2].map(i => f[i] * f[3] + b[i] * (1 - f[3])).concat([1]);
  const lum = c => { const v = c.slice(0, 3).map(x => { x /= 255; return x <= 0.03928 ? x / 12.92 : Math.pow((x + 0.055) / 1.055, 2.4); }); return 0.2126 * v[0] + 0.7152 * v[1] + 0.0722 * v[2]; };
  const ratio = (a, b) => { const x = lum(a), y = lum(b); return (Math.max(x, y) + 0.05) / (Math.min(x, y) + 0.05); };
  const background = el => {
    const layers = [];
    for (let e = el; e; e = e.parentElement) {
      const c = parse(getComputedStyle(e).backgroundColor);
      if (c[3] > 0) { layers.push(c); if (c[3] === 1) break; }
    }
    let bg = [255, 255, 255, 1];
    if (!layers.length || layers[layers.length - 1][3] < 1) bg = parse(getComputedStyle(document.documentElement).backgroundColor);
    if (bg[3] < 1) bg = [255, 255, 255, 1];
    for (let i = layers.length - 1; i >= 0; i--) bg = over(layers[i], bg);
    return bg;
  };
  const bad = [];
  const visible = el => { const r = el.getBoundingClientRect(); const s = getComputedStyle(el); return r.width > 0 && r.height > 0 && s.visibility !== 'hidden' && s.opacity !== '0'; };
  const check = (el, color, min, what) => {
    const bg = background(el), fg = over(parse(color), bg), r = ratio(fg, bg);
    if (r < min) bad.push(what + ' ' + r.toFixed(2) + ':1 (' + color + ' on rgb(' + bg.slice(0, 3).map(Math.round) + ')) "' + (el.textContent || el.outerHTML).trim().slice(0, 50) + '" in ' + el.tagName.toLowerCase() + '.' + el.className);
  };
  document.querySelectorAll('body *').forEach(el => {
    if (!visible(el) || el.closest('dialog:not([open]), .uplot, svg')) return;
    const s = getComputedStyle(el);
    const own = Array.from(el.childNodes).some(n => n.nodeType === 3 && n.textContent.trim());
    if (own) {
      const px = parseFloat(s.fontSize), bold = +s.fontWeight >= 700;
      check(el, s.color, px >= 24 || (bold && px >= 18.66) ? 3 : 4.5, 'text');
    }
    const before = getComputedStyle(el, '::before');
    if (before.content && before.content !== 'none' && before.content !== 'normal' && before.content !== '""') check(el, before.color, 3, 'icon');
    if (el.matches('input[type=checkbox], input[type=radio]')) check(el.parentElement, s.borderTopColor, 3, 'checkbox border');
  });
  return bad.slice(0, 40).join('\n');
})()`

// Every page passes WCAG AA contrast in the light and in the dark theme.
func TestContrastInBothThemes(t *testing.T) {
	cl := dev.RequireCluster(t)
	con := StartConsole(t, "RMQC_NAMESRV="+cl.NameServer)
	ctx := Browser(t)
	for _, p := range layoutPages(t, cl, con) {
		for _, scheme := range []string{"light", "dark"} {
			openPage(t, ctx, con, p, 1440, scheme)
			if bad := Get(t, ctx, "measure contrast", chromedp.Evaluate[string](contrastJS)); bad != "" {
				t.Errorf("%s, %s theme: too little contrast:\n%s", p.name, scheme, bad)
			}
		}
	}
}

// overflowJS lists what sticks out of the window or touches its edge: the page must not
// scroll sideways, and everything but the inside of a scrolling box keeps a margin.
const overflowJS = `(() => {
  const w = document.documentElement.clientWidth, bad = [];
  if (document.documentElement.scrollWidth > w) bad.push('the page scrolls sideways: ' + document.documentElement.scrollWidth + ' px wide in ' + w);
  const scrolls = el => { for (let e = el.parentElement; e && e !== document.body; e = e.parentElement) { const o = getComputedStyle(e).overflowX; if (o === 'auto' || o === 'scroll' || o === 'hidden') return true; } return false; };
  document.querySelectorAll('main *, header *, footer *').forEach(el => {
    const r = el.getBoundingClientRect();
    if (r.width === 0 || r.height === 0 || scrolls(el) || el.closest('dialog:not([open])')) return;
    const own = Array.from(el.childNodes).some(n => n.nodeType === 3 && n.textContent.trim()) || el.matches('input, select, button, table, article, canvas, .table-scroll, pre');
    if (!own) return;
    if (r.left < 4 || r.right > w - 4) bad.push(el.tagName.toLowerCase() + '.' + el.className + ' "' + el.textContent.trim().slice(0, 40) + '" spans ' + Math.round(r.left) + '..' + Math.round(r.right) + ' px of ' + w);
  });
  return bad.slice(0, 30).join('\n');
})()`

const footerOffsetJS = `document.querySelector('footer small').getBoundingClientRect().left - document.querySelector('main h1').getBoundingClientRect().left`

// From a phone on call (360 px) to a small laptop window (800 px) and a wide screen: no page scrolls
// sideways, tables scroll inside their box, cards wrap, and nothing touches the edge.
func TestNarrowScreens(t *testing.T) {
	cl := dev.RequireCluster(t)
	con := StartConsole(t, "RMQC_NAMESRV="+cl.NameServer)
	ctx := Browser(t)
	for _, p := range layoutPages(t, cl, con) {
		for _, width := range []int64{360, 800, 1440} {
			openPage(t, ctx, con, p, width, "light")
			if bad := Get(t, ctx, "measure overflow", chromedp.Evaluate[string](overflowJS)); bad != "" {
				t.Errorf("%s at %d px:\n%s", p.name, width, bad)
			}
			// The footer's hint starts where the content does.
			if d := Get(t, ctx, "align the footer", chromedp.Evaluate[float64](footerOffsetJS)); d > 1 || d < -1 {
				t.Errorf("%s at %d px: the footer starts %.0f px from the content's left edge", p.name, width, d)
			}
		}
	}
}
