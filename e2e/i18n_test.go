package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"

	"rmqconsole/dev"
)

// browserLanguage makes the browser ask for lang first, as a browser set to that
// language does: the Accept-Language header of every request, and navigator.language.
func browserLanguage(t testing.TB, ctx context.Context, lang string) chromedp.Action[chromedp.Void] {
	t.Helper()
	ua := Get(t, ctx, "read the user agent", chromedp.Evaluate[string](`navigator.userAgent`))
	accept := lang + "," + strings.Split(lang, "-")[0] + ";q=0.9"
	return chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		if _, err := cdp.Call(ctx, t, emulation.SetUserAgentOverride, emulation.SetUserAgentOverrideParams{
			UserAgent: ua, AcceptLanguage: lang}); err != nil {
			return err
		}
		if _, err := cdp.Call(ctx, t, network.Enable, network.EnableParams{}); err != nil {
			return err
		}
		_, err := cdp.Call(ctx, t, network.SetExtraHTTPHeaders, network.SetExtraHTTPHeadersParams{
			Headers: network.Headers{"Accept-Language": accept}})
		return err
	})
}

// i18nPage is a page opened in Chinese: where it is, what says it is ready, an optional
// step that brings it to the state worth seeing, and its main heading with the Chinese
// it must contain.
type i18nPage struct {
	name, path, ready string
	then              []chromedp.Action[chromedp.Void]
	// headingAt is where the heading is ("main h1" when empty).
	headingAt, heading string
	// says are more of the page's parts (by selector) and the Chinese each must contain:
	// the words a live page writes after it has opened.
	says map[string]string
}

