package e2e

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"
	"github.com/apache/rocketmq-client-go/v2/primitive"
	"github.com/chromedp/chromedp"

	"rmqconsole/dev"
	"rmqconsole/dev/rmqclient"
	"rmqconsole/rocketmq"
	"rmqconsole/rocketmq/rocketmqtest"
)

// rsWorld is a topic with two queues and a consumer group that consumed its six
// messages with a real rocketmq-client-go consumer and then went offline.
type rsWorld struct {
	cl           *dev.Cluster
	c            *rocketmq.Client
	topic, group string
	broker       string
}

func rsSetup(t *testing.T) *rsWorld {
	t.Helper()
	cl := dev.RequireCluster(t)
	c := rocketmqtest.Client(t, rocketmq.Config{NameServer: cl.NameServer, Timeout: 10 * time.Second, RouteTTL: -1})
	w := &rsWorld{cl: cl, c: c, topic: dev.UniqueName("e2e-rst"), group: dev.UniqueName("e2e-rstg"), broker: cl.Brokers[0].Name}
	ctx, cancel := context.WithTimeout(t.Context(), 120*time.Second)
	defer cancel()
	if err := cl.CreateTopic(ctx, w.topic, 2); err != nil {
		t.Fatal(err)
	}
	p := rmqclient.StartProducer(t, cl.NameServer, "")
	for i := 0; i < 6; i++ {
		sctx, scancel := context.WithTimeout(t.Context(), 20*time.Second)
		r, err := p.SendSync(sctx, primitive.NewMessage(w.topic, []byte(fmt.Sprintf("order %d", i))))
		scancel()
		if err != nil || r.Status != primitive.SendOK {
			t.Fatalf("send: %v %v", r, err)
		}
	}
	// A consumer in its own process: the client library's data races stay out of this
	// race-checked binary.
	pc := dev.StartConsumerProcess(t, cl.NameServer, w.group, w.topic)
	dev.Eventually(t, 90*time.Second, "the consumer commits every message", func() error {
		offs, err := w.offsets(t)
		if err != nil {
			return err
		}
		if len(offs) != 2 || offs[0]+offs[1] != 6 {
			return fmt.Errorf("offsets %v", offs)
		}
		return nil
	})
	pc.Stop()
	dev.Eventually(t, 60*time.Second, "the group goes offline", func() error {
		_, err := c.ConsumerConnections(t.Context(), cl.Brokers[0].Addr, w.group)
		if errors.Is(err, rocketmq.ErrConsumerNotOnline) {
			return nil
		}
		return fmt.Errorf("connections: %v", err)
	})
	return w
}

// offsets reads the group's committed offsets by queue id.
func (w *rsWorld) offsets(t *testing.T) (map[int]int64, error) {
	ctx, cancel := context.WithTimeout(t.Context(), 15*time.Second)
	defer cancel()
	s, err := w.c.ConsumeStats(ctx, w.cl.Brokers[0].Addr, w.group, w.topic)
	if err != nil {
		return nil, err
	}
	out := map[int]int64{}
	for mq, o := range s.Offsets {
		out[mq.QueueID] = o.ConsumerOffset
	}
	return out, nil
}

func (w *rsWorld) mustOffsets(t *testing.T) map[int]int64 {
	t.Helper()
	o, err := w.offsets(t)
	if err != nil {
		t.Fatal(err)
	}
	return o
}

