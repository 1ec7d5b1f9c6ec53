package diagnosis

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"rmqconsole/cluster"
	"rmqconsole/dev"
	"rmqconsole/groups"
	"rmqconsole/rocketmq"
	"rmqconsole/rocketmq/rocketmqtest"
)

func TestMain(m *testing.M) {
	os.Exit(dev.RunTests(m))
}

// TestIntegrationStuckAndSlowConsumersAreFoundAndGo runs two real consumer groups on one
// topic while messages keep arriving: one consumer frozen (SIGSTOP: connected, consuming
// nothing) and one that takes 200 ms per message. The findings come from the group
// list's reads, as the collector makes them, and go when the causes are removed.
func TestIntegrationStuckAndSlowConsumersAreFoundAndGo(t *testing.T) {
	if testing.Short() {
		t.Skip("needs the local RocketMQ")
	}
	cl := dev.RequireCluster(t)
	c := rocketmqtest.Client(t, rocketmq.Config{NameServer: cl.NameServer, Timeout: 10 * time.Second,
		Credentials: rocketmq.Credentials(dev.TestAccount(cl.NameServer))})
	cc := cluster.New(c, cluster.Options{})
	svc := groups.NewService(c, groups.Options{Cluster: cc})
	eng := New(Options{Cluster: cc, StuckAfter: 10 * time.Second, SlowOver: 10 * time.Second})

	ctx, cancel := context.WithTimeout(t.Context(), 3*time.Minute)
	defer cancel()
	broker := cl.Brokers[0]
	topic := dev.UniqueName("diag")
	if err := cl.CreateTopicOn(ctx, topic, 2, broker); err != nil {
		t.Fatal(err)
	}
	stuck, slow := dev.UniqueName("diag-stuck"), dev.UniqueName("diag-slow")
	sent := 0
	send := func(n int) {
		for range n {
			mq := rocketmq.MessageQueue{Topic: topic, BrokerName: broker.Name, QueueID: sent % 2}
			if _, err := c.SendMessage(ctx, broker.Addr, mq, "diag-producer", rocketmq.OutgoingMessage{Topic: topic, Body: []byte(fmt.Sprint(sent))}); err != nil {
				t.Fatalf("send to %s: %v", topic, err)
			}
			sent++
		}
	}
	send(20)
	frozen := dev.StartConsumerProcess(t, cl.NameServer, stuck, topic)
	dev.StartConsumerProcessWith(t, cl.NameServer, slow, dev.ConsumerOptions{Work: 200 * time.Millisecond, Goroutines: 1}, topic)

	// read is one collector read: the list, refreshed, handed to the engine.
	read := func() *groups.List {
		l, err := svc.List(ctx, true)
		if err != nil {
			t.Fatal(err)
		}
		eng.Observe(t.Context(), l)
		return l
	}
	committed := func(l *groups.List, group string) int64 {
		var n int64
		for _, g := range l.Groups {
			if g.Group == group {
				for _, q := range g.Queues {
					if q.ConsumerOffset != nil && !q.Retry {
						n += *q.ConsumerOffset
					}
				}
			}
		}
		return n
	}
	// The frozen consumer must have committed offsets first: "stuck" is offsets that
	// stopped moving.
	dev.Eventually(t, 30*time.Second, "both groups commit offsets", func() error {
		l := read()
		if a, b := committed(l, stuck), committed(l, slow); a < 20 || b == 0 {
			return fmt.Errorf("committed %d of %s, %d of %s", a, stuck, b, slow)
		}
		return nil
	})
	if err := frozen.Freeze(); err != nil {
		t.Fatal(err)
	}
	thawed := false
	defer func() {
		if !thawed {
			_ = frozen.Thaw()
		}
	}()
	start := time.Now()
	dev.Eventually(t, 60*time.Second, "stuck and slow found", func() error {
		send(8) // about 30 messages a second, while the slow consumer takes 5
		read()
		if f, _ := eng.ForGroup(stuck); len(f) != 1 || f[0].Kind != KindStuck {
			return fmt.Errorf("findings of %s: %v", stuck, kindsOf(f))
		}
		if f, _ := eng.ForGroup(slow); len(f) != 1 || f[0].Kind != KindSlow {
			return fmt.Errorf("findings of %s: %v", slow, kindsOf(f))
		}
		return nil
	})
	t.Logf("stuck and slow found %s after the freeze", time.Since(start).Round(time.Second))
	all, _ := eng.Findings()
	if i, j := indexOf(all, stuck), indexOf(all, slow); i < 0 || j < 0 || i > j {
		t.Errorf("overview order: stuck at %d, slow at %d, want stuck first", i, j)
	}
	f, _ := eng.ForGroup(stuck)
	if ev := f[0].Evidence.String(); !strings.Contains(ev, "no committed offset moved") || f[0].Action != "/groups/"+stuck {
		t.Errorf("stuck finding %+v (%s)", f[0], ev)
	}

	// The causes go: the consumer is thawed, messages stop arriving.
	if err := frozen.Thaw(); err != nil {
		t.Fatal(err)
	}
	thawed = true
	start = time.Now()
	dev.Eventually(t, 60*time.Second, "stuck and slow gone", func() error {
		read()
		if f, _ := eng.ForGroup(stuck); len(f) != 0 {
			return fmt.Errorf("findings of %s: %v", stuck, kindsOf(f))
		}
		if f, _ := eng.ForGroup(slow); len(f) != 0 {
			return fmt.Errorf("findings of %s: %v", slow, kindsOf(f))
		}
		return nil
	})
	t.Logf("stuck and slow gone %s after the thaw", time.Since(start).Round(time.Second))
}

