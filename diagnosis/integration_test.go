package diagnosis

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"rmqconsole/brokers"
	"rmqconsole/cluster"
	"rmqconsole/deadletters"
	"rmqconsole/dev"
	"rmqconsole/groups"
	"rmqconsole/rocketmq"
	"rmqconsole/rocketmq/rocketmqtest"
)

func TestMain(m *testing.M) {
	os.Exit(dev.RunTests(m))
}

// TestIntegrationStuckSlowAndFailingConsumersAreFoundAndGo (with cases on the broker's
// disk, which shares its client, and on a lone NameServer beside the cluster's) runs three real consumer
// groups on one topic while messages keep arriving: one consumer frozen (SIGSTOP:
// connected, consuming nothing), one that takes 200 ms per message, and one that fails
// every message (max reconsume times 1, so each goes through the retry topic to the
// dead-letter topic). The findings come from the group list's reads, as the collector
// makes them (the retry threshold lowered so that this test's few messages a second
// cross it), and go when the causes are removed: the consumer thawed, the failing one
// stopped, messages no longer sent.
func TestIntegrationStuckSlowAndFailingConsumersAreFoundAndGo(t *testing.T) {
	if testing.Short() {
		t.Skip("needs the local RocketMQ")
	}
	cl := dev.RequireCluster(t)
	c := rocketmqtest.Client(t, rocketmq.Config{NameServer: cl.NameServer, Timeout: 10 * time.Second,
		Credentials: rocketmq.Credentials(dev.TestAccount(cl.NameServer))})
	cc := cluster.New(c, cluster.Options{})
	// A case of its own on the same client: it needs no traffic, and no cluster of its own.
	t.Run("a broker past the disk threshold is found", func(t *testing.T) { brokerPastTheDiskThreshold(t, c, cc) })
	// Its JVM boots while the consumers below run; the case runs at the end.
	lone := dev.StartNameServer(t)
	svc := groups.NewService(c, groups.Options{Cluster: cc})
	eng := New(Options{Cluster: cc, StuckAfter: 10 * time.Second, SlowOver: 10 * time.Second,
		RetryPerMinute: 6, RetryOver: 5 * time.Second, DeadLetters: deadletters.New(deadletters.Config{Admin: c, Cluster: cc})})

	ctx, cancel := context.WithTimeout(t.Context(), 3*time.Minute)
	defer cancel()
	broker := cl.Brokers[0]
	topic := dev.UniqueName("diag")
	if err := cl.CreateTopicOn(ctx, topic, 2, broker); err != nil {
		t.Fatal(err)
	}
	stuck, slow, failing := dev.UniqueName("diag-stuck"), dev.UniqueName("diag-slow"), dev.UniqueName("diag-failing")
	// The retry topic, made now rather than by the first failure: the client looks up
	// its route only every 30 s. Made by a remoting call rather than mqadmin, whose JVM
	// takes seconds to start.
	retry := rocketmq.RetryTopic(failing)
	if err := c.CreateTopic(ctx, broker.Addr, rocketmq.TopicConfig{TopicName: retry, ReadQueueNums: 1, WriteQueueNums: 1, Perm: 6}); err != nil {
		t.Fatal(err)
	}
	dev.Eventually(t, 10*time.Second, "the retry topic routed", func() error {
		_, err := cc.Route(ctx, retry)
		return err
	})
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
	failer := dev.StartConsumerProcessWith(t, cl.NameServer, failing, dev.ConsumerOptions{Fail: true, MaxReconsumeTimes: 1, RetryDelayLevel: 1}, topic)
	failStart := time.Now()
	firstSeen := map[string]time.Duration{} // kind of the failing group's finding → when first found

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
	dev.Eventually(t, 60*time.Second, "stuck, slow, retry storm and dead letters found", func() error {
		send(8) // about 30 messages a second, while the slow consumer takes 5
		read()
		f, _ := eng.ForGroup(failing)
		for _, x := range f {
			if _, ok := firstSeen[x.Kind]; !ok {
				firstSeen[x.Kind] = time.Since(failStart).Round(time.Second)
			}
		}
		if !hasKinds(f, KindRetryStorm, KindDeadLetters) {
			return fmt.Errorf("findings of %s: %v", failing, kindsOf(f))
		}
		if f, _ := eng.ForGroup(stuck); len(f) != 1 || f[0].Kind != KindStuck {
			return fmt.Errorf("findings of %s: %v", stuck, kindsOf(f))
		}
		if f, _ := eng.ForGroup(slow); len(f) != 1 || f[0].Kind != KindSlow {
			return fmt.Errorf("findings of %s: %v", slow, kindsOf(f))
		}
		return nil
	})
	t.Logf("stuck and slow found %s after the freeze; the failing group's findings %v after its consumer started", time.Since(start).Round(time.Second), firstSeen)
	f, _ := eng.ForGroup(failing)
	for _, x := range f {
		switch ev := x.Evidence.String(); x.Kind {
		case KindRetryStorm:
			if !strings.Contains(ev, rocketmq.RetryTopic(failing)) || x.Action != "/groups/"+failing {
				t.Errorf("retry storm %+v (%s)", x, ev)
			}
		case KindDeadLetters:
			if !strings.Contains(ev, rocketmq.DLQTopic(failing)) || x.Action != "/messages?tab=range&topic="+url.QueryEscape(rocketmq.DLQTopic(failing)) {
				t.Errorf("dead letters %+v (%s)", x, ev)
			}
		}
	}
	all, _ := eng.Findings()
	if i, j := indexOf(all, stuck), indexOf(all, slow); i < 0 || j < 0 || i > j {
		t.Errorf("overview order: stuck at %d, slow at %d, want stuck first", i, j)
	}
	f, _ = eng.ForGroup(stuck)
	if ev := f[0].Evidence.String(); !strings.Contains(ev, "no committed offset moved") || f[0].Action != "/groups/"+stuck {
		t.Errorf("stuck finding %+v (%s)", f[0], ev)
	}

	// The causes go: the consumer is thawed, messages stop arriving.
	if err := frozen.Thaw(); err != nil {
		t.Fatal(err)
	}
	thawed = true
	failer.Stop()
	start = time.Now()
	dev.Eventually(t, 60*time.Second, "stuck, slow, retry storm and dead letters gone", func() error {
		read()
		if f, _ := eng.ForGroup(failing); len(f) != 0 {
			return fmt.Errorf("findings of %s: %v", failing, kindsOf(f))
		}
		if f, _ := eng.ForGroup(stuck); len(f) != 0 {
			return fmt.Errorf("findings of %s: %v", stuck, kindsOf(f))
		}
		if f, _ := eng.ForGroup(slow); len(f) != 0 {
			return fmt.Errorf("findings of %s: %v", slow, kindsOf(f))
		}
		return nil
	})
	t.Logf("stuck, slow, retry storm and dead letters gone %s after the thaw and the failing consumer's stop", time.Since(start).Round(time.Second))
	t.Run("a lone NameServer disagrees", func(t *testing.T) { loneNameServerDisagrees(t, cl, lone()) })
}

