package groups

import (
	"testing"
	"time"
)

// snap builds a snapshot at second sec with clients and owners (queue id -> owner, ""
// for none, "a+b" for two holders) of topic T on broker-a.
func snap(sec int, clients []string, owners map[int]string) *Detail {
	d := &Detail{Group: tG, CheckedAt: time.Unix(1_700_000_000+int64(sec), 0), clientsKnown: true, ownersKnown: true}
	for _, c := range clients {
		d.Clients = append(d.Clients, Client{ClientID: c})
	}
	for id := range len(owners) {
		q := QueueLag{Topic: tT, BrokerName: "broker-a", QueueID: id, Owner: owners[id]}
		if o := owners[id]; len(o) == 3 && o[1] == '+' {
			q.Owner, q.Owners = o[:1], []string{o[:1], o[2:]}
		}
		d.Queues = append(d.Queues, q)
	}
	return d
}

func kinds(events []Event) []string {
	var out []string
	for _, e := range events {
		s := e.Kind + ":" + e.ClientID
		if e.Kind == KindMoved {
			s = "moved:" + e.From + ">" + e.To
		}
		out = append(out, s)
	}
	return out
}

func TestTrackerReportsJoinsLeavesAndMovesWithUnownedTime(t *testing.T) {
	tr := newTracker()
	steps := []struct {
		d    *Detail
		want []string
		gap  map[int]int64 // queue id -> unowned ms of its move
	}{
		{snap(0, []string{"a"}, map[int]string{0: "a", 1: "a"}), nil, nil}, // baseline
		// b joins; a has already dropped queue 1, b has not taken it yet.
		{snap(1, []string{"a", "b"}, map[int]string{0: "a", 1: ""}), []string{"joined:b"}, nil},
		// b takes queue 1, two seconds after a dropped it.
		{snap(3, []string{"a", "b"}, map[int]string{0: "a", 1: "b"}), []string{"moved:a>b"}, map[int]int64{1: 2000}},
		// a leaves and its queue moves straight to b between two polls.
		{snap(4, []string{"b"}, map[int]string{0: "b", 1: "b"}), []string{"left:a", "moved:a>b"}, map[int]int64{0: 0}},
		// nothing changes
		{snap(5, []string{"b"}, map[int]string{0: "b", 1: "b"}), nil, nil},
	}
	for i, s := range steps {
		got := tr.observe(s.d)
		if len(got) != len(s.want) {
			t.Fatalf("step %d: events %v, want %v", i, kinds(got), s.want)
		}
		for j, k := range kinds(got) {
			if k != s.want[j] {
				t.Errorf("step %d: event %d is %s, want %s", i, j, k, s.want[j])
			}
		}
		for _, e := range got {
			if e.Kind != KindMoved {
				continue
			}
			if want, ok := s.gap[*e.QueueID]; ok && e.UnownedMs != want {
				t.Errorf("step %d: queue %d unowned %d ms, want %d", i, *e.QueueID, e.UnownedMs, want)
			}
			if !e.At.Equal(s.d.CheckedAt) || e.Topic != tT || e.BrokerName != "broker-a" {
				t.Errorf("step %d: event %+v lacks its time or queue", i, e)
			}
		}
	}
}

func TestTrackerReportsTheFirstOwnerOfQueuesThatAppearAfterTheBaseline(t *testing.T) {
	tr := newTracker()
	tr.observe(snap(0, nil, map[int]string{})) // the group before any consumer
	ev := tr.observe(snap(1, []string{"a"}, map[int]string{0: "a", 1: "a"}))
	if got := kinds(ev); len(got) != 3 || got[0] != "joined:a" || got[1] != "moved:>a" || got[2] != "moved:>a" {
		t.Fatalf("events %v: want a joined and both new queues assigned to it", got)
	}
}

func TestTrackerDoesNotMistakeAFailedReadForARebalance(t *testing.T) {
	tr := newTracker()
	tr.observe(snap(0, []string{"a", "b"}, map[int]string{0: "a", 1: "b"}))

	// No broker answered the connection list: clients unknown, not gone.
	blind := snap(1, nil, map[int]string{0: "", 1: ""})
	blind.clientsKnown = false
	if ev := tr.observe(blind); len(ev) != 0 {
		t.Fatalf("a failed connection read produced %v", kinds(ev))
	}
	// b's running info failed: its queue looks unowned, but that is not known.
	partial := snap(2, []string{"a", "b"}, map[int]string{0: "a", 1: ""})
	partial.ownersKnown = false
	if ev := tr.observe(partial); len(ev) != 0 {
		t.Fatalf("a failed running-info read produced %v", kinds(ev))
	}
	if ev := tr.observe(snap(3, []string{"a", "b"}, map[int]string{0: "a", 1: "b"})); len(ev) != 0 {
		t.Fatalf("back to the same state produced %v", kinds(ev))
	}
}

