package resets

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"rmqconsole/cluster/clustertest"
	"rmqconsole/lookup"
	"rmqconsole/rocketmq"
)

// countingFinder finds one message, counting the lookups.
type countingFinder struct {
	m     *rocketmq.Message
	calls atomic.Int32
}

func (f *countingFinder) ByID(ctx context.Context, q lookup.IDQuery) (*lookup.IDResult, error) {
	f.calls.Add(1)
	return &lookup.IDResult{Message: lookup.Message{BrokerName: "broker-a", Message: f.m}}, nil
}

// Resetting several groups to a message reads the message once, not once per group,
// and every group's queue of the message goes to it.
func TestSeveralGroupsToAMessageReadItOnce(t *testing.T) {
	e := newEnv(t)
	groups := []string{"g", "g2", "g3"}
	for _, g := range groups[1:] {
		e.fake.AddGroup(&clustertest.Group{Name: g})
		for i := range 4 {
			e.fake.SetOffset(g, mq("t", "broker-a", i), 8)
		}
	}
	f := &countingFinder{m: &rocketmq.Message{Topic: "t", QueueID: 2, QueueOffset: 3, StoreTimestamp: e.base.Add(3 * time.Second).UnixMilli()}}
	svc := New(Config{Admin: e.fake, Audit: e.st.Audit(), NameServers: "ns:9876", Finder: f})
	p, err := svc.PlanSeveral(context.Background(), SeveralRequest{Topic: "t", Groups: groups,
		Request: Request{Mode: ModeMessage, MsgID: "0A0000010000000000000001", QueueID: AllQueues}})
	if err != nil {
		t.Fatal(err)
	}
	for _, g := range p.Groups {
		if g.Err != nil {
			t.Fatalf("group %s: %v", g.Group, g.Err)
		}
		for _, q := range g.Plan.Queues {
			if q.Queue.QueueID == 2 && q.Target != 3 {
				t.Errorf("group %s: the message's queue goes to %d, want 3", g.Group, q.Target)
			}
		}
	}
	if n := f.calls.Load(); n != 1 {
		t.Errorf("the message was looked up %d times for %d groups, want once", n, len(groups))
	}
}
