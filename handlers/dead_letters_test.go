package handlers

import (
	"fmt"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gin-gonic/gin"

	"rmqconsole/auth"
	"rmqconsole/cluster"
	"rmqconsole/deadletters"
	"rmqconsole/i18n"
	"rmqconsole/lookup"
	"rmqconsole/rocketmq"
	"rmqconsole/views"
)

func roleContext(role auth.Role) *gin.Context {
	c, _ := gin.CreateTestContext(httptest.NewRecorder())
	c.Request = httptest.NewRequest("GET", "/messages", nil)
	c.Set(RoleKey, role)
	return c
}

func dlqMessages(n int) []lookup.Message {
	out := make([]lookup.Message, n)
	for i := range out {
		out[i] = lookup.Message{BrokerName: "broker-a", Message: &rocketmq.Message{Topic: "%DLQ%billing", CommitLogOffset: int64(i),
			Properties: map[string]string{"RETRY_TOPIC": "orders"}}}
	}
	return out
}

// Under a DLQ search an operator gets the resend of every message shown, up to the
// bound; past it, or truncated, nobody does and the page says the bound; a viewer is
// told that operators can; other topics offer nothing.
func TestResendSearchOffer(t *testing.T) {
	op, viewer := roleContext(auth.Operator), roleContext(auth.Viewer)
	r := resendSearchVM(op, "%DLQ%billing", dlqMessages(3), false)
	if !r.CanResend || len(r.IDs) != 3 || !strings.Contains(r.Note, "orders") {
		t.Fatalf("operator, 3 dead letters: %+v", r)
	}
	max := deadletters.MaxResend
	for _, c := range []struct {
		n     int
		trunc bool
	}{{max + 1, false}, {5, true}} {
		r = resendSearchVM(op, "%DLQ%billing", dlqMessages(c.n), c.trunc)
		if r.CanResend || len(r.IDs) != 0 || !strings.Contains(r.Note, fmt.Sprintf("at most %d", max)) {
			t.Errorf("%d messages (truncated %v): %+v, want no offer and the bound said", c.n, c.trunc, r)
		}
	}
	if r = resendSearchVM(op, "%DLQ%billing", dlqMessages(max), false); !r.CanResend {
		t.Errorf("exactly %d dead letters are not offered", max)
	}
	if r = resendSearchVM(viewer, "%DLQ%billing", dlqMessages(2), false); r.CanResend || !strings.Contains(r.Note, "Operators can resend") {
		t.Errorf("viewer: %+v", r)
	}
	if r = resendSearchVM(op, "orders", dlqMessages(2), false); r.Show {
		t.Errorf("a normal topic's search offers a resend: %+v", r)
	}
}

// The group page says a topic not created yet is missing, and why, and counts and links
// the others.
func TestGroupDeadLettersSection(t *testing.T) {
	vm := groupDeadLettersIn(i18n.Match(), &deadletters.GroupTopics{
		Retry: deadletters.TopicCount{Topic: "%RETRY%billing", Exists: true, Stored: 1234},
		DLQ:   deadletters.TopicCount{Topic: "%DLQ%billing"},
	}, nil, time.Now(), false)
	if len(vm.Rows) != 2 {
		t.Fatalf("rows %+v", vm.Rows)
	}
	if r := vm.Rows[0]; !r.Exists || r.Stored != "1,234" || !strings.Contains(r.MessagesURL, "topic=%25RETRY%25billing") {
		t.Errorf("retry row %+v", r)
	}
	if r := vm.Rows[1]; r.Exists || !strings.Contains(r.Note, "first message dies") {
		t.Errorf("DLQ row %+v, want it missing until the first message dies", r)
	}
}

