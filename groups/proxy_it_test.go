package groups

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"rmqconsole/cluster"
	"rmqconsole/dev"
	"rmqconsole/fault"
	"rmqconsole/rocketmq"
	"rmqconsole/rocketmq/rocketmqtest"
	"rmqconsole/store"
)

// Groups consumed through the RocketMQ Proxy by real gRPC clients (Apache's Go SDK).
// A cluster-mode Proxy keeps them from the brokers; the console finds them through the
// Proxy's remoting port.

// newProxyIT is newIT on the cluster with a Proxy, with the service told of the Proxy
// as RMQC_PROXY would.
func newProxyIT(t *testing.T) *itCluster {
	t.Helper()
	if testing.Short() {
		t.Skip("needs the local RocketMQ and its Proxy")
	}
	cl := dev.RequireProxy(t)
	c := rocketmqtest.Client(t, rocketmq.Config{NameServer: cl.NameServer, Timeout: 10 * time.Second, Credentials: rocketmq.Credentials(dev.TestAccount(cl.NameServer))})
	view := cluster.New(c, cluster.Options{Proxies: []string{cl.ProxyRemoting}})
	return &itCluster{cl: cl, c: c, svc: NewService(c, Options{Cluster: view})}
}

// A SimpleConsumer group pops part of a topic, acknowledges some and leaves one: the page
// shows what is ready (never popped) and what the broker revived into the POP retry
// topic, lists the client as gRPC, known to the Proxy, with no made-up version, and
// says that POP groups have no queue owners.
func TestIntegrationPOPGroupShowsReadyAndRetry(t *testing.T) {
	it := newProxyIT(t)
	topic := it.topicOnOneBroker(t, "pop", 2)
	ctx, cancel := context.WithTimeout(t.Context(), 4*time.Minute)
	defer cancel()
	const produced, popped, left = 10, 4, 1
	if _, err := dev.GRPCSend(ctx, it.cl, topic, produced, ""); err != nil {
		t.Fatal(err)
	}
	group := dev.UniqueName("pop-g")
	c := dev.StartGRPCConsumer(t, it.cl, group, topic, dev.GRPCConsumerOptions{
		Simple: true, Receive: popped, LeaveUnacked: left, Invisible: 10 * time.Second})
	if err := c.WaitReceived(90 * time.Second); err != nil {
		t.Fatal(err)
	}
	if got := strings.Count(strings.Join(c.Received(), "\n"), " left"); got != left {
		t.Fatalf("the consumer left %d messages unacknowledged, want %d: %v", got, left, c.Received())
	}

	var d *Detail
	dev.Eventually(t, 2*time.Minute, "the POP group's ready and retry counts", func() error {
		var err error
		if d, err = it.svc.Detail(ctx, group); err != nil {
			return err
		}
		switch {
		case d.Pop == nil:
			return fmt.Errorf("no POP progress; consume type %q, online %v", d.ConsumeType, d.Online)
		case d.Pop.Ready != produced-popped || d.Pop.Retry != left:
			return fmt.Errorf("ready %d, retry %d; want %d, %d", d.Pop.Ready, d.Pop.Retry, produced-popped, left)
		}
		return nil
	})
	if !d.Online || d.ConsumeType != ConsumeTypePop {
		t.Errorf("online %v, consume type %q; want online, %q", d.Online, d.ConsumeType, ConsumeTypePop)
	}
	if len(d.Clients) != 1 {
		t.Fatalf("clients = %+v, want the one gRPC consumer", d.Clients)
	}
	cl := d.Clients[0]
	if cl.Protocol != ProtocolGRPC || cl.KnownTo != "Proxy "+it.cl.ProxyRemoting || cl.Language != "GO" {
		t.Errorf("client protocol %q, known to %q, language %q; want gRPC, Proxy %s, GO", cl.Protocol, cl.KnownTo, cl.Language, it.cl.ProxyRemoting)
	}
	if cl.Version != "" || !strings.Contains(cl.VersionNote.String(), "its own") {
		t.Errorf("client version %q (note %q): the Proxy's own version must not be shown as the client's", cl.Version, cl.VersionNote.String())
	}
	if len(cl.Subscriptions) == 0 || cl.Subscriptions[0].Topic != topic {
		t.Errorf("client subscriptions = %+v, want %s from the Proxy", cl.Subscriptions, topic)
	}
	if d.Pop.InFlight != nil || d.Pop.InFlightNote.String() == "" || !strings.Contains(d.Pop.Note.String(), "no client owns a queue") {
		t.Errorf("POP progress %+v: in flight must be said unknown and the page must say there are no owners", d.Pop)
	}
	if d.Assignment.Applicable {
		t.Error("a POP group has no client-side assignment to check")
	}
	for _, q := range d.Queues {
		if q.Owner != "" || q.OwnerUnknown {
			t.Errorf("queue %v: owner %q, unknown %v; POP queues have no owner", q.Queue(), q.Owner, q.OwnerUnknown)
		}
	}
	retryTopic := rocketmq.PopRetryTopicV1(group, topic)
	found := false
	for _, ts := range d.Topics {
		found = found || (ts.Topic == retryTopic && ts.Retry && ts.Lag == left)
	}
	if !found {
		t.Errorf("topics = %+v, want %s with lag %d", d.Topics, retryTopic, left)
	}
}

