package diagnosis

import (
	"slices"
	"testing"
	"time"

	"rmqconsole/groups"
	"rmqconsole/i18n"
)

// queue is one queue of topic t on broker b as the list reads it: its max offset, the
// committed offset (nil: never committed) and the min offset (nil: not read).
func queue(t string, id int, max int64, committed, min *int64) groups.QueueLag {
	return groups.QueueLag{Topic: t, BrokerName: "b", QueueID: id, BrokerOffset: &max, ConsumerOffset: committed, MinOffset: min}
}

func i64(v int64) *int64 { return &v }

// A group whose committed offsets are below the queues' min offsets lost the messages in
// between: a critical finding that counts them, names the queues and links to the reset
// form on the topic. Offset 0 at min offset 0, a queue never committed (-1 or none) and
// a committed offset at the min offset lose nothing; once the group's offsets are at or
// above the min offsets the finding goes.
func TestCommittedOffsetsBelowTheMinOffsetAreMessagesLost(t *testing.T) {
	at := time.Date(2026, 12, 6, 10, 0, 0, 0, time.UTC)
	list := func(at time.Time, qs ...groups.QueueLag) *groups.List {
		return &groups.List{CheckedAt: at, Groups: []groups.Summary{{Group: "orders-g", Clients: 0, Queues: qs}}}
	}
	e := New(Options{})
	e.Observe(t.Context(), list(at,
		queue("orders", 0, 10, i64(0), i64(0)),  // offset 0 at min offset 0: nothing lost
		queue("orders", 1, 10, i64(1), i64(2)),  // 1 lost
		queue("orders", 2, 10, i64(-1), i64(5)), // never committed
		queue("orders", 3, 10, nil, i64(5)),     // no offset stored
		queue("orders", 4, 10, i64(5), i64(5)),  // at the min offset
		queue("orders", 5, 40, i64(3), i64(10)), // 7 lost
	))
	fs, _ := e.Findings()
	if len(fs) != 1 {
		t.Fatalf("findings %+v, want one messagesLost", fs)
	}
	f := fs[0]
	if f.Kind != KindLost || f.Severity != Critical || f.Group != "orders-g" || !f.Since.Equal(at) {
		t.Errorf("finding %+v, want messagesLost (critical) about orders-g since %v", f, at)
	}
	if !slices.Equal(f.Topics, []string{"orders"}) {
		t.Errorf("topics named %v, want orders", f.Topics)
	}
	if want := "/groups/orders-g/reset?mode=earliest&topic=orders"; f.Action != want || f.ActionKind != "reset" {
		t.Errorf("action %s %q, want reset %q", f.ActionKind, f.Action, want)
	}
	if got, want := i18n.Match("en").Say(f.Evidence), "8 messages were deleted by the broker before the group read them: its committed offset is below the queue's oldest stored offset on 2 queues (orders/b/1, orders/b/5). They cannot be consumed any more; reset the group to the earliest offset, and check the brokers' fileReservedTime and disk space."; got != want {
		t.Errorf("evidence %q, want %q", got, want)
	}
	if got := i18n.Match("zh-CN").Say(f.Evidence); got == "" || got == i18n.Match("en").Say(f.Evidence) {
		t.Errorf("Chinese evidence %q", got)
	}
	// Still lost at the next read: it stays since the first.
	e.Observe(t.Context(), list(at.Add(30*time.Second), queue("orders", 5, 40, i64(3), i64(10))))
	if fs, _ := e.Findings(); len(fs) != 1 || !fs[0].Since.Equal(at) {
		t.Fatalf("second read: %+v, want messagesLost since %v", fs, at)
	}
	// The group was reset to the earliest offset: nothing lost any more.
	e.Observe(t.Context(), list(at.Add(60*time.Second), queue("orders", 5, 40, i64(10), i64(10))))
	if k := kinds(e); len(k) != 0 {
		t.Fatalf("after the reset: %v, want nothing", k)
	}
}