// A POP group's section lists the POP retry topic of each topic it consumes, says where
// revived messages go, and leaves out the push retry topic it never uses.
func TestGroupDeadLettersSectionOfAPOPGroup(t *testing.T) {
	vm := groupDeadLettersIn(i18n.Match(), &deadletters.GroupTopics{
		Retry:    deadletters.TopicCount{Topic: "%RETRY%billing"},
		DLQ:      deadletters.TopicCount{Topic: "%DLQ%billing"},
		PopRetry: []deadletters.TopicCount{{Topic: "%RETRY%billing_orders_v2", Exists: true, Stored: 3, Counted: 1}, {Topic: "%RETRY%billing_refunds"}},
	}, nil, time.Now(), false)
	var topics []string
	for _, r := range vm.Rows {
		topics = append(topics, r.Topic)
	}
	if want := []string{"%RETRY%billing_orders_v2", "%RETRY%billing_refunds", "%DLQ%billing"}; !slices.Equal(topics, want) {
		t.Fatalf("rows %v, want %v", topics, want)
	}
	if r := vm.Rows[0]; r.Kind != "POP retry topic" || r.Stored != "3" {
		t.Errorf("POP retry row %+v", r)
	}
	if r := vm.Rows[1]; r.Exists || !strings.Contains(r.Note, "a message of refunds that was popped and not acknowledged") {
		t.Errorf("missing POP retry row %+v: want it to name its topic and what creates it", r)
	}
	if !strings.Contains(vm.Note, "%RETRY%billing_<topic>") || !strings.Contains(vm.Note, "%DLQ%billing") || !strings.Contains(vm.Note, "revived") {
		t.Errorf("note %q: want where revived messages go", vm.Note)
	}
	// A push retry topic that exists (push consumers used the group before) still shows.
	vm = groupDeadLettersIn(i18n.Match(), &deadletters.GroupTopics{
		Retry:    deadletters.TopicCount{Topic: "%RETRY%billing", Exists: true, Counted: 1},
		DLQ:      deadletters.TopicCount{Topic: "%DLQ%billing"},
		PopRetry: []deadletters.TopicCount{{Topic: "%RETRY%billing_orders"}},
	}, nil, time.Now(), false)
	if len(vm.Rows) != 3 || vm.Rows[1].Topic != "%RETRY%billing" {
		t.Errorf("rows %+v: want the existing push retry topic kept", vm.Rows)
	}
}

// The dead-letter overview says each topic's count and newest arrival, or why either is
// not known: none stored, no broker answered (unknown, never 0), some broker missing
// (at least); and it names the brokers that did not answer once.
func TestDeadLetterOverviewSaysWhatIsNotKnown(t *testing.T) {
	l := i18n.Match("en")
	now := time.Date(2026, 12, 6, 15, 0, 0, 0, time.UTC)
	down := cluster.BrokerFailure{Broker: "broker-b", Addr: "10.0.0.2:10911", Err: fmt.Errorf("i/o timeout")}
	list := []deadletters.GroupDLQ{
		{Group: "billing", TopicCount: deadletters.TopicCount{Topic: "%DLQ%billing", Exists: true, Stored: 1234, Counted: 1, Newest: now.Add(-time.Minute)}},
		{Group: "old", TopicCount: deadletters.TopicCount{Topic: "%DLQ%old", Exists: true, Stored: 3, Counted: 1, Newest: now.Add(-30 * 24 * time.Hour)}},
		{Group: "drained", TopicCount: deadletters.TopicCount{Topic: "%DLQ%drained", Exists: true, Counted: 1}},
		{Group: "dark", TopicCount: deadletters.TopicCount{Topic: "%DLQ%dark", Exists: true, Failures: []cluster.BrokerFailure{down}}},
		{Group: "half", TopicCount: deadletters.TopicCount{Topic: "%DLQ%half", Exists: true, Stored: 2, Counted: 1, Newest: now, Failures: []cluster.BrokerFailure{down}}},
	}
	vm := deadLettersVM(l, list, list, now)
	var got []string
	for _, r := range vm.Rows {
		got = append(got, fmt.Sprintf("%s|%s|%s|%t", r.Group, r.Stored, r.Newest, r.Partial))
	}
	want := []string{
		"billing|1,234|" + views.TimeUTC(now.Add(-time.Minute)) + "|false",
		"old|3|" + views.TimeUTC(now.Add(-30*24*time.Hour)) + "|false",
		"drained|0|none stored|false",
		"dark|unknown|unknown|false",
		"half|2|" + views.TimeUTC(now) + "|true",
	}
	if !slices.Equal(got, want) {
		t.Errorf("rows\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if vm.Total != 5 || len(vm.Failures) != 1 || !strings.Contains(vm.Failures[0], "broker-b") {
		t.Errorf("count %d, failures %q: want 5 topics and broker-b named once", vm.Total, vm.Failures)
	}
	// A link to the messages covers the newest dead letter, however old.
	if u := vm.Rows[1].MessagesURL; !strings.Contains(u, "begin=2026-11-05") || !strings.Contains(u, "topic=%25DLQ%25old") {
		t.Errorf("messages of a month-old DLQ: %s, want the day before its newest", u)
	}
	if u := vm.Rows[0].MessagesURL; !strings.Contains(u, "begin=2026-12-03") {
		t.Errorf("messages of a fresh DLQ: %s, want the last three days", u)
	}
}
