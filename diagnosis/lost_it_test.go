package diagnosis

import (
	"bytes"
	"context"
	"fmt"
	"testing"
	"time"

	"rmqconsole/cluster"
	"rmqconsole/dev"
	"rmqconsole/groups"
	"rmqconsole/rocketmq"
	"rmqconsole/rocketmq/rocketmqtest"
)

// TestMessagesLostWhenTheBrokerDeletesWhatAGroupHasNotRead makes a real broker delete
// messages a group has not read: the group commits offset 1 of a queue, more than one
// commit-log file (64 MiB in the dev harness) is written after it, and the broker is
// told to keep files no hours (fileReservedTime=0) and to delete expired files now
// (mqadmin deleteExpiredCommitLog). The queue's min offset then rises above the
// committed offset, and the collector's read of the group list shows it as messagesLost;
// a reset to the min offset removes it. It runs on the package's private cluster (with slaves): the
// shared one's other tests keep their messages.
func TestMessagesLostWhenTheBrokerDeletesWhatAGroupHasNotRead(t *testing.T) {
	if testing.Short() {
		t.Skip("needs the local RocketMQ")
	}
	cl := dev.RequirePrivateClusterWithSlaves(t) // the package's one private cluster, shared with the slave test
	c := rocketmqtest.Client(t, rocketmq.Config{NameServer: cl.NameServer, Timeout: 30 * time.Second,
		Credentials: rocketmq.Credentials(dev.TestAccount(cl.NameServer))})
	cc := cluster.New(c, cluster.Options{})
	svc := groups.NewService(c, groups.Options{Cluster: cc})
	eng := New(Options{Cluster: cc})

	ctx, cancel := context.WithTimeout(t.Context(), 4*time.Minute)
	defer cancel()
	broker := cl.Brokers[0]
	topic, group := dev.UniqueName("diag-lost"), dev.UniqueName("diag-lost-cg")
	if err := cl.CreateTopicOn(ctx, topic, 1, broker); err != nil {
		t.Fatal(err)
	}
	if err := c.UpdateSubscriptionGroup(ctx, broker.Addr, rocketmq.SubscriptionGroupConfig{GroupName: group, ConsumeEnable: true}); err != nil {
		t.Fatal(err)
	}
	mq := rocketmq.MessageQueue{Topic: topic, BrokerName: broker.Name, QueueID: 0}
	send := func(body []byte) {
		if _, err := c.SendMessage(ctx, broker.Addr, mq, "diag-lost-producer", rocketmq.OutgoingMessage{Topic: topic, Body: body}); err != nil {
			t.Fatalf("send to %s: %v", topic, err)
		}
	}
	send([]byte("0"))
	send([]byte("1"))
	if err := c.UpdateConsumerOffset(ctx, broker.Addr, group, mq, 1); err != nil {
		t.Fatal(err)
	}
	// 3 MiB a message (under the 4 MiB limit): 24 of them fill the first 64 MiB file and
	// start another, so the file holding offsets 0 and 1 is no longer written and may go.
	big := bytes.Repeat([]byte("x"), 3<<20)
	for range 24 {
		send(big)
	}
	if err := c.UpdateBrokerConfig(ctx, broker.Addr, map[string]string{"fileReservedTime": "0"}); err != nil {
		t.Fatal(err)
	}
	defer func() {
		_ = c.UpdateBrokerConfig(context.Background(), broker.Addr, map[string]string{"fileReservedTime": "48"})
	}()
	minOffset := func() int64 {
		ts, err := c.TopicStats(ctx, broker.Addr, topic)
		if err != nil {
			t.Fatal(err)
		}
		return ts.Offsets[mq].MinOffset
	}
	start := time.Now()
	dev.Eventually(t, 90*time.Second, "the broker deletes the first commit-log file", func() error {
		if _, err := cl.MQAdmin(ctx, "deleteExpiredCommitLog", "-b", broker.Addr); err != nil {
			return err
		}
		if m := minOffset(); m <= 1 {
			return fmt.Errorf("min offset of %s is %d", topic, m)
		}
		return nil
	})
	t.Logf("min offset %d above the committed 1, %s after asking for the deletion", minOffset(), time.Since(start).Round(time.Second))

	read := func() {
		l, err := svc.List(ctx, true)
		if err != nil {
			t.Fatal(err)
		}
		eng.Observe(t.Context(), l)
	}
	dev.Eventually(t, 30*time.Second, "messagesLost found", func() error {
		read()
		if f, _ := eng.ForGroup(group); len(f) != 1 || f[0].Kind != KindLost {
			return fmt.Errorf("findings of %s: %v", group, kindsOf(f))
		}
		return nil
	})
	f, _ := eng.ForGroup(group)
	lost := minOffset() - 1
	if ev := f[0].Evidence.String(); !bytes.Contains([]byte(ev), fmt.Appendf(nil, "%d messages were deleted", lost)) ||
		!bytes.Contains([]byte(ev), []byte(groups.QueueKey(mq))) {
		t.Errorf("evidence %q, want %d messages lost on %s", ev, lost, groups.QueueKey(mq))
	}
	if want := "/groups/" + group + "/reset?mode=earliest&topic=" + topic; f[0].Action != want {
		t.Errorf("action %q, want %q", f[0].Action, want)
	}

	// The group is reset to the queue's min offset: nothing is lost any more.
	if err := c.UpdateConsumerOffset(ctx, broker.Addr, group, mq, minOffset()); err != nil {
		t.Fatal(err)
	}
	dev.Eventually(t, 30*time.Second, "messagesLost gone", func() error {
		read()
		if f, _ := eng.ForGroup(group); len(f) != 0 {
			return fmt.Errorf("findings of %s: %v", group, kindsOf(f))
		}
		return nil
	})
}