// A PushConsumer group through the Proxy: the brokers answer that no client is online,
// the Proxy lists the client, and the group and its list row say gRPC push, online.
func TestIntegrationGRPCPushGroupShowsItsClients(t *testing.T) {
	it := newProxyIT(t)
	topic := it.topicOnOneBroker(t, "gpush", 2)
	group := dev.UniqueName("gpush-g")
	dev.StartGRPCConsumer(t, it.cl, group, topic, dev.GRPCConsumerOptions{})
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()

	// The broker alone does not know the client: what the console showed before.
	if _, err := it.c.ConsumerConnections(ctx, it.cl.Brokers[0].Addr, group); !notThere(err) {
		t.Fatalf("broker's connection list of a gRPC group: %v; want CONSUMER_NOT_ONLINE", err)
	}
	var d *Detail
	dev.Eventually(t, time.Minute, "the Proxy's client in the group", func() error {
		var err error
		if d, err = it.svc.Detail(ctx, group); err != nil {
			return err
		}
		if !d.Online || len(d.Clients) != 1 {
			return fmt.Errorf("online %v, clients %+v", d.Online, d.Clients)
		}
		return nil
	})
	if d.ConsumeType != ConsumeTypeGRPCPush || d.Clients[0].Protocol != ProtocolGRPC {
		t.Errorf("consume type %q, protocol %q; want %q, gRPC", d.ConsumeType, d.Clients[0].Protocol, ConsumeTypeGRPCPush)
	}
	if d.Pop == nil {
		t.Error("a gRPC push group consumes with POP: its progress must be split as POP's")
	}
	l, err := it.svc.List(ctx, true)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range l.Groups {
		if s.Group == group && (!s.Online || s.ConsumeType != ConsumeTypeGRPCPush || s.Clients != 1) {
			t.Errorf("list row: online %v, consume type %q, clients %d; want online, %q, 1", s.Online, s.ConsumeType, s.Clients, ConsumeTypeGRPCPush)
		}
	}
}

// A gRPC client's own page: no broker lists it, so it is found through the Proxy; the
// console does not ask anyone for its running info (the Proxy would relay a thread dump
// at most), answers at once, and says why its report is missing, with or without a
// thread dump asked for.
func TestIntegrationGRPCClientPageSaysNoRunningInfo(t *testing.T) {
	it := newProxyIT(t)
	topic := it.topicOnOneBroker(t, "gcli", 2)
	group := dev.UniqueName("gcli-g")
	dev.StartGRPCConsumer(t, it.cl, group, topic, dev.GRPCConsumerOptions{})
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	var id string
	dev.Eventually(t, time.Minute, "the gRPC client listed", func() error {
		d, err := it.svc.Detail(ctx, group)
		if err != nil {
			return err
		}
		if len(d.Clients) != 1 {
			return fmt.Errorf("clients %+v", d.Clients)
		}
		id = d.Clients[0].ClientID
		return nil
	})
	for _, jstack := range []bool{false, true} {
		start := time.Now()
		ci, err := it.svc.Client(ctx, group, id, jstack)
		if err != nil {
			t.Fatalf("jstack %v: %v", jstack, err)
		}
		if took := time.Since(start); took > 5*time.Second {
			t.Errorf("jstack %v: the page took %s; nothing should wait on the client", jstack, took)
		}
		if ci.Protocol != ProtocolGRPC || ci.KnownTo != "Proxy "+it.cl.ProxyRemoting || ci.Language != "GO" || ci.ConsumeType != ConsumeTypeGRPCPush {
			t.Errorf("jstack %v: protocol %q, known to %q, language %q, consume type %q", jstack, ci.Protocol, ci.KnownTo, ci.Language, ci.ConsumeType)
		}
		if !strings.Contains(ci.Unavailable.String(), "do not report running info") || !strings.Contains(ci.Unavailable.String(), "thread dump") || ci.JstackAsked || ci.Jstack != "" {
			t.Errorf("jstack %v: unavailable %q, jstack asked %v", jstack, ci.Unavailable.String(), ci.JstackAsked)
		}
		if ci.Version != "" {
			t.Errorf("jstack %v: version %q is the Proxy's, not the client's", jstack, ci.Version)
		}
		if len(ci.Subscriptions) != 1 || ci.Subscriptions[0].Topic != topic {
			t.Errorf("jstack %v: subscriptions %+v, want %s from the Proxy", jstack, ci.Subscriptions, topic)
		}
	}
	if _, err := it.svc.Client(ctx, group, id+"-gone", false); !fault.Is(err, fault.NotFound) {
		t.Errorf("a client neither the brokers nor the Proxy list: %v, want not found", err)
	}
}

