package resets

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"rmqconsole/dev"
	"rmqconsole/dev/rmqclient"
	"rmqconsole/fault"
	"rmqconsole/lookup"
	"rmqconsole/rocketmq"
	"rmqconsole/store"
)

// One topic and one producer for the modes that start from a message or cover several
// groups: a real consumer's first message on the message's queue after a reset to a
// message is that message (the next one with skip), the other queue starts at the
// message's store time; a reset of the groups matching a pattern moves each group, and
// a system group the pattern matches is refused without stopping the others.
func TestIntegrationMessageAndSeveralGroups(t *testing.T) {
	t.Parallel()
	e := newIT(t, false)
	e.svc = New(Config{Admin: e.c, Audit: e.st.Audit(), NameServers: e.cl.NameServer, Finder: lookup.New(e.c, lookup.Options{})})
	broker := e.cl.Brokers[0]
	// The message: the first of the second batch on queue 0.
	mq := rocketmq.MessageQueue{Topic: e.topic, BrokerName: broker.Name, QueueID: 0}
	pulled, err := e.c.Pull(ctxT(t), broker.Addr, mq, e.firstB[0], 1)
	if err != nil || len(pulled.Messages) != 1 {
		t.Fatalf("pull the message at offset %d of queue 0: %v %+v", e.firstB[0], err, pulled)
	}
	msg := pulled.Messages[0]
	msgID := msg.OffsetMsgID()
	t.Run("refusals", func(t *testing.T) {
		for _, c := range []struct {
			name string
			req  Request
			want string
		}{
			{"unknown offsetMsgId", Request{MsgID: msgID[:16] + "00000000FFFFFFF0"}, "msgId"},
			{"message of another topic", Request{MsgID: msgID, Topic: e.topic + "x"}, "msgId"},
			{"no message", Request{}, "msgId"},
		} {
			c.req.Group, c.req.Mode, c.req.QueueID = e.group, ModeMessage, AllQueues
			_, err := e.svc.Plan(ctxT(t), c.req)
			fe := fault.As(err)
			if !fault.Is(err, fault.Invalid) || fe == nil || fe.Field != c.want {
				t.Errorf("%s: %v (field %v), want a refusal on %s", c.name, err, fe, c.want)
			} else {
				t.Logf("%s: %s", c.name, fe.Msg)
			}
		}
	})

	// A second group, offline, with offsets on the topic as a consumer commits them:
	// it skips past the message while the first re-consumes from it.
	other := dev.UniqueName("rstg2")
	commit := func(g string) {
		if err := e.c.UpdateSubscriptionGroup(ctxT(t), broker.Addr, rocketmq.SubscriptionGroupConfig{GroupName: g, ConsumeEnable: true}); err != nil {
			t.Fatal(err)
		}
		for q, o := range e.offsets(t) {
			mq := rocketmq.MessageQueue{Topic: e.topic, BrokerName: broker.Name, QueueID: q}
			if err := e.c.UpdateConsumerOffset(ctxT(t), broker.Addr, g, mq, o.BrokerOffset); err != nil {
				t.Fatal(err)
			}
		}
	}
	commit(other)

	t.Run("to a message", func(t *testing.T) {
		groups := map[bool]string{false: e.group, true: other}
		targets := map[bool]map[int]int64{}
		for _, skip := range []bool{false, true} {
			g := groups[skip]
			before := e.groupOffsets(t, g)
			p, err := e.svc.Plan(ctxT(t), Request{Group: g, Mode: ModeMessage, MsgID: msgID, Skip: skip, QueueID: AllQueues})
			if err != nil {
				t.Fatalf("preview: %v", err)
			}
			words := "Re-consume from message " + msgID
			if skip {
				words = "Skip past message " + msgID
			}
			if p.Message == nil || p.Message.Queue != mq || p.Message.Offset != msg.QueueOffset || !strings.Contains(p.Warnings[0].String(), words) {
				t.Errorf("plan message %+v, first warning %q", p.Message, p.Warnings[0])
			}
			entry, err := e.svc.Apply(ctxT(t), Confirmation{PlanID: p.ID, Request: p.Request, Confirmed: true, Who: alice})
			if err != nil || entry.Status != store.AuditApplied {
				t.Fatalf("apply: %v %+v", err, entry)
			}
			want := map[int]int64{}
			for _, q := range p.Queues {
				want[q.Queue.QueueID] = q.Target
			}
			if wantQ := msg.QueueOffset + map[bool]int64{false: 0, true: 1}[skip]; want[0] != wantQ {
				t.Errorf("queue 0 target %d, want %d", want[0], wantQ)
			}
			targets[skip] = want
			after := e.groupOffsets(t, g)
			for q, w := range want {
				if after[q] != w {
					t.Errorf("group %s queue %d read back at %d, want %d", g, q, after[q], w)
				}
			}
			t.Logf("group %s to message %s (skip %v): offsets before %v, after %v", g, msgID, skip, before, after)
		}

		// Real consumers start where the resets put them.
		cons := map[bool]*rmqclient.CountingConsumer{}
		for _, skip := range []bool{false, true} {
			cons[skip] = rmqclient.StartCountingConsumer(t, e.cl.NameServer, groups[skip], e.topic)
		}
		ends := e.offsets(t)
		dev.Eventually(t, 60*time.Second, "each consumer gets a message of each queue", func() error {
			for skip, c := range cons {
				for q := 0; q < e.queues; q++ {
					if targets[skip][q] < ends[q].BrokerOffset && c.Lowest(q) == nil {
						return fmt.Errorf("group %s: nothing from queue %d yet", groups[skip], q)
					}
				}
			}
			return nil
		})
		for skip, c := range cons {
			c.Stop()
			first := c.Lowest(0)
			switch {
			case !skip && (first.QueueOffset != msg.QueueOffset || first.OffsetMsgId != msgID):
				t.Errorf("first message on queue 0 is %s at %d, want message %s at %d", first.OffsetMsgId, first.QueueOffset, msgID, msg.QueueOffset)
			case skip && first.QueueOffset != msg.QueueOffset+1:
				t.Errorf("with skip, first message on queue 0 is at %d, want the one after message %s, %d", first.QueueOffset, msgID, msg.QueueOffset+1)
			}
			if o := c.Lowest(1); o != nil && (o.StoreTimestamp < msg.StoreTimestamp || o.QueueOffset != targets[skip][1]) {
				t.Errorf("first message on queue 1 stored %d at %d, want at or after %d at the target %d", o.StoreTimestamp, o.QueueOffset, msg.StoreTimestamp, targets[skip][1])
			}
			q1 := int64(-1)
			if o := c.Lowest(1); o != nil {
				q1 = o.QueueOffset
			}
			t.Logf("group %s consumed first: queue 0 offset %d (message %s), queue 1 offset %d", groups[skip], first.QueueOffset, first.OffsetMsgId, q1)
		}
	})

	t.Run("several groups", func(t *testing.T) {
		// A system group with offsets on the topic too: the pattern matches three groups.
		system := "CID_RMQ_SYS_" + dev.UniqueName("rst")
		commit(system)
		readAll := func() map[string]map[int]int64 {
			return map[string]map[int]int64{e.group: e.groupOffsets(t, e.group), other: e.groupOffsets(t, other)}
		}
		before := readAll()
		sp, err := e.svc.PlanSeveral(ctxT(t), SeveralRequest{Topic: e.topic, GroupPattern: "*",
			Request: Request{Mode: ModeEarliest, QueueID: AllQueues, Reason: "replay"}})
		if err != nil {
			t.Fatal(err)
		}
		planned := map[string]error{}
		for _, g := range sp.Groups {
			planned[g.Group] = g.Err
		}
		if len(sp.Groups) != 3 || planned[e.group] != nil || planned[other] != nil || !fault.Is(planned[system], fault.Invalid) {
			t.Fatalf("previews %+v: want %s and %s planned, %s refused", sp.Groups, e.group, other, system)
		}
		res, err := e.svc.ApplySeveral(ctxT(t), SeveralConfirmation{PlanID: sp.ID, Confirmed: true, Who: alice})
		if err != nil {
			t.Fatal(err)
		}
		after := readAll()
		t.Logf("several groups to earliest: before %v, after %v", before, after)
		for _, g := range []string{e.group, other} {
			for q, o := range after[g] {
				if o != 0 {
					t.Errorf("group %s queue %d at %d, want 0 (the earliest)", g, q, o)
				}
			}
		}
		sum := res.Summary
		links := SeveralLinks(sum)
		if sum.Status != store.AuditPartial || !strings.Contains(sum.Error.String(), system) || len(links) != 3 {
			t.Fatalf("summary %s %q links %+v", sum.Status, sum.Error, links)
		}
		for _, l := range links {
			switch {
			case l.Group == system && (l.AuditID != 0 || l.Error == ""):
				t.Errorf("system group's link %+v", l)
			case l.Group != system:
				got, err := e.st.Audit().Get(ctxT(t), l.AuditID)
				if err != nil || got.Group != l.Group || got.Status != store.AuditApplied {
					t.Errorf("link %+v: entry %+v %v", l, got, err)
				}
			}
		}
	})
}

// groupOffsets are a group's committed offsets on the topic per queue id, as the
// console's consumer progress reads them.
func (e *it) groupOffsets(t testing.TB, group string) map[int]int64 {
	t.Helper()
	s, err := e.c.ConsumeStats(ctxT(t), e.cl.Brokers[0].Addr, group, e.topic)
	if err != nil {
		t.Fatal(err)
	}
	out := map[int]int64{}
	for mq, o := range s.Offsets {
		out[mq.QueueID] = o.ConsumerOffset
	}
	return out
}
