package diagnosis

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"rmqconsole/cluster"
	"rmqconsole/dev"
	"rmqconsole/groups"
	"rmqconsole/rocketmq"
	"rmqconsole/rocketmq/rocketmqtest"
)

// Two real orderly consumers share a 4-queue topic; the one holding some queues' locks
// is killed (SIGKILL: it neither unlocks nor unregisters) while messages arrive in every
// queue. The collector's reads (the list, the diagnosis, then the rebalance sweep, as
// the console runs them) find the group's queues blocked by the client that left, named
// in the evidence; the finding goes once the broker's lock expires and the other client
// locks the queues and consumes them.
func TestIntegrationAnOrderlyQueueLockedByAKilledClientIsFoundAndGoes(t *testing.T) {
	if testing.Short() {
		t.Skip("needs the local RocketMQ")
	}
	cl := dev.RequireCluster(t)
	c := rocketmqtest.Client(t, rocketmq.Config{NameServer: cl.NameServer, Timeout: 10 * time.Second,
		Credentials: rocketmq.Credentials(dev.TestAccount(cl.NameServer))})
	cc := cluster.New(c, cluster.Options{})
	svc := groups.NewService(c, groups.Options{Cluster: cc})
	log := groups.NewRebalanceLog(nil, nil)
	sweep := groups.NewRebalanceSweep(svc, log, 0, nil)
	eng := New(Options{Cluster: cc, Locks: groups.LockReader{Service: svc, Log: log}})

	ctx, cancel := context.WithTimeout(t.Context(), 6*time.Minute)
	defer cancel()
	broker := cl.Brokers[0]
	topic, group := dev.UniqueName("diag-ord"), dev.UniqueName("diag-ord-cg")
	if err := cl.CreateTopicOn(ctx, topic, 4, broker); err != nil {
		t.Fatal(err)
	}
	send := func(n int) {
		for i := range n {
			mq := rocketmq.MessageQueue{Topic: topic, BrokerName: broker.Name, QueueID: i % 4}
			if _, err := c.SendMessage(ctx, broker.Addr, mq, "diag-ord-producer", rocketmq.OutgoingMessage{Topic: topic, Body: []byte(fmt.Sprint(i))}); err != nil {
				t.Fatalf("send to %s: %v", topic, err)
			}
		}
	}
	var last *groups.List
	read := func() {
		l, err := svc.List(ctx, true)
		if err != nil {
			t.Fatal(err)
		}
		eng.Observe(ctx, l)
		sweep.Sweep(ctx, l)
		last = l
	}
	// state says how the last read saw the group, for a failure's message.
	state := func() string {
		for _, g := range last.Groups {
			if g.Group == group {
				lags := []string{}
				for _, q := range g.Queues {
					if q.Lag != nil {
						lags = append(lags, fmt.Sprint(q.QueueID, ":", *q.Lag))
					}
				}
				return fmt.Sprintf("online %v clients %d mode %q lags %v unread %v", g.Online, g.Clients, g.ConsumeMode, lags, eng.UnreadFor(group))
			}
		}
		return "not listed"
	}
	send(8)
	o := dev.ConsumerOptions{Orderly: true, LockInterval: 2 * time.Second}
	a := dev.StartConsumerProcessWith(t, cl.NameServer, group, o, topic)
	b := dev.StartConsumerProcessWith(t, cl.NameServer, group, o, topic)
	var aID string
	dev.Eventually(t, 120*time.Second, "each client holds the locks of two queues, as the reads see them", func() error {
		read()
		d, err := svc.Detail(ctx, group)
		if err != nil {
			return err
		}
		held := map[string]int{}
		for _, q := range d.Queues {
			if q.Topic == topic && q.Lock != nil && q.Lock.Locked {
				held[q.Lock.Holder]++
			}
		}
		aID = ""
		for id := range held {
			if strings.HasSuffix(id, "@"+a.Instance) {
				aID = id
			}
		}
		if len(held) != 2 || aID == "" || held[aID] != 2 {
			return fmt.Errorf("locks held %v", held)
		}
		return nil
	})
	read() // the sweep's read after both hold their locks: the holders are known
	killed := time.Now()
	a.Kill()
	var found Finding
	dev.Eventually(t, 60*time.Second, "orderlyBlocked found, naming the client that left", func() error {
		send(4)
		read()
		fs, _ := eng.ForGroup(group)
		for _, f := range fs {
			if f.Kind == KindOrderlyBlocked {
				found = f
				if !strings.Contains(f.Evidence.String(), aID) {
					return fmt.Errorf("evidence %q does not name %s", f.Evidence, aID)
				}
				return nil
			}
		}
		return fmt.Errorf("findings %v", kindsOf(fs))
	})
	t.Logf("found %s after the kill: %s", time.Since(killed).Round(time.Second), found.Evidence)
	if found.Severity != Warning || found.Action != "/groups/"+group || found.Since.Before(killed.Add(-5*time.Second)) {
		t.Errorf("finding %+v: want a warning since the kill, acted on at the group page", found)
	}
	dev.Eventually(t, 180*time.Second, "orderlyBlocked gone once b locks and consumes the queues", func() error {
		read()
		fs, _ := eng.ForGroup(group)
		if hasKinds(fs, KindOrderlyBlocked) {
			return fmt.Errorf("findings %v (%s)", kindsOf(fs), state())
		}
		return nil
	})
	t.Logf("then: %s", state())
	t.Logf("gone %s after the kill", time.Since(killed).Round(time.Second))
	// Gone because the cause went: b holds every lock now.
	d, err := svc.Detail(ctx, group)
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range d.Queues {
		if q.Topic == topic && (q.Lock == nil || !q.Lock.Locked || !strings.HasSuffix(q.Lock.Holder, "@"+b.Instance) || q.Lock.Blocked) {
			t.Errorf("queue %d lock %+v: want b's (group mode %q, clients %+v)", q.QueueID, q.Lock, d.ConsumeMode, d.Clients)
		}
	}
}
