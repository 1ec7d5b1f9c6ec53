package e2e

import (
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/apache/rocketmq-client-go/v2/primitive"
	"github.com/chromedp/cdproto/browser"
	"github.com/chromedp/chromedp"

	"rmqconsole/dev"
	"rmqconsole/dev/rmqclient"
)

// Payloads that would run script if any string from a message reached the page as
// markup. CSP would stop most of them anyway, so the test also checks that no element
// was created from them and that they show as text.
const (
	xssBody  = `<script>window.__pwned="body"</script><img src=x onerror="window.__pwned='body-img'">`
	xssKey   = `<img/src/onerror=window.__pwned=1>`
	xssTag   = `<svg/onload=window.__pwned=2>`
	xssProp  = `"><script>window.__pwned=3</script>`
	xssPropK = `<b>prop</b>`
)

type sentMessage struct{ uniq, offsetID string }

func produce(t *testing.T, ns, topic string, msgs ...*primitive.Message) []sentMessage {
	t.Helper()
	p := rmqclient.StartProducer(t, ns, "")
	var out []sentMessage
	for _, m := range msgs {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		r, err := p.SendSync(ctx, m)
		cancel()
		if err != nil || r.Status != primitive.SendOK {
			t.Fatalf("send: %v %v", err, r)
		}
		out = append(out, sentMessage{r.MsgID, r.OffsetMsgID})
	}
	return out
}

// noScriptRan fails the test when a payload ran or became markup inside scope.
func noScriptRan(t *testing.T, ctx context.Context, where, scope string) {
	t.Helper()
	pwned := Get(t, ctx, "read window.__pwned", chromedp.Evaluate[string](`String(window.__pwned)`))
	if pwned != "undefined" {
		t.Errorf("%s: a payload ran: window.__pwned = %s", where, pwned)
	}
	n := Get(t, ctx, "count injected elements", chromedp.Evaluate[int](
		`document.querySelectorAll('`+scope+` script, `+scope+` img, `+scope+` svg, `+scope+` b').length`))
	if n != 0 {
		t.Errorf("%s: %d elements were made from message strings", where, n)
	}
}

func rowCount(t *testing.T, ctx context.Context) int {
	t.Helper()
	return Get(t, ctx, "count rows", chromedp.Evaluate[int](`document.querySelectorAll('[data-testid="messages-table"] [data-testid="message-row"]').length`))
}

// searchUntil submits the form until the result has want rows (the key index is
// written a moment after the messages are stored).
func searchUntil(t *testing.T, ctx context.Context, want int) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		// Mark the shown result; the answer replaces the whole section, mark and all.
		Do(t, ctx, "search",
			chromedp.Evaluate[chromedp.Void](`document.querySelector('[data-testid="messages-result"]').dataset.stale = "1"`),
			chromedp.Click(chromedp.CSS(`[data-testid="search"]`)),
			chromedp.WaitReady(chromedp.CSS(`[data-testid="messages-result"]:not([data-stale])`)),
		)
		if n := rowCount(t, ctx); n == want {
			return
		} else if time.Now().After(deadline) {
			t.Fatalf("the search shows %d rows, want %d: %s", n, want,
				Get(t, ctx, "read result", chromedp.Text(chromedp.CSS(`[data-testid="messages-result"]`))))
		}
		time.Sleep(300 * time.Millisecond)
	}
}

// idSearchOpens submits the id form until its one hit opens the message page (the key
// index is written a moment after the message is stored), and checks the kind it says.
func idSearchOpens(t *testing.T, ctx context.Context, kind string) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		Do(t, ctx, "search the id",
			chromedp.Evaluate[chromedp.Void](`document.querySelector('[data-testid="messages-result"]').dataset.stale = "1"`),
			chromedp.Click(chromedp.CSS(`[data-testid="search"]`)),
			chromedp.WaitReady(chromedp.CSS(`[data-testid="fields"], [data-testid="messages-result"]:not([data-stale])`)),
		)
		if got := Get(t, ctx, "id kind", chromedp.Evaluate[string](
			`document.querySelector('[data-testid="fields"]') ? document.querySelector('[data-testid="id-kind"]').dataset.kind : ""`)); got != "" {
			if got != kind {
				t.Errorf("the message opened as matched by %q, want %q", got, kind)
			}
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the id search never opened the message: %s",
				Get(t, ctx, "read result", chromedp.Text(chromedp.CSS(`[data-testid="messages-result"]`))))
		}
		time.Sleep(300 * time.Millisecond)
	}
}

