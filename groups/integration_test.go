package groups

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	rmq "github.com/apache/rocketmq-client-go/v2"
	"github.com/apache/rocketmq-client-go/v2/primitive"
	"github.com/apache/rocketmq-client-go/v2/producer"

	"rmqconsole/dev"
	"rmqconsole/dev/rmqclient"
	"rmqconsole/rocketmq"
	"rmqconsole/rocketmq/rocketmqtest"
	"rmqconsole/store"
)

// One local RocketMQ serves the integration tests of this package (or the one named by
// RMQC_TEST_NAMESRV); the unit tests never start it.
func TestMain(m *testing.M) {
	os.Exit(dev.RunTests(m))
}

// itCluster is the real cluster, our client on it, and the service under test. Tests
// that check only their own groups' figures are parallel: they run beside the orderly
// tests' wait for a lock to expire. Those that time consumers (the watcher's moves, time
// behind, duplicates after a move) stay sequential, so they run first and alone.
type itCluster struct {
	cl  *dev.Cluster
	c   *rocketmq.Client
	svc *Service
}

func newIT(t *testing.T) *itCluster {
	t.Helper()
	if testing.Short() {
		t.Skip("needs the local RocketMQ")
	}
	cl := dev.RequireCluster(t)
	c := rocketmqtest.Client(t, rocketmq.Config{NameServer: cl.NameServer, Timeout: 10 * time.Second, Credentials: rocketmq.Credentials(dev.TestAccount(cl.NameServer))})
	return &itCluster{cl: cl, c: c, svc: NewService(c, Options{})}
}

func (it *itCluster) topic(t *testing.T, prefix string, queues int) string {
	return it.topicOn(t, prefix, queues, nil)
}

// topicOnOneBroker creates a topic with queues on the cluster's first broker only, for
// tests whose assertions are per queue id, so they hold on every cluster shape.
func (it *itCluster) topicOnOneBroker(t *testing.T, prefix string, queues int) string {
	return it.topicOn(t, prefix, queues, &it.cl.Brokers[0])
}

// topicOn creates a topic with queues on broker, or on every broker when it is nil.
func (it *itCluster) topicOn(t *testing.T, prefix string, queues int, broker *dev.Broker) string {
	t.Helper()
	topic := dev.UniqueName(prefix)
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	var err error
	if broker == nil {
		err = it.cl.CreateTopic(ctx, topic, queues)
	} else {
		err = it.cl.CreateTopicOn(ctx, topic, queues, *broker)
	}
	if err != nil {
		t.Fatal(err)
	}
	return topic
}

func (it *itCluster) send(t *testing.T, topic string, n int) {
	t.Helper()
	opts := []producer.Option{producer.WithNameServer([]string{it.cl.NameServer}),
		producer.WithGroupName(dev.UniqueName("it-pg")), producer.WithInstanceName(dev.UniqueName("p")),
		producer.WithRetry(2), producer.WithSendMsgTimeout(10 * time.Second)}
	if cr, ok := rmqclient.Credentials(it.cl.NameServer); ok {
		opts = append(opts, producer.WithCredentials(cr))
	}
	p, err := rmq.NewProducer(opts...)
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Start(); err != nil {
		t.Fatal(err)
	}
	defer p.Shutdown()
	for i := range n {
		m := primitive.NewMessage(topic, []byte(fmt.Sprintf("m%d", i)))
		m.WithKeys([]string{fmt.Sprintf("k%d", i)})
		ctx, cancel := context.WithTimeout(t.Context(), 15*time.Second)
		_, err := p.SendSync(ctx, m)
		cancel()
		if err != nil {
			t.Fatalf("send %d to %s: %v", i, topic, err)
		}
	}
}

// idIn finds the consumer's client id (ip@instance) among ids.
func idIn(c *dev.ConsumerProcess, ids []string) string {
	for _, id := range ids {
		if strings.Contains(id, "@"+c.Instance) {
			return id
		}
	}
	return ""
}

