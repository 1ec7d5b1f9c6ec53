package alerts

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"rmqconsole/fault"
	"rmqconsole/i18n"
	"rmqconsole/store"
)

func open(t *testing.T) *store.Store {
	t.Helper()
	st, err := store.Open(context.Background(), filepath.Join(t.TempDir(), "console.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

func lag(v int64) *int64 { return &v }

// receiver is a real HTTP server that records what it is sent and answers status.
type receiver struct {
	*httptest.Server
	mu     sync.Mutex
	bodies []string
	status int
}

func newReceiver(t *testing.T) *receiver {
	r := &receiver{status: http.StatusOK}
	r.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		b, _ := io.ReadAll(req.Body)
		r.mu.Lock()
		r.bodies = append(r.bodies, string(b))
		st := r.status
		r.mu.Unlock()
		w.WriteHeader(st)
	}))
	t.Cleanup(r.Close)
	return r
}

func (r *receiver) got() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.bodies...)
}

// Bad rules are refused with a sentence naming the field, before anything is stored.
func TestRuleValidation(t *testing.T) {
	st := open(t)
	svc := NewService(st, Options{})
	for _, c := range []struct {
		in    RuleInput
		field string
	}{
		{RuleInput{Group: "G", Threshold: -5, WebhookURL: "http://x"}, "threshold"},
		{RuleInput{Group: "", Threshold: 5, WebhookURL: "http://x"}, "group"},
		{RuleInput{Group: "bad name!", Threshold: 5, WebhookURL: "http://x"}, "group"},
		{RuleInput{Group: "G", Threshold: 5, WebhookURL: "ftp://x"}, "webhookUrl"},
		{RuleInput{Group: "G", Threshold: 5, WebhookURL: "not a url"}, "webhookUrl"},
		{RuleInput{Group: "G", Threshold: 5, For: "soon", WebhookURL: "http://x"}, "for"},
		{RuleInput{Group: "G", Threshold: 5, For: "-1m", WebhookURL: "http://x"}, "for"},
		{RuleInput{Group: "G", Metric: "tps", WebhookURL: "http://x"}, "metric"},
		{RuleInput{Group: "G", Format: "teams", WebhookURL: "http://x"}, "format"},
	} {
		_, err := svc.Create(t.Context(), Who{Actor: "op"}, c.in)
		fe := fault.As(err)
		if fe == nil || fe.Code != fault.Invalid || fe.Field != c.field || !strings.HasSuffix(fe.Msg.String(), ".") {
			t.Errorf("%+v: %v, want a sentence about %s", c.in, err, c.field)
		}
	}
	if rules, _ := st.AlertRules(t.Context()); len(rules) != 0 {
		t.Errorf("refused rules were stored: %+v", rules)
	}
	entries, _, _ := st.Audit().List(t.Context(), store.AuditFilter{})
	if len(entries) != 0 {
		t.Errorf("refused rules were audited: %d entries", len(entries))
	}
}

// A rule with several mistakes is refused with every one of them at once, one sentence
// per field, so an operator fixes them in one go; a form's threshold that is no number
// is among them.
func TestRuleValidationFindsEveryMistakeAtOnce(t *testing.T) {
	for _, c := range []struct {
		in     RuleInput
		fields []string
	}{
		{RuleInput{Group: "bad name!", Threshold: -5, For: "soon", WebhookURL: "ftp://x"}, []string{"group", "threshold", "for", "webhookUrl"}},
		{FormInput("", "", "", "tps", "many", "-1m", "http://x", "teams"), []string{"group", "metric", "threshold", "for", "format"}},
	} {
		_, err := c.in.Validate()
		var got []string
		for _, fe := range fault.All(err) {
			if fe.Code != fault.Invalid || !strings.HasSuffix(fe.Msg.String(), ".") {
				t.Errorf("%+v: %v is not a sentence about bad input", c.in, fe)
			}
			got = append(got, fe.Field)
		}
		if strings.Join(got, ",") != strings.Join(c.fields, ",") {
			t.Errorf("%+v: refused fields %v, want %v", c.in, got, c.fields)
		}
	}
	if r, err := FormInput("", "G", "", "", " 7 ", "", "http://x", "").Validate(); err != nil || r.Threshold != 7 {
		t.Errorf("a form's threshold of 7: %+v %v", r, err)
	}
}

