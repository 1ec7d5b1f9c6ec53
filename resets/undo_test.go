package resets

import (
	"context"
	"strings"
	"testing"

	"rmqconsole/cluster/clustertest"
	"rmqconsole/rocketmq"
	"rmqconsole/store"
)

// An undo puts every queue back to its "before" offset, names the queues that moved
// since the reset, and is audited as a reset of its own that names the entry undone.
func TestUndoRestoresBeforeOffsetsAndNamesWhatMovedSince(t *testing.T) {
	e := newEnv(t)
	reset := e.apply(t, e.plan(t, Request{Group: "g", Topic: "t", Mode: ModeLatest, QueueID: AllQueues}))
	if reset.Status != store.AuditApplied {
		t.Fatalf("reset %s", reset.Status)
	}
	// Since the reset, queue 2 was reset back by someone: its offset is no longer the
	// one the reset left.
	e.fake.SetOffset("g", mq("t", "broker-a", 2), 8)

	p := e.plan(t, Request{Group: "g", Mode: ModeUndo, AuditID: reset.ID, QueueID: AllQueues, Reason: "wrong group"})
	if p.Undo == nil || p.Undo.AuditID != reset.ID {
		t.Fatalf("undo plan %+v", p.Undo)
	}
	targets := map[int]int64{}
	for _, q := range p.Queues {
		targets[q.Queue.QueueID] = q.Target
	}
	if want := map[int]int64{0: 6, 1: 6, 2: 6, 3: 6}; !equalMaps(targets, want) {
		t.Errorf("targets %v, want %v", targets, want)
	}
	if len(p.Undo.Moved) != 1 || p.Undo.Moved[0].Queue.QueueID != 2 || p.Undo.Moved[0].Current != 8 {
		t.Errorf("moved %+v, want queue 2 at 8", p.Undo.Moved)
	}
	if len(p.Undo.Unstored) != 0 || len(p.Undo.Missing) != 0 {
		t.Errorf("unstored %+v, missing %+v, want none", p.Undo.Unstored, p.Undo.Missing)
	}
	warned := ""
	for _, w := range p.Warnings {
		warned += w.String() + "\n"
	}
	for _, want := range []string{"undoes audit entry #1", "1 queue(s) moved since that reset (consumed or reset again): t broker-a/2"} {
		if !strings.Contains(warned, want) {
			t.Errorf("warnings %q do not say %q", warned, want)
		}
	}
	if !strings.Contains(p.Action().String(), "back to the offsets before audit entry #1") {
		t.Errorf("action %q", p.Action())
	}

	undo := e.apply(t, p)
	if undo.Status != store.AuditApplied || undo.Mode != "undo" || UndoOf(undo) != reset.ID {
		t.Fatalf("undo entry %s mode %s undoes %d: %+v", undo.Status, undo.Mode, UndoOf(undo), undo)
	}
	for i, want := range []int64{6, 6, 6, 6} {
		if got := e.fake.Offset("g", mq("t", "broker-a", i)); got != want {
			t.Errorf("queue %d at %d after the undo, want %d", i, got, want)
		}
	}
	if UndoOf(reset) != 0 {
		t.Errorf("the reset itself undoes %d", UndoOf(reset))
	}
}

