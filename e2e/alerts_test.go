package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/apache/rocketmq-client-go/v2/primitive"
	"github.com/chromedp/chromedp"

	"rmqconsole/dev"
	"rmqconsole/dev/rmqclient"
)

// webhookReceiver is a real HTTP server standing in for Slack, DingTalk or any webhook:
// it records each notification and when it came.
type webhookReceiver struct {
	*httptest.Server
	mu  sync.Mutex
	got []webhookCall
}

type webhookCall struct {
	at    time.Time
	event string
	group string
	body  string
}

func newWebhookReceiver(t *testing.T) *webhookReceiver {
	r := &webhookReceiver{}
	r.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		b, _ := io.ReadAll(req.Body)
		var n struct{ Event, Group string }
		_ = json.Unmarshal(b, &n)
		r.mu.Lock()
		r.got = append(r.got, webhookCall{at: time.Now(), event: n.Event, group: n.Group, body: string(b)})
		r.mu.Unlock()
		w.WriteHeader(http.StatusNoContent)
	}))
	t.Cleanup(r.Close)
	return r
}

func (r *webhookReceiver) first(event string) (webhookCall, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, c := range r.got {
		if c.event == event {
			return c, true
		}
	}
	return webhookCall{}, false
}

func groupLag(t *testing.T, con *Console, group string) int64 {
	t.Helper()
	res, err := http.Get(con.URL + "/api/v1/groups/" + group)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var g struct {
		TotalLag *int64 `json:"totalLag"`
	}
	_ = json.NewDecoder(res.Body).Decode(&g)
	if g.TotalLag == nil {
		return -1
	}
	return *g.TotalLag
}

// sender starts a producer and returns a function sending n messages to topic.
func sender(t *testing.T, nameServer, topic string) func(n int) {
	p := rmqclient.StartProducer(t, nameServer, "")
	return func(n int) {
		t.Helper()
		for i := range n {
			if r, err := p.SendSync(context.Background(), primitive.NewMessage(topic, []byte(fmt.Sprintf("m%d", i)))); err != nil || r.Status != primitive.SendOK {
				t.Fatalf("send: %v %v", r, err)
			}
		}
	}
}