// chinesePages are every page of the console, with data on them.
func chinesePages(t *testing.T, cl *dev.Cluster, con *Console, ctx context.Context) []i18nPage {
	t.Helper()
	// A topic with keyed messages, and a group with a consumer online on it: messages,
	// the topic, the group live, its client.
	topic := newTopic(t, cl, "e2e-i18n", 2)
	begin := time.Now().Add(-2 * time.Second).UTC()
	sent := dev.Produce(t, cl.NameServer, topic, dev.ProduceOptions{N: 3, Key: "i18n-order", Tag: "Paid"})
	end := time.Now().Add(2 * time.Second).UTC()
	group := dev.UniqueName("e2e-i18n-cg")
	dev.StartConsumerProcess(t, cl.NameServer, group, topic)
	waitOnline(t, con, group, 1)
	// An offline group with a backlog: the reset form and its preview.
	rtopic, rgroup := offlineGroupWithBacklog(t, cl, 10)
	// A topic created: an audit entry.
	res, err := http.Post(con.URL+"/api/v1/topics", "application/json",
		strings.NewReader(`{"topic":"`+dev.UniqueName("e2e-i18n-new")+`","readQueueNums":1,"writeQueueNums":1}`))
	if err != nil {
		t.Fatal(err)
	}
	var created struct {
		Entry struct{ ID int64 } `json:"entry"`
	}
	err = json.NewDecoder(res.Body).Decode(&created)
	res.Body.Close()
	if err != nil || res.StatusCode >= 300 || created.Entry.ID == 0 {
		t.Fatalf("create a topic for an audit entry: %d %v", res.StatusCode, err)
	}
	Do(t, ctx, "open the group to find its client", chromedp.Navigate(con.URL+"/groups/"+group),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="clients-table"] a[data-testid="client-link"]`)))
	client := Get(t, ctx, "read the client's link", chromedp.Evaluate[string](
		`document.querySelector('[data-testid="clients-table"] a[data-testid="client-link"]').getAttribute('href')`))
	rng := url.Values{"tab": {"range"}, "topic": {topic}, "begin": {begin.Format(time.RFC3339)}, "end": {end.Format(time.RFC3339)}}
	key := url.Values{"tab": {"key"}, "topic": {topic}, "key": {sent[0].Key}}
	id := url.Values{"tab": {"id"}, "topic": {topic}, "id": {sent[0].OffsetMsgID}}
	broker := cl.Brokers[0].Name
	return []i18nPage{
		{name: "overview", path: "/", ready: `[data-testid="brokers"]`, heading: "集群概览"},
		{name: "messages-range", path: "/messages?" + rng.Encode(), ready: `[data-testid="messages-table"]`, heading: "消息查询"},
		{name: "messages-key", path: "/messages?" + key.Encode(), ready: `[data-testid="messages-table"]`, heading: "消息查询"},
		{name: "messages-id", path: "/messages?" + id.Encode(), ready: `main h1`, heading: "消息"},
		{name: "message", path: "/messages/" + sent[0].OffsetMsgID + "?topic=" + topic, ready: `main h1`, heading: "消息"},
		{name: "message-trace", path: "/messages/" + sent[0].OffsetMsgID + "?topic=" + topic + "#trace", ready: `[data-testid="trace"]`,
			then: []chromedp.Action[chromedp.Void]{chromedp.ScrollIntoView(chromedp.CSS(`[data-testid="trace"]`))}, heading: "消息"},
		{name: "topics", path: "/topics", ready: `main h1`, heading: "主题"},
		{name: "topic", path: "/topics/" + topic, ready: `main h1`, heading: "主题"},
		// The Decoding form posts its file (multipart) and previews the newest message.
		{name: "topic-decoder-preview", path: "/topics/" + topic + "/decoder", ready: `[data-testid="decoder-form"]`,
			then: []chromedp.Action[chromedp.Void]{
				chromedp.SetValue(chromedp.CSS(`[data-testid="d-type"]`), "text"),
				chromedp.Click(chromedp.CSS(`[data-testid="decoder-preview-button"]`)),
				chromedp.WaitVisible(chromedp.CSS(`[data-testid="decoder-preview-how"]`)),
			}, headingAt: `[data-testid="decoder-preview"]`, heading: "预览：用此解码器读取最新消息"},
		{name: "groups", path: "/groups?refresh=1", ready: `[data-testid="groups-table"]`, heading: "消费者组"},
		{name: "group-live", path: "/groups/" + group, ready: `#live-indicator.live-on`, heading: "消费者组"},
		{name: "group-dead-letters", path: "/groups/" + group, ready: `[data-testid="group-dead-letters"]`,
			then:      []chromedp.Action[chromedp.Void]{chromedp.ScrollIntoView(chromedp.CSS(`[data-testid="group-dead-letters"]`))},
			headingAt: `[data-testid="group-dead-letters"] h2`, heading: "重试与死信"},
		{name: "client", path: client, ready: `main h1`, heading: "客户端"},
		{name: "reset-preview", path: "/groups/" + rgroup + "/reset?mode=latest&topic=" + rtopic, ready: `[data-testid="reset-form"]`,
			then: []chromedp.Action[chromedp.Void]{
				chromedp.Click(chromedp.CSS(`[data-testid="mode-latest"]`)),
				chromedp.Click(chromedp.CSS(`[data-testid="preview-button"]`)),
				chromedp.WaitVisible(chromedp.CSS(`[data-testid="apply-form"]`)),
			}, heading: "重置消费位点"},
		{name: "several-reset-preview", path: "/topics/" + rtopic + "/resets", ready: `[data-testid="several-form"]`,
			then: []chromedp.Action[chromedp.Void]{
				chromedp.SetValue(chromedp.CSS(`[data-testid="f-groups"]`), rgroup+"\nno-such-group"),
				chromedp.Click(chromedp.CSS(`[data-testid="mode-latest"]`)),
				chromedp.Click(chromedp.CSS(`[data-testid="several-preview"]`)),
				chromedp.WaitVisible(chromedp.CSS(`[data-testid="several-apply-form"]`)),
			}, headingAt: `[data-testid="several-refused"]`, heading: "不重置"},
		{name: "deep-scan", path: "/messages?" + rng.Encode() + "&scan=deep", ready: `[data-testid="scan-ended"]`,
			headingAt: `[data-testid="scan-ended"]`, heading: "已在"},
		{name: "group-settings-preview", path: "/groups/" + rgroup + "/settings", ready: `[data-testid="settings-form"]`,
			then: []chromedp.Action[chromedp.Void]{
				chromedp.SetValue(chromedp.CSS(`[data-testid="f-retryMaxTimes"]`), "3"),
				chromedp.Click(chromedp.CSS(`[data-testid="settings-preview-button"]`)),
				chromedp.WaitVisible(chromedp.CSS(`[data-testid="apply-form"]`)),
			}, heading: "消费者组订阅配置"},
		{name: "broker-config-drift", path: "/brokers/config-drift", ready: `[data-testid="drift-cluster"]`, heading: "Broker 配置的差异"},
		{name: "broker-config", path: "/brokers/" + broker + "/config", ready: `[data-testid="brokerconfig-form"]`, heading: "修改 Broker 配置"},
		{name: "audit", path: "/audit", ready: `[data-testid="audit-entries"]`, heading: "审计日志"},
		{name: "audit-entry", path: fmt.Sprintf("/audit/%d", created.Entry.ID), ready: `[data-testid="entry-fields"]`, heading: "审计记录"},
		{name: "brokers", path: "/brokers", ready: `[data-testid="brokers-table"]`, heading: "Broker 列表"},
		{name: "broker", path: "/brokers/" + broker, ready: `[data-testid="broker-config"]`,
			headingAt: `[data-testid="broker-config"] h2`, heading: "配置"},
		{name: "alerts", path: "/alerts", ready: `main h1`, heading: "告警"},
		{name: "tokens", path: "/tokens", ready: `main h1`, heading: "API 令牌"},
		{name: "api", path: "/api", ready: `[data-testid="apidocs-toc"]`, headingAt: `[data-testid="apidocs-toc"] h2`, heading: "操作"},
		{name: "live-tail", path: "/topics/" + topic + "/tail", ready: `[data-testid="tail-table"]`, then: tailWithRows(con, topic, 3), heading: "实时跟踪",
			says: map[string]string{`[data-testid="tail-started"]`: "起实时跟踪", `[data-testid="tail-resume"]`: "继续",
				`[data-testid="tail-paused"]`: "已暂停", `[data-testid="tail-skipped"]`: "行未显示", `[data-testid="live-indicator"]`: "实时"}},
		{name: "sign-in", path: "/login", ready: `[data-testid="login"]`, heading: "登录"},
	}
}

