package deadletters

import (
	"context"
	"fmt"
	"testing"
	"time"

	"rmqconsole/cluster"
	"rmqconsole/dev"
	"rmqconsole/rocketmq"
	"rmqconsole/rocketmq/rocketmqtest"
)

// A POP group's retry topic is per topic it consumes (%RETRY%<group>_<topic>): before
// anything is revived it does not exist; once a real gRPC SimpleConsumer leaves a message
// unacknowledged past its invisible time, it holds that message, and the push consumers'
// %RETRY%<group> stays uncreated.
func TestIntegrationPOPRetryTopicsHoldRevivedMessages(t *testing.T) {
	if testing.Short() {
		t.Skip("needs the local RocketMQ and its Proxy")
	}
	cl := dev.RequireProxy(t)
	c := rocketmqtest.Client(t, rocketmq.Config{NameServer: cl.NameServer, Timeout: 10 * time.Second, Credentials: rocketmq.Credentials(dev.TestAccount(cl.NameServer))})
	svc := New(Config{Admin: c, Cluster: cluster.New(c, cluster.Options{}), NameServers: cl.NameServer})
	ctx, cancel := context.WithTimeout(t.Context(), 4*time.Minute)
	defer cancel()
	topic := dev.UniqueName("dl-pop")
	if err := cl.CreateTopicOn(ctx, topic, 2, cl.Brokers[0]); err != nil {
		t.Fatal(err)
	}
	group := dev.UniqueName("dl-pop-g")
	before, err := svc.PopRetryTopics(ctx, group, []string{topic})
	if err != nil {
		t.Fatal(err)
	}
	if len(before) != 1 || before[0].Topic != rocketmq.PopRetryTopicV1(group, topic) || before[0].Exists {
		t.Fatalf("before any revive: %+v; want %s, not created", before, rocketmq.PopRetryTopicV1(group, topic))
	}

	if _, err := dev.GRPCSend(ctx, cl, topic, 3, ""); err != nil {
		t.Fatal(err)
	}
	consumer := dev.StartGRPCConsumer(t, cl, group, topic, dev.GRPCConsumerOptions{Simple: true, Receive: 2, LeaveUnacked: 1, Invisible: 10 * time.Second})
	if err := consumer.WaitReceived(90 * time.Second); err != nil {
		t.Fatal(err)
	}
	dev.Eventually(t, 2*time.Minute, "the unacknowledged message revived into the POP retry topic", func() error {
		got, err := svc.PopRetryTopics(ctx, group, []string{topic})
		if err != nil {
			return err
		}
		if len(got) != 1 || !got[0].Exists || got[0].Stored != 1 {
			return fmt.Errorf("POP retry topics %+v; want %s storing 1", got, rocketmq.PopRetryTopicV1(group, topic))
		}
		return nil
	})
	gt, err := svc.Topics(ctx, group)
	if err != nil {
		t.Fatal(err)
	}
	if gt.Retry.Exists {
		t.Errorf("the push retry topic %s exists for a POP group", gt.Retry.Topic)
	}
}