// Each tab searched in a real browser, a result opened and checked, both exports
// downloaded and parsed, and message strings full of markup shown as text.
func TestMessagesSearchDetailExportInBrowser(t *testing.T) {
	cl := dev.RequireCluster(t)
	ctx0, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	topic := dev.UniqueName("e2e-msg")
	if err := cl.CreateTopic(ctx0, topic, 2); err != nil {
		t.Fatal(err)
	}
	key := dev.UniqueName("order")
	begin := time.Now().Add(-2 * time.Second).UTC()
	var msgs []*primitive.Message
	for i := range 6 {
		m := primitive.NewMessage(topic, []byte(fmt.Sprintf("{\n  \"order\": %d,\n  \"amount\": %d.50\n}", i, 10+i)))
		m.WithTag([]string{"Paid", "Open"}[i%2]).WithKeys([]string{key, fmt.Sprintf("n-%d", i)})
		m.WithProperty("region", "eu-west")
		msgs = append(msgs, m)
	}
	evil := primitive.NewMessage(topic, []byte(xssBody))
	evil.WithTag(xssTag).WithKeys([]string{xssKey})
	evil.WithProperty("note", xssProp)
	evil.WithProperty(xssPropK, "v")
	msgs = append(msgs, evil)
	sent := produce(t, cl.NameServer, topic, msgs...)
	end := time.Now().Add(2 * time.Second).UTC()

	con := StartConsole(t, "RMQC_NAMESRV="+cl.NameServer)
	ctx := Browser(t)

	// Tab 1: topic + time range, through the form (htmx swaps the result, the URL follows).
	Do(t, ctx, "fill the range form",
		chromedp.Navigate(con.URL+"/messages?tab=range"),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="form-range"]`)),
		chromedp.SetValue(chromedp.CSS(`#f-topic`), topic),
		chromedp.SetValue(chromedp.CSS(`#f-begin`), begin.Format("2006-01-02 15:04:05")),
		chromedp.SetValue(chromedp.CSS(`#f-end`), end.Format("2006-01-02 15:04:05")),
	)
	searchUntil(t, ctx, 7)
	loc := Get(t, ctx, "location", chromedp.Location())
	if u, _ := url.Parse(loc); u.Query().Get("topic") != topic || u.Query().Get("tab") != "range" {
		t.Errorf("the URL %s does not hold the search", loc)
	}
	summary := Get(t, ctx, "summary", chromedp.Text(chromedp.CSS(`[data-testid="result-summary"]`)))
	if !strings.Contains(summary, "7 messages of topic "+topic) {
		t.Errorf("summary %q", summary)
	}
	tableText := Get(t, ctx, "table", chromedp.Text(chromedp.CSS(`[data-testid="messages-table"]`)))
	for _, p := range []string{xssKey, xssTag, `<script>window.__pwned="body"</script>`} {
		if !strings.Contains(tableText, p) {
			t.Errorf("the table does not show %q as text", p)
		}
	}
	noScriptRan(t, ctx, "range result", `[data-testid="messages-result"]`)
	bodiesReadable(t, loc)

	// The URL reproduces the search: reload it.
	Do(t, ctx, "reload the search", chromedp.Navigate(loc), chromedp.WaitVisible(chromedp.CSS(`[data-testid="messages-table"]`)))
	if n := rowCount(t, ctx); n != 7 {
		t.Errorf("reloading %s shows %d rows", loc, n)
	}

	// A filter through the form: SQL92 on a property and the tag keeps the three Paid
	// orders; the URL holds it, and a syntax error is a sentence next to its field.
	Do(t, ctx, "filter by SQL92",
		chromedp.Click(chromedp.CSS(`[data-testid="filters"] summary`)),
		chromedp.WaitVisible(chromedp.CSS(`#f-where`)),
		chromedp.SetValue(chromedp.CSS(`#f-where`), "region = 'eu-west' AND TAGS = 'Paid'"),
	)
	searchUntil(t, ctx, 3)
	if s := TextNow(t, ctx, "filtered summary", `[data-testid="result-summary"]`); !strings.Contains(s, "3 matched of 7 read.") {
		t.Errorf("filtered summary %q", s)
	}
	viewShot(t, ctx, "messages-filter-en-1400")
	Do(t, ctx, "a filter with a syntax error", chromedp.SetValue(chromedp.CSS(`#f-where`), "region = 'eu-west' AND"),
		chromedp.Click(chromedp.CSS(`[data-testid="search"]`)),
		chromedp.WaitVisible(chromedp.CSS(`#f-where[aria-invalid="true"]`)))
	if e := TextNow(t, ctx, "filter error", `[data-testid="err-where"]`); !strings.Contains(e, "column 23") {
		t.Errorf("the SQL92 error says %q, want its column", e)
	}
	Do(t, ctx, "back to the unfiltered search", chromedp.Navigate(loc), chromedp.WaitVisible(chromedp.CSS(`[data-testid="messages-table"]`)))

	// Export both formats from the page, as downloads, and parse them.
	dir := t.TempDir()
	for _, format := range []string{"csv", "json"} {
		data := download(t, ctx, dir, `[data-testid="export-`+format+`"]`)
		switch format {
		case "csv":
			rows, err := csv.NewReader(strings.NewReader(string(data))).ReadAll()
			if err != nil || len(rows) != 8 || rows[0][0] != "storeTime" {
				t.Fatalf("CSV export: %v, %d rows", err, len(rows))
			}
			seen := map[string]bool{}
			for _, r := range rows[1:] {
				seen[r[1]] = true
			}
			for _, s := range sent {
				if !seen[s.uniq] {
					t.Errorf("CSV export lacks %s", s.uniq)
				}
			}
		case "json":
			var j struct {
				Messages []struct {
					MsgID string `json:"msgId"`
					Body  string `json:"body"`
				} `json:"messages"`
				Total int `json:"total"`
			}
			if err := json.Unmarshal(data, &j); err != nil || len(j.Messages) != 7 || j.Total != 7 {
				t.Fatalf("JSON export: %v, %d messages", err, len(j.Messages))
			}
		}
	}

	// Tab 2: message key, reached with the keyboard shortcut.
	Do(t, ctx, "switch to the key tab",
		chromedp.KeyEvent("2"),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="form-key"]`)),
		chromedp.SetValue(chromedp.CSS(`#f-key`), key),
	)
	if v := Get(t, ctx, "kept topic", chromedp.Value(chromedp.CSS(`#f-topic`))); v != topic {
		t.Errorf("the key tab lost the topic: %q", v)
	}
	searchUntil(t, ctx, 6)
	keys := Get(t, ctx, "keys column", chromedp.Text(chromedp.CSS(`[data-testid="messages-table"] tbody`)))
	if strings.Count(keys, key) != 6 {
		t.Errorf("key column shows %q %d times, want 6", key, strings.Count(keys, key))
	}

	// Tab 3: message id, a unique key with its topic, then an offsetMsgId alone: one hit
	// opens the message, which says which kind of id matched.
	Do(t, ctx, "switch to the id tab",
		chromedp.Click(chromedp.CSS(`[data-testid="tab-id"]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="form-id"]`)),
		chromedp.SetValue(chromedp.CSS(`#f-id`), sent[3].uniq),
	)
	idSearchOpens(t, ctx, "uniqueKey")
	Do(t, ctx, "search an offsetMsgId",
		chromedp.Navigate(con.URL+"/messages?tab=id"),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="form-id"]`)),
		chromedp.SetValue(chromedp.CSS(`#f-id`), sent[6].offsetID),
	)
	idSearchOpens(t, ctx, "offsetMsgId")
	noScriptRan(t, ctx, "id result", `main`)

	// Open the markup-laden message: every field shown as text, nothing run.
	Do(t, ctx, "open the result",
		chromedp.Navigate(con.URL+"/messages?tab=id&id="+sent[6].offsetID),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="fields"]`)),
	)
	fields := map[string]string{}
	for _, f := range []string{"Topic", "Tags", "Keys", "Broker", "Queue offset"} {
		fields[f] = strings.TrimSpace(Get(t, ctx, "field "+f, chromedp.Text(chromedp.CSS(`[data-field="`+f+`"]`))))
	}
	if fields["Topic"] != topic || fields["Tags"] != xssTag || fields["Keys"] != xssKey || fields["Broker"] != cl.Brokers[0].Name {
		t.Errorf("detail fields %v", fields)
	}
	props := Get(t, ctx, "properties", chromedp.Text(chromedp.CSS(`[data-testid="properties"]`)))
	if !strings.Contains(props, xssProp) || !strings.Contains(props, xssPropK) || !strings.Contains(props, sent[6].uniq) {
		t.Errorf("properties %q lack the payloads as text or the UNIQ_KEY", props)
	}
	body := Get(t, ctx, "body", chromedp.Text(chromedp.CSS(`[data-testid="body-content"]`)))
	if body != xssBody {
		t.Errorf("body shown as %q, want the payload as text", body)
	}
	offsetID := Get(t, ctx, "offsetMsgId", chromedp.Text(chromedp.CSS(`[data-testid="offset-id-value"]`)))
	if offsetID != sent[6].offsetID {
		t.Errorf("offsetMsgId shown %q, want %q", offsetID, sent[6].offsetID)
	}
	decoded := Get(t, ctx, "decoded offsetMsgId", chromedp.Text(chromedp.CSS(`[data-testid="offset-id"]`)))
	if !strings.Contains(decoded, cl.Brokers[0].Addr) {
		t.Errorf("the offsetMsgId does not decode to the broker address %s: %q", cl.Brokers[0].Addr, decoded)
	}
	noScriptRan(t, ctx, "detail page", "main")

	// A JSON body shows pretty-printed, and the hex view is one click away.
	Do(t, ctx, "open a JSON message",
		chromedp.Navigate(con.URL+"/messages/"+sent[2].offsetID+"?topic="+topic),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="body-content"]`)),
	)
	pretty := Get(t, ctx, "pretty body", chromedp.Text(chromedp.CSS(`[data-testid="body-content"]`)))
	if pretty != "{\n  \"order\": 2,\n  \"amount\": 12.50\n}" {
		t.Errorf("JSON body shown as %q", pretty)
	}
	Do(t, ctx, "hex view", chromedp.Click(chromedp.CSS(`[data-testid="body-view-hex"]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-view="hex"]`)))
	if hexed := Get(t, ctx, "hex body", chromedp.Text(chromedp.CSS(`[data-testid="body-content"]`))); !strings.HasPrefix(hexed, "00000000  7b 0a 20 20 22 6f 72") {
		t.Errorf("hex view %q", hexed)
	}
}

