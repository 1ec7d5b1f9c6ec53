package e2e

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/apache/rocketmq-client-go/v2/primitive"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"rmqconsole/dev"
	"rmqconsole/dev/rmqclient"
)

// The topic list and a topic's page in a real browser, on a topic a real producer
// writes to and a real consumer group reads: the filter finds it, its row leads to its
// page, which shows the route, the queues holding the messages, the group linked to its
// page and the running producer's connection.
func TestTopicPagesShowRouteQueuesGroupsProducers(t *testing.T) {
	cl := dev.RequireCluster(t)
	topic := newTopic(t, cl, "e2e-topic", 2)
	pgroup := dev.UniqueName("e2e-topic-pg")
	p := rmqclient.StartProducer(t, cl.NameServer, pgroup)
	for range 5 {
		ctx, cancel := context.WithTimeout(t.Context(), 15*time.Second)
		_, err := p.SendSync(ctx, primitive.NewMessage(topic, []byte("x")))
		cancel()
		if err != nil {
			t.Fatal(err)
		}
	}
	group := dev.UniqueName("e2e-topic-cg")
	cons := rmqclient.StartCountingConsumer(t, cl.NameServer, group, topic)
	dev.Eventually(t, 60*time.Second, "the group consumes", func() error {
		if d, _ := cons.Counts(); d < 5 {
			return context.DeadlineExceeded
		}
		return nil
	})
	con := StartConsole(t, "RMQC_NAMESRV="+cl.NameServer)
	ctx := Browser(t)

	row := `tr[data-topic="` + topic + `"]`
	Do(t, ctx, "open the overview", chromedp.Navigate(con.URL+"/"), chromedp.WaitVisible(chromedp.CSS(`[data-testid="topic-count"] a`)))
	if href := Get(t, ctx, "read the topic count's link", chromedp.Evaluate[string](`document.querySelector('[data-testid="topic-count"] a').getAttribute("href")`)); href != "/topics" {
		t.Errorf("the overview's topic count links to %q, want /topics", href)
	}
	Do(t, ctx, "open the topics and filter by the topic's name",
		chromedp.Navigate(con.URL+"/topics"),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="topics-table"]`)),
		// htmx handles the filter once it has loaded; before that the form submits
		// as a plain GET, which is the same page but a reload.
		chromedp.Poll[chromedp.Void](`window.htmx !== undefined && document.readyState === "complete"`, chromedp.WithPollingTimeout(10*time.Second)),
		// Enter submits the way a person does (form.submit() would skip htmx).
		chromedp.SendKeys(chromedp.CSS(`#topics-q`), topic+kb.Enter),
		// The filtered list replaces the table in place; wait for it rather than for the row,
		// which the unfiltered list shows too.
		chromedp.Poll[chromedp.Void](`document.querySelectorAll('[data-testid="topics-table"] tbody tr').length === 1 && location.search.includes("q=")`,
			chromedp.WithPollingTimeout(20*time.Second)),
		chromedp.WaitVisible(chromedp.CSS(row)),
	)
	// The figures come from the console's collector, which reads a topic on screen
	// first: refresh until they arrive, with their age.
	for deadline := time.Now().Add(40 * time.Second); ; {
		got := TextNow(t, ctx, "read stored messages", row+` [data-testid="topic-messages-count"]`)
		age := TextNow(t, ctx, "read the figures' age", row+` [data-testid="topic-figures-age"]`)
		if got == "5" && strings.HasSuffix(age, " ago") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("stored messages %q (age %q), want 5 with its age", got, age)
		}
		Do(t, ctx, "refresh the list", chromedp.Sleep(time.Second), chromedp.Click(chromedp.CSS(`[data-testid="topics-refresh"]`)),
			chromedp.Poll[chromedp.Void](`document.querySelector('`+row+`') !== null`, chromedp.WithPollingTimeout(10*time.Second)))
	}
	if loc := Get(t, ctx, "location", chromedp.Location()); !strings.Contains(loc, "q="+topic) {
		t.Errorf("the filter is not in the URL: %s", loc)
	}

	Do(t, ctx, "open the topic's page from its row",
		chromedp.Click(chromedp.CSS(row+` a[href="/topics/`+topic+`"]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="topic-route"]`)),
	)
	// A 5.x broker names a group for a topic once the group has committed an offset,
	// which a Go consumer does every few seconds: reload until it is there.
	groupLink := `[data-testid="topic-groups"] a[href="/groups/` + group + `"]`
	for deadline := time.Now().Add(30 * time.Second); ; {
		if Get(t, ctx, "look for the group", chromedp.Evaluate[bool](`document.querySelector('`+groupLink+`') !== null`)) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("group %s never listed on the topic page", group)
		}
		time.Sleep(time.Second)
		Do(t, ctx, "reload the topic page", chromedp.Reload(), chromedp.WaitVisible(chromedp.CSS(`[data-testid="topic-route"]`)))
	}
	route := Get(t, ctx, "read the route", chromedp.Text(chromedp.CSS(`[data-testid="topic-route"] tbody`)))
	for _, b := range cl.Brokers {
		if !strings.Contains(route, b.Name) || !strings.Contains(route, b.Addr) {
			t.Errorf("route lacks %s at %s: %s", b.Name, b.Addr, route)
		}
	}
	if n := Get(t, ctx, "count queues", chromedp.Evaluate[int](`document.querySelectorAll('[data-testid="topic-queues"] tbody tr').length`)); n != 2*len(cl.Brokers) {
		t.Errorf("%d queue rows, want %d", n, 2*len(cl.Brokers))
	}
	Do(t, ctx, "see the running producer",
		chromedp.WaitVisible(chromedp.CSS(`table[data-producer-group="`+pgroup+`"] [data-testid="producer-connection"]`)),
	)
	if got := Get(t, ctx, "read the producer", chromedp.Text(chromedp.CSS(`table[data-producer-group="`+pgroup+`"] tbody`))); !strings.Contains(got, "GO") {
		t.Errorf("producer row %q does not say GO", got)
	}
	Do(t, ctx, "follow the consumer group to its page",
		chromedp.Click(chromedp.CSS(groupLink)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="group-name"]`)),
	)
	if loc := Get(t, ctx, "location", chromedp.Location()); !strings.HasSuffix(loc, "/groups/"+group) {
		t.Errorf("at %s after following the group", loc)
	}
}

// The topic list two rows a page, system topics shown (every cluster has several): the
// More row is in view, so the following pages load in place, each topic once, and the
// plain Next link follows the rows shown, as the count above the list does.
func TestTopicListLoadsFurtherPagesInPlace(t *testing.T) {
	cl := dev.RequireCluster(t)
	con := StartConsole(t, "RMQC_NAMESRV="+cl.NameServer)
	ctx := Browser(t)
	Do(t, ctx, "open the topics two a page",
		chromedp.Navigate(con.URL+"/topics?system=1&limit=2"),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="topics-next"]`)),
		chromedp.Evaluate[chromedp.Void](`window.__samePagedDocument = true`),
	)
	Get(t, ctx, "further rows load in place", chromedp.Poll[bool](
		`document.querySelectorAll('[data-testid="topics-table"] tbody tr[data-topic]').length >= 6`,
		chromedp.WithPollingTimeout(20*time.Second)))
	rows := Get(t, ctx, "the rows", chromedp.Evaluate[[]string](`Array.from(document.querySelectorAll('[data-testid="topics-table"] tbody tr[data-topic]')).map(r => r.dataset.topic)`))
	seen := map[string]bool{}
	for _, r := range rows {
		if seen[r] {
			t.Errorf("%s is listed twice after loading in place: %v", r, rows)
		}
		seen[r] = true
	}
	if !Get(t, ctx, "same document", chromedp.Evaluate[bool](`window.__samePagedDocument === true`)) {
		t.Errorf("the further rows reloaded the page instead of loading in place")
	}
	if n := Get(t, ctx, "count the tables", chromedp.Evaluate[int](`document.querySelectorAll('[data-testid="topics-table"], main h1').length`)); n != 2 {
		t.Errorf("%d topic tables and headings after loading in place; want one of each (rows alone, not a page in a row)", n)
	}
	if !Get(t, ctx, "the Next link", chromedp.Evaluate[bool](`(() => {
		const n = document.querySelectorAll('[data-testid="topics-table"] tbody tr[data-topic]').length;
		const a = document.querySelector('a[data-testid="topics-next"]');
		return a ? new URL(a.href).searchParams.get('shown') === String(n) : !document.querySelector('[data-testid="topics-more"]');
	})()`)) {
		t.Errorf("after rows loaded in place, the Next page link still leads to a page already shown")
	}
	// The "n of total" above the table counts the rows now shown, not the first page's two.
	if !Get(t, ctx, "the count", chromedp.Poll[bool](`(() => {
		const n = document.querySelectorAll('[data-testid="topics-table"] tbody tr[data-topic]').length;
		const c = document.querySelectorAll('[data-testid="topics-shown"]');
		return n > 2 && c.length === 1 && parseInt(c[0].textContent.replace(/,/g, ''), 10) === n;
	})()`, chromedp.WithPollingTimeout(10*time.Second))) {
		t.Errorf("after rows loaded in place, the count above the list does not say how many are shown: %q",
			Get(t, ctx, "read the count", chromedp.Evaluate[string](`document.querySelector('[data-testid="topics-count"]').textContent`)))
	}
}