// eventLog collects a watcher's updates.
type eventLog struct {
	mu     sync.Mutex
	events []Event
	last   *Detail
}

func (l *eventLog) Render(_ context.Context, u *Update) (Frame, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if u.Err == nil && u.Detail != nil {
		l.events = append(l.events, u.Events...)
		l.last = u.Detail
	}
	return Frame{[]byte("x")}, nil
}

func (l *eventLog) snapshot() ([]Event, *Detail) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.events), l.last
}

func clientIDs(d *Detail) []string {
	var ids []string
	for _, c := range d.Clients {
		ids = append(ids, c.ClientID)
	}
	return ids
}

// waitWatcherSawNoClient waits for the watcher's first read of a group without clients.
// A join is a change the watcher sees, so it must have read the group before the first
// consumer comes: a client connects within a few hundred milliseconds, sooner than a
// loaded watcher's first read, and is then part of the group as first seen.
func waitWatcherSawNoClient(t *testing.T, log *eventLog) {
	t.Helper()
	waitFor(t, log, 30*time.Second, "the watcher's first read of the group, without clients", func(_ []Event, d *Detail) error {
		if len(d.Clients) > 0 || d.ClientsUnknown {
			return fmt.Errorf("clients %v (unknown %v)", clientIDs(d), d.ClientsUnknown)
		}
		return nil
	})
}

// waitFor polls cond against the watcher's latest state until it holds.
func waitFor(t *testing.T, log *eventLog, timeout time.Duration, what string, cond func([]Event, *Detail) error) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		ev, d := log.snapshot()
		err := fmt.Errorf("no poll yet")
		if d != nil {
			err = cond(ev, d)
		}
		if err == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: still not true after %s: %v", what, timeout, err)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// settled: every client reports, every queue has exactly its expected owner, no idle
// client, and the clients are exactly want.
func settled(want []string) func([]Event, *Detail) error {
	return func(_ []Event, d *Detail) error {
		ids := clientIDs(d)
		if fmt.Sprint(ids) != fmt.Sprint(want) {
			return fmt.Errorf("clients %v, want %v", ids, want)
		}
		a := d.Assignment
		if !a.Applicable || !a.Matches || len(a.IdleClients) > 0 {
			return fmt.Errorf("assignment: applicable %v matches %v unowned %d twice %d differs %d idle %v (%s)",
				a.Applicable, a.Matches, a.Unowned, a.OwnedTwice, a.Differs, a.IdleClients, a.Note.String())
		}
		return nil
	}
}

// waitSettled waits until the assignment is settled for ids and the watcher's queues are
// every queue of the route as the NameServer has it now, each with its expected owner, and
// returns those owners. On two masters a group's retry topic reaches the second master's
// route later than its clients take the queue there: until the console's route has it
// too, the watcher has not reported that queue's move.
func waitSettled(t *testing.T, it *itCluster, log *eventLog, step string, topics, ids []string) map[rocketmq.MessageQueue]string {
	t.Helper()
	var after map[rocketmq.MessageQueue]string
	waitFor(t, log, 90*time.Second, step+": actual assignment equals expected", func(ev []Event, d *Detail) error {
		if err := settled(ids)(ev, d); err != nil {
			return err
		}
		after = expectedOwners(t, it, topics, ids)
		owner := map[rocketmq.MessageQueue]string{}
		for _, q := range d.Queues {
			owner[q.Queue()] = q.Owner
		}
		for mq, want := range after {
			if got, ok := owner[mq]; !ok || got != want {
				return fmt.Errorf("queue %s of the route: the watcher has it at %q (known %v), expected %q", mq, got, ok, want)
			}
		}
		return nil
	})
	return after
}

