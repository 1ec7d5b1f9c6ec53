package groups

import (
	"strings"
	"sync"
	"testing"
	"time"

	"rmqconsole/rocketmq"
)

// orderlySnap is a snapshot at second sec of an orderly group: clients online, and per
// queue id the running info its holder reported ("" for none).
func orderlySnap(sec int, clients []string, held map[int]heldQueue) *Detail {
	at := time.Unix(1_700_000_000+int64(sec), 0)
	d := &Detail{Group: tG, CheckedAt: at, clientsKnown: true, ownersKnown: true}
	infos := make([]*rocketmq.ConsumerRunningInfo, len(clients))
	for i, c := range clients {
		d.Clients = append(d.Clients, Client{ClientID: c, ConsumeMode: ModeOrderly})
		infos[i] = &rocketmq.ConsumerRunningInfo{Properties: map[string]string{"PROP_CONSUMEORDERLY": "true"},
			MQTable: map[rocketmq.MessageQueue]rocketmq.ProcessQueueInfo{}}
	}
	for id := range len(held) {
		lag := int64(5)
		committed := int64(100)
		d.Queues = append(d.Queues, QueueLag{Topic: tT, BrokerName: "broker-a", QueueID: id, Lag: &lag, ConsumerOffset: &committed})
		h := held[id]
		for i, c := range clients {
			if c == h.client {
				infos[i].MQTable[mq(tT, "broker-a", id)] = rocketmq.ProcessQueueInfo{Locked: !h.unlocked,
					LastLockTimestamp: at.Add(-h.renewedAgo).UnixMilli(), CommitOffset: 100 + h.consumed,
					CachedMsgCount: h.cached, CachedMsgMaxOffset: 100 + h.consumed + h.cached - 1}
			}
		}
	}
	d.applyRunningInfos(infos)
	d.ConsumeMode = groupConsumeMode(d.Clients)
	d.applyOwners(infos)
	d.applyLocks(infos)
	return d
}

type heldQueue struct {
	client     string
	unlocked   bool
	renewedAgo time.Duration
	consumed   int64 // past the broker's committed offset 100
	cached     int64
}

func TestOrderlyQueueBlockedWhileItsGoneHolderLockLastsThenHandedOver(t *testing.T) {
	tr := newTracker()
	// a and b hold one queue each, locked.
	d := orderlySnap(0, []string{"a", "b"}, map[int]heldQueue{0: {client: "a", renewedAgo: 5 * time.Second}, 1: {client: "b"}})
	if d.ConsumeMode != ModeOrderly || d.LockExpiryMs != 60000 {
		t.Fatalf("mode %q expiry %d: want orderly, 60000", d.ConsumeMode, d.LockExpiryMs)
	}
	if l := d.Queues[0].Lock; l == nil || l.Holder != "a" || !l.Locked || !l.HolderOnline || l.Blocked {
		t.Fatalf("queue 0 lock %+v: want held by a, online, not blocked", l)
	}
	tr.observe(d)
	// a is killed: it leaves, and nobody holds queue 0 (b cannot lock it yet).
	d = orderlySnap(10, []string{"b"}, map[int]heldQueue{0: {}, 1: {client: "b"}})
	events := tr.observe(d)
	l := d.Queues[0].Lock
	if l == nil || l.Holder != "a" || l.Locked || l.HolderOnline || !l.Blocked || l.HolderLeftAt != d.CheckedAt.UnixMilli() {
		t.Fatalf("queue 0 lock after a left: %+v: want a's lock remembered, holder offline, blocked", l)
	}
	want := "Queue 0 of T on broker-a is blocked: locked by a client that left 0 s ago (a); the lock expires after 60 s, in about 45 s"
	if !strings.HasPrefix(l.Warning.String(), want) || len(d.Blocked) != 1 {
		t.Errorf("warning %q (blocked %v), want it to start %q", l.Warning.String(), d.Blocked, want)
	}
	if kinds(events)[0] != "left:a" {
		t.Errorf("events %v", kinds(events))
	}
	// 70 s later b locks it: the handover is an event, the queue is no longer blocked.
	d = orderlySnap(70, []string{"b"}, map[int]heldQueue{0: {client: "b"}, 1: {client: "b"}})
	events = tr.observe(d)
	var handover *Event
	for i := range events {
		if events[i].Kind == KindLocked {
			handover = &events[i]
		}
	}
	if handover == nil || handover.From != "a" || handover.To != "b" || *handover.QueueID != 0 || handover.UnlockedMs != 70000 {
		t.Fatalf("events %+v: want queue 0's lock handed from a to b after 70 s", events)
	}
	if l := d.Queues[0].Lock; !l.Locked || l.Holder != "b" || l.Blocked || l.LockedSince != d.CheckedAt.UnixMilli() || len(d.Blocked) != 0 {
		t.Errorf("queue 0 lock %+v, blocked %v: want b's, since now, not blocked", l, d.Blocked)
	}
	if l := d.Queues[1].Lock; l.LockedSince != 0 {
		t.Errorf("queue 1 locked since %d: b held it at the baseline, so when it took it is unknown", l.LockedSince)
	}
}

