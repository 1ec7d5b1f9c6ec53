package e2e

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/apache/rocketmq-client-go/v2/primitive"
	"github.com/chromedp/chromedp"

	"rmqconsole/dev"
	"rmqconsole/dev/rmqclient"
)

// pageTrend reads the trend the group page shows, and its hover text.
func pageTrend(t *testing.T, ctx context.Context) (direction, text, how string) {
	t.Helper()
	v := Get(t, ctx, "read the trend", chromedp.Evaluate[[]string](`(function(){var e=document.getElementById('lag-trend');`+
		`return e ? [e.getAttribute('data-direction'), e.textContent, e.getAttribute('title')] : ["","",""]})()`))
	return v[0], v[1], v[2]
}

// Against real producers and a real consumer slowed on purpose: while messages arrive
// and nobody consumes, the group page says the lag is growing and never drains at this
// rate; once producing stops and the slow consumer works through the backlog, it says
// shrinking with an estimate of when it is caught up; the sum shows on hover, and the
// fragment refreshes itself without a reload.
func TestLagTrendFollowsRealProducersAndConsumers(t *testing.T) {
	cl := dev.RequireCluster(t)
	topic, group := offlineGroupWithBacklog(t, cl, 0)
	con := StartConsole(t, "RMQC_NAMESRV="+cl.NameServer, "RMQC_METRICS_INTERVAL=1s")
	browser := Browser(t)
	ctx, closeTab := newTab(t, browser)
	defer closeTab()
	Do(t, ctx, "open the group", chromedp.Navigate(con.URL+"/groups/"+group), chromedp.WaitVisible(`#lag-trend`))

	p := rmqclient.StartProducer(t, cl.NameServer, "")
	produced := make(chan error, 1)
	go func() {
		// About 150 messages a second for 12 s: a backlog of some 1 800.
		for i := range 1800 {
			if r, err := p.SendSync(context.Background(), primitive.NewMessage(topic, []byte(fmt.Sprintf("m%d", i)))); err != nil || r.Status != primitive.SendOK {
				produced <- fmt.Errorf("send: %v %v", r, err)
				return
			}
			time.Sleep(5 * time.Millisecond)
		}
		produced <- nil
	}()
	dev.Eventually(t, 60*time.Second, "the page says the lag grows and never drains", func() error {
		dir, text, how := pageTrend(t, ctx)
		if dir != "growing" || !strings.Contains(text, "never at this rate") || !strings.Contains(how, "producing") {
			return fmt.Errorf("trend %q %q (%q)", dir, text, how)
		}
		return nil
	})
	if a := lagHistory(t, con, group, ""); a.Trend.Direction != "growing" || !a.Trend.Never {
		t.Errorf("the API's trend while producing %+v, want growing and never", a.Trend)
	}
	if err := <-produced; err != nil {
		t.Fatal(err)
	}

	dev.StartConsumerProcessWith(t, cl.NameServer, group, dev.ConsumerOptions{Work: 300 * time.Millisecond}, topic)
	dev.Eventually(t, 120*time.Second, "the page says the lag shrinks, with a time to drain", func() error {
		dir, text, how := pageTrend(t, ctx)
		if dir != "shrinking" || !strings.Contains(text, "caught up in about") || !strings.Contains(how, "until caught up") {
			return fmt.Errorf("trend %q %q (%q)", dir, text, how)
		}
		return nil
	})
}
