package e2e

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"rmqconsole/dev"
)

// A POP group consumed by a real gRPC SimpleConsumer through the Proxy, in a browser:
// the client shows as gRPC, known to the Proxy, with no made-up version; the page says
// the group has no queue owners and splits its backlog into ready and waiting for
// redelivery, with in flight plainly not reported.
func TestPOPGroupPageShowsGRPCClientAndBacklog(t *testing.T) {
	cl := dev.RequireProxy(t)
	topic := newTopic(t, cl, "e2e-pop", 2)
	group := dev.UniqueName("e2e-pop-cg")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if _, err := dev.GRPCSend(ctx, cl, topic, 6, ""); err != nil {
		t.Fatal(err)
	}
	c := dev.StartGRPCConsumer(t, cl, group, topic, dev.GRPCConsumerOptions{Simple: true, Receive: 2})
	if err := c.WaitReceived(90 * time.Second); err != nil {
		t.Fatal(err)
	}
	con := StartConsole(t, "RMQC_NAMESRV="+cl.NameServer, "RMQC_PROXY="+cl.ProxyRemoting, "RMQC_GROUP_POLL=1s")
	waitOnline(t, con, group, 1)
	b := Browser(t)
	Do(t, b, "open the POP group's page",
		chromedp.Navigate(con.URL+"/groups/"+group),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="pop-progress"]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="clients-table"]`)),
	)
	Get(t, b, "see 4 ready", chromedp.Poll[bool](`document.querySelector('[data-testid="pop-ready"]').textContent.trim() === "4"`,
		chromedp.WithPollingTimeout(30*time.Second)))
	for sel, want := range map[string]string{
		`[data-testid="pop-note"]`:        "no client owns a queue",
		`[data-testid="pop-inflight"]`:    "not reported",
		`[data-testid="client-protocol"]`: "gRPC",
		`[data-testid="client-known-to"]`: "Proxy " + cl.ProxyRemoting,
		`[data-testid="client-version"]`:  "unknown",
		`[data-testid="group-online"]`:    "1 online",
		`[data-testid="group-summary"]`:   "POP",
	} {
		if txt := TextNow(t, b, "read "+sel, sel); !strings.Contains(txt, want) {
			t.Errorf("%s reads %q, want %q in it", sel, txt, want)
		}
	}
	// Its retries section names the POP retry topic of the topic, not %RETRY%<group>.
	retry := TextNow(t, b, "read the retries section", `[data-testid="group-dead-letters"]`)
	for _, want := range []string{"%RETRY%" + group + "_" + topic, "POP retry topic", "revived"} {
		if !strings.Contains(retry, want) {
			t.Errorf("retries section %q lacks %q", retry, want)
		}
	}
	if strings.Contains(retry, "%RETRY%"+group+" ") {
		t.Errorf("retries section %q names the push retry topic", retry)
	}
	Screenshot(t, b, "pop-group")

	// The gRPC client's own page says why it shows no running info, without asking.
	href := Get(t, b, "read the client's link", chromedp.Evaluate[string](
		`document.querySelector('[data-testid="clients-table"] a[data-testid="client-link"]')?.getAttribute('href') ?? ''`))
	if href == "" {
		t.Fatal("the gRPC client's row has no link to its page")
	}
	Do(t, b, "open the gRPC client's page",
		chromedp.Navigate(con.URL+href),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="client-unavailable"]`)),
	)
	if txt := Get(t, b, "read why", chromedp.Text(chromedp.CSS(`[data-testid="client-unavailable"]`))); !strings.Contains(txt, "gRPC clients do not report running info") {
		t.Errorf("client page says %q", txt)
	}
	if txt := Get(t, b, "read who knows it", chromedp.Text(chromedp.CSS(`[data-testid="client-known-to"]`))); !strings.Contains(txt, "gRPC, known to Proxy "+cl.ProxyRemoting) {
		t.Errorf("client page says %q", txt)
	}
	Screenshot(t, b, "grpc-client")
}
