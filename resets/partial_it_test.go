package resets

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/apache/rocketmq-client-go/v2/primitive"

	"rmqconsole/dev"
	"rmqconsole/dev/rmqclient"
	"rmqconsole/i18n"
	"rmqconsole/rocketmq"
	"rmqconsole/rocketmq/rocketmqtest"
	"rmqconsole/store"
)

// On a real cluster of this test binary's own (two masters, each with a slave): with
// broker-b's master frozen (SIGSTOP) the preview answers within about one broker-call
// timeout with broker-a's queues and names broker-b; with broker-b's master killed (the
// NameServer keeps only its slave) the preview refuses broker-b's queues, saying no
// master is registered, instead of offering broker-a's queues as the whole topic.
func TestPreviewWithAFrozenThenKilledBrokerOnARealCluster(t *testing.T) {
	if testing.Short() {
		t.Skip("needs the local RocketMQ")
	}
	cl := dev.RequirePrivateClusterWithSlaves(t)
	const timeout = 2 * time.Second
	c := rocketmqtest.Client(t, rocketmq.Config{NameServer: cl.NameServer, Timeout: timeout, RouteTTL: -1, Credentials: rocketmq.Credentials(dev.TestAccount(cl.NameServer))})
	st, err := store.Open(context.Background(), filepath.Join(t.TempDir(), "console.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	svc := New(Config{Admin: c, Audit: st.Audit(), NameServers: cl.NameServer})

	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Minute)
	defer cancel()
	topic, group := dev.UniqueName("rstp"), dev.UniqueName("rstpg")
	if err := cl.CreateTopic(ctx, topic, 2); err != nil {
		t.Fatal(err)
	}
	if _, err := cl.MQAdmin(ctx, "updateSubGroup", "-c", cl.ClusterName, "-g", group); err != nil {
		t.Fatal(err)
	}
	route, err := c.TopicRoute(ctx, topic)
	if err != nil {
		t.Fatal(err)
	}
	for _, mq := range route.ReadQueues() {
		addr, _ := route.MasterAddr(mq.BrokerName)
		if err := c.UpdateConsumerOffset(ctx, addr, group, mq, 0); err != nil {
			t.Fatal(err)
		}
	}
	req := Request{Group: group, Topic: topic, Mode: ModeEarliest, QueueID: AllQueues}
	p, err := svc.Plan(ctx, req)
	if err != nil || len(p.Queues) != 4 || len(p.Failures) != 0 {
		t.Fatalf("both brokers up: %v, plan %+v", err, p)
	}

	if err := cl.Freeze("broker-b"); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	p, err = svc.Plan(ctx, req)
	took := time.Since(start)
	if err := cl.Thaw("broker-b"); err != nil {
		t.Fatal(err)
	}
	t.Logf("preview with broker-b frozen: %v (broker-call timeout %v)", took, timeout)
	if err != nil {
		t.Fatalf("preview with broker-b frozen: %v", err)
	}
	if len(p.Queues) != 2 || len(p.Failures) == 0 || p.Failures[0].Broker != "broker-b" {
		t.Errorf("frozen broker-b: %d queues, failures %v", len(p.Queues), p.Failures)
	}
	// Serially it took one timeout per question to broker-b (four); at once, one.
	if took > timeout*3/2 {
		t.Errorf("preview took %v with one broker frozen, want about one broker-call timeout (%v)", took, timeout)
	}

	if err := cl.KillBroker("broker-b"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := cl.RestartBroker(context.Background(), "broker-b"); err != nil {
			t.Errorf("restart broker-b: %v", err)
		}
	})
	dev.Eventually(t, 60*time.Second, "the NameServer drops broker-b's master from the route", func() error {
		r, err := c.TopicRoute(ctx, topic)
		if err != nil {
			return err
		}
		if b, ok := r.Broker("broker-b"); !ok || b.Addrs[0] != "" {
			return errors.New("master still routed, or its slave gone too")
		}
		return nil
	})
	p, err = svc.Plan(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	want := fmt.Sprintf("Broker broker-b has no master registered with the NameServer. Offsets are reset only on a master, never on its slave %s, so its 2 queues of topic %s (0, 1) are refused", cl.Slaves[1].Addr, topic)
	if len(p.Queues) != 2 || len(p.Refused) != 1 || !strings.Contains(i18n.TextOf(p.Warnings...).String(), want) {
		t.Errorf("killed broker-b's master: %d queues, refused %+v, warnings %q", len(p.Queues), p.Refused, p.Warnings)
	}
}

// On a real cluster of two masters, each with a slave, with broker-b's master frozen
// (SIGSTOP) and its slave answering: the preview refuses broker-b's queues with a
// sentence naming its master and its slave, the reset applies broker-a's queues only,
// the audit entry says what was refused, and nothing was written on broker-b (its
// offsets, master and slave, are unchanged once it is back). mqadmin agrees.
func TestResetsGoOnlyToMastersOnARealCluster(t *testing.T) {
	if testing.Short() {
		t.Skip("needs the local RocketMQ")
	}
	cl := dev.RequirePrivateClusterWithSlaves(t)
	if len(cl.Slaves) != 2 {
		t.Fatalf("slaves %v, want one per master", cl.Slaves)
	}
	const timeout = 2 * time.Second
	c := rocketmqtest.Client(t, rocketmq.Config{NameServer: cl.NameServer, Timeout: timeout, RouteTTL: -1, Credentials: rocketmq.Credentials(dev.TestAccount(cl.NameServer))})
	st, err := store.Open(context.Background(), filepath.Join(t.TempDir(), "console.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	svc := New(Config{Admin: c, Audit: st.Audit(), NameServers: cl.NameServer})

	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Minute)
	defer cancel()
	topic, group := dev.UniqueName("rsts"), dev.UniqueName("rstsg")
	if err := cl.CreateTopic(ctx, topic, 2); err != nil {
		t.Fatal(err)
	}
	for _, b := range cl.Brokers {
		if err := c.UpdateSubscriptionGroup(ctx, b.Addr, rocketmq.SubscriptionGroupConfig{GroupName: group, ConsumeEnable: true}); err != nil {
			t.Fatal(err)
		}
	}
	p := rmqclient.StartProducer(t, cl.NameServer, "")
	for i := range 12 {
		if r, err := p.SendSync(ctx, primitive.NewMessage(topic, []byte(fmt.Sprint("m", i)))); err != nil || r.Status != primitive.SendOK {
			t.Fatalf("send: %v %v", r, err)
		}
	}
	route, err := c.TopicRoute(ctx, topic)
	if err != nil {
		t.Fatal(err)
	}
	for _, mq := range route.ReadQueues() {
		addr, _ := route.MasterAddr(mq.BrokerName)
		if err := c.UpdateConsumerOffset(ctx, addr, group, mq, 0); err != nil {
			t.Fatal(err)
		}
	}
	masterB, slaveB := cl.Brokers[1].Addr, cl.Slaves[1].Addr

	if err := cl.Freeze("broker-b"); err != nil {
		t.Fatal(err)
	}
	thawed := false
	thaw := func() {
		if !thawed {
			thawed = true
			if err := cl.Thaw("broker-b"); err != nil {
				t.Error(err)
			}
		}
	}
	defer thaw()
	req := Request{Group: group, Topic: topic, Mode: ModeLatest, QueueID: AllQueues, Reason: "skip the backlog"}
	plan, err := svc.Plan(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	refusal := fmt.Sprintf("Broker broker-b's master %s did not answer", masterB)
	refused := fmt.Sprintf("Offsets are reset only on a master, never on its slave %s, so its 2 queues of topic %s (0, 1) are refused", slaveB, topic)
	warns := i18n.TextOf(plan.Warnings...).String()
	if len(plan.Queues) != 2 || len(plan.Refused) != 1 || plan.Refused[0].Broker != "broker-b" ||
		!strings.Contains(warns, refusal) || !strings.Contains(warns, refused) {
		t.Fatalf("preview with broker-b's master frozen: %d queues, refused %+v, warnings %q", len(plan.Queues), plan.Refused, plan.Warnings)
	}
	for _, q := range plan.Queues {
		if q.Queue.BrokerName != "broker-a" || q.Addr != cl.Brokers[0].Addr {
			t.Errorf("queue %v planned at %s, want broker-a's master", q.Queue, q.Addr)
		}
	}
	entry, err := svc.Apply(ctx, Confirmation{PlanID: plan.ID, Request: req, Confirmed: true, Who: Who{Actor: "ops", Addr: "127.0.0.1"}})
	if err != nil {
		t.Fatal(err)
	}
	thaw()
	got, err := st.Audit().Get(ctx, entry.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.Status != store.AuditApplied || len(got.Result) != 2 || !strings.Contains(said(got.Plan.Warnings), refused) {
		t.Errorf("audit entry: %s, %d queues, warnings %q", got.Status, len(got.Result), got.Plan.Warnings)
	}
	for _, r := range got.Result {
		if r.BrokerName != "broker-a" || r.After == nil || *r.After != r.Target {
			t.Errorf("audit row %+v", r)
		}
	}

	// broker-b was never written: its master and its slave still hold offset 0.
	for _, addr := range []string{masterB, slaveB} {
		for q := range 2 {
			mq := rocketmq.MessageQueue{Topic: topic, BrokerName: "broker-b", QueueID: q}
			dev.Eventually(t, 30*time.Second, "broker-b answers again", func() error {
				off, err := c.QueryConsumerOffset(ctx, addr, group, mq)
				if err == nil && off != 0 {
					t.Fatalf("broker-b queue %d at %s: offset %d, want 0 (never reset)", q, addr, off)
				}
				return err
			})
		}
	}
	// mqadmin's own reading: broker-a's queues at their end, broker-b's at 0. No -t:
	// 4.9.7's consumerProgress has no such option; the rows are filtered by topic below.
	// Without -t it finds the brokers by the group's retry topic, which a broker creates
	// when a consumer of the group connects; no consumer ever did here, so it is created.
	if err := cl.CreateTopic(ctx, "%RETRY%"+group, 1); err != nil {
		t.Fatal(err)
	}
	out, err := cl.MQAdmin(ctx, "consumerProgress", "-g", group)
	if err != nil {
		t.Fatal(err)
	}
	rows := 0
	for _, line := range strings.Split(out, "\n") {
		// #Topic  #Broker Name  #QID  #Broker Offset  #Consumer Offset  ...
		f := strings.Fields(line)
		if len(f) < 5 || f[0] != topic {
			continue
		}
		rows++
		want := f[3] // broker-a: reset to the latest
		if f[1] == "broker-b" {
			want = "0"
		}
		if f[4] != want {
			t.Errorf("mqadmin consumerProgress: %s", line)
		}
	}
	if rows != 4 {
		t.Errorf("mqadmin consumerProgress shows %d queues of %s, want 4:\n%s", rows, topic, out)
	}
}
