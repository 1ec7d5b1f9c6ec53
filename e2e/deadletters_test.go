package e2e

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/apache/rocketmq-client-go/v2/primitive"
	"github.com/chromedp/chromedp"

	"rmqconsole/dev"
	"rmqconsole/dev/rmqclient"
	"rmqconsole/rocketmq"
)

// dlqWorld is a topic whose two messages a real consumer of group failed until the broker
// moved them to %DLQ%<group>.
type dlqWorld struct {
	topic, group string
	keys         []string
	origOffsets  []string // offsetMsgIds of the originals
}

func dlqSetup(t *testing.T, cl *dev.Cluster) *dlqWorld {
	t.Helper()
	w := &dlqWorld{topic: dev.UniqueName("e2e-dlqt"), group: dev.UniqueName("e2e-dlqg")}
	ctx, cancel := context.WithTimeout(t.Context(), 120*time.Second)
	defer cancel()
	if err := cl.CreateTopic(ctx, w.topic, 2); err != nil {
		t.Fatal(err)
	}
	p := rmqclient.StartProducer(t, cl.NameServer, "")
	for i := range 2 {
		key := fmt.Sprintf("inv-%d-%s", i, w.topic)
		m := primitive.NewMessage(w.topic, []byte(fmt.Sprintf(`{"invoice":%d}`, i))).WithKeys([]string{key}).WithTag("billed")
		m.WithProperty("region", "eu")
		r, err := p.SendSync(ctx, m)
		if err != nil || r.Status != primitive.SendOK {
			t.Fatalf("send: %v %v", r, err)
		}
		w.keys, w.origOffsets = append(w.keys, key), append(w.origOffsets, r.OffsetMsgID)
	}
	c, err := rocketmq.New(rocketmq.Config{NameServer: cl.NameServer, Timeout: 10 * time.Second, RouteTTL: -1})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	// The retry topic, made now rather than by the first failure: the client looks up
	// its route only every 30 s, which would be most of the test's time.
	if err := cl.CreateTopic(ctx, rocketmq.RetryTopic(w.group), 1); err != nil {
		t.Fatal(err)
	}
	failing := dev.StartConsumerProcessWith(t, cl.NameServer, w.group, dev.ConsumerOptions{Fail: true, MaxReconsumeTimes: 1, RetryDelayLevel: 1}, w.topic)
	dev.Eventually(t, 120*time.Second, "both messages reach the dead-letter topic", func() error {
		var n int64
		for _, b := range cl.Brokers { // each broker's DLQ holds the messages it stored
			st, err := c.TopicStats(t.Context(), b.Addr, rocketmq.DLQTopic(w.group))
			if errors.Is(err, rocketmq.ErrTopicNotFound) {
				continue
			}
			if err != nil {
				return err
			}
			for _, o := range st.Offsets {
				n += o.MaxOffset - o.MinOffset
			}
		}
		if n != 2 {
			return fmt.Errorf("%d dead letters", n)
		}
		return nil
	})
	failing.Stop()
	return w
}