// expectedOwners is what AVG gives the clients, as the console's own check must agree
// with: recomputed here from the route and the client ids.
func expectedOwners(t *testing.T, it *itCluster, topics []string, clients []string) map[rocketmq.MessageQueue]string {
	t.Helper()
	out := map[rocketmq.MessageQueue]string{}
	for _, topic := range topics {
		it.c.InvalidateRoute(topic)
		r, err := it.c.TopicRoute(t.Context(), topic)
		if err != nil {
			t.Fatal(err)
		}
		exp, err := rocketmq.ExpectedAssignment(rocketmq.StrategyAveragely, r.ReadQueues(), clients)
		if err != nil {
			t.Fatal(err)
		}
		for mq, c := range exp {
			out[mq] = c
		}
	}
	return out
}

// checkMoves asserts the moves seen since event index from are exactly the queues whose
// expected owner changed from before to after, each ending with its new owner.
func checkMoves(t *testing.T, step string, events []Event, before, after map[rocketmq.MessageQueue]string) {
	t.Helper()
	lastTo := map[rocketmq.MessageQueue]string{}
	for _, e := range events {
		if e.Kind == KindMoved {
			lastTo[e.Queue()] = e.To
		}
	}
	for mq, owner := range after {
		if before[mq] == owner {
			if to, moved := lastTo[mq]; moved {
				t.Errorf("%s: queue %s moved to %s though its expected owner stayed %s", step, mq, to, owner)
			}
			continue
		}
		if lastTo[mq] != owner {
			t.Errorf("%s: queue %s should have moved from %q to %s; moves seen end at %q", step, mq, before[mq], owner, lastTo[mq])
		}
	}
}

func sinceIndex(events []Event, from int) []Event { return events[min(from, len(events)):] }

