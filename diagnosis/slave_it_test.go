package diagnosis

import (
	"bytes"
	"context"
	"fmt"
	"testing"
	"time"

	"rmqconsole/brokers"
	"rmqconsole/cluster"
	"rmqconsole/dev"
	"rmqconsole/groups"
	"rmqconsole/i18n"
	"rmqconsole/rocketmq"
	"rmqconsole/rocketmq/rocketmqtest"
)

// TestSlaveBehindItsMasterWhileFrozen freezes broker-a's slave (SIGSTOP) on the
// package's private cluster with slaves, writes a few MiB to broker-a, and reads the
// diagnosis as the collector would: broker-a's master says how far its slave has
// acknowledged, so slaveBehind shows with the slave's address and the bytes behind
// (over the test's low limit), though the slave itself answers nothing. Thawed, the
// slave catches up and the finding goes. A call budget per read is checked too: one
// replication status per master that has a slave.
func TestSlaveBehindItsMasterWhileFrozen(t *testing.T) {
	if testing.Short() {
		t.Skip("needs the local RocketMQ")
	}
	cl := dev.RequirePrivateClusterWithSlaves(t)
	c := rocketmqtest.Client(t, rocketmq.Config{NameServer: cl.NameServer, Timeout: 5 * time.Second,
		Credentials: rocketmq.Credentials(dev.TestAccount(cl.NameServer))})
	cc := cluster.New(c, cluster.Options{})
	const limit = 2 << 20
	asked := &replication{real: c}
	eng := New(Options{Cluster: cc, Brokers: brokers.New(c, cc), Replication: asked, SlaveBehindBytes: limit})

	ctx, cancel := context.WithTimeout(t.Context(), 3*time.Minute)
	defer cancel()
	master, slave := cl.Brokers[0], cl.Slaves[0]
	proc := slave.Name + "-s" // the harness's name of the slave's process
	behind := func() []Finding {
		eng.Observe(ctx, &groups.List{CheckedAt: time.Now()})
		fs, _ := eng.ForBroker(master.Name)
		var out []Finding
		for _, f := range fs {
			if f.Kind == KindSlaveBehind {
				out = append(out, f)
			}
		}
		return out
	}
	if fs := behind(); len(fs) != 0 {
		t.Fatalf("before the freeze: %+v, want no slave behind", fs)
	}
	if n := asked.calls.Load(); n != int64(len(cl.Brokers)) {
		t.Errorf("one read asked %d replication statuses, want one per master with a slave (%d)", n, len(cl.Brokers))
	}

	// The slave connects to its master's HA port a few seconds after it registers.
	dev.Eventually(t, 60*time.Second, "broker-a's slave connected to its master", func() error {
		st, err := c.HAStatus(ctx, master.Addr)
		if err != nil {
			return err
		}
		if len(st.Connections) == 0 {
			return fmt.Errorf("master %s lists no replication connection", master.Addr)
		}
		return nil
	})
	topic := dev.UniqueName("diag-slave")
	if err := cl.CreateTopicOn(ctx, topic, 1, master); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	if err := cl.Freeze(proc); err != nil {
		t.Fatal(err)
	}
	thawed := false
	defer func() {
		if !thawed {
			_ = cl.Thaw(proc)
		}
	}()
	// 12 messages of 256 KiB: 3 MiB past the slave's last acknowledged offset.
	mq := rocketmq.MessageQueue{Topic: topic, BrokerName: master.Name, QueueID: 0}
	body := bytes.Repeat([]byte("s"), 256<<10)
	for i := range 12 {
		sent := time.Now()
		if _, err := c.SendMessage(ctx, master.Addr, mq, "diag-slave-producer", rocketmq.OutgoingMessage{Topic: topic, Body: body}); err != nil {
			t.Fatalf("send to %s: %v", topic, err)
		}
		if i == 0 {
			t.Logf("first send with the slave frozen took %s", time.Since(sent).Round(time.Millisecond))
		}
	}
	var found Finding
	dev.Eventually(t, 60*time.Second, "slaveBehind for the frozen slave", func() error {
		fs := behind()
		if len(fs) != 1 || fs[0].Addr != slave.Addr {
			return fmt.Errorf("findings %+v, want one about %s", fs, slave.Addr)
		}
		found = fs[0]
		return nil
	})
	ev := i18n.Match("en").Say(found.Evidence)
	t.Logf("found %s after %s: %s", found.Kind, time.Since(start).Round(time.Millisecond), ev)
	if found.Broker != master.Name || found.Action != "/brokers/"+master.Name || found.Severity != Warning || !bytes.Contains([]byte(ev), []byte(slave.Addr)) ||
		!bytes.Contains([]byte(ev), []byte("MiB behind")) {
		t.Errorf("finding %+v (%s), want a warning naming the slave and the bytes behind, linking to the broker", found, ev)
	}

	if err := cl.Thaw(proc); err != nil {
		t.Fatal(err)
	}
	thawed = true
	thaw := time.Now()
	dev.Eventually(t, 90*time.Second, "no slaveBehind once the slave caught up", func() error {
		if fs := behind(); len(fs) != 0 {
			return fmt.Errorf("still %+v", fs)
		}
		return nil
	})
	t.Logf("gone %s after the thaw", time.Since(thaw).Round(time.Millisecond))
}