func kindsOf(fs []Finding) []string {
	var out []string
	for _, f := range fs {
		out = append(out, f.Kind+": "+f.Evidence.String())
	}
	return out
}

// hasKinds reports whether fs has a finding of each kind.
func hasKinds(fs []Finding, kinds ...string) bool {
	for _, k := range kinds {
		if !slices.ContainsFunc(fs, func(f Finding) bool { return f.Kind == k }) {
			return false
		}
	}
	return true
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

// brokerPastTheDiskThreshold reads the real broker's runtime figures as the collector's
// reads do: with the console's disk threshold set below the commit log disk's real use
// the broker's disk is called full, naming the process and its use; with the threshold
// above it, it is not.
func brokerPastTheDiskThreshold(t *testing.T, c *rocketmq.Client, cc *cluster.Cluster) {
	bs := brokers.New(c, cc)
	l, err := bs.List(t.Context(), true)
	if err != nil {
		t.Fatal(err)
	}
	master := l.Brokers[0]
	if master.Error != "" || master.DiskRatio <= 0 || master.DiskRatio >= 1 {
		t.Fatalf("the broker's figures %+v, want its disk use between 0 and 1", master)
	}
	observe := func(ratio float64) []Finding {
		e := New(Options{Brokers: bs, DiskRatio: ratio})
		e.Observe(t.Context(), &groups.List{CheckedAt: time.Now()})
		f, _ := e.ForBroker(master.Name)
		return f
	}
	f := observe(master.DiskRatio / 2)
	if len(f) != 1 || f[0].Kind != KindDiskFull || f[0].Addr != master.Addr || !strings.Contains(f[0].Evidence.String(), master.Addr) {
		t.Fatalf("threshold %.3f under the disk's use %.3f: %v, want brokerDiskFull of %s", master.DiskRatio/2, master.DiskRatio, kindsOf(f), master.Addr)
	}
	t.Logf("at %.3f: %s", master.DiskRatio/2, f[0].Evidence.String())
	if f := observe((master.DiskRatio + 1) / 2); len(f) != 0 {
		t.Fatalf("threshold above the disk's use %.3f: %v, want nothing", master.DiskRatio, kindsOf(f))
	}
}

// loneNameServerDisagrees starts a NameServer no broker registers with: a console given
// it beside the cluster's names it as lacking the cluster's brokers; given the cluster's
// NameServer alone, it finds nothing.
func loneNameServerDisagrees(t *testing.T, cl *dev.Cluster, lone string) {
	observe := func(nameServers string) []Finding {
		c := rocketmqtest.Client(t, rocketmq.Config{NameServer: nameServers, Timeout: 10 * time.Second,
			Credentials: rocketmq.Credentials(dev.TestAccount(cl.NameServer))})
		e := New(Options{NameServers: c})
		e.Observe(t.Context(), &groups.List{CheckedAt: time.Now()})
		f, _ := e.Findings()
		return f
	}
	f := observe(cl.NameServer + ";" + lone)
	if len(f) != 1 || f[0].Kind != KindNameServers || f[0].NameServer != lone || !strings.Contains(f[0].Evidence.String(), "it knows no broker "+cl.Brokers[0].Name+" ") {
		t.Fatalf("the cluster's NameServer and a lone one: %v, want nameServersDisagree of %s lacking %s", kindsOf(f), lone, cl.Brokers[0].Name)
	}
	t.Logf("%s", f[0].Evidence.String())
	if f := observe(cl.NameServer); len(f) != 0 {
		t.Fatalf("the cluster's NameServer alone: %v, want nothing", kindsOf(f))
	}
}