func kindsOf(fs []Finding) []string {
	var out []string
	for _, f := range fs {
		out = append(out, f.Kind+": "+f.Evidence.String())
	}
	return out
}

func indexOf(fs []Finding, group string) int {
	for i, f := range fs {
		if f.Group == group {
			return i
		}
	}
	return -1
}

// TestIntegrationClientsSubscribingDifferentlyAreFoundAndGo runs two real consumers in
// one group, one on a topic and the other on that topic and a second: the collector's
// reads with the rebalance sweep after each (as the leading console runs them) find the
// subscriptions differ, and the finding goes when the second consumer stops.
func TestIntegrationClientsSubscribingDifferentlyAreFoundAndGo(t *testing.T) {
	if testing.Short() {
		t.Skip("needs the local RocketMQ")
	}
	cl := dev.RequireCluster(t)
	c := rocketmqtest.Client(t, rocketmq.Config{NameServer: cl.NameServer, Timeout: 10 * time.Second,
		Credentials: rocketmq.Credentials(dev.TestAccount(cl.NameServer))})
	cc := cluster.New(c, cluster.Options{})
	svc := groups.NewService(c, groups.Options{Cluster: cc})
	rlog := groups.NewRebalanceLog(nil, nil)
	sweep := groups.NewRebalanceSweep(svc, rlog, 2000, nil)
	eng := New(Options{Cluster: cc, Subscriptions: rlog})

	ctx, cancel := context.WithTimeout(t.Context(), 3*time.Minute)
	defer cancel()
	broker := cl.Brokers[0]
	orders, refunds := dev.UniqueName("diag-subs"), dev.UniqueName("diag-subs-extra")
	for _, topic := range []string{orders, refunds} {
		if err := cl.CreateTopicOn(ctx, topic, 2, broker); err != nil {
			t.Fatal(err)
		}
	}
	group := dev.UniqueName("diag-subs-cg")
	dev.StartConsumerProcess(t, cl.NameServer, group, orders)
	second := dev.StartConsumerProcess(t, cl.NameServer, group, orders, refunds)
	read := func() {
		l, err := svc.List(ctx, true)
		if err != nil {
			t.Fatal(err)
		}
		eng.Observe(t.Context(), l)
		sweep.Sweep(ctx, l)
	}
	start := time.Now()
	dev.Eventually(t, 60*time.Second, "subscriptions found to differ", func() error {
		read()
		if f, _ := eng.ForGroup(group); len(f) != 1 || f[0].Kind != KindSubscriptions {
			return fmt.Errorf("findings of %s: %v", group, kindsOf(f))
		}
		return nil
	})
	t.Logf("subscriptionDiffers found %s after the consumers started", time.Since(start).Round(time.Second))
	f, _ := eng.ForGroup(group)
	if ev := f[0].Evidence.String(); !strings.Contains(ev, refunds) || strings.Count(ev, orders) < 2 {
		t.Errorf("evidence %q, want each client with its topics", ev)
	}
	second.Stop()
	start = time.Now()
	dev.Eventually(t, 90*time.Second, "subscriptionDiffers gone", func() error {
		read()
		if f, _ := eng.ForGroup(group); len(f) != 0 {
			return fmt.Errorf("findings of %s: %v", group, kindsOf(f))
		}
		return nil
	})
	t.Logf("subscriptionDiffers gone %s after the second consumer stopped", time.Since(start).Round(time.Second))
}