// A watch that starts while a client cannot report its queues yet (rocketmq-client-go
// answers running-info requests only a few seconds after it starts) sees the client but
// not what it holds. The first read with every report is a baseline: the client's queues
// and locks were its before the watch saw them, so nothing moved and nothing was locked.
func TestTrackerTakesTheFirstCompleteReadAsTheBaseline(t *testing.T) {
	tr := newTracker()
	locked := func(d *Detail, holder string) *Detail {
		for i := range d.Queues {
			d.Queues[i].Lock = &QueueLock{Holder: holder, Locked: true, HolderOnline: true, LastLockTimestamp: d.CheckedAt.UnixMilli()}
		}
		return d
	}
	for sec := range 3 {
		partial := snap(sec, []string{"a"}, map[int]string{0: "", 1: "", 2: "", 3: ""})
		partial.ownersKnown = false
		if ev := tr.observe(partial); len(ev) != 0 {
			t.Fatalf("read %d without a's report produced %v", sec, kinds(ev))
		}
	}
	if ev := tr.observe(locked(snap(3, []string{"a"}, map[int]string{0: "a", 1: "a", 2: "a", 3: "a"}), "a")); len(ev) != 0 {
		t.Fatalf("the first read with a's report produced %v: its queues were a's all along", kinds(ev))
	}
	// From the baseline on, a move is a move and a new lock holder a handover.
	ev := tr.observe(locked(snap(4, []string{"a", "b"}, map[int]string{0: "a", 1: "a", 2: "a", 3: "b"}), "a"))
	if got := kinds(ev); len(got) != 2 || got[0] != "joined:b" || got[1] != "moved:a>b" {
		t.Fatalf("after the baseline: %v, want b joined and queue 3 moved a>b", got)
	}
	d := locked(snap(5, []string{"a", "b"}, map[int]string{0: "a", 1: "a", 2: "a", 3: "b"}), "a")
	d.Queues[3].Lock.Holder = "b"
	if ev := tr.observe(d); len(ev) != 1 || ev[0].Kind != KindLocked || ev[0].From != "a" || ev[0].To != "b" {
		t.Fatalf("lock of queue 3 to b: %v", kinds(ev))
	}
}

func TestTrackerWaitsOutDoubleOwnership(t *testing.T) {
	tr := newTracker()
	tr.observe(snap(0, []string{"a", "b"}, map[int]string{0: "a"}))
	if ev := tr.observe(snap(1, []string{"a", "b"}, map[int]string{0: "a+b"})); len(ev) != 0 {
		t.Fatalf("held twice mid-rebalance produced %v", kinds(ev))
	}
	ev := tr.observe(snap(2, []string{"a", "b"}, map[int]string{0: "b"}))
	if len(ev) != 1 || kinds(ev)[0] != "moved:a>b" {
		t.Fatalf("after settling: %v, want one move a>b", kinds(ev))
	}
}

func TestHistoryIsBounded(t *testing.T) {
	h := newHistory()
	for i := range TotalSamples + 50 {
		lag := int64(i)
		d := &Detail{CheckedAt: time.Unix(int64(i), 0), TotalLag: &lag,
			Queues: []QueueLag{{Topic: tT, BrokerName: "b", QueueID: 0, Lag: &lag}}}
		h.add(d)
	}
	s := h.snapshot()
	if len(s.Totals) != TotalSamples || s.Totals[0].Lag != 50 || s.Totals[TotalSamples-1].Lag != TotalSamples+49 {
		t.Fatalf("totals: %d samples from %v to %v", len(s.Totals), s.Totals[0].Lag, s.Totals[len(s.Totals)-1].Lag)
	}
	q := s.Queues[mq(tT, "b", 0)]
	if len(q) != QueueSamples || q[QueueSamples-1] != TotalSamples+49 {
		t.Fatalf("queue samples: %d, last %v", len(q), q[len(q)-1])
	}
	h.add(&Detail{CheckedAt: time.Unix(9999, 0)})
	if len(h.snapshot().Queues) != 0 {
		t.Error("a queue that left the group is still kept")
	}
}
