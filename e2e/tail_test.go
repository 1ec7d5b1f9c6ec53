package e2e

import (
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"rmqconsole/dev"
)

// An operator opens a topic's live tail from its page and sees messages appear as they
// are sent; paused, the page draws no row and counts those that arrive; resumed, rows
// appear again.
func TestLiveTailInTheBrowser(t *testing.T) {
	cl := dev.RequireCluster(t)
	dir := t.TempDir()
	addUser(t, dir, "otto", "operator")
	con := StartConsole(t, "RMQC_NAMESRV="+cl.NameServer, "RMQC_DATA_DIR="+dir)
	op := signedInClient(t, con, "otto")
	topic := dev.UniqueName("e2e-tail")
	var ans topicChangeAnswer
	if code := op.call(http.MethodPost, "/api/v1/topics", `{"topic":"`+topic+`","readQueueNums":4,"writeQueueNums":4}`, &ans); code != http.StatusCreated {
		t.Fatalf("create: %d %+v", code, ans)
	}
	sent := 0
	send := func() error {
		var res map[string]any
		if code := op.call(http.MethodPost, "/api/v1/topics/"+topic+"/messages", fmt.Sprintf(`{"body":"tail-%d"}`, sent), &res); code != http.StatusOK && code != http.StatusCreated {
			return errString(strconv.Itoa(code) + fmt.Sprint(res))
		}
		sent++
		return nil
	}
	dev.Eventually(t, 30*time.Second, "the new topic takes a message", send)

	browser := Browser(t)
	ctx, closeTab := newTab(t, browser)
	defer closeTab()
	Do(t, ctx, "open the topic", chromedp.Navigate(con.URL+"/topics/"+url.PathEscape(topic)))
	signIn(t, ctx, "otto", e2ePassword)
	Do(t, ctx, "open its live tail", chromedp.WaitVisible(chromedp.CSS(`[data-testid="topic-tail-link"]`)),
		chromedp.Click(chromedp.CSS(`[data-testid="topic-tail-link"]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="tail-table"]`)))
	Do(t, ctx, "see the tail start", chromedp.Poll[chromedp.Void](`(document.querySelector('[data-testid="tail-started"]')?.textContent || "").startsWith("Live since")`,
		chromedp.WithPollingTimeout(30*time.Second)))
	rows := func(n int) chromedp.Action[chromedp.Void] {
		return chromedp.Poll[chromedp.Void](fmt.Sprintf(`document.querySelectorAll('#tail-rows tr[data-testid="message-row"]').length >= %d`, n),
			chromedp.WithPollingTimeout(30*time.Second))
	}
	for range 3 {
		if err := send(); err != nil {
			t.Fatal(err)
		}
	}
	Do(t, ctx, "see the three rows", rows(3))

	Do(t, ctx, "pause", chromedp.Click(chromedp.CSS(`[data-testid="tail-pause"]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="tail-resume"]`)))
	for range 2 {
		if err := send(); err != nil {
			t.Fatal(err)
		}
	}
	Do(t, ctx, "see the paused rows counted", chromedp.Poll[chromedp.Void](
		`Number(document.querySelector('[data-testid="tail-skipped"]').dataset.count) >= 2`, chromedp.WithPollingTimeout(30*time.Second)))
	Screenshot(t, ctx, "live-tail-paused")
	shown := Get(t, ctx, "count the rows", chromedp.Evaluate[int](`document.querySelectorAll('#tail-rows tr[data-testid="message-row"]').length`))
	skipped := TextNow(t, ctx, "read the count", `[data-testid="tail-skipped"]`)
	if shown != 3 || skipped != "· 2 rows not drawn (too fast, or paused)" {
		t.Errorf("paused: %d rows drawn, count %q; want 3 rows and 2 not drawn", shown, skipped)
	}

	Do(t, ctx, "resume", chromedp.Click(chromedp.CSS(`[data-testid="tail-resume"]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="tail-pause"]`)))
	if err := send(); err != nil {
		t.Fatal(err)
	}
	Do(t, ctx, "see a row again", rows(4))
	if n := Get(t, ctx, "no broker failing", chromedp.Evaluate[int](`document.querySelectorAll('#tail-failures [data-testid="broker-failure"]').length`)); n != 0 {
		t.Errorf("%d brokers named failing", n)
	}
}
