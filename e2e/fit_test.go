package e2e

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"rmqconsole/dev"
)

// fitJS lists what a newcomer trips over on a list page: a filter's label away from its
// control, a list wider than its box at a laptop's width, the group list's lag out of
// view, a header broken one character per line, a broker's name broken over two lines.
const fitJS = `((wide) => {
  const bad = [], w = document.documentElement.clientWidth;
  const visible = el => { const r = el.getBoundingClientRect(); return r.width > 0 && r.height > 0; };
  const text = el => (el.innerText || el.value || '').trim().replace(/\s+/g, ' ').slice(0, 40);
  document.querySelectorAll('form.filters label[for]').forEach(l => {
    const c = document.getElementById(l.htmlFor);
    if (!c || !visible(l) || !visible(c)) return;
    const a = l.getBoundingClientRect(), b = c.getBoundingClientRect();
    const over = a.bottom <= b.top + 2 && Math.abs(a.left - b.left) <= 2;
    const beside = a.right <= b.left + 2 && (a.top + a.bottom) / 2 > b.top && (a.top + a.bottom) / 2 < b.bottom;
    if (!over && !beside) bad.push('label "' + text(l) + '" at ' + [a.left, a.top].map(Math.round) + ' is neither over nor beside its control at ' + [b.left, b.top].map(Math.round));
  });
  if (wide) document.querySelectorAll('[data-testid="groups-table"], [data-testid="audit-entries"]').forEach(t => {
    const box = t.closest('.table-scroll') || t.parentElement;
    if (box.scrollWidth > box.clientWidth + 1) bad.push(t.dataset.testid + ' is ' + box.scrollWidth + ' px wide in a ' + box.clientWidth + ' px box');
  });
  const lag = document.querySelector('[data-testid="groups-table"] [data-testid="sort-lag"]');
  if (lag) {
    const th = lag.closest('th').getBoundingClientRect(), box = lag.closest('.table-scroll').getBoundingClientRect();
    if (th.right > Math.min(w, box.right) + 1) bad.push('the lag column ends at ' + Math.round(th.right) + ' px, past the ' + Math.round(Math.min(w, box.right)) + ' px in view');
  }
  document.querySelectorAll('main th').forEach(th => {
    if (!visible(th)) return;
    const lines = new Map(), walk = document.createTreeWalker(th, NodeFilter.SHOW_TEXT);
    for (let n = walk.nextNode(); n; n = walk.nextNode()) {
      for (let i = 0; i < n.textContent.length; i++) {
        if (!/[\p{L}\p{N}]/u.test(n.textContent[i])) continue;
        const r = document.createRange(); r.setStart(n, i); r.setEnd(n, i + 1);
        const rect = r.getClientRects()[0];
        if (!rect) continue;
        const top = Math.round(rect.top);
        lines.set(top, (lines.get(top) || 0) + 1);
      }
    }
    if (lines.size > 1 && Math.min(...lines.values()) === 1) bad.push('header "' + text(th) + '" breaks into ' + lines.size + ' lines, one of a single character');
  });
  document.querySelectorAll('main a[href*="/brokers/"], main .broker-name, [data-testid="topic-queues"] tbody td:first-child').forEach(a => {
    if (!visible(a)) return;
    const r = document.createRange(); r.selectNodeContents(a);
    const tops = new Set(Array.from(r.getClientRects()).filter(x => x.width > 0).map(x => Math.round(x.top)));
    if (tops.size > 1) bad.push('broker name "' + text(a) + '" is broken over ' + tops.size + ' lines');
  });
  return bad.slice(0, 20).join('\n');
})`

// The lists and filters a newcomer meets first fit every width in both languages: the
// Topics filter's labels over their controls, the group and audit lists inside the page
// at 1280 px, the group list's lag in view on a phone, headers broken between words
// only, broker names on one line; the topic page's Delete button is marked as
// dangerous, by colour and by a sign.
func TestListsFitEveryWidth(t *testing.T) {
	cl := dev.RequireCluster(t)
	con := StartConsole(t, "RMQC_NAMESRV="+cl.NameServer)
	topic, _ := offlineGroupWithBacklog(t, cl, 5)
	// An audit entry with a reason: a topic created through the API.
	req, _ := http.NewRequest(http.MethodPost, con.URL+"/api/v1/topics",
		strings.NewReader(`{"topic":"`+dev.UniqueName("e2e-fit")+`","readQueueNums":1,"writeQueueNums":1}`))
	req.Header.Set("Content-Type", "application/json")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode >= 300 {
		t.Fatalf("create a topic for an audit entry: %d", res.StatusCode)
	}
	pages := []struct{ name, path, ready string }{
		{"topics", "/topics", `[data-testid="topics-filter"]`},
		{"groups", "/groups", `[data-testid="groups-table"]`},
		{"audit", "/audit", `[data-testid="audit-entries"]`},
		{"brokers", "/brokers", `[data-testid="brokers-table"]`},
		{"topic", "/topics/" + topic, `[data-testid="topic-delete-button"]`},
		{"topic-decoder", "/topics/" + topic + "/decoder", `[data-testid="decoder-form"]`},
	}
	ctx := Browser(t)
	for _, lang := range []string{"en", "zh-CN"} {
		Do(t, ctx, "set the browser's language to "+lang, browserLanguage(t, ctx, lang))
		for _, p := range pages {
			for _, scheme := range []string{"light", "dark"} {
				for _, width := range []int64{1280, 800, 390} {
					Do(t, ctx, fmt.Sprintf("open %s at %d px, %s, %s", p.name, width, scheme, lang),
						colorScheme(scheme), chromedp.EmulateViewport(width, 900),
						chromedp.Navigate(con.URL+p.path), chromedp.WaitVisible(chromedp.CSS(p.ready)))
					js := fmt.Sprintf("%s(%t)", fitJS, width >= 1280)
					if bad := Get(t, ctx, "measure "+p.name, chromedp.Evaluate[string](js)); bad != "" {
						t.Errorf("%s at %d px, %s, %s:\n%s", p.name, width, scheme, lang, bad)
					}
					if p.name == "topic" {
						danger := Get(t, ctx, "read the Delete button", chromedp.Evaluate[string](`(() => {
  const b = document.querySelector('[data-testid="topic-delete-button"]'), s = getComputedStyle(b);
  const [r, g, bl] = s.backgroundColor.match(/[\d.]+/g).map(Number);
  return (r > g + 80 && r > bl + 80 ? '' : 'background ' + s.backgroundColor + ' is not red; ') +
    (getComputedStyle(b, '::before').content.includes('⚠') ? '' : 'no warning sign');
})()`))
						if danger != "" {
							t.Errorf("topic page at %d px, %s: the Delete button is not marked as dangerous: %s", width, scheme, danger)
						}
					}
					viewShot(t, ctx, fmt.Sprintf("%s-%s-%s-%d", p.name, lang, scheme, width))
				}
			}
		}
	}
}

// viewShot keeps what the window shows as name.png in RMQC_SCREENSHOTS, for a person to
// look at (a list of hundreds of groups is too tall for a full-page one).
func viewShot(t testing.TB, ctx context.Context, name string) {
	t.Helper()
	dir := os.Getenv("RMQC_SCREENSHOTS")
	if dir == "" {
		return
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	png := Get(t, ctx, "screenshot "+name, chromedp.CaptureScreenshot())
	if err := os.WriteFile(filepath.Join(dir, name+".png"), png, 0o644); err != nil {
		t.Error(err)
	}
}