// previewJS lists what keeps a result's bodies from being read: a body column narrower
// than min px, a preview out of view, JSON bodies not shown on one line, a table wider
// than its box.
const previewJS = `((min) => {
  const bad = [];
  const rows = [...document.querySelectorAll('[data-testid="messages-table"] [data-testid="message-row"]')];
  if (rows.length === 0) return 'no rows';
  rows.forEach((r, i) => {
    const td = r.querySelector('td.preview'), s = td && td.querySelector('[data-testid="body-preview"]');
    if (!s) { bad.push('row ' + i + ' has no body preview'); return; }
    const w = td.getBoundingClientRect().width, sw = s.getBoundingClientRect().width;
    if (w < min) bad.push('row ' + i + ': the body column is ' + Math.round(w) + ' px wide');
    if (sw < Math.min(w / 2, 100)) bad.push('row ' + i + ': the preview shows ' + Math.round(sw) + ' px');
  });
  const json = rows.map(r => r.querySelector('[data-testid="body-preview"]').textContent).filter(t => t.startsWith('{'));
  if (json.length !== 6 || !json.every(t => /^\{"order":\d,"amount":\d+\.50\}$/.test(t))) bad.push('JSON previews ' + JSON.stringify(json));
  const box = document.querySelector('[data-testid="messages-table"]').closest('.table-scroll');
  if (box.scrollWidth > box.clientWidth + 1) bad.push('the table is ' + box.scrollWidth + ' px wide in a ' + box.clientWidth + ' px box');
  return bad.join('\n');
})`

