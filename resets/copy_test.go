package resets

import (
	"context"
	"strings"
	"testing"

	"rmqconsole/cluster/clustertest"
	"rmqconsole/store"
)

// Copying another group's offsets moves each queue to that group's committed offset;
// the queues it has no offset on are named and left alone.
func TestCopyFromGroupTakesItsOffsetsAndLeavesTheRest(t *testing.T) {
	e := newEnv(t, func(e *env) {
		e.fake.AddGroup(&clustertest.Group{Name: "h"})
		e.fake.SetOffset("h", mq("t", "broker-a", 0), 2)
		e.fake.SetOffset("h", mq("t", "broker-a", 1), 9)
	})
	p := e.plan(t, Request{Group: "g", Topic: "t", Mode: ModeGroup, FromGroup: "h", QueueID: AllQueues})
	got := map[int]int64{}
	for _, q := range p.Queues {
		got[q.Queue.QueueID] = q.Target
	}
	if want := map[int]int64{0: 2, 1: 9, 2: 6, 3: 6}; !equalMaps(got, want) {
		t.Errorf("targets %v, want %v", got, want)
	}
	if p.Copy == nil || len(p.Copy.NoOffset) != 2 || p.Copy.NoOffset[0].QueueID != 2 || p.Copy.NoOffset[1].QueueID != 3 {
		t.Fatalf("copy %+v, want queues 2 and 3 without an offset of h", p.Copy)
	}
	warned := ""
	for _, w := range p.Warnings {
		warned += w.String() + "\n"
	}
	if !strings.Contains(warned, "2 queue(s) have no offset of group h and are left alone: t broker-a/2, t broker-a/3") {
		t.Errorf("warnings %q", warned)
	}
	if a := p.Action().String(); !strings.Contains(a, "to the offsets of group h") {
		t.Errorf("action %q", a)
	}
	entry := e.apply(t, p)
	if entry.Status != store.AuditApplied || entry.Mode != "group" || !strings.Contains(string(entry.Params), `"fromGroup":"h"`) {
		t.Fatalf("entry %s %s %s", entry.Status, entry.Mode, entry.Params)
	}
	for i, want := range []int64{2, 9, 6, 6} {
		if off := e.fake.Offset("g", mq("t", "broker-a", i)); off != want {
			t.Errorf("queue %d at %d, want %d", i, off, want)
		}
	}
}

func TestCopyFromGroupRefusals(t *testing.T) {
	e := newEnv(t, func(e *env) { e.fake.AddGroup(&clustertest.Group{Name: "empty"}) })
	for _, tc := range []struct {
		name, from, says string
	}{
		{"no group", "", "Name the group whose offsets to copy"},
		{"itself", "g", "cannot copy its own offsets"},
		{"bad name", "a b", "not a valid consumer group name"},
		{"no offsets", "empty", "Group empty has no committed offset on any queue of t"},
	} {
		_, err := e.svc.Plan(context.Background(), Request{Group: "g", Topic: "t", Mode: ModeGroup, FromGroup: tc.from, QueueID: AllQueues})
		if !strings.Contains(inputOn(err, "fromGroup"), tc.says) {
			t.Errorf("%s: %v, want %q on fromGroup", tc.name, err, tc.says)
		}
	}
	if e.fake.Writes() != 0 || len(e.entries(t)) != 0 {
		t.Errorf("refused copies wrote %d offsets, %d entries", e.fake.Writes(), len(e.entries(t)))
	}
}
