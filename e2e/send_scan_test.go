package e2e

import (
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"rmqconsole/dev"
)

// An operator sends a message from the topic's page and sees where it was stored; a
// deep scan of the topic's range then streams its matches into the table as it finds
// them, counts what it read, and ends without reconnecting.
func TestSendAndDeepScanInTheBrowser(t *testing.T) {
	cl := dev.RequireCluster(t)
	dir := t.TempDir()
	addUser(t, dir, "otto", "operator")
	con := StartConsole(t, "RMQC_NAMESRV="+cl.NameServer, "RMQC_DATA_DIR="+dir)
	op := signedInClient(t, con, "otto")
	topic := dev.UniqueName("e2e-send")
	begin := time.Now().Add(-time.Second)
	var ans topicChangeAnswer
	if code := op.call(http.MethodPost, "/api/v1/topics", `{"topic":"`+topic+`","readQueueNums":4,"writeQueueNums":4}`, &ans); code != http.StatusCreated {
		t.Fatalf("create: %d %+v", code, ans)
	}
	// The API refuses what the broker would, with a sentence, before sending.
	var refused APIErrorBody
	dev.Eventually(t, 30*time.Second, "the new topic is routed", func() error {
		if code := op.call(http.MethodPost, "/api/v1/topics/"+topic+"/messages", `{"body":"x","properties":{"KEYS":"k"}}`, &refused); code != http.StatusBadRequest {
			return errString(strconv.Itoa(code) + " " + refused.Error)
		}
		return nil
	})
	if !strings.Contains(refused.Error, "KEYS") {
		t.Errorf("refusal: %+v", refused)
	}
	dev.Produce(t, cl.NameServer, topic, dev.ProduceOptions{N: 1500, Key: "sc"})

	browser := Browser(t)
	ctx, closeTab := newTab(t, browser)
	defer closeTab()
	ready := chromedp.Poll[chromedp.Void](`window.htmx !== undefined && document.readyState === "complete"`, chromedp.WithPollingTimeout(10*time.Second))
	Do(t, ctx, "open the topic", chromedp.Navigate(con.URL+"/topics/"+url.PathEscape(topic)))
	signIn(t, ctx, "otto", e2ePassword)
	Do(t, ctx, "fill the send form", chromedp.WaitVisible(chromedp.CSS(`[data-testid="topic-send-form"]`)), ready,
		chromedp.SendKeys(chromedp.CSS(`[data-testid="s-body"]`), `{"order":4711,"paid":2}`),
		chromedp.SendKeys(chromedp.CSS(`[data-testid="s-tags"]`), "paid"),
		chromedp.SendKeys(chromedp.CSS(`[data-testid="s-keys"]`), "order-4711"),
		chromedp.SendKeys(chromedp.CSS(`[data-testid="s-properties"]`), "region=eu"),
		chromedp.Click(chromedp.CSS(`[data-testid="s-submit"]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="topic-sent"]`)))
	msgID := TextNow(t, ctx, "read the msgId", `[data-testid="sent-msgid"]`)
	Screenshot(t, ctx, "topic-send")
	if len(msgID) != 32 {
		t.Fatalf("sent msgId %q", msgID)
	}

	scan := url.Values{"tab": {"range"}, "topic": {topic}, "begin": {strconv.FormatInt(begin.UnixMilli(), 10)},
		"end": {strconv.FormatInt(time.Now().Add(time.Minute).UnixMilli(), 10)}, "where": {"KEYS IN ('sc-7', 'sc-1400', 'order-4711')"}, "scan": {"deep"}}
	Do(t, ctx, "run a deep scan", chromedp.Navigate(con.URL+"/messages?"+scan.Encode()),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="scan-ended"]`)))
	progress := TextNow(t, ctx, "read the progress", `[data-testid="scan-progress"]`)
	rows := Get(t, ctx, "count the rows", chromedp.Evaluate[int](`document.querySelectorAll('#scan-rows tr[data-testid="message-row"]').length`))
	body := Get(t, ctx, "read the rows", chromedp.Evaluate[string](`document.getElementById('scan-rows').textContent`))
	Screenshot(t, ctx, "deep-scan")
	if p := strings.ReplaceAll(progress, "1,501", "1501"); !strings.Contains(p, "Scanned 1501 of 1501 in range, matched 3") {
		t.Errorf("progress %q", progress)
	}
	if rows != 3 || !strings.Contains(body, msgID) || !strings.Contains(body, "sc-7") || !strings.Contains(body, "sc-1400") {
		t.Errorf("rows %d: %s", rows, body)
	}
	if n := Get(t, ctx, "the socket is gone", chromedp.Evaluate[int](`document.querySelectorAll('[ws-connect]').length`)); n != 0 {
		t.Errorf("%d websocket elements left after the scan ended", n)
	}
}