// bodiesReadable opens the range search at loc at 1280, 800 and 390 px, light and dark,
// in English and Chinese: the body preview has room and shows JSON on one line, no
// header breaks letter by letter, and a row opens in place to its whole body, pretty
// JSON said to be JSON, and closes again.
func bodiesReadable(t *testing.T, loc string) {
	t.Helper()
	ctx := Browser(t)
	for _, lang := range []string{"en", "zh-CN"} {
		Do(t, ctx, "set the browser's language to "+lang, browserLanguage(t, ctx, lang))
		for _, scheme := range []string{"light", "dark"} {
			for _, width := range []int64{1280, 800, 390} {
				where := fmt.Sprintf("%d px, %s, %s", width, scheme, lang)
				Do(t, ctx, "open the result at "+where, colorScheme(scheme), chromedp.EmulateViewport(width, 900),
					chromedp.Navigate(loc), chromedp.WaitVisible(chromedp.CSS(`[data-testid="messages-table"]`)))
				minWidth := map[int64]int{1280: 400, 800: 280, 390: 150}[width]
				if bad := Get(t, ctx, "measure the bodies", chromedp.Evaluate[string](fmt.Sprintf("%s(%d)", previewJS, minWidth))); bad != "" {
					t.Errorf("bodies at %s:\n%s", where, bad)
				}
				if bad := Get(t, ctx, "measure the headers", chromedp.Evaluate[string](fitJS+"(false)")); bad != "" {
					t.Errorf("result table at %s:\n%s", where, bad)
				}
				row := `[data-testid="message-row"]:has([title^="{\"order\":2,"])`
				Do(t, ctx, "open the body of order 2 at "+where,
					chromedp.Click(chromedp.CSS(row+` [data-testid="body-expand"]`)),
					chromedp.WaitVisible(chromedp.CSS(row+` + [data-testid="body-full"] [data-testid="body-full-text"]`)))
				full := Get(t, ctx, "read the whole body", chromedp.Text(chromedp.CSS(`[data-testid="body-full-text"]`)))
				how := TextNow(t, ctx, "read how it was read", `[data-testid="body-how"]`)
				if full != "{\n  \"order\": 2,\n  \"amount\": 12.50\n}" || how != "JSON" {
					t.Errorf("the opened body at %s reads %q, decoded as %q", where, full, how)
				}
				if n := rowCount(t, ctx); n != 7 {
					t.Errorf("opening a body left %d message rows, want 7", n)
				}
				if bad := Get(t, ctx, "measure the bodies with one open", chromedp.Evaluate[string](fmt.Sprintf("%s(%d)", previewJS, minWidth))); bad != "" {
					t.Errorf("bodies at %s with one opened:\n%s", where, bad)
				}
				Do(t, ctx, "bring the opened body into view", chromedp.ScrollIntoView(chromedp.CSS(`[data-testid="body-full"]`)))
				viewShot(t, ctx, fmt.Sprintf("messages-body-%s-%s-%d", lang, scheme, width))
				Do(t, ctx, "close the body at "+where,
					chromedp.Click(chromedp.CSS(row+` [data-testid="body-expand"]`)),
					chromedp.WaitNotVisible(chromedp.CSS(`[data-testid="body-full"]`)))
				sel, _ := json.Marshal(row + ` [data-testid="body-expand"]`)
				if e := Get(t, ctx, "read aria-expanded", chromedp.Evaluate[string](`document.querySelector(`+string(sel)+`).getAttribute('aria-expanded')`)); e != "false" {
					t.Errorf("the closed row says aria-expanded=%q", e)
				}
			}
		}
	}
}

