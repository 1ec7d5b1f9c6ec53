package groups

import (
	"fmt"
	"testing"
	"time"

	"rmqconsole/dev"
	"rmqconsole/rocketmq"
)

// Two clients of one group subscribe to different topics (a half-done deployment): the
// broker's consume stats hold only the topics of the client that heartbeated last, yet the
// group page and the list count the lag of both topics, read after read.
func TestTotalLagCountsEveryTopicTheClientsSubscribeTo(t *testing.T) {
	it := newIT(t)
	a := it.topicOnOneBroker(t, "grp-half-a", 2)
	b := it.topicOnOneBroker(t, "grp-half-b", 2)
	group := dev.UniqueName("grp-half-cg")
	br := it.cl.Brokers[0]
	ctx := t.Context()
	if err := it.c.UpdateSubscriptionGroup(ctx, br.Addr, rocketmq.SubscriptionGroupConfig{GroupName: group, ConsumeEnable: true, RetryMaxTimes: 16, RetryQueueNums: 1}); err != nil {
		t.Fatal(err)
	}
	for _, topic := range []string{a, b} {
		for qid := range 2 {
			if err := it.c.UpdateConsumerOffset(ctx, br.Addr, group, rocketmq.MessageQueue{Topic: topic, BrokerName: br.Name, QueueID: qid}, 0); err != nil {
				t.Fatal(err)
			}
		}
	}
	// Each client is given one queue of each topic and consumes the one of its own
	// topic: one queue of each topic keeps its 3 messages, 6 in all.
	dev.StartConsumerProcess(t, it.cl.NameServer, group, a)
	dev.StartConsumerProcess(t, it.cl.NameServer, group, b)
	// Messages come once each client holds its queues: the first client to start would
	// otherwise consume both queues of its topic before the second joins.
	dev.Eventually(t, 90*time.Second, "each client holding one queue of each topic", func() error {
		d, err := it.svc.Detail(ctx, group)
		if err != nil {
			return err
		}
		owned := map[string]int{}
		for _, q := range d.Queues {
			if q.Owner != "" && len(q.Owners) == 0 {
				owned[q.Topic]++
			}
		}
		if len(d.Clients) != 2 || owned[a] != 1 || owned[b] != 1 {
			return fmt.Errorf("clients %d, owned queues by topic %v", len(d.Clients), owned)
		}
		return nil
	})
	it.send(t, a, 6)
	it.send(t, b, 6)
	byTopic := func(qs []QueueLag) map[string]int64 {
		out := map[string]int64{}
		for _, q := range qs {
			if q.Lag != nil {
				out[q.Topic] += *q.Lag
			}
		}
		return out
	}
	dev.Eventually(t, 90*time.Second, "the page's total lag counts both topics", func() error {
		d, err := it.svc.Detail(ctx, group)
		if err != nil {
			return err
		}
		if by := byTopic(d.Queues); len(d.Clients) != 2 || d.TotalLag == nil || *d.TotalLag != 6 || by[a] != 3 || by[b] != 3 {
			return fmt.Errorf("clients %d, total %v (%s), by topic %v", len(d.Clients), d.TotalLag, d.TotalLagNote.String(), byTopic(d.Queues))
		}
		return nil
	})
	// The broker's subscription table changes with each client's heartbeat: every read
	// of the list must count both topics.
	for i := range 5 {
		l, err := it.svc.List(ctx, true)
		if err != nil {
			t.Fatal(err)
		}
		g := find(l, group)
		if g == nil || g.TotalLag == nil || *g.TotalLag != 6 {
			var by []string
			if g != nil {
				for _, q := range g.Queues {
					by = append(by, fmt.Sprintf("%s/%d max %v committed %v lag %v", q.Topic, q.QueueID, deref(q.BrokerOffset), deref(q.ConsumerOffset), deref(q.Lag)))
				}
			}
			t.Fatalf("list read %d: total %v, by topic %v, want 6 over both topics", i, g.TotalLag, by)
		}
	}
}

func deref(p *int64) any {
	if p == nil {
		return nil
	}
	return *p
}
