package groups

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"rmqconsole/dev"
	"rmqconsole/rocketmq"
)

// Two clients of one group subscribe differently (a deployment gone half-way): one to a
// and b, the other to a alone. A broker keeps, per group, the subscriptions of the client
// that heartbeated last, and its consume stats leave out every topic that table lacks:
// from the second client's start until the first one's next heartbeat (clients heartbeat
// every 30 s) the broker knows topic a only. In that window the list and the group page
// must still count b — the demo's half-deployed group showed a lag of 3 there while b
// held 270.
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
	dev.StartConsumerProcess(t, it.cl.NameServer, group, a, b)
	// The console sees the wide client's subscriptions once, as its collector does.
	dev.Eventually(t, 60*time.Second, "the list seeing the client of both topics", func() error {
		l, err := it.svc.List(ctx, true)
		if err != nil {
			return err
		}
		if g := find(l, group); g == nil || !slices.Contains(g.Topics, b) {
			return fmt.Errorf("row %+v", g)
		}
		return nil
	})
	tableHas := func(topic string) bool {
		cc, err := it.c.ConsumerConnections(ctx, br.Addr, group)
		if err != nil {
			t.Fatal(err)
		}
		_, ok := cc.Subscriptions[topic]
		return ok
	}
	dev.StartConsumerProcess(t, it.cl.NameServer, group, a)
	witnessed := 0
	for deadline := time.Now().Add(25 * time.Second); time.Now().Before(deadline) && witnessed < 3; {
		if tableHas(b) {
			time.Sleep(500 * time.Millisecond)
			continue
		}
		l, lerr := it.svc.List(ctx, true)
		d, derr := it.svc.Detail(ctx, group)
		if tableHas(b) {
			continue // the wide client heartbeated meanwhile: this read proves nothing
		}
		witnessed++
		if lerr != nil || derr != nil {
			t.Fatal(lerr, derr)
		}
		g := find(l, group)
		if g == nil || !slices.Contains(g.Topics, b) || counted(g.Queues, b) != 2 {
			t.Fatalf("while the broker knew only %s, the list's row counted %d queues of %s: %+v", a, counted(g.Queues, b), b, g)
		}
		if counted(d.Queues, b) != 2 {
			t.Fatalf("while the broker knew only %s, the group page counted %d queues of %s (total %v, %s)", a, counted(d.Queues, b), b, d.TotalLag, d.TotalLagNote.String())
		}
	}
	if witnessed == 0 {
		t.Fatalf("the broker's subscription table never lacked %s after the narrow client started: nothing was tested", b)
	}
}

// counted is how many queues of topic have a known lag.
func counted(qs []QueueLag, topic string) int {
	n := 0
	for _, q := range qs {
		if q.Topic == topic && q.Lag != nil {
			n++
		}
	}
	return n
}