// A rule fires once a group has stayed above the threshold for its duration, notifies
// the webhook (generic JSON here, Slack and DingTalk bodies below), and resolves with a
// second notification when the lag is back down. Creating and deleting the rule are
// audit entries in the hash chain. A pattern matching nothing says so.
func TestRuleFiresForDurationAndResolves(t *testing.T) {
	st := open(t)
	rcv := newReceiver(t)
	now := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	svc := NewService(st, Options{Now: func() time.Time { return now }})
	r, err := svc.Create(t.Context(), Who{Actor: "olga", Addr: "10.0.0.1"}, RuleInput{Group: "order-*", Threshold: 100, For: "1m", WebhookURL: rcv.URL + "/hook"})
	if err != nil {
		t.Fatal(err)
	}
	nothing, err := svc.Create(t.Context(), Who{Actor: "olga"}, RuleInput{Group: "nobody-*", Threshold: 1, WebhookURL: rcv.URL})
	if err != nil {
		t.Fatal(err)
	}
	client := &http.Client{Timeout: time.Second}
	read := func(v int64) {
		t.Helper()
		if err := svc.Evaluate(t.Context(), now, []Observation{{Group: "order-a", Lag: lag(v)}, {Group: "billing", Lag: lag(10_000)}}); err != nil {
			t.Fatal(err)
		}
		svc.sendDue(t.Context(), client)
	}
	state := func() string {
		views, _ := svc.ForGroup(t.Context(), "order-a")
		for _, v := range views {
			if v.ID == r.ID && len(v.States) == 1 {
				return v.States[0].State
			}
		}
		return "none"
	}
	read(50)
	now = now.Add(30 * time.Second)
	read(150) // above from now on
	now = now.Add(30 * time.Second)
	read(200)
	if s := state(); s != StatePending || len(rcv.got()) != 0 {
		t.Fatalf("30 s above a 1 m rule: state %s, %d notifications; want pending and none", s, len(rcv.got()))
	}
	now = now.Add(30 * time.Second)
	read(250)
	if s := state(); s != StateFiring || len(rcv.got()) != 1 {
		t.Fatalf("60 s above: state %s, %d notifications; want firing and one", s, len(rcv.got()))
	}
	var body struct {
		Event, Group string
		Value        int64
		Rule         struct{ Threshold int64 }
	}
	if err := json.Unmarshal([]byte(rcv.got()[0]), &body); err != nil || body.Event != "firing" || body.Group != "order-a" || body.Value != 250 || body.Rule.Threshold != 100 {
		t.Errorf("firing body %s (%v)", rcv.got()[0], err)
	}
	now = now.Add(30 * time.Second)
	read(300) // still firing: no second notification
	now = now.Add(30 * time.Second)
	read(100) // at the threshold: resolved
	if s := state(); s != StateResolved || len(rcv.got()) != 2 || !strings.Contains(rcv.got()[1], `"event":"resolved"`) {
		t.Fatalf("back at 100: state %s, notifications %q; want resolved and a second one", s, rcv.got())
	}
	deliveries, _ := svc.Deliveries(t.Context(), 10)
	if len(deliveries) != 2 || deliveries[0].Status != "sent" || deliveries[0].ResponseCode != 200 || deliveries[1].Event != "firing" {
		t.Errorf("deliveries %+v: want firing and resolved, sent with 200", deliveries)
	}
	views, _ := svc.Rules(t.Context(), 0)
	for _, v := range views {
		if v.ID == nothing.ID && v.Matched != 0 {
			t.Errorf("a pattern matching no group says it matched %d", v.Matched)
		}
	}
	if err := svc.Delete(t.Context(), Who{Actor: "olga"}, r.ID); err != nil {
		t.Fatal(err)
	}
	if err := svc.Delete(t.Context(), Who{Actor: "olga"}, r.ID); !fault.Is(err, fault.NotFound) {
		t.Errorf("deleting again: %v, want not found", err)
	}
	if kept, _ := svc.Deliveries(t.Context(), 10); len(kept) != 2 {
		t.Errorf("after the rule was deleted %d deliveries are kept, want 2", len(kept))
	}
	entries, _, err := st.Audit().List(t.Context(), store.AuditFilter{})
	if err != nil || len(entries) != 3 {
		t.Fatalf("audit entries %d (%v), want 3 (two creations, one deletion)", len(entries), err)
	}
	if e := entries[0]; e.Mode != "alert-rule-delete" || e.Actor != "olga" || e.Group != "order-*" || strings.Contains(string(e.Params), "/hook") {
		t.Errorf("newest audit entry %s by %s on %s, params %s: want the deletion of order-*, webhook path left out", e.Mode, e.Actor, e.Group, e.Params)
	}
	if rep, err := st.Audit().Verify(t.Context()); err != nil || len(rep.Problems) != 0 {
		t.Errorf("hash chain after rule changes: %+v, %v", rep, err)
	}
}