// download clicks a link that downloads, waits for the file and returns its bytes.
func download(t *testing.T, ctx context.Context, dir, selector string) []byte {
	t.Helper()
	lctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	progress := chromedp.BrowserEvents(lctx, browser.DownloadProgress)
	Do(t, ctx, "download "+selector,
		chromedp.Func(func(ctx context.Context, _ *chromedp.Target) error {
			events := true
			_, err := chromedp.CallBrowser(ctx, browser.SetDownloadBehavior, browser.SetDownloadBehaviorParams{
				Behavior: browser.SetDownloadBehaviorBehaviorAllowAndName, DownloadPath: dir, EventsEnabled: &events,
			})
			return err
		}),
		chromedp.Click(chromedp.CSS(selector)),
	)
	for ev, err := range progress {
		if err != nil {
			t.Fatalf("download %s: %v", selector, err)
		}
		if ev.State == browser.DownloadProgressStateCanceled {
			t.Fatalf("download %s was canceled", selector)
		}
		if ev.State != browser.DownloadProgressStateCompleted {
			continue
		}
		data, err := os.ReadFile(filepath.Join(dir, ev.GUID))
		if err != nil {
			t.Fatal(err)
		}
		return data
	}
	t.Fatalf("download %s never completed", selector)
	return nil
}

