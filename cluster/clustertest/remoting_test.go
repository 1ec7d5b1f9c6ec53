package clustertest

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"rmqconsole/rocketmq"
	"rmqconsole/rocketmq/rocketmqtest"
)

// servedFake is a fake of two brokers, one topic, an online and an offline group,
// served over remoting, and a client of it.
func servedFake(t *testing.T) (*Fake, *Remoting, *rocketmq.Client, string) {
	t.Helper()
	f := New()
	r := NewRemoting(f)
	t.Cleanup(r.Close)
	ns, err := r.Listen("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	a, _ := r.Listen("127.0.0.1:0")
	b, _ := r.Listen("127.0.0.1:0")
	f.AddBroker("broker-a", a)
	f.AddBroker("broker-b", b)
	base := time.UnixMilli(1_795_966_500_000)
	f.AddMessages("T", "broker-a", 4, 5, base)
	f.AddMessages("T", "broker-b", 4, 3, base)
	mq := rocketmq.MessageQueue{Topic: "T", BrokerName: "broker-a", QueueID: 1}
	f.AddGroup(&Group{Name: "on", Topics: []string{"T"}, Clients: []Client{{ID: "10.0.0.7@1", Holds: []rocketmq.MessageQueue{mq}}},
		Offsets: map[rocketmq.MessageQueue]int64{mq: 2}})
	f.AddGroup(&Group{Name: "off", Topics: []string{"T"}, Offsets: map[rocketmq.MessageQueue]int64{mq: 5}})
	f.SetRuntime(a, map[string]string{"brokerVersionDesc": "V5_3_3", "brokerVersion": "479", "putTps": "1.5 1.0 0.5"})
	return f, r, rocketmqtest.Client(t, rocketmq.Config{NameServer: ns, Timeout: 5 * time.Second}), a
}

// Over remoting the console's client decodes what the fake answers in process: the
// answers are written the way brokers write them, and read back the same.
func TestRemotingAnswersDecodeToTheFakesAnswers(t *testing.T) {
	f, r, c, a := servedFake(t)
	ctx := context.Background()
	mq := rocketmq.MessageQueue{Topic: "T", BrokerName: "broker-a", QueueID: 1}
	same := func(name string, over, direct any, errOver, errDirect error) {
		t.Helper()
		if errOver != nil || errDirect != nil {
			t.Errorf("%s: over remoting %v, in process %v", name, errOver, errDirect)
			return
		}
		// Printed, so an empty map or list equals a missing one: brokers write empty
		// tables where the fake keeps none.
		if fmt.Sprintf("%+v", over) != fmt.Sprintf("%+v", direct) {
			t.Errorf("%s:\nover remoting %+v\nin process    %+v", name, over, direct)
		}
	}
	ci1, e1 := c.ClusterInfo(ctx)
	ci2, e2 := f.ClusterInfo(ctx)
	same("cluster info", ci1, ci2, e1, e2)
	r1, e1 := c.TopicRoute(ctx, "T")
	r2, e2 := f.TopicRoute(ctx, "T")
	r2.Topic = "T"
	same("route", r1, r2, e1, e2)
	tl1, e1 := c.TopicList(ctx)
	tl2, e2 := f.TopicList(ctx)
	same("topic list", tl1, tl2, e1, e2)
	ts1, e1 := c.TopicStats(ctx, a, "T")
	ts2, e2 := f.TopicStats(ctx, a, "T")
	same("topic stats", ts1, ts2, e1, e2)
	cs1, e1 := c.ConsumeStats(ctx, a, "on", "")
	cs2, e2 := f.ConsumeStats(ctx, a, "on", "")
	same("consume stats", cs1, cs2, e1, e2)
	bcs1, e1 := c.BrokerConsumeStats(ctx, a)
	bcs2, e2 := f.BrokerConsumeStats(ctx, a)
	same("broker consume stats", bcs1.TotalDiff, bcs2.TotalDiff, e1, e2)
	for g := range bcs2.Groups {
		same("broker consume stats of "+g, bcs1.Groups[g], bcs2.Groups[g], e1, e2)
	}
	co1, e1 := c.ConsumerOffsets(ctx, a)
	co2, e2 := f.ConsumerOffsets(ctx, a)
	same("consumer offsets", co1, co2, e1, e2)
	cc1, e1 := c.ConsumerConnections(ctx, a, "on")
	cc2, e2 := f.ConsumerConnections(ctx, a, "on")
	cc2.ServerVersion = rocketmq.VersionOrdinal5_3_3
	same("connections", cc1, cc2, e1, e2)
	g1, e1 := c.TopicConsumerGroups(ctx, a, "T")
	g2, e2 := f.TopicConsumerGroups(ctx, a, "T")
	same("groups of topic", g1, g2, e1, e2)
	o1, e1 := c.QueryConsumerOffset(ctx, a, "off", mq)
	o2, e2 := f.QueryConsumerOffset(ctx, a, "off", mq)
	same("consumer offset", o1, o2, e1, e2)
	sp1, e1 := c.ConsumeTimeSpan(ctx, a, "T", "off")
	sp2, e2 := f.ConsumeTimeSpan(ctx, a, "T", "off")
	for i := range sp1 { // delayTime is measured by the wall clock at each answer
		sp1[i].DelayTime, sp2[i].DelayTime = 0, 0
	}
	same("time span", sp1, sp2, e1, e2)
	sg, err := c.SubscriptionGroups(ctx, a)
	if g := sg.Groups["on"]; err != nil || !g.ConsumeEnable || g.RetryMaxTimes != 16 || string(g.GroupRetryPolicy) != `{"type":"CUSTOMIZED"}` {
		t.Errorf("subscription groups: %v %+v", err, sg)
	}
	p1, e1 := c.Pull(ctx, a, mq, 1, 32)
	p2, e2 := f.Pull(ctx, a, mq, 1, 32)
	if e1 != nil || e2 != nil || len(p1.Messages) != len(p2.Messages) || p1.NextBeginOffset != p2.NextBeginOffset || p1.MaxOffset != p2.MaxOffset {
		t.Fatalf("pull: %+v %v / %+v %v", p1, e1, p2, e2)
	}
	m := p2.Messages[0]
	v, err := c.ViewMessage(ctx, m.OffsetMsgID(), "T")
	if err != nil || v.QueueOffset != m.QueueOffset || v.StoreTimestamp != m.StoreTimestamp || v.CommitLogOffset != m.CommitLogOffset || v.StoreHost != m.StoreHost {
		t.Errorf("view message %s: %+v %v, stored %+v", m.OffsetMsgID(), v, err, m)
	}
	ri, err := c.ConsumerRunningInfo(ctx, a, "on", "10.0.0.7@1", false)
	if err != nil || len(ri.MQTable) != 1 || ri.ClientVersion() != "v2.1.1" {
		t.Errorf("running info: %+v %v", ri, err)
	}
	max, err := c.MaxOffset(ctx, a, mq)
	if err != nil || max != 5 {
		t.Errorf("max offset %d %v, want 5", max, err)
	}
	if v, err := c.BrokerVersion(ctx, a); err != nil || v.String() != "5.3.3" {
		t.Errorf("broker version %v %v", v, err)
	}
	calls := r.Calls()
	if calls[rocketmq.CodeGetTopicStatsInfo].Requests != 1 || calls[rocketmq.CodeGetTopicStatsInfo].Bytes == 0 {
		t.Errorf("counted %+v", calls)
	}
	if u := r.Unanswered(); len(u) > 0 {
		t.Errorf("unanswered requests: %v", u)
	}
}

// A broker's "nothing here" answers keep their meaning over remoting.
func TestRemotingAnswersErrorsWithTheBrokersCodes(t *testing.T) {
	_, _, c, a := servedFake(t)
	ctx := context.Background()
	if _, err := c.TopicRoute(ctx, "nope"); !errorsIs(err, rocketmq.ErrTopicNotFound) {
		t.Errorf("route of an unknown topic: %v", err)
	}
	if _, err := c.ConsumerConnections(ctx, a, "off"); !errorsIs(err, rocketmq.ErrConsumerNotOnline) {
		t.Errorf("connections of an offline group: %v", err)
	}
	if _, err := c.ConsumerIDs(ctx, a, "off"); !errorsIs(err, rocketmq.ErrConsumerNotOnline) {
		t.Errorf("ids of an offline group: %v", err)
	}
	mq := rocketmq.MessageQueue{Topic: "T", BrokerName: "broker-a", QueueID: 3}
	if _, err := c.QueryConsumerOffset(ctx, a, "off", mq); !errorsIs(err, rocketmq.ErrNoConsumerOffset) {
		t.Errorf("offset never committed: %v", err)
	}
	if _, err := c.ViewMessageAt(ctx, a, 1<<40, "T"); !errorsIs(err, rocketmq.ErrMessageNotFound) {
		t.Errorf("no message at the offset: %v", err)
	}
}

func errorsIs(err, target error) bool { return errors.Is(err, target) }
