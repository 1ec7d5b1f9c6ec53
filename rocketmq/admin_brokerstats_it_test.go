package rocketmq

import (
	"fmt"
	"testing"
	"time"

	"rmqconsole/dev"
	"rmqconsole/dev/rmqclient"
)

// TestIntegrationBrokerConsumeStats checks that the one-request stats of every group
// agree, queue by queue, with each group's own GET_CONSUME_STATS: for an offline group
// with offsets, a configured group with none, and an online consumer.
func TestIntegrationBrokerConsumeStats(t *testing.T) {
	t.Parallel()
	e := newITEnv(t)
	topic := e.createTopic(t, "it-bcs", 4)
	other := e.createTopic(t, "it-bcs-other", 2)
	offline, empty, online := dev.UniqueName("it-bcs-off"), dev.UniqueName("it-bcs-none"), dev.UniqueName("it-bcs-on")
	p := rmqclient.StartProducer(t, e.cluster.NameServer, dev.UniqueName("it-bcs-pg"))
	for i := range 12 {
		sendGo(t, p, topic, fmt.Sprintf("m%d", i), nil, "T", nil)
	}
	ctx := t.Context()
	for _, g := range []string{offline, empty} {
		if err := e.c.UpdateSubscriptionGroup(ctx, e.addr, SubscriptionGroupConfig{GroupName: g, ConsumeEnable: true, RetryMaxTimes: 16, RetryQueueNums: 1}); err != nil {
			t.Fatal(err)
		}
	}
	route, err := e.c.TopicRoute(ctx, topic)
	if err != nil {
		t.Fatal(err)
	}
	for _, mq := range route.ReadQueues() {
		if err := e.c.UpdateConsumerOffset(ctx, e.addr, offline, mq, 1); err != nil {
			t.Fatal(err)
		}
	}
	c := rmqclient.StartCountingConsumer(t, e.cluster.NameServer, online, topic)
	dev.Eventually(t, 60*time.Second, "the online group commits every message", func() error {
		cs, err := e.c.ConsumeStats(ctxT(t), e.addr, online, "")
		if err != nil {
			return err
		}
		if n, _ := c.Counts(); n < 12 || cs.TotalLag() != 0 || len(cs.Offsets) < 4 {
			return fmt.Errorf("consumed %d, lag %d over %d queues", n, cs.TotalLag(), len(cs.Offsets))
		}
		return nil
	})
	// The online group also has an offset on a topic it does not subscribe to: the
	// per-group stats skip it (the group has subscriptions).
	otherRoute, err := e.c.TopicRoute(ctx, other)
	if err != nil {
		t.Fatal(err)
	}
	if err := e.c.UpdateConsumerOffset(ctx, e.addr, online, otherRoute.ReadQueues()[0], 0); err != nil {
		t.Fatal(err)
	}

	e.capture(t, "broker_consume_stats", CodeGetBrokerConsumeStats, e.addr, map[string]string{"isOrder": "false"})
	all, err := e.c.BrokerConsumeStats(ctx, e.addr)
	if err != nil {
		t.Fatal(err)
	}
	if all.BrokerAddr == "" {
		t.Error("no brokerAddr")
	}
	if cs, ok := all.Groups[empty]; !ok || len(cs.Offsets) != 0 {
		t.Errorf("group without offsets: %+v (listed %v)", cs, ok)
	}
	for _, g := range []string{offline, online} {
		want, err := e.c.ConsumeStats(ctx, e.addr, g, "")
		if err != nil {
			t.Fatal(err)
		}
		got := all.Groups[g]
		if got == nil {
			t.Fatalf("group %s missing from the broker's stats", g)
		}
		for mq, w := range want.Offsets {
			o, ok := got.Offsets[mq]
			if !ok || o.BrokerOffset != w.BrokerOffset || o.ConsumerOffset != w.ConsumerOffset || o.LastTimestamp != w.LastTimestamp {
				t.Errorf("%s %s: broker-wide %+v (%v), per group %+v", g, mq, o, ok, w)
			}
		}
		extra := 0
		for mq := range got.Offsets {
			if _, ok := want.Offsets[mq]; !ok {
				extra++
				t.Logf("%s %s: only in the broker-wide stats", g, mq)
			}
		}
		if g == offline && extra > 0 {
			t.Errorf("%s: %d queues only in the broker-wide stats", g, extra)
		}
	}

	// The offset table has the same committed offsets, and keeps the online group's
	// offset on the topic it does not subscribe to.
	e.capture(t, "consumer_offsets", CodeGetAllConsumerOffset, e.addr, nil)
	table, err := e.c.ConsumerOffsets(ctx, e.addr)
	if err != nil {
		t.Fatal(err)
	}
	// A client may commit -1 for a queue it has not consumed from (Go clients do for the
	// retry topic): the table keeps it as committed, consume stats show it as 0.
	for _, g := range []string{offline, online} {
		for mq, o := range all.Groups[g].Offsets {
			if got, ok := table[g][mq.Topic][mq.QueueID]; !ok || max(got, 0) != o.ConsumerOffset {
				t.Errorf("%s %s: offset table %d (%v), consume stats %d", g, mq, got, ok, o.ConsumerOffset)
			}
		}
	}
	if _, ok := table[online][other][0]; !ok {
		t.Errorf("the offset table lacks %s's offset on %s: %v", online, other, table[online])
	}
	if _, ok := table[empty]; ok {
		t.Errorf("the offset table has the group without offsets: %v", table[empty])
	}
}
