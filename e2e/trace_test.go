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

	"github.com/chromedp/chromedp"

	"rmqconsole/dev"
)

// The message page shows the trace a producer and a consumer with tracing on recorded,
// says plainly that tracing was off for a message nobody traced, and reads a trace
// topic named in its form.
func TestMessageTraceInBrowser(t *testing.T) {
	cl := dev.RequireCluster(t)
	ctx0, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	topic := dev.UniqueName("e2e-trace")
	plainTopic := dev.UniqueName("e2e-untraced")
	for _, tp := range []string{topic, plainTopic} {
		if err := cl.CreateTopic(ctx0, tp, 2); err != nil {
			t.Fatal(err)
		}
	}
	pgroup := dev.UniqueName("e2e-trace-pg")
	group := dev.UniqueName("e2e-trace-cg")
	traced := dev.Produce(t, cl.NameServer, topic, dev.ProduceOptions{Key: "traced-order", Tag: "Paid", Group: pgroup, Trace: true})[0]
	plain := dev.Produce(t, cl.NameServer, plainTopic, dev.ProduceOptions{Key: "plain-order"})[0]
	dev.StartConsumerProcessWith(t, cl.NameServer, group, dev.ConsumerOptions{Trace: true}, topic)

	con := StartConsole(t, "RMQC_NAMESRV="+cl.NameServer)
	ctx := Browser(t)
	page := con.URL + "/messages/" + traced.OffsetMsgID
	// The trace records arrive a moment after the send and the consumption.
	deadline := time.Now().Add(60 * time.Second)
	for {
		Do(t, ctx, "open the traced message", chromedp.Navigate(page), chromedp.WaitVisible(chromedp.CSS(`[data-testid="trace"]`)))
		n := Get(t, ctx, "count trace rows", chromedp.Evaluate[int](
			`document.querySelectorAll('[data-testid="trace-pub"]').length * 10 + document.querySelectorAll('[data-testid="trace-attempt"] [data-col="status"].status-ok').length`))
		if n == 11 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("after 60 s the page shows %d sends and attempts: %s", n,
				Get(t, ctx, "trace text", chromedp.Text(chromedp.CSS(`[data-testid="trace"]`))))
		}
		time.Sleep(time.Second)
	}
	Screenshot(t, ctx, "message-trace")
	col := func(row, name string) string {
		return Get(t, ctx, "trace "+name, chromedp.Text(chromedp.CSS(`[data-testid="`+row+`"] [data-col="`+name+`"]`)))
	}
	if g := col("trace-pub", "group"); g != pgroup {
		t.Errorf("producer group %q, want %q", g, pgroup)
	}
	if s := col("trace-pub", "status"); s != "sent" {
		t.Errorf("send status %q", s)
	}
	if k := col("trace-pub", "keys"); k != "traced-order" {
		t.Errorf("keys %q", k)
	}
	if b := col("trace-pub", "broker"); !strings.HasPrefix(b, "broker-") {
		t.Errorf("stored on %q", b)
	}
	if id := col("trace-pub", "offset-id"); !strings.EqualFold(id, traced.OffsetMsgID) {
		t.Errorf("offsetMsgId %q, want %s", id, traced.OffsetMsgID)
	}
	for _, c := range []string{"client", "time", "cost"} {
		if v := col("trace-pub", c); v == "" {
			t.Errorf("the send's %s is empty", c)
		}
	}
	summary := Get(t, ctx, "group summary", chromedp.Text(chromedp.CSS(`[data-testid="trace-group"][data-group="`+group+`"] [data-testid="trace-group-summary"]`)))
	if !strings.Contains(summary, "consumed on attempt 1 of 1") {
		t.Errorf("group %s: %q", group, summary)
	}
	if h := col("trace-attempt", "client"); h == "" {
		t.Error("the attempt names no client host")
	}
	if s := Get(t, ctx, "trace off", chromedp.Evaluate[int](`document.querySelectorAll('[data-testid="trace-off"]').length`)); s != 0 {
		t.Error("a traced message says tracing is off")
	}

	// The page's JSON link answers the same trace.
	api := Get(t, ctx, "API link", chromedp.Evaluate[string](`document.querySelector('[data-testid="trace-api"]').href`))
	res, err := http.Get(api)
	if err != nil {
		t.Fatal(err)
	}
	var j struct {
		MsgID string `json:"msgId"`
		Trace struct {
			TraceTopic string `json:"traceTopic"`
			Produced   []struct {
				ProducerGroup, Status, OffsetMsgID string
			} `json:"produced"`
			Consumed []struct {
				Group    string `json:"group"`
				Attempts []struct {
					Status     string `json:"status"`
					RetryTimes int    `json:"retryTimes"`
				} `json:"attempts"`
			} `json:"consumed"`
		} `json:"trace"`
	}
	err = json.NewDecoder(res.Body).Decode(&j)
	res.Body.Close()
	if err != nil || res.StatusCode != http.StatusOK || j.MsgID != traced.MsgID || j.Trace.TraceTopic != "RMQ_SYS_TRACE_TOPIC" ||
		len(j.Trace.Produced) != 1 || j.Trace.Produced[0].ProducerGroup != pgroup || j.Trace.Produced[0].Status != "success" ||
		len(j.Trace.Consumed) != 1 || j.Trace.Consumed[0].Group != group || j.Trace.Consumed[0].Attempts[0].Status != "success" {
		t.Errorf("%s: %d %+v %v", api, res.StatusCode, j, err)
	}

	// A message nobody traced: the page says tracing was off and how to turn it on.
	Do(t, ctx, "open the untraced message",
		chromedp.Navigate(con.URL+"/messages/"+plain.OffsetMsgID),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="trace-off"]`)))
	off := Get(t, ctx, "tracing off", chromedp.Text(chromedp.CSS(`[data-testid="trace-off"]`)))
	if !strings.Contains(off, "This message has no trace records in RMQ_SYS_TRACE_TOPIC: the producer was not started with tracing") ||
		!strings.Contains(off, "producer.WithTrace") {
		t.Errorf("untraced message: %q", off)
	}
	Screenshot(t, ctx, "message-trace-off")

	// A trace topic of the clients' own, named in the form, that does not exist.
	missing := dev.UniqueName("no-trace-topic")
	// The form loads a new page: wait for its sentence, not the old page's (marked).
	Do(t, ctx, "name another trace topic",
		chromedp.Evaluate[chromedp.Void](`document.querySelector('[data-testid="trace-off"]').dataset.old = "1"`),
		chromedp.SetValue(chromedp.CSS(`#traceTopic`), missing),
		chromedp.Click(chromedp.CSS(`[data-testid="trace-form"] button`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="trace-off"]:not([data-old])`)))
	loc := Get(t, ctx, "location", chromedp.Location())
	if u, _ := url.Parse(loc); u.Query().Get("traceTopic") != missing {
		t.Errorf("the URL %s does not hold the trace topic", loc)
	}
	off = Get(t, ctx, "missing topic", chromedp.Text(chromedp.CSS(`[data-testid="trace-off"]`)))
	if !strings.Contains(off, fmt.Sprintf("The trace topic %s does not exist on this cluster", missing)) {
		t.Errorf("missing trace topic: %q", off)
	}
	// A name that is no topic name: refused next to the field, the message still shown.
	Do(t, ctx, "type a bad trace topic",
		chromedp.SetValue(chromedp.CSS(`#traceTopic`), "bad topic!"),
		chromedp.Click(chromedp.CSS(`[data-testid="trace-form"] button`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="trace-topic-error"]`)))
	if v := Get(t, ctx, "field value", chromedp.Value(chromedp.CSS(`#traceTopic`))); v != "bad topic!" {
		t.Errorf("the form lost what was typed: %q", v)
	}
	if n := Get(t, ctx, "fields", chromedp.Evaluate[int](`document.querySelectorAll('[data-testid="fields"]').length`)); n != 1 {
		t.Error("the refused trace topic hid the message")
	}
}
