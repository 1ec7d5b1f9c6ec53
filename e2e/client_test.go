package e2e

import (
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"rmqconsole/dev"
)

// A client's own page in a browser, reached from its group: a real orderly consumer
// (rocketmq-client-go) shows its listener, its settings (and which it does not report),
// every process queue with its lock, its rates per topic, and on request its goroutine
// dump.
func TestClientPageShowsARealOrderlyConsumer(t *testing.T) {
	cl := dev.RequireCluster(t)
	topic := newTopic(t, cl, "e2e-client", 2)
	group := dev.UniqueName("e2e-client-cg")
	c := dev.StartConsumerProcessWith(t, cl.NameServer, group, dev.ConsumerOptions{Orderly: true, LockInterval: 2 * time.Second}, topic)
	con := StartConsole(t, "RMQC_NAMESRV="+cl.NameServer, "RMQC_GROUP_POLL=1s")
	waitOnline(t, con, group, 1)
	ctx := Browser(t)

	Do(t, ctx, "open the group page: the group is orderly",
		chromedp.Navigate(con.URL+"/groups/"+group),
		chromedp.WaitVisible(chromedp.CSS(`#live-indicator.live-on`)),
		chromedp.WaitVisible(chromedp.CSS(`#group-summary [data-testid="group-mode"]`)),
	)
	if m := TextNow(t, ctx, "read the mode", `#group-summary [data-testid="group-mode"]`); m != "orderly" {
		t.Errorf("group mode %q, want orderly", m)
	}
	// Each queue of the topic shows its lock holder once the client has locked it.
	Get(t, ctx, "see both queues locked", chromedp.Poll[bool](
		`document.querySelectorAll('#queues-body [data-testid="queue-lock"][data-locked="true"][data-holder$="@`+c.Instance+`"]').length == 2`,
		chromedp.WithPollingTimeout(60*time.Second)))

	Screenshot(t, ctx, "group-orderly")
	// The live view swaps the clients table every second, so a click can land on a row
	// just replaced: follow the link's address instead.
	href := Get(t, ctx, "read the client's link", chromedp.Evaluate[string](
		`document.querySelector('[data-testid="clients-table"] tr[data-client$="@`+c.Instance+`"] a[data-testid="client-link"]')?.getAttribute('href') ?? ''`))
	if href == "" {
		t.Fatal("the client's row has no link to its page")
	}
	Do(t, ctx, "follow the client's link",
		chromedp.Navigate(con.URL+href),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="client-settings"]`)),
	)
	if id := Get(t, ctx, "read the client id", chromedp.Text(chromedp.CSS(`[data-testid="client-id"]`))); !strings.HasSuffix(id, "@"+c.Instance) {
		t.Errorf("client page of %q, want the consumer's", id)
	}
	if m := Get(t, ctx, "read the listener", chromedp.Text(chromedp.CSS(`[data-testid="client-summary"] [data-testid="client-mode"]`))); strings.TrimSpace(m) != "orderly" {
		t.Errorf("listener %q, want orderly", m)
	}
	settings := Get(t, ctx, "read the settings", chromedp.Text(chromedp.CSS(`[data-testid="client-settings"]`)))
	for _, want := range []string{"orderly (MessageListenerOrderly)", "PROP_CONSUMEORDERLY", "not reported by this client"} {
		if !strings.Contains(settings, want) {
			t.Errorf("settings %q lack %q", settings, want)
		}
	}
	locked := Get(t, ctx, "count locked process queues", chromedp.Evaluate[int](
		`[...document.querySelectorAll('[data-testid="process-queue"][data-queue^="`+topic+`/"] [data-testid="pq-locked"]')].filter(e => e.textContent.includes('yes')).length`))
	if locked != 2 {
		t.Errorf("%d of the topic's process queues show locked, want 2", locked)
	}
	if n := Get(t, ctx, "count topic rows", chromedp.Evaluate[int](`document.querySelectorAll('[data-testid="client-topics"] tr[data-topic="`+topic+`"]').length`)); n != 1 {
		t.Errorf("%d rate rows for the topic, want 1", n)
	}
	Screenshot(t, ctx, "client")

	Do(t, ctx, "ask for a thread dump",
		chromedp.Click(chromedp.CSS(`[data-testid="jstack-link"]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="jstack"]`)),
	)
	if dump := Get(t, ctx, "read the dump", chromedp.Text(chromedp.CSS(`[data-testid="jstack"]`))); !strings.Contains(dump, "goroutine") {
		t.Errorf("thread dump %.200q: want the Go client's goroutines", dump)
	}
}
