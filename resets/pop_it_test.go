package resets

import (
	"context"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"rmqconsole/cluster"
	"rmqconsole/dev"
	"rmqconsole/i18n"
	"rmqconsole/rocketmq"
	"rmqconsole/rocketmq/rocketmqtest"
	"rmqconsole/store"
)

// A reset of a POP group consumed through the Proxy by a real gRPC SimpleConsumer: the
// preview knows the group is online (through the Proxy, though every broker says it is
// not) and says what becomes of messages in flight; applied, the broker resets the
// offsets itself, and the group's consumers receive the messages once more.
func TestIntegrationResetPOPGroupRedelivers(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("needs the local RocketMQ and its Proxy")
	}
	cl := dev.RequireProxy(t)
	c := rocketmqtest.Client(t, rocketmq.Config{NameServer: cl.NameServer, Timeout: 10 * time.Second, RouteTTL: -1, Credentials: rocketmq.Credentials(dev.TestAccount(cl.NameServer))})
	st, err := store.Open(context.Background(), filepath.Join(t.TempDir(), "console.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	svc := New(Config{Admin: c, Audit: st.Audit(), NameServers: cl.NameServer,
		Cluster: cluster.New(c, cluster.Options{Proxies: []string{cl.ProxyRemoting}})})

	ctx, cancel := context.WithTimeout(t.Context(), 4*time.Minute)
	defer cancel()
	topic, group := dev.UniqueName("rst-pop"), dev.UniqueName("rst-popg")
	if err := cl.CreateTopicOn(ctx, topic, 2, cl.Brokers[0]); err != nil {
		t.Fatal(err)
	}
	const n = 5
	sent, err := dev.GRPCSend(ctx, cl, topic, n, "")
	if err != nil {
		t.Fatal(err)
	}
	first := dev.StartGRPCConsumer(t, cl, group, topic, dev.GRPCConsumerOptions{Simple: true, Receive: n})
	if err := first.WaitReceived(90 * time.Second); err != nil {
		t.Fatal(err)
	}

	p, err := svc.Plan(ctx, Request{Group: group, Topic: topic, Mode: ModeEarliest, QueueID: AllQueues, Reason: "replay"})
	if err != nil {
		t.Fatal(err)
	}
	if !p.Online || !p.Pop || p.Reconsumed() != n {
		t.Errorf("plan: online %v, pop %v, %d consumed again; want online through the Proxy, POP, %d", p.Online, p.Pop, p.Reconsumed(), n)
	}
	if !slices.ContainsFunc(p.Warnings, func(w i18n.Message) bool { return strings.Contains(w.String(), "in flight") }) {
		t.Errorf("the preview does not say what happens to messages in flight: %q", p.Warnings)
	}
	entry, err := svc.Apply(ctx, Confirmation{PlanID: p.ID, Request: p.Request, Confirmed: true, Who: alice})
	if err != nil {
		t.Fatal(err)
	}
	if entry.Status != store.AuditApplied {
		t.Fatalf("audit entry %s: %+v", entry.Status, entry.Queues())
	}

	again := dev.StartGRPCConsumer(t, cl, group, topic, dev.GRPCConsumerOptions{Simple: true, Receive: n})
	if err := again.WaitReceived(90 * time.Second); err != nil {
		t.Fatal(err)
	}
	var got, want []string
	for _, r := range again.Received() {
		got = append(got, strings.Fields(r)[0])
	}
	for _, s := range sent {
		want = append(want, s.MessageID)
	}
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("after the reset the group received %v, want the %d messages sent again: %v", got, n, want)
	}
}
