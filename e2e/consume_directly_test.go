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

	"github.com/apache/rocketmq-client-go/v2/primitive"
	"github.com/chromedp/chromedp"

	"rmqconsole/dev"
	"rmqconsole/rocketmq"
)

// On a message's page, the online clients of the groups that consume its topic are
// listed; a viewer sees them but may not ask, an operator asks one to consume the message
// again and sees its answer, which a real consumer confirms by getting the message again.
func TestConsumeAgainInBrowser(t *testing.T) {
	cl := dev.RequireCluster(t)
	ctx0, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	topic, group := dev.UniqueName("e2e-direct"), dev.UniqueName("e2e-direct-g")
	if err := cl.CreateTopic(ctx0, topic, 1); err != nil {
		t.Fatal(err)
	}
	m := produce(t, cl.NameServer, topic, primitive.NewMessage(topic, []byte("consume me twice")))[0]
	cons := dev.StartConsumerProcessWith(t, cl.NameServer, group, dev.ConsumerOptions{Print: true}, topic)
	deliveries := func() int {
		n := 0
		for _, r := range cons.Received() {
			if strings.HasSuffix(r, " "+m.offsetID) {
				n++
			}
		}
		return n
	}
	dev.Eventually(t, 60*time.Second, "the consumer gets the message", func() error {
		if n := deliveries(); n != 1 {
			return fmt.Errorf("%d deliveries", n)
		}
		return nil
	})

	dir := t.TempDir()
	addUser(t, dir, "vera", "viewer")
	addUser(t, dir, "otto", "operator")
	con := StartConsole(t, "RMQC_NAMESRV="+cl.NameServer, "RMQC_DATA_DIR="+dir)
	ctx := Browser(t)
	page := con.URL + "/messages/" + m.offsetID
	clientRow := `[data-testid="consume-again-clients"] tr[data-group="` + group + `"]`
	openWithClient := func() {
		t.Helper()
		// The group's connection reaches the broker with the consumer's first heartbeat.
		dev.Eventually(t, 30*time.Second, "the page lists the group's client", func() error {
			tctx, cancel := context.WithTimeout(ctx, 10*time.Second)
			defer cancel()
			if err := chromedp.Do(tctx, chromedp.Navigate(page), chromedp.WaitVisible(chromedp.CSS(`[data-testid="consume-again"]`))); err != nil {
				return err
			}
			n, err := chromedp.Run(tctx, chromedp.Evaluate[int](`document.querySelectorAll('`+clientRow+`').length`))
			if err == nil && n != 1 {
				err = fmt.Errorf("%d rows for the group", n)
			}
			return err
		})
	}

	Do(t, ctx, "open the message page", chromedp.Navigate(page))
	signIn(t, ctx, "vera", e2ePassword)
	Do(t, ctx, "land on the message page", chromedp.WaitVisible(chromedp.CSS(`[data-testid="consume-again"]`)))
	openWithClient()
	row := Get(t, ctx, "the client row", chromedp.Text(chromedp.CSS(clientRow)))
	if !strings.Contains(row, "GO") || !strings.Contains(row, "4.5.2 protocol") || !strings.Contains(row, "operators only") {
		t.Errorf("viewer's client row %q: want language, version and no button", row)
	}
	if n := Get(t, ctx, "buttons", chromedp.Evaluate[int](`document.querySelectorAll('[data-testid="consume-again-button"]').length`)); n != 0 {
		t.Errorf("a viewer is offered %d consume buttons", n)
	}
	clientID := Get(t, ctx, "client id", chromedp.Evaluate[string](`document.querySelector('`+clientRow+`').dataset.client`))
	api := "/api/v1/messages/" + m.offsetID + "/consume-directly"
	body := fmt.Sprintf(`{"group":%q,"clientId":%q}`, group, clientID)
	if res := pageFetch(t, ctx, "POST", api, body); res.Status != http.StatusForbidden {
		t.Errorf("viewer's consume-directly: %d %s, want 403", res.Status, res.Body)
	}
	if n := deliveries(); n != 1 {
		t.Fatalf("after the viewer's refused request the consumer got the message %d times", n)
	}

	Do(t, ctx, "sign out", chromedp.Click(chromedp.CSS(`form[action="/logout"] button`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="login-notice"]`)))
	Do(t, ctx, "open the message page", chromedp.Navigate(page))
	signIn(t, ctx, "otto", e2ePassword)
	Do(t, ctx, "land on the message page", chromedp.WaitVisible(chromedp.CSS(`[data-testid="consume-again"]`)))
	openWithClient()
	Do(t, ctx, "consume it again",
		chromedp.Click(chromedp.CSS(clientRow+` [data-testid="consume-again-button"]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="consume-again-answer"]`)))
	Screenshot(t, ctx, "message-consumed-again")
	outcome := Get(t, ctx, "outcome", chromedp.Text(chromedp.CSS(`[data-testid="consume-again-outcome"]`)))
	result := Get(t, ctx, "result", chromedp.Text(chromedp.CSS(`[data-testid="consume-again-result"]`)))
	answer := Get(t, ctx, "answer", chromedp.Text(chromedp.CSS(`[data-testid="consume-again-answer"]`)))
	if outcome != "consumed" || result != "CR_SUCCESS" || !strings.Contains(answer, clientID) || !strings.Contains(answer, " ms") {
		t.Errorf("answer %q / %q: %q", outcome, result, answer)
	}
	dev.Eventually(t, 10*time.Second, "the consumer got the message again", func() error {
		if n := deliveries(); n != 2 {
			return fmt.Errorf("%d deliveries", n)
		}
		return nil
	})
	entryURL := Get(t, ctx, "audit link", chromedp.Evaluate[string](`document.querySelector('[data-testid="consume-again-entry"]').getAttribute("href")`))
	res := pageFetch(t, ctx, "GET", "/api/v1"+entryURL, "")
	if !strings.Contains(res.Body, `"message-consume-directly"`) || !strings.Contains(res.Body, `"applied"`) || !strings.Contains(res.Body, clientID) {
		t.Errorf("audit entry %s: %d %s", entryURL, res.Status, res.Body)
	}

	// A refusal on the page says nothing was sent.
	Do(t, ctx, "ask a client that is not in the group",
		chromedp.SetAttributeValue(chromedp.CSS(clientRow+` input[name="clientId"]`), "value", "10.9.9.9@nobody"),
		chromedp.Click(chromedp.CSS(clientRow+` [data-testid="consume-again-button"]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="consume-again-refused"]`)))
	if txt := Get(t, ctx, "refusal", chromedp.Text(chromedp.CSS(`[data-testid="consume-again-refused"]`))); !strings.Contains(txt, "Nothing was sent") || !strings.Contains(txt, "10.9.9.9@nobody") {
		t.Errorf("refusal %q", txt)
	}

	// The API: the answer, and each bad request refused with a sentence.
	res = pageFetch(t, ctx, "POST", api, body)
	var j struct {
		Consumed       bool   `json:"consumed"`
		ConsumeResult  string `json:"consumeResult"`
		ClientID       string `json:"clientId"`
		Language       string `json:"language"`
		SpentTimeMills *int64 `json:"spentTimeMills"`
		AuditID        int64  `json:"auditId"`
		AuditStatus    string `json:"auditStatus"`
	}
	if err := json.Unmarshal([]byte(res.Body), &j); err != nil || res.Status != 200 || !j.Consumed || j.ConsumeResult != "CR_SUCCESS" ||
		j.ClientID != clientID || j.Language != "GO" || j.SpentTimeMills == nil || j.AuditID == 0 || j.AuditStatus != "applied" {
		t.Errorf("API answer %d %s (%v)", res.Status, res.Body, err)
	}
	gone, err := rocketmq.ParseOffsetMsgID(m.offsetID)
	if err != nil {
		t.Fatal(err)
	}
	gone.CommitLogOffset += 1 << 40
	for _, c := range []struct {
		path, body string
		status     int
		code       string
	}{
		{api, `{"group":"` + group + `"}`, 400, "missing_client"},
		{api, `{"group":"` + group + `","clientId":"x","extra":1}`, 400, "bad_request"},
		{api, `{"group":"` + group + `","clientId":"10.9.9.9@nobody"}`, 409, "client_not_in_group"},
		{api, `{"group":"` + dev.UniqueName("nobody") + `","clientId":"` + clientID + `"}`, 409, "group_offline"},
		// An id that is not an offsetMsgId is a unique key, found only with its topic.
		{"/api/v1/messages/" + url.PathEscape("not-an-id") + "/consume-directly", body, 400, "missing_topic"},
		{"/api/v1/messages/" + gone.String() + "/consume-directly", body, 404, "message_not_found"},
	} {
		res := pageFetch(t, ctx, "POST", c.path, c.body)
		var e struct{ Error, Code string }
		if json.Unmarshal([]byte(res.Body), &e) != nil || res.Status != c.status || e.Code != c.code || e.Error == "" {
			t.Errorf("POST %s %s: %d %s, want %d %s", c.path, c.body, res.Status, res.Body, c.status, c.code)
		}
	}
	if n := deliveries(); n != 3 {
		t.Errorf("the consumer got the message %d times, want 3 (initial, page, API): a refused request reached it", n)
	}
}