// Real push consumers join and leave an 8-queue topic's group; the live watcher reports
// each join and leave with the queues that moved, and the actual assignment ends equal
// to the expected one every time.
func TestWatcherSeesRealConsumersJoinLeaveAndRebalance(t *testing.T) {
	it := newIT(t)
	topic := it.topic(t, "grp-it", 8)
	group := dev.UniqueName("grp-it-cg")
	it.send(t, topic, 40)

	st, err := store.Open(t.Context(), filepath.Join(t.TempDir(), "console.db"))
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
	topics := []string{topic, rocketmq.RetryTopic(group)}
	ns := it.cl.NameServer

	var consumers []*dev.ConsumerProcess
	var ids []string
	expected := map[rocketmq.MessageQueue]string{}
	join := func(step string) {
		t.Helper()
		evFrom := len(func() []Event { e, _ := log.snapshot(); return e }())
		c := dev.StartConsumerProcess(t, ns, group, topic)
		consumers = append(consumers, c)
		var id string
		waitFor(t, log, 60*time.Second, step+": the watcher reports the join", func(ev []Event, d *Detail) error {
			if id = idIn(c, clientIDs(d)); id == "" {
				return fmt.Errorf("client %s not among %v", c.Instance, clientIDs(d))
			}
			for _, e := range sinceIndex(ev, evFrom) {
				if e.Kind == KindJoined && e.ClientID == id {
					return nil
				}
			}
			return fmt.Errorf("no joined event for %s", id)
		})
		ids = append(ids, id)
		slices.Sort(ids)
		after := waitSettled(t, it, log, step, topics, ids)
		ev, d := log.snapshot()
		checkMoves(t, step, sinceIndex(ev, evFrom), expected, after)
		for _, q := range d.Queues {
			if want := after[q.Queue()]; q.Owner != want {
				t.Errorf("%s: queue %s owned by %q, expected %q", step, q.Queue(), q.Owner, want)
			}
		}
		expected = after
	}
	join("first consumer")
	join("second consumer")
	join("third consumer")

	// Stop the second one to join: a leave event, and its queues re-assigned.
	gone := consumers[1]
	goneID := idIn(gone, ids)
	evFrom := len(func() []Event { e, _ := log.snapshot(); return e }())
	gone.Stop()
	ids = slices.DeleteFunc(ids, func(s string) bool { return s == goneID })
	waitFor(t, log, 90*time.Second, "leave: the watcher reports it", func(ev []Event, _ *Detail) error {
		for _, e := range sinceIndex(ev, evFrom) {
			if e.Kind == KindLeft && e.ClientID == goneID {
				return nil
			}
		}
		return fmt.Errorf("no left event for %s", goneID)
	})
	after := waitSettled(t, it, log, "leave", topics, ids)
	ev, _ := log.snapshot()
	checkMoves(t, "leave", sinceIndex(ev, evFrom), expected, after)
	for mq, owner := range expected {
		if owner == goneID && after[mq] == goneID {
			t.Errorf("queue %s still expected at the client that left", mq)
		}
	}

	// Every event was stored, in order, for the timeline after a restart.
	stored, err := st.RebalanceEvents(t.Context(), group, 1000, time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	ev, _ = log.snapshot()
	if len(stored) != len(ev) {
		t.Fatalf("stored %d events, the watcher saw %d", len(stored), len(ev))
	}
	count := map[string]int{}
	for _, e := range stored {
		count[e.Kind]++
	}
	if count[KindJoined] != 3 || count[KindLeft] != 1 || count[KindMoved] < 8 {
		t.Errorf("stored %v: want 3 joins, 1 leave, and at least the 8 first assignments", count)
	}
}

// consumerProgressRow is one queue row of mqadmin consumerProgress.
type consumerProgressRow struct {
	broker                string
	qid                   int
	brokerOff, consumeOff int64
	diff                  int64
}

// consumerProgress runs RocketMQ's own mqadmin consumerProgress -g group and parses the
// rows of topic. 5.x prints a client IP column before the diff.
func consumerProgress(t *testing.T, cl *dev.Cluster, group, topic string) []consumerProgressRow {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	out, err := cl.MQAdmin(ctx, "consumerProgress", "-g", group)
	if err != nil {
		t.Fatal(err)
	}
	var rows []consumerProgressRow
	for _, line := range strings.Split(out, "\n") {
		f := strings.Fields(line)
		if len(f) < 6 || f[0] != topic {
			continue
		}
		r := consumerProgressRow{broker: f[1]}
		r.qid, _ = strconv.Atoi(f[2])
		r.brokerOff, _ = strconv.ParseInt(f[3], 10, 64)
		r.consumeOff, _ = strconv.ParseInt(f[4], 10, 64)
		diffAt := 5
		if _, err := strconv.ParseInt(f[5], 10, 64); err != nil { // the client IP column
			diffAt = 6
		}
		r.diff, _ = strconv.ParseInt(f[diffAt], 10, 64)
		rows = append(rows, r)
	}
	if len(rows) == 0 {
		t.Fatalf("mqadmin consumerProgress -g %s shows no row of %s:\n%s", group, topic, out)
	}
	return rows
}

// Lag is the broker's max offset minus the committed offset, as mqadmin consumerProgress
// and the broker's own offset queries say.
func TestLagEqualsMaxOffsetMinusCommittedOffset(t *testing.T) {
	t.Parallel()
	it := newIT(t)
	topic := it.topic(t, "grp-lag", 4)
	group := dev.UniqueName("grp-lag-cg")
	it.send(t, topic, 20)
	c := dev.StartConsumerProcess(t, it.cl.NameServer, group, topic)
	// Wait until everything is consumed and committed (the client commits every 5 s).
	deadline := time.Now().Add(90 * time.Second)
	for {
		d, err := it.svc.Detail(t.Context(), group)
		if err == nil && d.TotalLag != nil && *d.TotalLag == 0 && len(d.Queues) >= 4 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the consumer did not catch up: %+v, %v", d, err)
		}
		time.Sleep(500 * time.Millisecond)
	}
	c.Stop() // offline: offsets stay put while we compare
	it.send(t, topic, 13)
	// The broker's queues take the new messages asynchronously (its consume queues are
	// built from the commit log behind the sends): compare once they hold all 33.
	dev.Eventually(t, 30*time.Second, "the broker's queues hold the 33 messages sent", func() error {
		var stored int64
		for _, b := range it.cl.Brokers {
			st, err := it.c.TopicStats(t.Context(), b.Addr, topic)
			if err != nil {
				continue // a broker without the topic
			}
			for _, o := range st.Offsets {
				stored += o.MaxOffset
			}
		}
		if stored < 33 {
			return fmt.Errorf("%d stored", stored)
		}
		return nil
	})

	d, err := it.svc.Detail(t.Context(), group)
	if err != nil {
		t.Fatal(err)
	}
	rows := consumerProgress(t, it.cl, group, topic)
	var total int64
	for _, r := range rows {
		mq := rocketmq.MessageQueue{Topic: topic, BrokerName: r.broker, QueueID: r.qid}
		var q *QueueLag
		for i := range d.Queues {
			if d.Queues[i].Queue() == mq {
				q = &d.Queues[i]
			}
		}
		if q == nil || q.Lag == nil || q.BrokerOffset == nil || q.ConsumerOffset == nil {
			t.Fatalf("queue %s: console row %+v, mqadmin says %+v", mq, q, r)
		}
		if *q.BrokerOffset != r.brokerOff || *q.ConsumerOffset != r.consumeOff || *q.Lag != r.diff {
			t.Errorf("queue %s: console broker %d consumer %d lag %d; mqadmin broker %d consumer %d diff %d",
				mq, *q.BrokerOffset, *q.ConsumerOffset, *q.Lag, r.brokerOff, r.consumeOff, r.diff)
		}
		// And straight from the broker: max offset and committed offset.
		addr := it.cl.Brokers[0].Addr
		for _, b := range it.cl.Brokers {
			if b.Name == r.broker {
				addr = b.Addr
			}
		}
		maxOff, err1 := it.c.MaxOffset(t.Context(), addr, mq)
		committed, err2 := it.c.QueryConsumerOffset(t.Context(), addr, group, mq)
		if err1 != nil || err2 != nil || *q.Lag != maxOff-committed {
			t.Errorf("queue %s: lag %d, broker max %d − committed %d (%v, %v)", mq, *q.Lag, maxOff, committed, err1, err2)
		}
		total += *q.Lag
	}
	if total != 13 || d.TotalLag == nil || *d.TotalLag < 13 {
		t.Errorf("lag over the topic %d (total %v), want the 13 unconsumed messages", total, d.TotalLag)
	}
}