// What cannot be undone is refused with a sentence before any broker is asked, and
// nothing is audited.
func TestUndoRefusesWhatCannotBeUndoneBeforeAnyBroker(t *testing.T) {
	e := newEnv(t, func(e *env) { e.fake.AddGroup(&clustertest.Group{Name: "h"}) })
	ctx := context.Background()
	applied := e.apply(t, e.plan(t, Request{Group: "g", Topic: "t", Mode: ModeEarliest, QueueID: AllQueues}))
	refused := &store.AuditEntry{StartedAt: e.base, Actor: "bob", Cluster: "ns:9876", Group: "g", Mode: "latest", Status: store.AuditRefused}
	if err := e.st.Audit().Record(ctx, refused); err != nil {
		t.Fatal(err)
	}
	other := &store.AuditEntry{StartedAt: e.base, Actor: "bob", Cluster: "elsewhere:9876", Group: "g", Mode: "latest", Status: store.AuditApplied,
		Result: applied.Result}
	if err := e.st.Audit().Record(ctx, other); err != nil {
		t.Fatal(err)
	}
	topic := &store.AuditEntry{StartedAt: e.base, Actor: "bob", Cluster: "ns:9876", Mode: "topic-create", Status: store.AuditApplied}
	if err := e.st.Audit().Record(ctx, topic); err != nil {
		t.Fatal(err)
	}
	calls := e.fake.TotalCalls()
	for _, tc := range []struct {
		name  string
		req   Request
		field string
		says  string
	}{
		{"no entry", Request{Group: "g", Mode: ModeUndo, QueueID: AllQueues}, "auditId", "Name the audit entry"},
		{"with a topic", Request{Group: "g", Topic: "t", Mode: ModeUndo, AuditID: applied.ID, QueueID: AllQueues}, "topic", "leave the topic, broker and queue empty"},
		{"unknown entry", Request{Group: "g", Mode: ModeUndo, AuditID: 999, QueueID: AllQueues}, "auditId", "No audit entry has id 999"},
		{"refused entry", Request{Group: "g", Mode: ModeUndo, AuditID: refused.ID, QueueID: AllQueues}, "auditId", "is refused: only an applied or partial reset"},
		{"not a reset", Request{Group: "g", Mode: ModeUndo, AuditID: topic.ID, QueueID: AllQueues}, "auditId", "is not an offset reset"},
		{"other cluster", Request{Group: "g", Mode: ModeUndo, AuditID: other.ID, QueueID: AllQueues}, "auditId", "NameServer elsewhere:9876, not on this cluster"},
		{"other group", Request{Group: "h", Mode: ModeUndo, AuditID: applied.ID, QueueID: AllQueues}, "auditId", "reset group g, not h"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := len(e.entries(t))
			_, err := e.svc.Plan(ctx, tc.req)
			if !strings.Contains(inputOn(err, tc.field), tc.says) {
				t.Fatalf("err %v, want %q on %s", err, tc.says, tc.field)
			}
			if es := e.entries(t); len(es) != before {
				t.Fatalf("a refused undo wrote %d audit entries", len(es)-before)
			}
		})
	}
	if got := e.fake.TotalCalls(); got != calls {
		t.Errorf("refused undos asked the brokers %d times", got-calls)
	}
}

func equalMaps(a, b map[int]int64) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

// A queue whose "before" offset is below its min offset now goes to the min offset and
// is named; a queue no broker has now is named and left alone.
func TestUndoNamesUnstoredAndMissingQueues(t *testing.T) {
	after := int64(10)
	u := &undoSource{entry: &store.AuditEntry{ID: 7, Result: []store.AuditQueue{
		{Topic: "t", BrokerName: "b", QueueID: 0, Before: 3, After: &after},
		{Topic: "t", BrokerName: "b", QueueID: 1, Before: 5, After: &after},
		{Topic: "t", BrokerName: "gone", QueueID: 0, Before: 5, After: &after},
	}}}
	snap := &Snapshot{Queues: []QueueState{
		{Queue: rocketmq.MessageQueue{Topic: "t", BrokerName: "b", QueueID: 0}, Current: 10, Min: 4, Max: 20},
		{Queue: rocketmq.MessageQueue{Topic: "t", BrokerName: "b", QueueID: 1}, Current: 10, Min: 0, Max: 20},
	}}
	qs, undo := u.queues(snap)
	if len(qs) != 2 || len(undo.Moved) != 0 {
		t.Fatalf("queues %+v, moved %+v", qs, undo.Moved)
	}
	if len(undo.Unstored) != 1 || undo.Unstored[0].Queue.QueueID != 0 || undo.Unstored[0].Min != 4 {
		t.Errorf("unstored %+v, want queue b/0 (before 3, min 4)", undo.Unstored)
	}
	if len(undo.Missing) != 1 || undo.Missing[0].Queue.BrokerName != "gone" {
		t.Errorf("missing %+v, want gone/0", undo.Missing)
	}
	said := ""
	for _, w := range undoWarnings(undo) {
		said += w.String() + "\n"
	}
	for _, want := range []string{"1 queue(s) no longer store their offset before that reset (it is below the queue's min offset): t b/0",
		"1 queue(s) of that reset were not found now and are left alone: t gone/0"} {
		if !strings.Contains(said, want) {
			t.Errorf("warnings %q do not say %q", said, want)
		}
	}
	if tgt, _ := clamp(u.before(rocketmq.MessageQueue{Topic: "t", BrokerName: "b", QueueID: 0}), 4, 20); tgt != 4 {
		t.Errorf("target %d, want the min offset 4", tgt)
	}
}