// A browser set to Chinese gets every page in Chinese: <html lang="zh-CN">, the
// navigation, and each page's heading. Each page is kept as a full-page screenshot in
// RMQC_SCREENSHOTS, for a person to look at.
func TestEveryPageInChinese(t *testing.T) {
	cl := dev.RequireCluster(t)
	con := StartConsole(t, "RMQC_NAMESRV="+cl.NameServer, "RMQC_GROUP_POLL=1s")
	ctx := Browser(t)
	Do(t, ctx, "set the browser's language to Chinese", browserLanguage(t, ctx, "zh-CN"))
	for _, p := range chinesePages(t, cl, con, ctx) {
		steps := []chromedp.Action[chromedp.Void]{chromedp.EmulateViewport(1440, 900),
			chromedp.Navigate(con.URL + p.path), chromedp.WaitVisible(chromedp.CSS(p.ready))}
		Do(t, ctx, "open "+p.name, append(steps, p.then...)...)
		if lang := Get(t, ctx, p.name+": read lang", chromedp.Evaluate[string](`document.documentElement.lang`)); lang != "zh-CN" {
			t.Errorf("%s: <html lang=%q>, want zh-CN", p.name, lang)
		}
		if nav := Get(t, ctx, p.name+": read the navigation", chromedp.Text(chromedp.CSS(`[data-testid="nav"]`))); !strings.Contains(nav, "消费者组") || !strings.Contains(nav, "审计") {
			t.Errorf("%s: navigation %q is not in Chinese", p.name, nav)
		}
		at := p.headingAt
		if at == "" {
			at = "main h1"
		}
		if h := Get(t, ctx, p.name+": read the heading", chromedp.Text(chromedp.CSS(at))); p.heading == "" || !strings.Contains(h, p.heading) {
			t.Errorf("%s: heading %q, want it to say %q", p.name, h, p.heading)
		}
		for at, want := range p.says {
			if s := Get(t, ctx, p.name+": read "+at, chromedp.Text(chromedp.CSS(at))); !strings.Contains(s, want) {
				t.Errorf("%s: %s says %q, want it to say %q", p.name, at, s, want)
			}
		}
		saveScreenshot(t, ctx, "zh-CN-"+p.name)
	}
}

