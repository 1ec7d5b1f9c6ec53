package groups

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"rmqconsole/dev"
	"rmqconsole/fault"
	"rmqconsole/store"
)

// watchIT watches group with a live watcher over the real cluster, storing its events
// in a real SQLite file; the log collects what it renders.
func watchIT(t *testing.T, it *itCluster, group string) (*eventLog, *store.Store) {
	t.Helper()
	st, err := store.Open(t.Context(), filepath.Join(t.TempDir(), "console.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	log := &eventLog{}
	live := NewLive(it.svc, LiveOptions{Interval: 500 * time.Millisecond, Timeout: 10 * time.Second, Renderer: log, Store: st})
	t.Cleanup(live.Close)
	v, err := live.Watch(group)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(v.Close)
	go func() {
		for range v.C {
		}
	}()
	return log, st
}

// locksOf maps each queue of topic to its lock as the watcher shows it.
func locksOf(d *Detail, topic string) map[int]*QueueLock {
	out := map[int]*QueueLock{}
	for _, q := range d.Queues {
		if q.Topic == topic {
			out[q.QueueID] = q.Lock
		}
	}
	return out
}

// Two real orderly consumers (rocketmq-client-go's orderly option) share a 4-queue
// topic: the watcher shows the group orderly and each queue's lock holder. The holder
// of some queues is killed (SIGKILL: it neither unlocks nor unregisters): those queues
// show blocked, locked by a client that left, until the broker lets the lock expire and
// the other client locks them; the timeline records each handover.
func TestOrderlyLockHolderKilledBlocksItsQueuesUntilTheLockMoves(t *testing.T) {
	it := newIT(t)
	t.Parallel()
	topic := it.topicOnOneBroker(t, "ord-it", 4) // the locks are told apart by queue id
	group := dev.UniqueName("ord-it-cg")
	it.send(t, topic, 40)
	log, st := watchIT(t, it, group)
	o := dev.ConsumerOptions{Orderly: true, LockInterval: 2 * time.Second}
	a := dev.StartConsumerProcessWith(t, it.cl.NameServer, group, o, topic)
	b := dev.StartConsumerProcessWith(t, it.cl.NameServer, group, o, topic)

	var aID, bID string
	var aQueues []int
	waitFor(t, log, 120*time.Second, "each client holds the lock of two queues", func(_ []Event, d *Detail) error {
		aID, bID = idIn(a, clientIDs(d)), idIn(b, clientIDs(d))
		if aID == "" || bID == "" {
			return fmt.Errorf("clients %v", clientIDs(d))
		}
		if d.ConsumeMode != ModeOrderly {
			return fmt.Errorf("group mode %q", d.ConsumeMode)
		}
		aQueues = nil
		held := map[string]int{}
		for id, l := range locksOf(d, topic) {
			if l == nil || !l.Locked || !l.HolderOnline {
				return fmt.Errorf("queue %d lock %+v", id, l)
			}
			held[l.Holder]++
			if l.Holder == aID {
				aQueues = append(aQueues, id)
			}
		}
		if held[aID] != 2 || held[bID] != 2 {
			return fmt.Errorf("locks held %v", held)
		}
		return nil
	})
	_, d := log.snapshot()
	for _, c := range d.Clients {
		if c.ConsumeMode != ModeOrderly {
			t.Errorf("client %s mode %q, want orderly", c.ClientID, c.ConsumeMode)
		}
	}
	if l := locksOf(d, topic)[aQueues[0]]; l.LastLockTimestamp <= 0 || time.Since(time.UnixMilli(l.LastLockTimestamp)) > 30*time.Second {
		t.Errorf("a's lock last renewed at %d: want a recent renewal (the client renews every 2 s)", l.LastLockTimestamp)
	}

	evFrom := len(func() []Event { e, _ := log.snapshot(); return e }())
	killed := time.Now()
	a.Kill()
	// Blocked: a is gone, its queues are still locked by it.
	waitFor(t, log, 60*time.Second, "a's queues show blocked by the client that left", func(_ []Event, d *Detail) error {
		if idIn(a, clientIDs(d)) != "" {
			return fmt.Errorf("a still listed")
		}
		locks := locksOf(d, topic)
		for _, id := range aQueues {
			l := locks[id]
			if l == nil || l.Holder != aID || l.HolderOnline || !l.Blocked || !strings.Contains(l.Warning.String(), "locked by a client that left") {
				return fmt.Errorf("queue %d lock %+v", id, l)
			}
		}
		return nil
	})
	_, d = log.snapshot()
	t.Logf("while blocked: %v", d.Blocked)
	// The lock moves to b once the broker's lock of a has expired (60 s after its last
	// renewal) and b's next rebalance (every 20 s) locks it.
	waitFor(t, log, 150*time.Second, "b locks a's queues", func(ev []Event, d *Detail) error {
		locks := locksOf(d, topic)
		for _, id := range aQueues {
			if l := locks[id]; l == nil || !l.Locked || l.Holder != bID || l.Blocked {
				return fmt.Errorf("queue %d lock %+v", id, l)
			}
		}
		return nil
	})
	t.Logf("the lock moved %s after the kill", time.Since(killed).Round(time.Second))
	ev, _ := log.snapshot()
	handed := map[int]Event{}
	for _, e := range sinceIndex(ev, evFrom) {
		if e.Kind == KindLocked && e.From == aID && e.To == bID {
			handed[*e.QueueID] = e
		}
	}
	for _, id := range aQueues {
		e, ok := handed[id]
		if !ok {
			t.Errorf("no lock handover a > b recorded for queue %d (events %v)", id, kinds(sinceIndex(ev, evFrom)))
			continue
		}
		// The broker keeps a's lock for 60 s after its last renewal: the queue waited
		// for most of that.
		if e.UnlockedMs < 40_000 {
			t.Errorf("queue %d without lock holder for %d ms: want most of the broker's 60 s expiry", id, e.UnlockedMs)
		}
	}
	stored, err := st.RebalanceEvents(t.Context(), group, 1000, time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, e := range stored {
		if e.Kind == KindLocked && e.From == aID {
			n++
		}
	}
	if n != len(aQueues) {
		t.Errorf("stored %d lock handovers from a, want %d", n, len(aQueues))
	}
}

// A slow consumer a has pulled far ahead of what it consumed; b joins and a is killed
// during the rebalance. Each of a's queues moves to b with a duplicates-at-risk bound
// from a's last report, and b really receives messages a had received: some, and per
// queue never more than the bound.
func TestMoveBoundsTheDuplicatesTheNewOwnerReallyReceives(t *testing.T) {
	it := newIT(t)
	t.Parallel()
	topic := it.topic(t, "dup-it", 2)
	group := dev.UniqueName("dup-it-cg")
	it.send(t, topic, 200)
	log, _ := watchIT(t, it, group)
	a := dev.StartConsumerProcessWith(t, it.cl.NameServer, group,
		dev.ConsumerOptions{Work: 400 * time.Millisecond, Goroutines: 2, Print: true}, topic)

	var aID string
	waitFor(t, log, 90*time.Second, "a holds both queues, has pulled ahead and committed some", func(_ []Event, d *Detail) error {
		if aID = idIn(a, clientIDs(d)); aID == "" {
			return fmt.Errorf("clients %v", clientIDs(d))
		}
		for _, q := range d.Queues {
			if q.Topic != topic {
				continue
			}
			if q.Owner != aID || q.ConsumerOffset == nil || *q.ConsumerOffset < 2 || q.pulledEnd <= *q.ConsumerOffset {
				return fmt.Errorf("queue %d owner %q committed %v pulled to %d", q.QueueID, q.Owner, q.ConsumerOffset, q.pulledEnd)
			}
		}
		return nil
	})
	evFrom := len(func() []Event { e, _ := log.snapshot(); return e }())
	b := dev.StartConsumerProcessWith(t, it.cl.NameServer, group, dev.ConsumerOptions{Print: true}, topic)
	waitFor(t, log, 60*time.Second, "the watcher sees b join", func(_ []Event, d *Detail) error {
		if idIn(b, clientIDs(d)) == "" {
			return fmt.Errorf("clients %v", clientIDs(d))
		}
		return nil
	})
	a.Kill()
	aGot := a.Received()

	var moves map[int]Event
	waitFor(t, log, 120*time.Second, "both queues moved from a to b", func(ev []Event, d *Detail) error {
		bID := idIn(b, clientIDs(d))
		moves = map[int]Event{}
		for _, e := range sinceIndex(ev, evFrom) {
			if e.Kind == KindMoved && e.Topic == topic && e.From == aID && e.To == bID {
				moves[*e.QueueID] = e
			}
		}
		if len(moves) != 2 {
			return fmt.Errorf("moves a > b: %v", kinds(sinceIndex(ev, evFrom)))
		}
		return nil
	})
	// b consumes everything (it is fast); then count what it received that a had too.
	waitFor(t, log, 120*time.Second, "b consumed the whole backlog", func(_ []Event, d *Detail) error {
		for _, q := range d.Queues {
			if q.Topic == topic && (q.Lag == nil || *q.Lag != 0) {
				return fmt.Errorf("queue %d lag %v", q.QueueID, q.Lag)
			}
		}
		return nil
	})
	seenByA := map[string]bool{}
	for _, m := range aGot {
		seenByA[m] = true
	}
	dups := map[int]int64{}
	for _, m := range b.Received() {
		if seenByA[m] {
			var tp, broker string
			var qid int
			var off int64
			if _, err := fmt.Sscanf(m, "%s %s %d %d", &tp, &broker, &qid, &off); err == nil {
				dups[qid]++
			}
		}
	}
	var bound, observed int64
	for qid, e := range moves {
		if e.DuplicatesAtRisk == nil {
			t.Errorf("queue %d moved without a duplicates-at-risk bound", qid)
			continue
		}
		t.Logf("queue %d: bound %d, b received %d that a had received (unowned %d ms)", qid, *e.DuplicatesAtRisk, dups[qid], e.UnownedMs)
		if dups[qid] > *e.DuplicatesAtRisk {
			t.Errorf("queue %d: b received %d messages a had received, more than the bound %d", qid, dups[qid], *e.DuplicatesAtRisk)
		}
		bound += *e.DuplicatesAtRisk
		observed += dups[qid]
	}
	if bound == 0 || observed == 0 {
		t.Errorf("bound %d, observed duplicates %d: want both above zero (a received %d messages)", bound, observed, len(aGot))
	}
}

// A real Go consumer's own report on the client page's service: its listener, its
// process queues, its goroutine dump when asked; a client id no broker lists is not
// found.
func TestClientReportsARealConsumersRunningInfo(t *testing.T) {
	it := newIT(t)
	t.Parallel()
	topic := it.topic(t, "cli-it", 2)
	group := dev.UniqueName("cli-it-cg")
	it.send(t, topic, 10)
	c := dev.StartConsumerProcess(t, it.cl.NameServer, group, topic)
	var ci *ClientInfo
	deadline := time.Now().Add(90 * time.Second)
	for {
		d, err := it.svc.Detail(t.Context(), group)
		if err != nil {
			t.Fatal(err)
		}
		if id := idIn(c, clientIDs(d)); id != "" {
			if ci, err = it.svc.Client(t.Context(), group, id, true); err != nil {
				t.Fatal(err)
			}
			if n := len(ci.Queues); n >= 2 && ci.Queues[0].CommitOffset > 0 {
				break
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("the consumer never reported its two queues: %+v", ci)
		}
		time.Sleep(time.Second)
	}
	t.Logf("a Go client reports properties %v", ci.Properties)
	if ci.ConsumeMode != ModeConcurrent || ci.Language != "GO" || ci.ConsumeType != "push" || ci.StartedAt == 0 {
		t.Errorf("client %+v: want a concurrent Go push consumer with its start time", ci)
	}
	if ci.Settings[0].Value.String() != "concurrently (MessageListenerConcurrently)" {
		t.Errorf("listener setting %+v", ci.Settings[0])
	}
	if q := ci.Queues[0]; q.Topic != topic || q.Locked || q.Dropped || q.LastPullTimestamp == 0 {
		t.Errorf("first process queue %+v: want the topic's, not locked, pulled", q)
	}
	if len(ci.Topics) == 0 || len(ci.Subscriptions) == 0 {
		t.Errorf("topics %v subscriptions %v", ci.Topics, ci.Subscriptions)
	}
	if !strings.Contains(ci.Jstack, "goroutine") {
		t.Errorf("dump %.100q: want the Go client's goroutines", ci.Jstack)
	}
	if _, err := it.svc.Client(t.Context(), group, "10.9.9.9@nobody", false); !fault.Is(err, fault.NotFound) {
		t.Errorf("unknown client: %v, want the client not found", err)
	}
}

// A viewer opens an orderly group whose one client cannot report its queues (frozen
// here; rocketmq-client-go cannot for a few seconds after it starts): the watcher sees
// the client but not what it holds. When the client reports again, every queue is still
// its own and locked by it: the timeline records no move, no lock and no rebalance.
func TestWatchStartedWhileTheClientCannotReportRecordsNoRebalance(t *testing.T) {
	it := newIT(t)
	t.Parallel()
	topic := it.topicOnOneBroker(t, "ord-base", 4)
	group := dev.UniqueName("ord-base-cg")
	it.send(t, topic, 20)
	a := dev.StartConsumerProcessWith(t, it.cl.NameServer, group, dev.ConsumerOptions{Orderly: true, LockInterval: 2 * time.Second}, topic)
	var aID string
	holdsAll := func(d *Detail) error {
		if aID = idIn(a, clientIDs(d)); aID == "" || !d.ownersKnown {
			return fmt.Errorf("clients %v, reports complete %v", clientIDs(d), d.ownersKnown)
		}
		for id, l := range locksOf(d, topic) {
			if l == nil || !l.Locked || l.Holder != aID {
				return fmt.Errorf("queue %d lock %+v", id, l)
			}
		}
		if n := len(locksOf(d, topic)); n != 4 {
			return fmt.Errorf("%d queues", n)
		}
		return nil
	}
	dev.Eventually(t, 90*time.Second, "a holds and locks the four queues", func() error {
		d, err := it.svc.Detail(t.Context(), group)
		if err != nil {
			return err
		}
		return holdsAll(d)
	})

	if err := a.Freeze(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = a.Thaw() })
	log, st := watchIT(t, it, group)
	waitFor(t, log, 60*time.Second, "the watcher sees a without its report", func(_ []Event, d *Detail) error {
		for _, c := range d.Clients {
			if c.ClientID == aID && c.RunningInfoError.String() != "" {
				return nil
			}
		}
		return fmt.Errorf("clients %+v", d.Clients)
	})
	if err := a.Thaw(); err != nil {
		t.Fatal(err)
	}
	waitFor(t, log, 60*time.Second, "the watcher sees a's report: it holds and locks the four queues", func(_ []Event, d *Detail) error {
		return holdsAll(d)
	})
	ev, _ := log.snapshot()
	if len(ev) != 0 {
		t.Errorf("the timeline recorded %v, though every queue stayed a's", kinds(ev))
	}
	stored, err := st.RebalanceEvents(t.Context(), group, 100, time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	if rb := Rebalances(EventsFromStore(stored)); len(stored) != 0 || len(rb) != 0 {
		t.Errorf("stored %d events summed as rebalances %+v, want none", len(stored), rb)
	}
}
