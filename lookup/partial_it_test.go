package lookup

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/apache/rocketmq-client-go/v2/primitive"

	"rmqconsole/dev"
	"rmqconsole/dev/rmqclient"
	"rmqconsole/rocketmq"
	"rmqconsole/rocketmq/rocketmqtest"
)

// On a real cluster of this test binary's own (two masters, each with a slave): with
// broker-b frozen (SIGSTOP, master and slave), the message page (the unique-key lookup,
// then each group's state) answers within about one broker-call timeout and names
// broker-b; with broker-b killed (the NameServer drops it from the route), a range query
// names it as gone instead of a smaller total.
func TestFrozenThenKilledBrokerOnARealCluster(t *testing.T) {
	if testing.Short() {
		t.Skip("needs the local RocketMQ")
	}
	cl := dev.RequirePrivateClusterWithSlaves(t)
	const timeout = 2 * time.Second
	c := rocketmqtest.Client(t, rocketmq.Config{NameServer: cl.NameServer, Timeout: timeout, RouteTTL: -1, Credentials: rocketmq.Credentials(dev.TestAccount(cl.NameServer))})
	svc := New(c, Options{})
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Minute)
	defer cancel()
	topic := dev.UniqueName("lkp")
	if err := cl.CreateTopic(ctx, topic, 2); err != nil {
		t.Fatal(err)
	}
	p := rmqclient.StartProducer(t, cl.NameServer, "")
	begin := time.Now().Add(-time.Second)
	var onA string
	for i := range 8 {
		r, err := p.SendSync(ctx, primitive.NewMessage(topic, []byte(fmt.Sprint("m", i))))
		if err != nil || r.Status != primitive.SendOK {
			t.Fatalf("send: %v %v", r, err)
		}
		if r.MessageQueue.BrokerName == "broker-a" && onA == "" {
			onA = r.MsgID
		}
	}
	if onA == "" {
		t.Fatal("no message went to broker-a")
	}
	q := IDQuery{ID: onA, Topic: topic}
	dev.Eventually(t, 30*time.Second, "the unique key is indexed", func() error {
		_, err := svc.ByID(ctx, q)
		return err
	})

	for _, p := range []string{"broker-b", "broker-b-s"} {
		if err := cl.Freeze(p); err != nil {
			t.Fatal(err)
		}
	}
	start := time.Now()
	r, err := svc.ByID(ctx, q)
	var groupFails []BrokerFailure
	if err == nil {
		var gs *GroupStates
		if gs, err = svc.Groups(ctx, r.Message, r.Failures...); err == nil {
			groupFails = gs.Failures
		}
	}
	took := time.Since(start)
	for _, p := range []string{"broker-b", "broker-b-s"} {
		if err := cl.Thaw(p); err != nil {
			t.Fatal(err)
		}
	}
	t.Logf("message page with broker-b frozen: %v (broker-call timeout %v)", took, timeout)
	if err != nil {
		t.Fatalf("with broker-b frozen: %v", err)
	}
	if len(r.Failures) != 1 || r.Failures[0].Broker != "broker-b" || len(groupFails) != 0 {
		t.Errorf("failures %v, then %v: want broker-b named once", r.Failures, groupFails)
	}
	// The master is asked, then its slave: one broker-call timeout each, never more.
	if took > timeout*5/2 {
		t.Errorf("the message page took %v with one broker (master and slave) frozen, want about two broker-call timeouts (%v each)", took, timeout)
	}

	rq := RangeQuery{Topic: topic, Begin: begin, End: time.Now().Add(time.Minute)}
	dev.Eventually(t, 30*time.Second, "broker-b answers again", func() error {
		res, err := svc.ByRange(ctx, rq)
		if err == nil && (len(res.Failures) > 0 || res.Total != 8) {
			err = fmt.Errorf("total %d, failures %v", res.Total, res.Failures)
		}
		return err
	})
	// Its slave alone would keep broker-b in the route (and answer the range).
	for _, p := range []string{"broker-b-s", "broker-b"} {
		if err := cl.KillBroker(p); err != nil {
			t.Fatal(err)
		}
	}
	t.Cleanup(func() {
		if err := cl.RestartBrokers(context.Background(), "broker-b", "broker-b-s"); err != nil {
			t.Errorf("restart broker-b: %v", err)
		}
	})
	dev.Eventually(t, 60*time.Second, "the NameServer drops broker-b from the route", func() error {
		r, err := c.TopicRoute(ctx, topic)
		if err != nil {
			return err
		}
		if _, ok := r.Broker("broker-b"); ok {
			return errors.New("still routed")
		}
		return nil
	})
	res, err := svc.ByRange(ctx, rq)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Failures) != 1 || res.Failures[0].Broker != "broker-b" || !res.Failures[0].Gone() || res.Total >= 8 {
		t.Errorf("killed broker-b: total %d, failures %v; want broker-b named as gone", res.Total, res.Failures)
	}
}