// The switch in the header changes the language: the page comes back in the other
// one, and later pages keep it (the cookie), whatever the browser asks for.
func TestLanguageSwitchIsRemembered(t *testing.T) {
	con := StartConsole(t)
	ctx := Browser(t)
	Do(t, ctx, "set the browser's language to Chinese", browserLanguage(t, ctx, "zh-CN"))
	Do(t, ctx, "open the audit log in Chinese", chromedp.Navigate(con.URL+"/audit"), chromedp.WaitVisible(chromedp.CSS(`main h1`)))
	if h := Get(t, ctx, "read the heading", chromedp.Text(chromedp.CSS(`main h1`))); h != "审计日志" {
		t.Fatalf("heading %q, want 审计日志 for a browser asking for Chinese", h)
	}
	Do(t, ctx, "switch to English in the header",
		chromedp.Click(chromedp.CSS(`[data-testid="language-switch"] button[value="en"]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="language-switch"] button[value="zh-CN"]`)))
	if lang := Get(t, ctx, "read lang", chromedp.Evaluate[string](`document.documentElement.lang`)); lang != "en" {
		t.Errorf("after switching: <html lang=%q>, want en", lang)
	}
	if u := Get(t, ctx, "read the address", chromedp.Evaluate[string](`location.pathname`)); u != "/audit" {
		t.Errorf("after switching: at %s, want back on /audit", u)
	}
	if h := Get(t, ctx, "read the heading", chromedp.Text(chromedp.CSS(`main h1`))); h != "Audit log" {
		t.Errorf("after switching: heading %q, want Audit log", h)
	}
	saveScreenshot(t, ctx, "switch-en-audit")
	Do(t, ctx, "open another page", chromedp.Navigate(con.URL+"/brokers"), chromedp.WaitVisible(chromedp.CSS(`main h1`)))
	if h := Get(t, ctx, "read the heading", chromedp.Text(chromedp.CSS(`main h1`))); h != "Brokers" {
		t.Errorf("a later page: heading %q, want Brokers (the choice is kept)", h)
	}
	Do(t, ctx, "switch back to Chinese",
		chromedp.Click(chromedp.CSS(`[data-testid="language-switch"] button[value="zh-CN"]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="language-switch"] button[value="en"]`)))
	if h := Get(t, ctx, "read the heading", chromedp.Text(chromedp.CSS(`main h1`))); h != "Broker 列表" {
		t.Errorf("after switching back: heading %q, want Broker 列表", h)
	}
	Do(t, ctx, "open another page", chromedp.Navigate(con.URL+"/"), chromedp.WaitVisible(chromedp.CSS(`main h1`)))
	if h := Get(t, ctx, "read the heading", chromedp.Text(chromedp.CSS(`main h1`))); h != "集群概览" {
		t.Errorf("a later page: heading %q, want 集群概览", h)
	}
	saveScreenshot(t, ctx, "switch-zh-CN-overview")
}

// saveScreenshot keeps a full-page screenshot named name.png in RMQC_SCREENSHOTS;
// without it, nothing is taken.
func saveScreenshot(t testing.TB, ctx context.Context, name string) {
	t.Helper()
	dir := os.Getenv("RMQC_SCREENSHOTS")
	if dir == "" {
		return
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	png := Get(t, ctx, "screenshot "+name, chromedp.FullScreenshot(100))
	if err := os.WriteFile(filepath.Join(dir, name+".png"), png, 0o644); err != nil {
		t.Error(err)
	}
}
