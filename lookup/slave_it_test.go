package lookup

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/apache/rocketmq-client-go/v2/primitive"

	"rmqconsole/dev"
	"rmqconsole/dev/rmqclient"
	"rmqconsole/i18n"
	"rmqconsole/rocketmq"
	"rmqconsole/rocketmq/rocketmqtest"
)

// On a real cluster of two masters, each with a slave: with broker-a's master frozen
// (SIGSTOP), every lookup still finds broker-a's messages, from its slave, and says so
// (the broker, its master's and its slave's addresses); the message page reads a group's
// offset from the slave too. Nothing is named as failed: the answer is whole.
func TestReadsFallBackToTheSlaveOfAFrozenMaster(t *testing.T) {
	if testing.Short() {
		t.Skip("needs the local RocketMQ")
	}
	cl := dev.RequirePrivateClusterWithSlaves(t)
	if len(cl.Slaves) != 2 {
		t.Fatalf("slaves %v, want one per master", cl.Slaves)
	}
	const timeout = 2 * time.Second
	c := rocketmqtest.Client(t, rocketmq.Config{NameServer: cl.NameServer, Timeout: timeout, RouteTTL: -1, Credentials: rocketmq.Credentials(dev.TestAccount(cl.NameServer))})
	svc := New(c, Options{})
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Minute)
	defer cancel()
	topic, group := dev.UniqueName("lks"), dev.UniqueName("lksg")
	if err := cl.CreateTopic(ctx, topic, 2); err != nil {
		t.Fatal(err)
	}
	key := dev.UniqueName("k")
	p := rmqclient.StartProducer(t, cl.NameServer, "")
	begin := time.Now().Add(-time.Second)
	var onA *primitive.SendResult
	for i := range 8 {
		m := primitive.NewMessage(topic, []byte(fmt.Sprint("m", i)))
		m.WithKeys([]string{key})
		r, err := p.SendSync(ctx, m)
		if err != nil || r.Status != primitive.SendOK {
			t.Fatalf("send: %v %v", r, err)
		}
		if r.MessageQueue.BrokerName == "broker-a" && onA == nil {
			onA = r
		}
	}
	if onA == nil {
		t.Fatal("no message went to broker-a")
	}
	master, slave := cl.Brokers[0].Addr, cl.Slaves[0].Addr
	mq := rocketmq.MessageQueue{Topic: topic, BrokerName: "broker-a", QueueID: onA.MessageQueue.QueueId}
	const committed = 1 // the group has consumed broker-a's first message of that queue, if any
	if err := c.UpdateSubscriptionGroup(ctx, master, rocketmq.SubscriptionGroupConfig{GroupName: group, ConsumeEnable: true}); err != nil {
		t.Fatal(err)
	}
	if err := c.UpdateConsumerOffset(ctx, master, group, mq, committed); err != nil {
		t.Fatal(err)
	}
	// The slave must hold it all first: the messages and their index (replicated at
	// once), and the group's offset (synchronised every few seconds).
	rq := RangeQuery{Topic: topic, Begin: begin, End: time.Now().Add(time.Minute)}
	dev.Eventually(t, 90*time.Second, "broker-a's slave holds the messages, the key index and the offset", func() error {
		r, err := c.QueryMessageByKey(ctx, slave, topic, key, KeyLimit, time.Time{}, time.Time{})
		if err != nil {
			return err
		}
		mr, err := c.QueryMessageByKey(ctx, master, topic, key, KeyLimit, time.Time{}, time.Time{})
		if err != nil {
			return err
		}
		if len(r.Messages) != len(mr.Messages) {
			return fmt.Errorf("slave indexes %d, master %d", len(r.Messages), len(mr.Messages))
		}
		off, err := c.QueryConsumerOffset(ctx, slave, group, mq)
		if err != nil || off != committed {
			return fmt.Errorf("slave offset %d (%v), want %d", off, err, committed)
		}
		return nil
	})

	if err := cl.Freeze("broker-a"); err != nil {
		t.Fatal(err)
	}
	thawed := false
	thaw := func() {
		if !thawed {
			thawed = true
			if err := cl.Thaw("broker-a"); err != nil {
				t.Error(err)
			}
		}
	}
	defer thaw()

	fromSlave := func(what string, srs []SlaveRead, fails []BrokerFailure) {
		t.Helper()
		if len(fails) != 0 {
			t.Errorf("%s: failures %v, want none (the slave answers)", what, fails)
		}
		if len(srs) != 1 || srs[0].Broker != "broker-a" || srs[0].Master != master || srs[0].Slave != slave {
			t.Errorf("%s: from slaves %+v, want broker-a's slave %s", what, srs, slave)
			return
		}
		s := srs[0].Message(i18n.M("cluster.slave.what.rows")).String()
		if !strings.Contains(s, "broker-a's master "+master+" did not answer") || !strings.Contains(s, "come from its slave "+slave) {
			t.Errorf("%s: %q", what, s)
		}
		t.Logf("%s: %s", what, s)
	}
	start := time.Now()
	res, err := svc.ByRange(ctx, rq)
	took := time.Since(start)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("range with broker-a's master frozen: %v (broker-call timeout %v)", took, timeout)
	if res.Total != 8 || len(res.Messages) != 8 {
		t.Errorf("range: total %d, %d messages, want all 8", res.Total, len(res.Messages))
	}
	fromSlave("range", res.FromSlaves, res.Failures)

	kres, err := svc.ByKey(ctx, KeyQuery{Topic: topic, Key: key})
	if err != nil {
		t.Fatal(err)
	}
	if len(kres.Messages) != 8 {
		t.Errorf("key: %d messages, want 8", len(kres.Messages))
	}
	fromSlave("key", kres.FromSlaves, kres.Failures)

	ures, err := svc.ByID(ctx, IDQuery{ID: onA.MsgID, Topic: topic})
	if err != nil {
		t.Fatal(err)
	}
	if ures.Message.MsgID() != onA.MsgID {
		t.Errorf("unique key: found %s", ures.Message.MsgID())
	}
	fromSlave("unique key", ures.FromSlaves, ures.Failures)

	ores, err := svc.ByID(ctx, IDQuery{ID: onA.OffsetMsgID})
	if err != nil {
		t.Fatal(err)
	}
	if ores.Message.MsgID() != onA.MsgID || ores.Kind != rocketmq.IDOffsetMsgID {
		t.Errorf("offsetMsgId: found %s (%v)", ores.Message.MsgID(), ores.Kind)
	}
	fromSlave("offsetMsgId", ores.FromSlaves, nil)

	gs, err := svc.Groups(ctx, ores.Message, ores.Failures...)
	if err != nil {
		t.Fatal(err)
	}
	fromSlave("group states", gs.FromSlaves, gs.Failures)
	var st *GroupState
	for i := range gs.States {
		if gs.States[i].Group == group {
			st = &gs.States[i]
		}
	}
	if st == nil || st.ConsumerOffset != committed || st.State != Offline {
		t.Errorf("group %s: %+v, want offline at offset %d, read from the slave", group, st, committed)
	}

	// Thawed, the master answers again and nothing is said about slaves once the
	// cluster layer stops putting the master last (30 s); the answer stays whole.
	thaw()
	res, err = svc.ByRange(ctx, rq)
	if err != nil || res.Total != 8 || len(res.Failures) != 0 {
		t.Errorf("after thaw: %v, total %d, failures %v", err, res.Total, res.Failures)
	}
}