// The dead-letter pages in a browser, by role: the group page links to its retry and
// dead-letter topics with their counts; the menu's overview lists the DLQ with its
// count and newest arrival; the DLQ's search and a dead letter's page show
// where the message came from; a viewer reads them and is refused a resend (nothing
// sent); an operator resends one from its page and then every one the search shows,
// each result saying where the new message went, each audited.
func TestDeadLettersInBrowser(t *testing.T) {
	cl := dev.RequireCluster(t)
	dir := t.TempDir()
	addUser(t, dir, "vera", "viewer")
	addUser(t, dir, "otto", "operator")
	w := dlqSetup(t, cl)
	con := StartConsole(t, "RMQC_NAMESRV="+cl.NameServer, "RMQC_DATA_DIR="+dir)
	ctx := Browser(t)
	dlq := rocketmq.DLQTopic(w.group)

	Do(t, ctx, "open the group page", chromedp.Navigate(con.URL+"/groups/"+url.PathEscape(w.group)))
	signIn(t, ctx, "vera", e2ePassword)
	Do(t, ctx, "see the dead letters section", chromedp.WaitVisible(chromedp.CSS(`[data-testid="group-dead-letters"]`)))
	section := Get(t, ctx, "read the section", chromedp.Text(chromedp.CSS(`[data-testid="group-dead-letters"]`)))
	for _, want := range []string{rocketmq.RetryTopic(w.group), dlq, "2 stored"} {
		if !strings.Contains(section, want) {
			t.Errorf("the group's dead-letter section lacks %q: %q", want, section)
		}
	}
	Screenshot(t, ctx, "dlq-group-links")

	// The menu's dead-letter overview lists the group's DLQ with its count and newest
	// arrival (in UTC), linked to the group and to the DLQ's messages.
	Do(t, ctx, "open the dead letters from the menu", chromedp.Click(chromedp.CSS(`[data-testid="nav-deadletters"]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="dlq-row"][data-topic="`+dlq+`"]`)))
	row := Get(t, ctx, "read the DLQ's row", chromedp.Evaluate[map[string]string](`(r => ({
  stored: r.querySelector('[data-testid="dlq-stored"]').innerText.trim(),
  newest: r.querySelector('[data-testid="dlq-newest"] time') ? r.querySelector('[data-testid="dlq-newest"] time').getAttribute('datetime') : '',
  group: r.querySelector('[data-testid="dlq-group"]').getAttribute('href'),
  messages: r.querySelector('[data-testid="dlq-messages"]').getAttribute('href'),
}))(document.querySelector('[data-testid="dlq-row"][data-topic="`+dlq+`"]'))`))
	newest, err := time.Parse(time.RFC3339Nano, row["newest"])
	if row["stored"] != "2" || err != nil || time.Since(newest) > 30*time.Minute || time.Until(newest) > time.Minute ||
		row["group"] != "/groups/"+url.PathEscape(w.group) || !strings.Contains(row["messages"], "topic="+url.QueryEscape(dlq)) {
		t.Errorf("the overview's row of %s: %v (newest %v), want 2 stored, the newest a moment ago, links to the group and its messages", dlq, row, err)
	}
	for _, v := range []struct {
		lang, scheme string
		width        int64
	}{{"en", "light", 1280}, {"en", "dark", 390}, {"zh-CN", "light", 800}, {"zh-CN", "dark", 1280}} {
		Do(t, ctx, "look at the overview", browserLanguage(t, ctx, v.lang), colorScheme(v.scheme), chromedp.EmulateViewport(v.width, 900),
			chromedp.Navigate(con.URL+"/dead-letters"), chromedp.WaitVisible(chromedp.CSS(`[data-testid="dlqs-table"]`)))
		viewShot(t, ctx, fmt.Sprintf("dlqs-%s-%s-%d", v.lang, v.scheme, v.width))
	}
	Do(t, ctx, "back to English at full width", browserLanguage(t, ctx, "en"), colorScheme("light"), chromedp.EmulateViewport(1400, 1000),
		chromedp.Navigate(con.URL+"/dead-letters"), chromedp.WaitVisible(chromedp.CSS(`[data-testid="dlqs-table"]`)))
	Do(t, ctx, "follow the overview's link to the DLQ's messages",
		chromedp.Click(chromedp.CSS(`[data-topic="`+dlq+`"] [data-testid="dlq-messages"]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="messages-table"]`)))
	if n := Get(t, ctx, "count rows", chromedp.Evaluate[int](`document.querySelectorAll('[data-testid="messages-table"] tbody tr').length`)); n != 2 {
		t.Errorf("the overview's link to %s shows %d messages, want 2", dlq, n)
	}

	Do(t, ctx, "follow the DLQ's messages link", chromedp.Navigate(con.URL+"/groups/"+url.PathEscape(w.group)),
		chromedp.Click(chromedp.CSS(`[data-topic="`+dlq+`"] [data-testid="retry-topic-messages"]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="messages-table"]`)))
	if n := Get(t, ctx, "count rows", chromedp.Evaluate[int](`document.querySelectorAll('[data-testid="messages-table"] tbody tr').length`)); n != 2 {
		t.Fatalf("the DLQ search shows %d rows, want 2", n)
	}
	if note := Get(t, ctx, "viewer's note", chromedp.Text(chromedp.CSS(`[data-testid="resend-all-note"]`))); !strings.Contains(note, "Operators can resend") {
		t.Errorf("a viewer sees %q under the DLQ search, want that operators can resend", note)
	}

	// A dead letter's page, as the viewer.
	dead := dlqMessages(t, ctx, dlq)
	Do(t, ctx, "open a dead letter", chromedp.Navigate(con.URL+"/messages/"+dead[0]),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="dead-letter"]`)))
	if r := Get(t, ctx, "reconsume", chromedp.Text(chromedp.CSS(`[data-testid="dl-reconsume"]`))); r != "2" {
		t.Errorf("reconsume times %q, want 2 (max 1, then the DLQ)", r)
	}
	if tp := Get(t, ctx, "original topic", chromedp.Text(chromedp.CSS(`[data-testid="dl-topic"]`))); tp != w.topic {
		t.Errorf("original topic %q, want %s", tp, w.topic)
	}
	orig := Get(t, ctx, "original id", chromedp.Text(chromedp.CSS(`[data-testid="dl-original"]`)))
	if orig != w.origOffsets[0] && orig != w.origOffsets[1] {
		t.Errorf("original message %q, want one of %v", orig, w.origOffsets)
	}
	if note := Get(t, ctx, "viewer's note", chromedp.Text(chromedp.CSS(`[data-testid="resend-note"]`))); !strings.Contains(note, "Operators can resend") {
		t.Errorf("a viewer's dead-letter page says %q", note)
	}
	if res := pageFetch(t, ctx, "POST", "/api/v1/messages/"+dead[0]+"/resend", ""); res.Status != http.StatusForbidden {
		t.Fatalf("viewer's resend: %d %s, want 403", res.Status, res.Body)
	}
	Do(t, ctx, "follow the original message link", chromedp.Click(chromedp.CSS(`[data-testid="dl-original"]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="fields"]`)))
	if f := Get(t, ctx, "its topic", chromedp.Text(chromedp.CSS(`[data-field="Topic"]`))); f != w.topic {
		t.Errorf("the original message link opened a message of %q", f)
	}

	// The operator: a resend of something that is not a dead letter is refused (nothing
	// sent), then one dead letter from its page, then all that the search shows.
	Do(t, ctx, "sign out", chromedp.Navigate(con.URL+"/"), chromedp.Click(chromedp.CSS(`form[action="/logout"] button`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="login-notice"]`)))
	Do(t, ctx, "open the dead letter again", chromedp.Navigate(con.URL+"/messages/"+dead[0]))
	signIn(t, ctx, "otto", e2ePassword)
	Do(t, ctx, "land on the dead letter", chromedp.WaitVisible(chromedp.CSS(`[data-testid="resend-form"]`)))
	if res := pageFetch(t, ctx, "POST", "/api/v1/messages/"+w.origOffsets[0]+"/resend", ""); res.Status != http.StatusBadRequest || !strings.Contains(res.Body, "not_dead_letter") {
		t.Fatalf("resend of an original: %d %s, want 400 not_dead_letter", res.Status, res.Body)
	}
	Screenshot(t, ctx, "dlq-message")
	Do(t, ctx, "resend it from its page",
		chromedp.SendKeys(chromedp.CSS(`[data-testid="resend-form"] input[name="reason"]`), "billing fixed"),
		chromedp.Click(chromedp.CSS(`[data-testid="resend-button"]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="resend-summary"]`)))
	if s := Get(t, ctx, "summary", chromedp.Text(chromedp.CSS(`[data-testid="resend-summary"]`))); !strings.Contains(s, "1 resent, 0 not resent (applied)") {
		t.Fatalf("one resend: %q", s)
	}
	Screenshot(t, ctx, "dlq-resend-one")

	Do(t, ctx, "search the DLQ again", chromedp.Navigate(con.URL+"/groups/"+url.PathEscape(w.group)),
		chromedp.Click(chromedp.CSS(`[data-topic="`+dlq+`"] [data-testid="retry-topic-messages"]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="resend-all-form"]`)))
	Screenshot(t, ctx, "dlq-search")
	Do(t, ctx, "resend all shown", chromedp.Click(chromedp.CSS(`[data-testid="resend-all-button"]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="resend-summary"]`)))
	if s := Get(t, ctx, "summary", chromedp.Text(chromedp.CSS(`[data-testid="resend-summary"]`))); !strings.Contains(s, "2 resent, 0 not resent (applied)") {
		t.Fatalf("bulk resend: %q", s)
	}
	if n := Get(t, ctx, "rows", chromedp.Evaluate[int](`document.querySelectorAll('[data-testid="resend-row"] .status-ok').length`)); n != 2 {
		t.Fatalf("%d rows resent, want 2", n)
	}
	Screenshot(t, ctx, "dlq-resend-all")
	newID := Get(t, ctx, "a new msgId", chromedp.Text(chromedp.CSS(`[data-testid="resend-msgid"]`)))
	newURL := Get(t, ctx, "the link to its message", chromedp.Evaluate[string](`document.querySelector('[data-testid="resend-new"]').getAttribute("href")`))
	Do(t, ctx, "open the audit entry", chromedp.Click(chromedp.CSS(`[data-testid="resend-audit"]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="entry-rows"]`)))
	if rows := Get(t, ctx, "its rows", chromedp.Text(chromedp.CSS(`[data-testid="entry-rows"]`))); !strings.Contains(rows, "resent as msgId "+newID) || strings.Count(rows, w.topic) != 2 {
		t.Errorf("the audit entry's rows %q do not name the resent message %s, one row per message", rows, newID)
	}
	Screenshot(t, ctx, "dlq-audit-entry")
	Do(t, ctx, "open a resent message", chromedp.Navigate(con.URL+newURL), chromedp.WaitVisible(chromedp.CSS(`[data-testid="fields"]`)))
	if f := Get(t, ctx, "its topic", chromedp.Text(chromedp.CSS(`[data-field="Topic"]`))); f != w.topic {
		t.Errorf("the resent message is in %q, want %s", f, w.topic)
	}

	// Kept: the key search of the original topic finds the original and its resends.
	dev.Eventually(t, 30*time.Second, "the key index finds the resent messages", func() error {
		res := pageFetch(t, ctx, "GET", "/api/v1/messages?topic="+url.QueryEscape(w.topic)+"&key="+url.QueryEscape(w.keys[0]), "")
		var got struct {
			Messages []struct {
				Tags       string            `json:"tags"`
				Properties map[string]string `json:"properties"`
			} `json:"messages"`
		}
		if err := json.Unmarshal([]byte(res.Body), &got); err != nil {
			return err
		}
		resent := 0
		for _, m := range got.Messages {
			if m.Tags == "billed" && m.Properties["region"] == "eu" {
				resent++
			}
		}
		if len(got.Messages) < 2 || resent != len(got.Messages) {
			return fmt.Errorf("key %s: %s", w.keys[0], res.Body)
		}
		return nil
	})
	res := pageFetch(t, ctx, "GET", "/api/v1/audit?group="+url.QueryEscape(w.group), "")
	if strings.Count(res.Body, `"mode":"message-resend"`) != 2 || strings.Count(res.Body, `"status":"applied"`) != 2 || !strings.Contains(res.Body, "billing fixed") {
		t.Fatalf("audit of the resends: %s", res.Body)
	}
}

// dlqMessages are the offsetMsgIds of the DLQ's messages, from the API.
func dlqMessages(t *testing.T, ctx context.Context, dlq string) []string {
	t.Helper()
	now := time.Now()
	res := pageFetch(t, ctx, "GET", "/api/v1/messages?topic="+url.QueryEscape(dlq)+"&begin="+fmt.Sprint(now.Add(-time.Hour).UnixMilli())+"&end="+fmt.Sprint(now.Add(time.Minute).UnixMilli()), "")
	var got struct {
		Messages []struct {
			OffsetMsgID string `json:"offsetMsgId"`
		} `json:"messages"`
	}
	if err := json.Unmarshal([]byte(res.Body), &got); err != nil || len(got.Messages) != 2 {
		t.Fatalf("DLQ messages: %d %s", res.Status, res.Body)
	}
	return []string{got.Messages[0].OffsetMsgID, got.Messages[1].OffsetMsgID}
}