// Clients of one group that subscribe to different topics are flagged, and the queues
// allocated to a client that does not subscribe show without an owner.
func TestDifferentSubscriptionsOnRealClientsAreFlagged(t *testing.T) {
	t.Parallel()
	it := newIT(t)
	a := it.topic(t, "grp-sub-a", 4)
	b := it.topic(t, "grp-sub-b", 4)
	group := dev.UniqueName("grp-sub-cg")
	dev.StartConsumerProcess(t, it.cl.NameServer, group, a)
	dev.StartConsumerProcess(t, it.cl.NameServer, group, b)
	deadline := time.Now().Add(90 * time.Second)
	for {
		d, err := it.svc.Detail(t.Context(), group)
		if err == nil && len(d.Clients) == 2 && d.SubscriptionsDiffer && d.Assignment.Unowned > 0 {
			flagged := 0
			for _, c := range d.Clients {
				if c.SubscriptionDiffers {
					flagged++
				}
			}
			if flagged != 1 {
				t.Fatalf("%d clients flagged, want 1", flagged)
			}
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("different subscriptions not flagged: %+v, %v", d, err)
		}
		time.Sleep(500 * time.Millisecond)
	}
}

// The group list, read with one GET_BROKER_CONSUME_STATS per broker, says the same lag as
// the group's own page (GET_CONSUME_STATS), for a group offline with a backlog and a
// group online and caught up, and lists the online group's client.
func TestListAgreesWithTheGroupPageOnARealBroker(t *testing.T) {
	t.Parallel()
	it := newIT(t)
	topic := it.topic(t, "grp-list", 4)
	behind, caught := dev.UniqueName("grp-list-off"), dev.UniqueName("grp-list-on")
	it.send(t, topic, 12)
	off := dev.StartConsumerProcess(t, it.cl.NameServer, behind, topic)
	on := dev.StartConsumerProcess(t, it.cl.NameServer, caught, topic)
	dev.Eventually(t, 90*time.Second, "both groups commit every message", func() error {
		for _, g := range []string{behind, caught} {
			d, err := it.svc.Detail(t.Context(), g)
			if err != nil {
				return err
			}
			if d.TotalLag == nil || *d.TotalLag != 0 || len(d.Queues) < 4 {
				return fmt.Errorf("%s: lag %v over %d queues", g, d.TotalLag, len(d.Queues))
			}
		}
		return nil
	})
	off.Stop()
	it.send(t, topic, 13)
	defer on.Stop()
	// One console across the attempts: on a cluster with more groups than a pass lists
	// the clients of, a later pass lists the groups an earlier one did not.
	var l *List
	svc := NewService(it.c, Options{})
	dev.Eventually(t, 60*time.Second, "the list sees the backlog and the online client", func() error {
		var err error
		if l, err = svc.List(t.Context(), true); err != nil {
			return err
		}
		b, c := find(l, behind), find(l, caught)
		if b == nil || c == nil {
			return fmt.Errorf("groups missing from the list of %d", len(l.Groups))
		}
		if b.TotalLag == nil || *b.TotalLag != 13 || b.Online || b.ClientsUnknown {
			return fmt.Errorf("%s: lag %v online %v unknown %v, want 13 offline", behind, b.TotalLag, b.Online, b.ClientsUnknown)
		}
		if c.TotalLag == nil || *c.TotalLag != 0 || !c.Online || c.Clients != 1 || c.ConsumeType != "push" {
			return fmt.Errorf("%s: %+v, want caught up with one push client", caught, c)
		}
		return nil
	})
	// A broker with more groups than BrokerStatsMaxGroups is read from its offset table
	// and topic stats: the same lag.
	small, err := NewService(it.c, Options{BrokerStatsMaxGroups: 1}).List(t.Context(), true)
	if err != nil {
		t.Fatal(err)
	}
	for _, g := range []string{behind, caught} {
		a, b := find(l, g), find(small, g)
		if b == nil || b.TotalLag == nil || *b.TotalLag != *a.TotalLag || !strings.Contains(b.LagNote.String(), "offset table") {
			t.Errorf("%s from the offset table: %+v, want lag %d", g, b, *a.TotalLag)
		}
	}
	for _, g := range []string{behind, caught} {
		d, err := it.svc.Detail(t.Context(), g)
		if err != nil {
			t.Fatal(err)
		}
		s := find(l, g)
		// The page also shows the queues of subscribed topics without an offset (the
		// retry topic): compare those with a lag.
		known := func(qs []QueueLag) int {
			n := 0
			for _, q := range qs {
				if q.Lag != nil {
					n++
				}
			}
			return n
		}
		if *d.TotalLag != *s.TotalLag || known(d.Queues) != known(s.Queues) {
			t.Errorf("%s: page lag %d over %d queues, list %d over %d", g, *d.TotalLag, known(d.Queues), *s.TotalLag, known(s.Queues))
		}
	}
}