// An operator adds alert rules in the browser (a negative threshold is refused with a
// sentence, the form keeping what was typed; a pattern matching no group says so), then a
// real consumer is stopped on the real broker while messages keep arriving: the rule
// fires to the test's webhook within the collector's interval and the rule's duration,
// the group page shows it firing, and once the consumer is back and caught up the rule
// resolves with a second notification. Both deliveries are listed as sent with the
// receiver's answer.
func TestAlertFiresWhenAConsumerStopsAndResolvesWhenItCatchesUp(t *testing.T) {
	cl := dev.RequireCluster(t)
	rcv := newWebhookReceiver(t)
	topic := newTopic(t, cl, "alert-t", 2)
	group := dev.UniqueName("alert-g")
	const interval, hold = time.Second, 3 * time.Second
	con := StartConsole(t, "RMQC_NAMESRV="+cl.NameServer, "RMQC_METRICS_INTERVAL="+interval.String())
	send := sender(t, cl.NameServer, topic)
	c := dev.StartConsumerProcess(t, cl.NameServer, group, topic)
	send(4)
	dev.Eventually(t, 90*time.Second, "the consumer catches up", func() error {
		if l := groupLag(t, con, group); l != 0 {
			return fmt.Errorf("lag %d", l)
		}
		return nil
	})

	browser := Browser(t)
	ctx, closeTab := newTab(t, browser)
	defer closeTab()
	Do(t, ctx, "open the alerts", chromedp.Navigate(con.URL+"/alerts"), chromedp.WaitVisible(`[data-testid=rule-form]`))
	fill := func(threshold string, grp string) {
		Do(t, ctx, "fill the rule form",
			chromedp.SetValue(`[data-testid=rule-form] input[name=group]`, grp),
			chromedp.SetValue(`[data-testid=rule-form] input[name=threshold]`, threshold),
			chromedp.SetValue(`[data-testid=rule-form] input[name=for]`, hold.String()),
			chromedp.SetValue(`[data-testid=rule-form] input[name=webhookUrl]`, rcv.URL+"/hook"))
		Get(t, ctx, "mark the page", chromedp.Evaluate[bool](`window.oldPage = true`))
		Do(t, ctx, "add the rule", chromedp.Click(`[data-testid=rule-add]`))
		// The answer is a new page (the list, or the form with the refusal).
		dev.Eventually(t, 30*time.Second, "the form's answer loads", func() error {
			if !Get(t, ctx, "check the page", chromedp.Evaluate[bool](`!window.oldPage && document.readyState === "complete" && !!document.querySelector("[data-testid=rule-form]")`)) {
				return fmt.Errorf("still the page before")
			}
			return nil
		})
	}
	fill("-5", group)
	msg := Get(t, ctx, "read the refusal", chromedp.Text(`[data-testid=err-threshold]`))
	kept := Get(t, ctx, "read the group field", chromedp.Value(`[data-testid=rule-form] input[name=group]`))
	if !strings.Contains(msg, "negative") || kept != group {
		t.Errorf("a negative threshold: %q, the group field keeps %q; want a sentence and %s kept", msg, kept, group)
	}
	fill("5", group)
	fill("1", "nobody-matches-"+group)
	dev.Eventually(t, 30*time.Second, "the pattern matching nothing says so", func() error {
		Do(t, ctx, "reload the alerts", chromedp.Navigate(con.URL+"/alerts"), chromedp.WaitVisible(`[data-testid=rules-table]`))
		s := Get(t, ctx, "read the matches", chromedp.Evaluate[string](`Array.from(document.querySelectorAll('[data-testid=rule-matches]')).map(e => e.textContent).join("|")`))
		if !strings.Contains(s, "matches 1 group") || !strings.Contains(s, "matches no consumer group") {
			return fmt.Errorf("matches %q", s)
		}
		return nil
	})

	// The consumer stops; messages keep coming: the lag passes 5 when the sixth is stored.
	c.Stop()
	send(20)
	crossed := time.Now()
	dev.Eventually(t, 60*time.Second, "the webhook is told the alert fires", func() error {
		if _, ok := rcv.first("firing"); !ok {
			return fmt.Errorf("no firing notification yet")
		}
		return nil
	})
	fired, _ := rcv.first("firing")
	latency := fired.at.Sub(crossed)
	t.Logf("alert latency: %s from the 20th message stored to the firing notification (interval %s, for %s)", latency.Round(10*time.Millisecond), interval, hold)
	// A read sees the lag at most one interval after it crosses, and the rule fires at the
	// first read at least `hold` after that one.
	if limit := hold + 2*interval + 2*time.Second; latency > limit {
		t.Errorf("the alert fired %s after the lag crossed the threshold, want within %s", latency, limit)
	}
	if fired.group != group || !strings.Contains(fired.body, `"threshold":5`) {
		t.Errorf("firing notification %s", fired.body)
	}
	Do(t, ctx, "open the group", chromedp.Navigate(con.URL+"/groups/"+group), chromedp.WaitVisible(`[data-testid=group-alerts]`))
	if st := Get(t, ctx, "read the alert state", chromedp.Evaluate[string](`(document.querySelector("[data-testid=group-alert]") || {dataset:{}}).dataset.state || ""`)); st != "firing" {
		t.Errorf("the group page shows the alert %q, want firing", st)
	}
	// Every page's navigation says an alert fires, the overview first among them.
	firingInNav := func() string {
		return Get(t, ctx, "read the navigation", chromedp.Evaluate[string](`(document.querySelector("[data-testid=nav-alerts-firing]") || {textContent: ""}).textContent.trim()`))
	}
	Do(t, ctx, "open the overview", chromedp.Navigate(con.URL+"/"), chromedp.WaitVisible(`[data-testid=nav-alerts]`))
	if got := firingInNav(); got != "1 firing" {
		t.Errorf("the overview's navigation says %q beside Alerts, want \"1 firing\"", got)
	}
	firingOnOverview := func() string {
		return Get(t, ctx, "read the overview's alerts", chromedp.Evaluate[string](`Array.from(document.querySelectorAll("[data-testid=overview-firing-row]")).map(r => r.dataset.group + ": " + r.textContent.replace(/\s+/g, " ").trim()).join("|")`))
	}
	if got := firingOnOverview(); !strings.HasPrefix(got, group+": ") || !strings.Contains(got, "threshold 5") {
		t.Errorf("the overview leads with %q, want the rule firing for %s with its threshold", got, group)
	}
	Screenshot(t, ctx, "alerts-firing-in-nav")

	dev.StartConsumerProcess(t, cl.NameServer, group, topic)
	dev.Eventually(t, 120*time.Second, "the webhook is told the alert resolved", func() error {
		if _, ok := rcv.first("resolved"); !ok {
			return fmt.Errorf("no resolved notification yet (lag %d)", groupLag(t, con, group))
		}
		return nil
	})
	// The delivery is recorded once the webhook's answer is back, a moment after the
	// receiver saw it: read the list until it says so.
	want := "resolved:sent:204|firing:sent:204"
	dev.Eventually(t, 30*time.Second, "the deliveries list both notifications as sent", func() error {
		Do(t, ctx, "open the alerts", chromedp.Navigate(con.URL+"/alerts"), chromedp.WaitVisible(`[data-testid=deliveries-table]`))
		rows := Get(t, ctx, "read the deliveries", chromedp.Evaluate[string](`Array.from(document.querySelectorAll('[data-testid=delivery-row]')).map(r => r.dataset.event + ":" + r.dataset.status + ":" + r.querySelector('[data-testid=delivery-code]').textContent).join("|")`))
		if rows != want {
			return fmt.Errorf("deliveries listed %q, want %q", rows, want)
		}
		return nil
	})
	Do(t, ctx, "open the overview", chromedp.Navigate(con.URL+"/"), chromedp.WaitVisible(`[data-testid=nav-alerts]`))
	if got := firingInNav() + firingOnOverview(); got != "" {
		t.Errorf("after the alert resolved the overview still says %q", got)
	}
}
