package e2e

import (
	"net/http"
	"net/url"
	"regexp"
	"slices"
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
	// One heavy query at a time, and every pull of a deep scan a second late: a scan of
	// this topic's 1 501 messages takes three seconds, long enough to be stopped.
	con := StartConsole(t, "RMQC_NAMESRV="+cl.NameServer, "RMQC_DATA_DIR="+dir, "RMQC_MAX_HEAVY_QUERIES=1", "RMQC_TEST_SCAN_PULL_WAIT=1s")
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

	// From the message's page, a copy to another topic: the send form there comes
	// filled with the message's body, tag, keys and properties, and sending it stores
	// the same message there, its audit entry naming what it copies.
	copyTo := dev.UniqueName("e2e-copy")
	if code := op.call(http.MethodPost, "/api/v1/topics", `{"topic":"`+copyTo+`","readQueueNums":2,"writeQueueNums":2}`, &ans); code != http.StatusCreated {
		t.Fatalf("create %s: %d %+v", copyTo, code, ans)
	}
	original := TextNow(t, ctx, "read the offsetMsgId", `[data-testid="sent-link"]`)
	Do(t, ctx, "open the sent message and copy it", chromedp.Click(chromedp.CSS(`[data-testid="sent-link"]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="copy-form"]`)),
		chromedp.SendKeys(chromedp.CSS(`[data-testid="copy-to"]`), copyTo),
		chromedp.Click(chromedp.CSS(`[data-testid="copy-submit"]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="topic-send-copy"]`)), ready)
	filled := Get(t, ctx, "read the filled form", chromedp.Evaluate[[]string](`['s-body','s-tags','s-keys','s-properties'].map(id => document.querySelector('[data-testid="'+id+'"]').value)`))
	if strings.Join(filled, "|") != `{"order":4711,"paid":2}|paid|order-4711|region=eu`+"\n" {
		t.Errorf("the copy's form holds %q", filled)
	}
	Screenshot(t, ctx, "message-copy")
	var copied string
	dev.Eventually(t, 30*time.Second, "the copy is stored", func() error {
		Get(t, ctx, "drop an earlier refusal", chromedp.Evaluate[bool](`document.querySelector('[data-testid="topic-send-error"]')?.remove(); true`))
		Do(t, ctx, "send the copy", chromedp.Click(chromedp.CSS(`[data-testid="s-submit"]`)),
			chromedp.WaitVisible(chromedp.CSS(`[data-testid="topic-sent"], [data-testid="topic-send-error"]`)))
		if errText := Get(t, ctx, "a refusal", chromedp.Evaluate[string](`(document.querySelector('[data-testid="topic-send-error"]') || {}).textContent || ""`)); errText != "" {
			return errString(errText) // the NameServer routes a new topic a moment after the broker has it
		}
		copied = TextNow(t, ctx, "read the copy's offsetMsgId", `[data-testid="sent-link"]`)
		return nil
	})
	var got struct {
		Message struct {
			Topic, Tags, Body string
			Keys              []string
			Properties        map[string]string
		}
	}
	if code := op.call(http.MethodGet, "/api/v1/messages/"+copied+"?topic="+copyTo, "", &got); code != http.StatusOK {
		t.Fatalf("the copy %s: %d", copied, code)
	}
	if m := got.Message; m.Topic != copyTo || m.Body != `{"order":4711,"paid":2}` || m.Tags != "paid" || strings.Join(m.Keys, " ") != "order-4711" ||
		m.Properties["region"] != "eu" || m.Properties["UNIQ_KEY"] == msgID {
		t.Errorf("the copy: %+v", m)
	}
	type entry struct {
		Mode   string
		Queues []struct{ Note string }
	}
	var entries struct{ Entries []entry }
	if code := op.call(http.MethodGet, "/api/v1/audit?topic="+copyTo, "", &entries); code != http.StatusOK {
		t.Fatalf("the audit log: %d", code)
	}
	sends := slices.DeleteFunc(entries.Entries, func(e entry) bool { return e.Mode != "message-send" })
	if len(sends) != 1 || len(sends[0].Queues) != 1 || !strings.Contains(sends[0].Queues[0].Note, "copy of "+original) {
		t.Errorf("the copy's audit entries: %+v", sends)
	}

	scan := url.Values{"tab": {"range"}, "topic": {topic}, "begin": {strconv.FormatInt(begin.UnixMilli(), 10)},
		"end": {strconv.FormatInt(time.Now().Add(time.Minute).UnixMilli(), 10)}, "where": {"KEYS IN ('sc-7', 'sc-1400', 'order-4711')"}, "scan": {"deep"}}

	// Stopped in the middle, the scan says so with what it had read when it stopped;
	// the slot it held is free, so the next scan runs (one at a time on this console).
	Do(t, ctx, "start a deep scan", chromedp.Navigate(con.URL+"/messages?"+scan.Encode()),
		chromedp.Poll[chromedp.Void](`/Scanned [1-9]/.test(document.querySelector('[data-testid="scan-progress"]').textContent)`,
			chromedp.WithPollingTimeout(30*time.Second)))
	seen := TextNow(t, ctx, "read the progress", `[data-testid="scan-progress"]`)
	Do(t, ctx, "stop it", chromedp.Click(chromedp.CSS(`[data-testid="scan-stop"]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="scan-ended"]`)))
	stoppedAt := TextNow(t, ctx, "read the progress", `[data-testid="scan-progress"]`)
	ended := TextNow(t, ctx, "read the end", `[data-testid="scan-ended"]`)
	Screenshot(t, ctx, "deep-scan-stopped")
	before, _ := scannedOf(seen)
	read, of := scannedOf(stoppedAt)
	if !strings.HasPrefix(ended, "The scan was stopped after") || read < before || read >= 1501 || of != 1501 {
		t.Errorf("stopped after %q: the page says %q and %q; want it stopped, with at least what it had read then and less than the 1501 in range", seen, stoppedAt, ended)
	}

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

// scannedOf reads "Scanned X of Y in range" from a deep scan's progress line.
func scannedOf(progress string) (scanned, inRange int) {
	m := regexp.MustCompile(`Scanned ([\d,]+) of ([\d,]+)`).FindStringSubmatch(progress)
	if m == nil {
		return -1, -1
	}
	scanned, _ = strconv.Atoi(strings.ReplaceAll(m[1], ",", ""))
	inRange, _ = strconv.Atoi(strings.ReplaceAll(m[2], ",", ""))
	return scanned, inRange
}