// 2000 rows in a real browser: the page shows the first rows and says it is the newest
// 2000 of more; scrolling down brings every one of the 2000, in the order of the API's
// answer for the same search; an htmx search shows the first rows again, and the last
// row still opens its message. Without JavaScript, the link under the rows leads page
// by page to the same 2000. The timings are logged, not asserted (the machine is shared).
func TestMessages2000RowsInBrowser(t *testing.T) {
	cl := dev.RequireCluster(t)
	ctx0, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	topic := dev.UniqueName("e2e-2000")
	if err := cl.CreateTopic(ctx0, topic, 4); err != nil {
		t.Fatal(err)
	}
	begin := time.Now().Add(-2 * time.Second).UTC()
	p := rmqclient.StartProducer(t, cl.NameServer, "")
	const total = 2100
	for i := 0; i < total; i += 50 { // batches of 50: one queue per batch
		var batch []*primitive.Message
		for j := i; j < min(i+50, total); j++ {
			m := primitive.NewMessage(topic, []byte(fmt.Sprintf(`{"n":%d,"pad":"%s"}`, j, strings.Repeat("x", 200))))
			m.WithTag("T").WithKeys([]string{fmt.Sprintf("k-%d", j)})
			batch = append(batch, m)
		}
		if r, err := p.SendSync(ctx0, batch...); err != nil || r.Status != primitive.SendOK {
			t.Fatalf("send batch %d: %v %v", i, err, r)
		}
	}
	end := time.Now().Add(2 * time.Second).UTC()
	con := StartConsole(t, "RMQC_NAMESRV="+cl.NameServer)
	ctx := Browser(t)

	q := url.Values{"tab": {"range"}, "topic": {topic}, "begin": {begin.Format("2006-01-02 15:04:05")}, "end": {end.Format("2006-01-02 15:04:05")}}
	want := apiOffsetMsgIDs(t, con.URL+"/api/v1/messages?"+q.Encode())
	if len(want) != 2000 {
		t.Fatalf("the API answers %d messages, want 2000", len(want))
	}
	Do(t, ctx, "open 2000 rows", chromedp.Navigate(con.URL+"/messages?"+q.Encode()),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="messages-table"]`)))
	first := rowCount(t, ctx)
	if first == 0 || first >= 2000 {
		t.Fatalf("the page shows %d rows at first, want its first rows only", first)
	}
	note := Get(t, ctx, "truncation note", chromedp.Text(chromedp.CSS(`[data-testid="truncated"]`)))
	if !strings.Contains(note, "2,100 in all") {
		t.Errorf("truncation note %q does not say 2,100 matched", note)
	}
	load := Get(t, ctx, "navigation timing", chromedp.Evaluate[map[string]float64](
		`(() => { const n = performance.getEntriesByType("navigation")[0]; return {response: n.responseEnd - n.startTime, dom: n.domContentLoadedEventEnd - n.startTime, load: n.loadEventEnd - n.startTime}; })()`))
	start := time.Now()
	scrollToAll(t, ctx)
	if got := shownOffsetMsgIDs(t, ctx); strings.Join(got, " ") != strings.Join(want, " ") {
		t.Fatalf("scrolling down shows %d rows, not the API's 2000 in its order", len(got))
	}
	t.Logf("2000 rows: %d at first; server response %.0f ms, DOM ready %.0f ms, load %.0f ms after navigation; all rows after scrolling in %s",
		first, load["response"], load["dom"], load["load"], time.Since(start).Round(time.Millisecond))

	// Still usable: the last row opens its message.
	Do(t, ctx, "open the last row",
		chromedp.ScrollIntoView(chromedp.CSS(`[data-testid="messages-table"] tbody tr:last-child [data-testid="message-link"]`)),
		chromedp.Click(chromedp.CSS(`[data-testid="messages-table"] tbody tr:last-child [data-testid="message-link"]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="fields"]`)),
	)
	if got := strings.TrimSpace(Get(t, ctx, "topic field", chromedp.Text(chromedp.CSS(`[data-field="Topic"]`)))); got != topic {
		t.Errorf("the last row opened a message of %q", got)
	}

	// An htmx search shows the first rows again, and they go on growing as before.
	Do(t, ctx, "back to the result", chromedp.Navigate(con.URL+"/messages?"+q.Encode()),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="more-rows"]`)))
	swap := Get(t, ctx, "htmx search", chromedp.Evaluate[float64](`new Promise(resolve => {
		const t0 = performance.now();
		document.body.addEventListener("htmx:afterSettle", () => resolve(performance.now() - t0), {once: true});
		document.querySelector('[data-testid="search"]').click();
	})`, chromedp.EvalAwaitPromise))
	if n := rowCount(t, ctx); n != first {
		t.Fatalf("after the htmx search: %d rows, want the first %d", n, first)
	}
	scrollToAll(t, ctx)
	if got := shownOffsetMsgIDs(t, ctx); strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("after an htmx search, scrolling down shows %d rows, not the API's 2000 in its order", len(got))
	}
	t.Logf("htmx search and swap %.0f ms", swap)

	// Without JavaScript, the link under the rows opens the next ones as a page: the
	// HTML the console serves is what such a reader gets, so walk it as they would.
	var got []string
	next := []string{"", "/messages?" + q.Encode()}
	for pages := 1; ; pages++ {
		html := getHTML(t, con.URL+strings.ReplaceAll(next[1], "&amp;", "&"))
		for _, m := range offsetMsgIDCell.FindAllStringSubmatch(html, -1) {
			got = append(got, m[1])
		}
		if next = moreRowsHref.FindStringSubmatch(html); next == nil {
			t.Logf("without JavaScript: %d pages", pages)
			break
		}
		if pages > 20 {
			t.Fatalf("more than 20 pages for 2000 rows")
		}
	}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("without JavaScript, the pages show %d rows, not the API's 2000 in its order", len(got))
	}
}