func TestOrderlyLockPastTheBrokerExpiryWithLagIsBlocked(t *testing.T) {
	d := orderlySnap(0, []string{"a"}, map[int]heldQueue{0: {client: "a", renewedAgo: 75 * time.Second}, 1: {client: "a", renewedAgo: 3 * time.Second}})
	if !d.Queues[0].Lock.Blocked || d.Queues[1].Lock.Blocked || len(d.Blocked) != 1 {
		t.Fatalf("locks %+v %+v: want only queue 0 blocked", d.Queues[0].Lock, d.Queues[1].Lock)
	}
	if w := d.Queues[0].Lock.Warning.String(); !strings.Contains(w, "a last renewed its lock 75 s ago, longer than the broker's 60 s lock expiry") {
		t.Errorf("warning %q", w)
	}
	// Held but not locked (another's lock not expired yet): blocked too.
	d = orderlySnap(0, []string{"a"}, map[int]heldQueue{0: {client: "a", unlocked: true}})
	if l := d.Queues[0].Lock; !l.Blocked || l.HeldUnlocked != "a" {
		t.Errorf("held unlocked: %+v, want blocked naming a", l)
	}
}

func TestMoveRecordsWhatTheOldOwnerHadPulledPastTheCommittedOffset(t *testing.T) {
	tr := newTracker()
	tr.observe(orderlySnap(0, []string{"a", "b"}, map[int]heldQueue{0: {client: "a", consumed: 2, cached: 3}, 1: {client: "b"}}))
	// a's later report: 4 consumed past the broker's offset, 6 cached.
	tr.observe(orderlySnap(1, []string{"a", "b"}, map[int]heldQueue{0: {client: "a", consumed: 4, cached: 6}, 1: {client: "b"}}))
	tr.observe(orderlySnap(2, []string{"b"}, map[int]heldQueue{0: {}, 1: {client: "b"}}))
	events := tr.observe(orderlySnap(4, []string{"b"}, map[int]heldQueue{0: {client: "b"}, 1: {client: "b"}}))
	var move *Event
	for i := range events {
		if events[i].Kind == KindMoved {
			move = &events[i]
		}
	}
	if move == nil || move.From != "a" || move.To != "b" || move.UnownedMs != 2000 {
		t.Fatalf("events %+v: want queue 0 moved a > b after 2 s unowned", events)
	}
	if move.DuplicatesAtRisk == nil || *move.DuplicatesAtRisk != 10 {
		t.Errorf("duplicates at risk %v, want 10 (4 consumed + 6 cached past offset 100 at a's last report)", move.DuplicatesAtRisk)
	}
	// A queue whose first owner appears after the baseline has no previous owner: unknown.
	tr = newTracker()
	tr.observe(orderlySnap(0, []string{"b"}, map[int]heldQueue{}))
	for _, e := range tr.observe(orderlySnap(1, []string{"b"}, map[int]heldQueue{0: {client: "b"}})) {
		if e.Kind == KindMoved && e.DuplicatesAtRisk != nil {
			t.Errorf("first owner's move has a bound %d, want none", *e.DuplicatesAtRisk)
		}
	}
}