// A webhook that fails is retried with a doubling delay and marked failed after the
// last attempt, with its answer kept; one that cannot be reached at all keeps the error.
// The alert's state is not lost either way.
func TestDeliveryRetriesWithBackoffThenFails(t *testing.T) {
	st := open(t)
	rcv := newReceiver(t)
	rcv.status = http.StatusInternalServerError
	now := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	svc := NewService(st, Options{Now: func() time.Time { return now }, Retry: time.Second, MaxAttempts: 3})
	if _, err := svc.Create(t.Context(), Who{}, RuleInput{Group: "G", Threshold: 0, WebhookURL: rcv.URL, Format: FormatSlack}); err != nil {
		t.Fatal(err)
	}
	if _, err := svc.Create(t.Context(), Who{}, RuleInput{Group: "G", Threshold: 0, WebhookURL: "http://127.0.0.1:1/unreachable", Format: FormatDingTalk}); err != nil {
		t.Fatal(err)
	}
	client := &http.Client{Timeout: time.Second}
	if err := svc.Evaluate(t.Context(), now, []Observation{{Group: "G", Lag: lag(5)}}); err != nil {
		t.Fatal(err)
	}
	svc.sendDue(t.Context(), client)
	now = now.Add(500 * time.Millisecond)
	svc.sendDue(t.Context(), client) // too early for the retry
	if n := len(rcv.got()); n != 1 {
		t.Fatalf("%d attempts before the first retry delay, want 1", n)
	}
	now = now.Add(600 * time.Millisecond) // 1.1 s: first retry
	svc.sendDue(t.Context(), client)
	now = now.Add(1500 * time.Millisecond) // 2.6 s: the second retry is due at 1.1 + 2 s
	svc.sendDue(t.Context(), client)
	if n := len(rcv.got()); n != 2 {
		t.Fatalf("%d attempts 2.6 s in, want 2 (the third waits for twice the delay)", n)
	}
	now = now.Add(time.Second)
	svc.sendDue(t.Context(), client)
	now = now.Add(time.Hour)
	svc.sendDue(t.Context(), client)
	if n := len(rcv.got()); n != 3 {
		t.Errorf("%d attempts in all, want 3", n)
	}
	var slack struct{ Text string }
	if err := json.Unmarshal([]byte(rcv.got()[0]), &slack); err != nil || !strings.HasPrefix(slack.Text, "[FIRING]") {
		t.Errorf("Slack body %s: want {\"text\": \"[FIRING] …\"}", rcv.got()[0])
	}
	ds, _ := svc.Deliveries(t.Context(), 10)
	for _, d := range ds {
		switch {
		case d.Status != "failed" || d.Attempts != 3:
			t.Errorf("delivery to %s: %s after %d attempts, want failed after 3", d.URL, d.Status, d.Attempts)
		case d.Format == FormatSlack && (d.ResponseCode != 500 || !strings.Contains(d.Error, "500")):
			t.Errorf("failing webhook: code %d, error %q; want 500 kept", d.ResponseCode, d.Error)
		case d.Format == FormatDingTalk && (d.ResponseCode != 0 || !strings.Contains(d.Error, "refused")):
			t.Errorf("unreachable webhook: code %d, error %q; want the connection refused", d.ResponseCode, d.Error)
		case d.Format == FormatDingTalk && !strings.Contains(d.Body, `"msgtype":"text"`):
			t.Errorf("DingTalk body %s", d.Body)
		}
	}
	views, _ := svc.ForGroup(t.Context(), "G")
	for _, v := range views {
		if len(v.States) != 1 || v.States[0].State != StateFiring {
			t.Errorf("rule %d state %+v after failed deliveries, want still firing", v.ID, v.States)
		}
	}
}

// When no rule matches any group, each still says it matched none once evaluated,
// not that it was never checked.
func TestRuleMatchingNothingIsChecked(t *testing.T) {
	st := open(t)
	svc := NewService(st, Options{})
	if _, err := svc.Create(t.Context(), Who{Actor: "olga"}, RuleInput{Group: "nobody-*", Threshold: 1, WebhookURL: "http://127.0.0.1:1/hook"}); err != nil {
		t.Fatal(err)
	}
	matched := func() int {
		t.Helper()
		views, err := svc.Rules(t.Context(), 0)
		if err != nil || len(views) != 1 {
			t.Fatalf("rules %+v, %v", views, err)
		}
		return views[0].Matched
	}
	if n := matched(); n != -1 {
		t.Errorf("before any evaluation the rule matched %d, want -1 (not checked yet)", n)
	}
	if err := svc.Evaluate(t.Context(), time.Now(), []Observation{{Group: "billing", Lag: lag(5)}}); err != nil {
		t.Fatal(err)
	}
	if n := matched(); n != 0 {
		t.Errorf("after an evaluation the rule matched %d, want 0", n)
	}
}

// A notification is said in the console's alert language; the English one reads as
// it always did.
func TestSummaryInChinese(t *testing.T) {
	v := int64(12000)
	r := store.AlertRule{Name: "orders lag", Metric: MetricLag, Threshold: 10000, For: 2 * time.Minute}
	st := store.AlertState{Group: "orders", Value: &v, Since: time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)}
	zh := SummaryIn(i18n.Match("zh-CN"), r, st, "firing")
	if want := "【告警】orders lag：消费者组 orders 的堆积量为 12000 条消息，自 2026-12-01 10:00:00 UTC 起超过 10000 条消息（规则：持续至少 2 分钟）。"; zh != want {
		t.Errorf("Chinese summary\n%s\nwant\n%s", zh, want)
	}
	if en := Summary(r, st, "firing"); en != "[FIRING] orders lag: consumer group orders lag is 12000 messages, above 10000 messages since 2026-12-01 10:00:00 UTC (rule: for at least 2m0s)." {
		t.Errorf("English summary %q", en)
	}
}