// mqadminOffsets is RocketMQ's own view of the group's offsets (consumerProgress).
func (w *rsWorld) mqadminOffsets(t *testing.T) map[int]int64 {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 90*time.Second)
	defer cancel()
	out, err := w.cl.MQAdmin(ctx, "consumerProgress", "-g", w.group)
	if err != nil {
		t.Fatal(err)
	}
	offs := map[int]int64{}
	for _, line := range strings.Split(out, "\n") {
		// #Topic  #Broker Name  #QID  #Broker Offset  #Consumer Offset  ...
		f := strings.Fields(line)
		if len(f) < 5 || f[0] != w.topic {
			continue
		}
		q, err1 := strconv.Atoi(f[2])
		o, err2 := strconv.ParseInt(f[4], 10, 64)
		if err1 != nil || err2 != nil {
			t.Fatalf("cannot read consumerProgress row %q", line)
		}
		offs[q] = o
	}
	// Without its rows, a missing queue would read as offset 0: the target of a reset
	// to the earliest offset.
	if len(offs) != 2 {
		t.Fatalf("consumerProgress shows %d queues of %s, want 2:\n%s", len(offs), w.topic, out)
	}
	return offs
}

func rsTexts(t *testing.T, ctx context.Context, sel string) []string {
	t.Helper()
	return Get(t, ctx, "read "+sel, chromedp.Evaluate[[]string](
		`Array.from(document.querySelectorAll(`+strconv.Quote(sel)+`)).map(e => e.textContent.trim())`))
}