func TestRebalancesSumMovesThatComeTogether(t *testing.T) {
	at := func(s int) time.Time { return time.Unix(1_700_000_000+int64(s), 0) }
	n := func(v int64) *int64 { return &v }
	q := 0
	// newest first, as the timeline holds them
	events := []Event{
		{At: at(100), Kind: KindMoved, QueueID: &q, From: "b", To: "a", DuplicatesAtRisk: n(2), UnownedMs: 500},
		{At: at(95), Kind: KindJoined, ClientID: "a"},
		{At: at(20), Kind: KindLocked, QueueID: &q, From: "a", To: "b"},
		{At: at(12), Kind: KindMoved, QueueID: &q, From: "a", To: "b", DuplicatesAtRisk: n(7), UnownedMs: 1000},
		{At: at(10), Kind: KindMoved, QueueID: &q, To: "b", UnownedMs: 3000},
		{At: at(10), Kind: KindLeft, ClientID: "a"},
	}
	rs := Rebalances(events)
	if len(rs) != 2 {
		t.Fatalf("rebalances %+v: want two", rs)
	}
	if r := rs[0]; r.Moves != 1 || r.DuplicatesAtRisk != 2 || !r.Start.Equal(at(95)) || !r.End.Equal(at(100)) {
		t.Errorf("newest rebalance %+v", r)
	}
	if r := rs[1]; r.Moves != 2 || r.DuplicatesAtRisk != 7 || r.UnknownMoves != 1 || r.MaxUnownedMs != 3000 || r.LockHandovers != 1 || !r.Start.Equal(at(10)) || !r.End.Equal(at(20)) {
		t.Errorf("older rebalance %+v", r)
	}
}

func TestListSaysEachOnlineGroupsConsumeModeAskingOneClientAtMostOncePerTTL(t *testing.T) {
	f := newScenario()
	f.setTopic(tT, map[string]int{"broker-a": 2})
	f.setClients("ord", map[string]clientSpec{"c1": {topics: []string{tT}, orderly: true, holds: queues(tT, "broker-a", 0)},
		"c2": {topics: []string{tT}, orderly: true, holds: queues(tT, "broker-a", 1)}})
	f.setClients("conc", map[string]clientSpec{"c3": {topics: []string{tT}}})
	f.setOffsets("offline", "broker-a", tT, map[int][2]int64{0: {5, 5}})
	s := NewService(f, Options{})
	l, err := s.List(t.Context(), true)
	if err != nil {
		t.Fatal(err)
	}
	modes := map[string]string{}
	for _, g := range l.Groups {
		modes[g.Group] = g.ConsumeMode
	}
	if modes["ord"] != ModeOrderly || modes["conc"] != ModeConcurrent || modes["offline"] != "" {
		t.Errorf("modes %v: want ord orderly, conc concurrent, offline unknown", modes)
	}
	if n := f.Calls()["ConsumerRunningInfo"]; n != 2 {
		t.Errorf("%d running-info calls, want one per online group", n)
	}
	if _, err := s.List(t.Context(), true); err != nil {
		t.Fatal(err)
	}
	if n := f.Calls()["ConsumerRunningInfo"]; n != 2 {
		t.Errorf("%d running-info calls after a second list, want none more within ModeTTL", n)
	}
}

// Modes read once expire together ModeTTL later; a pass then reads no more running
// infos than it reads client lists, however many groups are online.
func TestListReadsABoundedNumberOfConsumeModesPerPass(t *testing.T) {
	f := newScenario()
	f.setTopic(tT, map[string]int{"broker-a": 1})
	for _, g := range []string{"g1", "g2", "g3"} {
		f.setClients(g, map[string]clientSpec{"c-" + g: {topics: []string{tT}}})
	}
	now := time.Unix(1_700_000_000, 0)
	var mu sync.Mutex
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	s := NewService(f, Options{ClientLookups: 1, Now: clock})
	list := func() {
		t.Helper()
		if _, err := s.List(t.Context(), true); err != nil {
			t.Fatal(err)
		}
		mu.Lock()
		now = now.Add(time.Second)
		mu.Unlock()
	}
	for range 3 { // one group's clients, and so its mode, per pass
		list()
	}
	if n := f.Calls()["ConsumerRunningInfo"]; n != 3 {
		t.Fatalf("%d running-info calls in three passes, want one per group", n)
	}
	mu.Lock()
	now = now.Add(ModeTTL)
	mu.Unlock()
	list()
	if n := f.Calls()["ConsumerRunningInfo"] - 3; n != 1 {
		t.Errorf("%d running-info calls in the pass after every mode expired, want at most ClientLookups (1)", n)
	}
}
