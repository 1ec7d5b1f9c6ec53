package resets

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"rmqconsole/dev"
	"rmqconsole/dev/rmqclient"
	"rmqconsole/rocketmq"
)

// Reset to latest (skipping a backlog), let a real consumer consume a little, undo: the
// preview names the queue that moved since, and every queue is back at its offset
// before the reset, as our client and mqadmin read it.
func TestIntegrationUndoPutsEveryQueueBack(t *testing.T) {
	t.Parallel()
	e := newIT(t, false)
	for i := 0; i < 4; i++ {
		e.send(t, fmt.Sprintf("backlog%d", i))
	}
	e.waitLag(t, 4)
	before := map[int]int64{}
	for q, o := range e.offsets(t) {
		before[q] = o.ConsumerOffset
	}
	_, reset := e.planApply(t, Request{Mode: ModeLatest, QueueID: AllQueues})
	afterReset := map[int]int64{}
	for _, q := range reset.Result {
		afterReset[q.QueueID] = *q.After
	}
	t.Logf("before the reset %v, after it %v", before, afterReset)

	// A real consumer consumes one new message, on one queue.
	moved := e.send(t, "after the reset").MessageQueue.QueueId
	cons := rmqclient.StartCountingConsumer(t, e.cl.NameServer, e.group, e.topic)
	e.waitLag(t, 0)
	cons.Stop()
	dev.Eventually(t, 60*time.Second, "group goes offline", func() error {
		_, err := e.c.ConsumerConnections(ctxT(t), e.cl.Brokers[0].Addr, e.group)
		if errors.Is(err, rocketmq.ErrConsumerNotOnline) {
			return nil
		}
		return fmt.Errorf("connections: %v", err)
	})
	consumed := map[int]int64{}
	for q, o := range e.offsets(t) {
		consumed[q] = o.ConsumerOffset
	}
	t.Logf("after consuming one message on queue %d: %v", moved, consumed)

	p, err := e.svc.Plan(ctxT(t), Request{Group: e.group, Mode: ModeUndo, AuditID: reset.ID, QueueID: AllQueues, Reason: "skipped by mistake"})
	if err != nil {
		t.Fatalf("undo preview: %v", err)
	}
	if p.Undo == nil || len(p.Undo.Moved) != 1 || p.Undo.Moved[0].Queue.QueueID != moved ||
		p.Undo.Moved[0].Current != afterReset[moved]+1 || len(p.Undo.Unstored) != 0 || len(p.Undo.Missing) != 0 {
		t.Fatalf("undo preview names moved %+v, unstored %+v, missing %+v; want queue %d moved to %d", p.Undo.Moved, p.Undo.Unstored,
			p.Undo.Missing, moved, afterReset[moved]+1)
	}
	for _, q := range p.Queues {
		if q.Target != before[q.Queue.QueueID] {
			t.Errorf("queue %d: undo target %d, want %d (before the reset)", q.Queue.QueueID, q.Target, before[q.Queue.QueueID])
		}
	}
	undo, err := e.svc.Apply(ctxT(t), Confirmation{PlanID: p.ID, Request: p.Request, Confirmed: true, Who: alice})
	if err != nil {
		t.Fatalf("apply the undo: %v", err)
	}
	if UndoOf(undo) != reset.ID || undo.Mode != string(ModeUndo) {
		t.Errorf("undo entry %d (mode %s) names entry %d, want %d", undo.ID, undo.Mode, UndoOf(undo), reset.ID)
	}
	e.checkEntry(t, undo, before)
	e.checkBrokerOffsets(t, before)
	t.Logf("after the undo (mqadmin consumerProgress): %v", e.mqadminOffsets(t))
}