// form → preview → apply (first without the confirmation) → result → audit entry →
// audit log → CSV and JSON exports, in a real browser against the real broker.
func TestResetInBrowserPreviewApplyAuditExport(t *testing.T) {
	w := rsSetup(t)
	con := StartConsole(t, "RMQC_NAMESRV="+w.cl.NameServer)
	ctx := Browser(t)
	before := w.mustOffsets(t)

	Do(t, ctx, "open the reset form",
		chromedp.Navigate(con.URL+"/groups/"+w.group+"/reset"),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="current-offsets"]`)),
	)
	if cur := Get(t, ctx, "read current offsets", chromedp.Text(chromedp.CSS(`[data-testid="current-offsets"]`))); !strings.Contains(cur, w.topic) || !strings.Contains(cur, "No client is online") {
		t.Errorf("current offsets do not show %s offline:\n%s", w.topic, cur)
	}
	if z := Get(t, ctx, "time zone", chromedp.Value(chromedp.CSS(`[data-testid="f-tz"]`))); z != "UTC" {
		t.Errorf("time zone next to the time input is %q, want UTC", z)
	}
	Do(t, ctx, "preview a reset to the earliest offset",
		chromedp.Click(chromedp.CSS(`[data-testid="mode-earliest"]`)),
		chromedp.SetValue(chromedp.CSS(`[data-testid="f-topic"]`), w.topic),
		chromedp.SendKeys(chromedp.CSS(`[data-testid="f-reason"]`), "replay after the fix"),
		chromedp.Click(chromedp.CSS(`[data-testid="preview-button"]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="preview-queues"]`)),
	)
	if targets := rsTexts(t, ctx, `[data-testid="preview-queues"] [data-testid="target"]`); len(targets) != 2 || targets[0] != "0" || targets[1] != "0" {
		t.Fatalf("preview targets %q, want two queues at 0", targets)
	}
	currents := rsTexts(t, ctx, `[data-testid="preview-queues"] [data-testid="current"]`)
	for i, s := range currents {
		if s != strconv.FormatInt(before[i], 10) {
			t.Errorf("preview shows queue %d at %s, the broker has %d", i, s, before[i])
		}
	}
	button := Get(t, ctx, "read the apply button", chromedp.Text(chromedp.CSS(`[data-testid="apply"]`)))
	if want := "Reset 2 queues of topic " + w.topic + " of group " + w.group + " to the earliest offset"; button != want {
		t.Errorf("apply button says %q, want %q", button, want)
	}
	warnings := Get(t, ctx, "read what will happen", chromedp.Text(chromedp.CSS(`[data-testid="preview-warnings"]`)))
	if !strings.Contains(warnings, "No client of group "+w.group+" is online") {
		t.Errorf("preview does not say the group is offline:\n%s", warnings)
	}

	Do(t, ctx, "apply without ticking the confirmation",
		chromedp.Click(chromedp.CSS(`[data-testid="apply"]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="err-confirm"]`)),
	)
	if msg := Get(t, ctx, "read", chromedp.Text(chromedp.CSS(`[data-testid="err-confirm"]`))); !strings.Contains(msg, "Tick the box") {
		t.Errorf("confirmation error %q", msg)
	}
	if got := w.mustOffsets(t); got[0] != before[0] || got[1] != before[1] {
		t.Fatalf("an unconfirmed apply moved offsets: %v → %v", before, got)
	}

	Do(t, ctx, "confirm and apply",
		chromedp.Click(chromedp.CSS(`[data-testid="confirm"]`)),
		chromedp.Click(chromedp.CSS(`[data-testid="apply"]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="result-status"]`)),
	)
	if s := Get(t, ctx, "read the outcome", chromedp.Text(chromedp.CSS(`[data-testid="result-status"]`))); s != "applied" {
		t.Fatalf("result status %q, want applied: %s", s, Get(t, ctx, "result", chromedp.Text(chromedp.CSS("main"))))
	}
	if afters := rsTexts(t, ctx, `[data-testid="q-after"]`); len(afters) != 2 || afters[0] != "0" || afters[1] != "0" {
		t.Errorf("result shows after %q, want 0 and 0", afters)
	}
	if got := w.mustOffsets(t); got[0] != 0 || got[1] != 0 {
		t.Errorf("broker offsets after the reset: %v, want 0 and 0", got)
	}
	if got := w.mqadminOffsets(t); got[0] != 0 || got[1] != 0 {
		t.Errorf("mqadmin consumerProgress after the reset: %v, want 0 and 0", got)
	}

	Do(t, ctx, "open the audit entry",
		chromedp.Click(chromedp.CSS(`[data-testid="entry-link"]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="entry-fields"]`)),
	)
	for sel, want := range map[string]string{`[data-testid="entry-status"]`: "applied", `[data-testid="entry-actor"]`: "local", `[data-testid="entry-reason"]`: "replay after the fix"} {
		if got := Get(t, ctx, "read "+sel, chromedp.Text(chromedp.CSS(sel))); got != want {
			t.Errorf("%s = %q, want %q", sel, got, want)
		}
	}
	if befores := rsTexts(t, ctx, `[data-testid="q-before"]`); len(befores) != 2 || befores[0] != strconv.FormatInt(before[0], 10) {
		t.Errorf("entry shows before %q, want %v", befores, before)
	}

	Do(t, ctx, "find it in the audit log",
		chromedp.Navigate(con.URL+"/audit?group="+url.QueryEscape(w.group)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="audit-entries"]`)),
	)
	if chain := Get(t, ctx, "chain", chromedp.Text(chromedp.CSS(`[data-testid="chain"]`))); !strings.Contains(chain, "Hash chain intact") {
		t.Errorf("chain banner %q", chain)
	}
	if statuses := rsTexts(t, ctx, `[data-testid="entry-status"]`); strings.Join(statuses, ",") != "applied" {
		t.Errorf("audit log of the group shows %q, want only the applied reset (an unticked box is a form mistake, not an attempt)", statuses)
	}

	csvText := Get(t, ctx, "export CSV", chromedp.Evaluate[string](
		`fetch(document.querySelector('[data-testid="export-csv"]').href).then(r => r.text())`, chromedp.EvalAwaitPromise))
	rows, err := csv.NewReader(strings.NewReader(csvText)).ReadAll()
	if err != nil {
		t.Fatalf("CSV export: %v\n%s", err, csvText)
	}
	col := map[string]int{}
	for i, h := range rows[0] {
		col[h] = i
	}
	applied := 0
	for _, r := range rows[1:] {
		if r[col["group"]] != w.group {
			t.Errorf("export has a row of group %s", r[col["group"]])
		}
		if r[col["status"]] == "applied" {
			applied++
			if r[col["target"]] != "0" || r[col["after"]] != "0" || r[col["actor"]] != "local" || r[col["reason"]] != "replay after the fix" {
				t.Errorf("applied row %v", r)
			}
		}
	}
	if applied != 2 || len(rows) != 3 {
		t.Errorf("CSV has %d rows (%d applied queues), want header + 2 queues:\n%s", len(rows), applied, csvText)
	}
	jsonText := Get(t, ctx, "export JSON", chromedp.Evaluate[string](
		`fetch(document.querySelector('[data-testid="export-json"]').href).then(r => r.text())`, chromedp.EvalAwaitPromise))
	var exp struct {
		Entries []struct {
			ID     int64  `json:"id"`
			Status string `json:"status"`
			Hash   string `json:"hash"`
			Queues []struct {
				Target int64  `json:"target"`
				After  *int64 `json:"after"`
			} `json:"queues"`
		} `json:"entries"`
	}
	if err := json.Unmarshal([]byte(jsonText), &exp); err != nil {
		t.Fatalf("JSON export: %v\n%s", err, jsonText)
	}
	if len(exp.Entries) != 1 || exp.Entries[0].Status != "applied" || len(exp.Entries[0].Queues) != 2 ||
		exp.Entries[0].Queues[0].After == nil || *exp.Entries[0].Queues[0].After != 0 || len(exp.Entries[0].Hash) != 64 {
		t.Errorf("JSON export %s", jsonText)
	}

	// Undo from the audit entry: every queue goes back to where it was before the reset.
	entryURL := con.URL + "/audit/" + strconv.FormatInt(exp.Entries[0].ID, 10)
	Do(t, ctx, "undo the reset from its audit entry",
		chromedp.Navigate(entryURL),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="undo-button"]`)),
		chromedp.Click(chromedp.CSS(`[data-testid="undo-button"]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="preview-queues"]`)),
	)
	targets := rsTexts(t, ctx, `[data-testid="preview-queues"] [data-testid="target"]`)
	if len(targets) != 2 || targets[0] != strconv.FormatInt(before[0], 10) || targets[1] != strconv.FormatInt(before[1], 10) {
		t.Fatalf("undo preview targets %q, want the offsets before the reset %v", targets, before)
	}
	if warnings := Get(t, ctx, "read the undo preview", chromedp.Text(chromedp.CSS(`[data-testid="preview-warnings"]`))); !strings.Contains(warnings,
		"This undoes audit entry #"+strconv.FormatInt(exp.Entries[0].ID, 10)) {
		t.Errorf("undo preview does not say what it undoes:\n%s", warnings)
	}
	Do(t, ctx, "confirm and apply the undo",
		chromedp.Click(chromedp.CSS(`[data-testid="confirm"]`)),
		chromedp.Click(chromedp.CSS(`[data-testid="apply"]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="result-status"]`)),
	)
	if s := Get(t, ctx, "read the undo's outcome", chromedp.Text(chromedp.CSS(`[data-testid="result-status"]`))); s != "applied" {
		t.Fatalf("undo status %q, want applied: %s", s, Get(t, ctx, "result", chromedp.Text(chromedp.CSS("main"))))
	}
	if got := w.mqadminOffsets(t); got[0] != before[0] || got[1] != before[1] {
		t.Errorf("mqadmin consumerProgress after the undo: %v, want %v", got, before)
	}
	t.Logf("before the reset %v, after it 0 and 0, after the undo (mqadmin) %v", before, w.mqadminOffsets(t))
	Do(t, ctx, "the reset's entry links its undo",
		chromedp.Navigate(entryURL),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="entry-undone-by"]`)),
	)

	// From a message's page: reset the group to re-consume from that message, through
	// the reset form's preview to the applied result.
	mq := rocketmq.MessageQueue{Topic: w.topic, BrokerName: w.broker, QueueID: 0}
	pctx, pcancel := context.WithTimeout(t.Context(), 15*time.Second)
	pulled, err := w.c.Pull(pctx, w.cl.Brokers[0].Addr, mq, 1, 1)
	pcancel()
	if err != nil || len(pulled.Messages) != 1 {
		t.Fatalf("pull the second message of queue 0: %v %+v", err, pulled)
	}
	msg := pulled.Messages[0]
	Do(t, ctx, "reset the group to a message from its page",
		chromedp.Navigate(con.URL+"/messages/"+msg.OffsetMsgID()+"?topic="+url.QueryEscape(w.topic)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="reset-to-message-form"]`)),
		chromedp.SetValue(chromedp.CSS(`[data-testid="reset-group-select"]`), w.group),
		chromedp.Click(chromedp.CSS(`[data-testid="reset-from"]`)),
		chromedp.Click(chromedp.CSS(`[data-testid="reset-to-message-submit"]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="preview-queues"]`)),
	)
	if warnings := Get(t, ctx, "read the preview", chromedp.Text(chromedp.CSS(`[data-testid="preview-warnings"]`))); !strings.Contains(warnings,
		"Re-consume from message "+msg.OffsetMsgID()) {
		t.Errorf("the preview does not say it re-consumes from the message:\n%s", warnings)
	}
	targets = rsTexts(t, ctx, `[data-testid="preview-queues"] [data-testid="target"]`)
	if len(targets) != 2 || targets[0] != strconv.FormatInt(msg.QueueOffset, 10) {
		t.Fatalf("preview targets %q, want queue 0 at the message's offset %d", targets, msg.QueueOffset)
	}
	Screenshot(t, ctx, "reset-to-message-preview")
	Do(t, ctx, "confirm and apply the reset to the message",
		chromedp.Click(chromedp.CSS(`[data-testid="confirm"]`)),
		chromedp.Click(chromedp.CSS(`[data-testid="apply"]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="result-status"]`)),
	)
	if s := Get(t, ctx, "read the outcome", chromedp.Text(chromedp.CSS(`[data-testid="result-status"]`))); s != "applied" {
		t.Fatalf("reset to a message: status %q, want applied: %s", s, Get(t, ctx, "result", chromedp.Text(chromedp.CSS("main"))))
	}
	Screenshot(t, ctx, "reset-to-message-applied")
	if got := w.mustOffsets(t); got[0] != msg.QueueOffset {
		t.Errorf("after the reset to message %s: offsets %v, want queue 0 at %d", msg.OffsetMsgID(), got, msg.QueueOffset)
	}
	t.Logf("reset to message %s (queue 0 offset %d): offsets before %v, after %v", msg.OffsetMsgID(), msg.QueueOffset, before, w.mustOffsets(t))
}

func rsPost(t *testing.T, u, contentType, body string) (int, []byte) {
	t.Helper()
	res, err := http.Post(u, contentType, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res.StatusCode, b
}

func rsGetJSON(t *testing.T, u string, v any) int {
	t.Helper()
	res, err := http.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	if err := json.NewDecoder(res.Body).Decode(v); err != nil {
		t.Fatalf("GET %s: %v", u, err)
	}
	return res.StatusCode
}

type rsEntry struct {
	ID     int64  `json:"id"`
	Status string `json:"status"`
	Error  string `json:"error"`
	Actor  string `json:"actor"`
	Queues []struct {
		QueueID int    `json:"queueId"`
		Before  int64  `json:"before"`
		Target  int64  `json:"target"`
		After   *int64 `json:"after"`
		Note    string `json:"note"`
	} `json:"queues"`
}

// A console killed between writing the pending entry and asking the brokers: the next
// start marks the entry interrupted with the offsets it finds, which nothing moved.
func TestResetKilledAfterAuditWriteIsMarkedInterrupted(t *testing.T) {
	w := rsSetup(t)
	before := w.mustOffsets(t)
	con := StartConsole(t, "RMQC_NAMESRV="+w.cl.NameServer, "RMQC_TEST_PAUSE_AFTER_AUDIT=1")
	api := con.URL + "/api/v1/groups/" + w.group
	status, body := rsPost(t, api+"/reset-preview", "application/json", `{"topic":"`+w.topic+`","mode":"earliest"}`)
	if status != http.StatusOK {
		t.Fatalf("preview: %d %s", status, body)
	}
	var plan struct {
		PlanID string `json:"planId"`
	}
	if err := json.Unmarshal(body, &plan); err != nil || plan.PlanID == "" {
		t.Fatalf("preview answer %s: %v", body, err)
	}
	go func() {
		// Blocks: the console pauses after the pending write until it is killed.
		_, _ = http.Post(api+"/resets", "application/json", strings.NewReader(
			`{"topic":"`+w.topic+`","mode":"earliest","planId":"`+plan.PlanID+`","confirm":true}`))
	}()
	var pendingID int64
	dev.Eventually(t, 30*time.Second, "the pending entry is written", func() error {
		var list struct{ Entries []rsEntry }
		rsGetJSON(t, con.URL+"/api/v1/audit?status=pending&group="+url.QueryEscape(w.group), &list)
		if len(list.Entries) != 1 {
			return fmt.Errorf("%d pending entries", len(list.Entries))
		}
		pendingID = list.Entries[0].ID
		return nil
	})
	if err := con.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	dev.Eventually(t, 20*time.Second, "the killed console stops answering", func() error {
		res, err := http.Get(con.URL + "/healthz")
		if err != nil {
			return nil
		}
		res.Body.Close()
		return errors.New("still answering")
	})

	again := StartConsole(t, "RMQC_NAMESRV="+w.cl.NameServer, "RMQC_DATA_DIR="+con.DataDir)
	var e rsEntry
	if st := rsGetJSON(t, again.URL+"/api/v1/audit/"+strconv.FormatInt(pendingID, 10), &e); st != http.StatusOK {
		t.Fatalf("GET entry: %d", st)
	}
	if e.Status != "interrupted" || !strings.Contains(e.Error, "stopped before this reset finished") || len(e.Queues) != 2 {
		t.Fatalf("entry after restart: %+v", e)
	}
	for _, q := range e.Queues {
		if q.After == nil || *q.After != before[q.QueueID] || q.Target != 0 || !strings.Contains(q.Note, "found when the console started again") {
			t.Errorf("queue %d: %+v; want after %d (nothing was reset)", q.QueueID, q, before[q.QueueID])
		}
	}
	if got := w.mqadminOffsets(t); got[0] != before[0] || got[1] != before[1] {
		t.Errorf("mqadmin shows %v, want the offsets before, %v", got, before)
	}
	// The console holds its database exclusively (store.Open): verify once it stopped.
	again.Stop(t)
	out, err := exec.Command(Binary(t), "audit", "verify", "--data-dir", con.DataDir).CombinedOutput()
	if err != nil || !strings.Contains(string(out), "audit chain intact") {
		t.Errorf("audit verify after the crash: %v\n%s", err, out)
	}
}

// Bad input on the page (422, form kept) and in the API (400, every field named):
// nothing reaches the brokers' write path, and none of it is an audit event.
func TestResetBadInputRefusedNotAudited(t *testing.T) {
	w := rsSetup(t)
	before := w.mustOffsets(t)
	con := StartConsole(t, "RMQC_NAMESRV="+w.cl.NameServer)
	future := time.Now().Add(2 * time.Hour).UTC().Format("2006-01-02T15:04:05")
	page := func(group string) string { return con.URL + "/groups/" + url.PathEscape(group) + "/reset/preview" }
	form := func(kv ...string) string {
		v := url.Values{"topic": {w.topic}}
		for i := 0; i+1 < len(kv); i += 2 {
			v.Set(kv[i], kv[i+1])
		}
		return v.Encode()
	}
	for _, tc := range []struct {
		name, group, body, field, says, kept string
	}{
		{"future timestamp", w.group, form("mode", "timestamp", "timestamp", future, "tz", "UTC"), "timestamp", "in the future", future},
		{"offset beyond max", w.group, form("mode", "offset", "brokerName", w.broker, "queueId", "0", "offset", "100000"), "offset", "past the end", "100000"},
		{"queue that does not exist", w.group, form("mode", "latest", "brokerName", w.broker, "queueId", "9"), "queueId", "does not exist", "9"},
		{"shift that overflows", w.group, form("mode", "shift", "shift", "99999999999999999999"), "shift", "overflows", "99999999999999999999"},
		{"shift that overflows an offset", w.group, form("mode", "shift", "shift", "9223372036854775807"), "shift", "overflows", "9223372036854775807"},
		{"unknown topic", w.group, form("mode", "latest", "topic", "no-such-topic-e2e"), "topic", "does not exist", ""},
		{"unknown group", "no-such-group-e2e", form("mode", "latest"), "group", "does not exist", ""},
	} {
		status, body := rsPost(t, page(tc.group), "application/x-www-form-urlencoded", tc.body)
		if status != http.StatusUnprocessableEntity {
			t.Errorf("%s: page answered %d, want 422", tc.name, status)
			continue
		}
		doc, err := goquery.NewDocumentFromReader(bytes.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		if msg := doc.Find(`[data-testid="err-` + tc.field + `"]`).Text(); !strings.Contains(msg, tc.says) {
			t.Errorf("%s: error next to %s is %q, want %q", tc.name, tc.field, msg, tc.says)
		}
		if tc.kept != "" {
			if v, _ := doc.Find(`[data-testid="f-` + tc.field + `"]`).Attr("value"); v != tc.kept {
				t.Errorf("%s: the form lost what was typed: %q, want %q", tc.name, v, tc.kept)
			}
		}
	}
	// The API: 400 naming the fields.
	api := con.URL + "/api/v1/groups/" + w.group
	for _, tc := range []struct{ name, path, body, field string }{
		{"future", "/reset-preview", `{"topic":"` + w.topic + `","mode":"timestamp","timestamp":"` + time.Now().Add(time.Hour).UTC().Format(time.RFC3339) + `"}`, "timestamp"},
		{"offset beyond max", "/reset-preview", `{"topic":"` + w.topic + `","mode":"offset","brokerName":"` + w.broker + `","queueId":1,"offset":100000}`, "offset"},
		{"shift overflow", "/reset-preview", `{"topic":"` + w.topic + `","mode":"shift","shift":99999999999999999999}`, "shift"},
		{"unknown field", "/reset-preview", `{"topic":"` + w.topic + `","mode":"latest","force":true}`, "body"},
		{"missing confirmation", "/resets", `{"topic":"` + w.topic + `","mode":"latest"}`, "confirm"},
	} {
		status, body := rsPost(t, api+tc.path, "application/json", tc.body)
		var e struct {
			Code   string
			Fields []struct{ Field, Message string }
		}
		_ = json.Unmarshal(body, &e)
		found := false
		for _, f := range e.Fields {
			found = found || f.Field == tc.field
		}
		if status != http.StatusBadRequest || e.Code != "bad_request" || !found {
			t.Errorf("API %s: %d %s, want 400 naming %s", tc.name, status, body, tc.field)
		}
	}
	var refused struct{ Entries []rsEntry }
	rsGetJSON(t, con.URL+"/api/v1/audit?status=refused&group="+url.QueryEscape(w.group), &refused)
	if len(refused.Entries) != 0 {
		t.Errorf("%d refused entries for the group, want none: form mistakes attempted nothing", len(refused.Entries))
	}
	if got := w.mqadminOffsets(t); got[0] != before[0] || got[1] != before[1] {
		t.Errorf("offsets moved: %v → %v", before, got)
	}
}