func find(l *List, group string) *Summary {
	for i := range l.Groups {
		if l.Groups[i].Group == group {
			return &l.Groups[i]
		}
	}
	return nil
}

// A consumer slowed on purpose (one message at a time, 300 ms each) falls further behind
// in time while its backlog waits: the group's time behind grows on the group page, in
// the list and as its queues' oldest unconsumed message ages; once it is caught up, the
// time behind is 0.
func TestTimeBehindGrowsForASlowConsumer(t *testing.T) {
	it := newIT(t)
	topic := it.topic(t, "grp-behind", 1)
	group := dev.UniqueName("grp-behind-cg")
	it.send(t, topic, 40)
	// A consumer process, not rocketmq-client-go in this race-checked binary (the
	// library has data races of its own, see the Makefile): one message at a time,
	// 300 ms each.
	slow := dev.StartConsumerProcessWith(t, it.cl.NameServer, group, dev.ConsumerOptions{Work: 300 * time.Millisecond, Goroutines: 1}, topic)

	// Wait for a first commit with a backlog left.
	var first *Detail
	dev.Eventually(t, 60*time.Second, "a committed offset with a backlog", func() error {
		d, err := it.svc.Detail(t.Context(), group)
		if err != nil {
			return err
		}
		if d.TotalLag == nil || *d.TotalLag == 0 || *d.TotalLag >= 40 || d.MaxLagTimeMs == nil {
			return fmt.Errorf("lag %v, time behind %v (%s)", d.TotalLag, d.MaxLagTimeMs, d.MaxLagTimeNote.String())
		}
		first = d
		return nil
	})
	// The queue furthest behind: on two masters the topic has a queue on each, and one
	// may be caught up already.
	var q *QueueLag
	for i := range first.Queues {
		fq := &first.Queues[i]
		if fq.Topic == topic && (q == nil || fq.LagTimeMs != nil && (q.LagTimeMs == nil || *fq.LagTimeMs > *q.LagTimeMs)) {
			q = fq
		}
	}
	if q == nil || q.LagTimeMs == nil || *q.LagTimeMs <= 0 || *q.LagTimeMs > *first.MaxLagTimeMs {
		t.Fatalf("queue %+v: want a positive time behind, at most the group's %d", q, *first.MaxLagTimeMs)
	}
	// The messages were all stored before the consumer started; the one at the offset it
	// reaches next was stored then too, so time behind grows with the clock.
	dev.Eventually(t, 60*time.Second, "the time behind grows", func() error {
		d, err := it.svc.Detail(t.Context(), group)
		if err != nil {
			return err
		}
		if d.TotalLag == nil || *d.TotalLag == 0 {
			return fmt.Errorf("caught up before the time behind was seen to grow (lag %v)", d.TotalLag)
		}
		if d.MaxLagTimeMs == nil || *d.MaxLagTimeMs < *first.MaxLagTimeMs+2000 {
			return fmt.Errorf("time behind %v, first %d", d.MaxLagTimeMs, *first.MaxLagTimeMs)
		}
		return nil
	})
	l, err := NewService(it.c, Options{}).List(t.Context(), true)
	if err != nil {
		t.Fatal(err)
	}
	if g := find(l, group); g == nil || g.MaxLagTimeMs == nil || *g.MaxLagTimeMs < *first.MaxLagTimeMs {
		t.Errorf("the list's time behind %+v, want at least %d", g, *first.MaxLagTimeMs)
	}
	// A fast consumer in its place catches up: 0.
	slow.Stop()
	dev.StartConsumerProcess(t, it.cl.NameServer, group, topic)
	dev.Eventually(t, 90*time.Second, "caught up: time behind 0", func() error {
		d, err := it.svc.Detail(t.Context(), group)
		if err != nil {
			return err
		}
		for _, q := range d.Queues {
			if q.Topic == topic && (q.LagTimeMs == nil || *q.LagTimeMs != 0) {
				return fmt.Errorf("queue %d: lag %v time behind %v (%s)", q.QueueID, q.Lag, q.LagTimeMs, q.LagTimeUnknown.String())
			}
		}
		return nil
	})
}