// getHTML answers the page at u, as a browser without JavaScript reads it.
func getHTML(t *testing.T, u string) string {
	t.Helper()
	res, err := http.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil || res.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %d %v", u, res.StatusCode, err)
	}
	return string(b)
}

var (
	offsetMsgIDCell = regexp.MustCompile(`data-testid="message-link"[^>]*>([0-9A-F]+)<`)
	moreRowsHref    = regexp.MustCompile(`<a href="([^"]+)"[^>]*data-testid="more-rows-link"`)
)

// scrollToAll scrolls the table's last row into view until no more rows follow.
func scrollToAll(t *testing.T, ctx context.Context) {
	t.Helper()
	for range 40 {
		n := rowCount(t, ctx)
		if !Get(t, ctx, "are more rows coming", chromedp.Evaluate[bool](`!!document.querySelector('[data-testid="more-rows"]')`)) {
			return
		}
		Do(t, ctx, "scroll to the last row",
			chromedp.Evaluate[chromedp.Void](`document.querySelector('[data-testid="more-rows"]').scrollIntoView()`))
		Get(t, ctx, "wait for the next rows", chromedp.Poll[bool](fmt.Sprintf(
			`document.querySelectorAll('[data-testid="messages-table"] [data-testid="message-row"]').length > %d || !!document.querySelector('[data-testid="rows-error"]')`, n)))
		if Get(t, ctx, "did a piece fail", chromedp.Evaluate[bool](`!!document.querySelector('[data-testid="rows-error"]')`)) {
			t.Fatalf("the next rows did not load: %s", Get(t, ctx, "read the error", chromedp.Text(chromedp.CSS(`[data-testid="rows-error"]`))))
		}
	}
	t.Fatalf("rows still coming after 40 scrolls (%d shown)", rowCount(t, ctx))
}

func shownOffsetMsgIDs(t *testing.T, ctx context.Context) []string {
	t.Helper()
	return Get(t, ctx, "read the rows", chromedp.Evaluate[[]string](
		`[...document.querySelectorAll('[data-testid="messages-table"] [data-testid="message-row"] [data-testid="message-link"]')].map(a => a.textContent)`))
}

// apiOffsetMsgIDs answers the offsetMsgIds of a message list from the API, in order.
func apiOffsetMsgIDs(t *testing.T, u string) []string {
	t.Helper()
	res, err := http.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var list struct {
		Messages []struct {
			OffsetMsgID string `json:"offsetMsgId"`
		} `json:"messages"`
	}
	if err := json.NewDecoder(res.Body).Decode(&list); err != nil || res.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %d %v", u, res.StatusCode, err)
	}
	var ids []string
	for _, m := range list.Messages {
		ids = append(ids, m.OffsetMsgID)
	}
	return ids
}
