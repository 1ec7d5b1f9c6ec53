package resets

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"rmqconsole/dev"
	"rmqconsole/rocketmq"
	"rmqconsole/store"
)

// On a real two-broker cluster of this test binary's own: with broker-b frozen (SIGSTOP)
// the preview answers within about one broker-call timeout with broker-a's queues and
// names broker-b; with broker-b killed (the NameServer drops it from the route) the
// preview names it as gone instead of offering broker-a's queues as the whole topic.
func TestPreviewWithAFrozenThenKilledBrokerOnARealCluster(t *testing.T) {
	if testing.Short() {
		t.Skip("needs the local RocketMQ")
	}
	cl := dev.RequirePrivateCluster(t)
	const timeout = 2 * time.Second
	c, err := rocketmq.New(rocketmq.Config{NameServer: cl.NameServer, Timeout: timeout, RouteTTL: -1, Credentials: rocketmq.Credentials(dev.TestAccount(cl.NameServer))})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	st, err := store.Open(context.Background(), filepath.Join(t.TempDir(), "console.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	svc := New(Config{Admin: c, Audit: st.Audit(), Cluster: cl.NameServer})

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
	p, err = svc.Plan(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	var gone bool
	for _, f := range p.Failures {
		gone = gone || (f.Broker == "broker-b" && f.Gone())
	}
	if len(p.Queues) != 2 || !gone || !strings.Contains(strings.Join(p.Warnings, " "), "no longer in its route") {
		t.Errorf("killed broker-b: %d queues, failures %v, warnings %q", len(p.Queues), p.Failures, p.Warnings)
	}
}
