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

// Copying another group's offsets on the real broker: after the reset each queue of the
// group is where the other group is, as our client and mqadmin read it.
func TestIntegrationCopyFromGroup(t *testing.T) {
	t.Parallel()
	e := newIT(t, false)
	other := dev.UniqueName("rstfrom")
	// The other group consumes everything there is now, and then goes away.
	oc := rmqclient.StartCountingConsumer(t, e.cl.NameServer, other, e.topic)
	otherOffsets := func() (map[int]int64, error) {
		s, err := e.c.ConsumeStats(ctxT(t), e.cl.Brokers[0].Addr, other, e.topic)
		if err != nil {
			return nil, err
		}
		out := map[int]int64{}
		for mq, o := range s.Offsets {
			out[mq.QueueID] = o.ConsumerOffset
		}
		return out, nil
	}
	want := map[int]int64{}
	for q, o := range e.offsets(t) {
		want[q] = o.BrokerOffset
	}
	dev.Eventually(t, 90*time.Second, "the other group consumes every message", func() error {
		got, err := otherOffsets()
		if err != nil {
			return err
		}
		for q, w := range want {
			if got[q] != w {
				return fmt.Errorf("offsets %v, want %v", got, want)
			}
		}
		return nil
	})
	oc.Stop()
	// Then the group being reset consumes four more.
	for i := 0; i < 4; i++ {
		e.send(t, fmt.Sprintf("later%d", i))
	}
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
	before := map[int]int64{}
	for q, o := range e.offsets(t) {
		before[q] = o.ConsumerOffset
	}
	from, err := otherOffsets()
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("group %s before the copy %v; group %s %v", e.group, before, other, from)

	p, entry := e.planApply(t, Request{Mode: ModeGroup, FromGroup: other, QueueID: AllQueues})
	if p.Copy == nil || len(p.Copy.NoOffset) != 0 {
		t.Errorf("copy %+v: the other group has an offset on every queue", p.Copy)
	}
	e.checkEntry(t, entry, from)
	e.checkBrokerOffsets(t, from)
	t.Logf("after the copy (mqadmin consumerProgress): %v", e.mqadminOffsets(t))
}