// A POP group watched live with real gRPC SimpleConsumers: each consumer that connects
// shows as joined and each that stops as left, no queue ever "moves" (POP hands out
// messages, not queues, and the page says nothing rebalances), and the lag history
// records the group's backlog (the messages not yet popped) from the group list.
func TestIntegrationPOPGroupLiveJoinsLeavesAndLagHistory(t *testing.T) {
	it := newProxyIT(t)
	topic := it.topicOnOneBroker(t, "poplive", 2)
	group := dev.UniqueName("poplive-g")
	ctx, cancel := context.WithTimeout(t.Context(), 4*time.Minute)
	defer cancel()
	const produced, popped = 8, 3
	if _, err := dev.GRPCSend(ctx, it.cl, topic, produced, ""); err != nil {
		t.Fatal(err)
	}
	st, err := store.Open(ctx, filepath.Join(t.TempDir(), "console.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	log := &eventLog{}
	live := NewLive(it.svc, LiveOptions{Interval: 500 * time.Millisecond, Timeout: 10 * time.Second, Renderer: log, Store: st})
	defer live.Close()
	v, err := live.Watch(group)
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	go func() {
		for range v.C {
		}
	}()
	waitWatcherSawNoClient(t, log)

	var known []string
	join := func(step string, o dev.GRPCConsumerOptions) (*dev.ConsumerProcess, string) {
		t.Helper()
		c := dev.StartGRPCConsumer(t, it.cl, group, topic, o)
		var id string
		waitFor(t, log, 90*time.Second, step+": the watcher reports the join", func(ev []Event, d *Detail) error {
			id = ""
			for _, cid := range clientIDs(d) {
				if !slices.Contains(known, cid) {
					id = cid
				}
			}
			if id == "" {
				return fmt.Errorf("no new client among %v", clientIDs(d))
			}
			for _, e := range ev {
				if e.Kind == KindJoined && e.ClientID == id {
					return nil
				}
			}
			return fmt.Errorf("no joined event for %s in %+v", id, ev)
		})
		known = append(known, id)
		return c, id
	}
	first, _ := join("first SimpleConsumer", dev.GRPCConsumerOptions{Simple: true, Receive: popped})
	if err := first.WaitReceived(90 * time.Second); err != nil {
		t.Fatal(err)
	}
	second, secondID := join("second SimpleConsumer", dev.GRPCConsumerOptions{Simple: true, Receive: 1})
	if err := second.WaitReceived(90 * time.Second); err != nil {
		t.Fatal(err)
	}
	second.Stop()
	waitFor(t, log, 90*time.Second, "the second consumer's leave", func(ev []Event, d *Detail) error {
		for _, e := range ev {
			if e.Kind == KindLeft && e.ClientID == secondID {
				return nil
			}
		}
		return fmt.Errorf("no left event for %s; clients %v", secondID, clientIDs(d))
	})
	ev, d := log.snapshot()
	for _, e := range ev {
		if e.Kind != KindJoined && e.Kind != KindLeft {
			t.Errorf("event %+v: a POP group's timeline has joins and leaves only", e)
		}
	}
	if d.Pop == nil || !strings.Contains(d.Pop.Note.String(), "nothing rebalances") || d.ConsumeType != ConsumeTypePop {
		t.Errorf("consume type %q, POP %+v: want POP, saying nothing rebalances", d.ConsumeType, d.Pop)
	}
	stored, err := st.RebalanceEvents(ctx, group, 100, time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	if len(stored) != len(ev) {
		t.Errorf("stored %d events, the watcher saw %d", len(stored), len(ev))
	}

	// The lag history: what the group list reads, recorded as the collector does.
	rec := NewLagRecorder(st, 0, nil)
	var want int64
	dev.Eventually(t, time.Minute, "the POP group's lag in the history", func() error {
		d, err := it.svc.Detail(ctx, group)
		if err != nil {
			return err
		}
		want = d.Pop.Ready
		l, err := it.svc.List(ctx, true)
		if err != nil {
			return err
		}
		rec.Record(ctx, l)
		samples, err := st.LagSamples(ctx, group, time.Now().Add(-time.Hour), time.Now().Add(time.Minute))
		if err != nil {
			return err
		}
		if len(samples) == 0 {
			return fmt.Errorf("no sample of %s", group)
		}
		last := samples[len(samples)-1]
		if last.Lag == nil || *last.Lag != want || want != produced-popped-1 {
			return fmt.Errorf("last sample %+v, ready %d: want %d, the messages not popped, as the group page shows them", last, want, produced-popped-1)
		}
		return nil
	})
}
