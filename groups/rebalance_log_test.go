package groups

import (
	"context"
	"testing"
)

// A live watcher and the collector's sweep both read a group whose second client
// joined: the join and the moves are stored once, by whichever read it first.
func TestRebalanceSeenByWatcherAndSweepIsStoredOnce(t *testing.T) {
	f := newScenario()
	f.setTopic("T", map[string]int{"broker-a": 4})
	f.setOffsets("G", "broker-a", "T", map[int][2]int64{0: {5, 1}, 1: {5, 1}, 2: {5, 1}, 3: {5, 1}})
	f.setClients("G", map[string]clientSpec{"c1": {topics: []string{"T"}, holds: queues("T", "broker-a", 0, 1, 2, 3)}})
	svc := NewService(f, Options{})
	st := &memStore{}
	rlog := NewRebalanceLog(st, nil)
	sweep := NewRebalanceSweep(svc, rlog, 0, nil)
	ctx := context.Background()
	watcherReads := func() {
		t.Helper()
		d, err := svc.Detail(ctx, "G")
		if err != nil {
			t.Fatal(err)
		}
		rlog.observe(ctx, d)
	}
	sweepReads := func() {
		t.Helper()
		l, err := svc.List(ctx, true)
		if err != nil {
			t.Fatal(err)
		}
		sweep.Sweep(ctx, l)
	}
	watcherReads()
	sweepReads()
	f.setClients("G", map[string]clientSpec{
		"c1": {topics: []string{"T"}, holds: queues("T", "broker-a", 0, 1)},
		"c2": {topics: []string{"T"}, holds: queues("T", "broker-a", 2, 3)},
	})
	watcherReads()
	sweepReads()
	watcherReads()
	kinds := map[string]int{}
	for _, e := range st.events {
		kinds[e.Kind]++
	}
	if len(st.events) != 3 || kinds[KindJoined] != 1 || kinds[KindMoved] != 2 {
		t.Fatalf("stored %v, want c2's join and the 2 queues moved to it, once each", kinds)
	}
	for _, e := range st.events {
		if e.Kind == KindMoved && (e.From != "c1" || e.To != "c2" || e.QueueID == nil) {
			t.Errorf("move %+v, want c1 → c2", e)
		}
	}
}

// The sweep runs right after the collector's list, which has just read the connection
// lists of the groups it could (ClientLookups a pass): the sweep takes those and asks a
// broker only for the clients of the group the list left out, then each client's queues.
func TestSweepTakesTheClientsTheListJustRead(t *testing.T) {
	f := newScenario()
	f.setTopic("T", map[string]int{"broker-a": 2})
	for _, g := range []string{"G1", "G2"} {
		f.setOffsets(g, "broker-a", "T", map[int][2]int64{0: {5, 1}, 1: {5, 1}})
		f.setClients(g, map[string]clientSpec{"c-" + g: {topics: []string{"T"}, holds: queues("T", "broker-a", 0, 1)}})
	}
	svc := NewService(f, Options{ClientLookups: 1})
	rlog := NewRebalanceLog(nil, nil)
	sweep := NewRebalanceSweep(svc, rlog, 0, nil)
	ctx := context.Background()
	l, err := svc.List(ctx, true)
	if err != nil {
		t.Fatal(err)
	}
	before := f.Calls()
	sweep.Sweep(ctx, l)
	after := f.Calls()
	conns := after["ConsumerConnections"] - before["ConsumerConnections"]
	infos := after["ConsumerRunningInfo"] - before["ConsumerRunningInfo"]
	if conns != 1 || infos != 2 {
		t.Errorf("the sweep asked %d connection lists and %d running infos, want 1 (the group the list left out) and 2", conns, infos)
	}
	for _, g := range []string{"G1", "G2"} {
		if o, ok := rlog.last(g); !ok || o.clients != 1 {
			t.Errorf("%s: observed %+v %v, want its client", g, o, ok)
		}
	}
	if s := sweep.Last(); s.Read != 2 || s.Calls != 3 {
		t.Errorf("sweep %+v, want 2 groups read with 3 calls", s)
	}
}

// The sweep's running infos carry each client's subscriptions: when the clients of a group
// subscribe differently the log keeps what each subscribes to, and forgets it at the
// first read that finds them alike.
func TestSweepKeepsHowTheClientsOfAGroupSubscribeWhenTheyDiffer(t *testing.T) {
	f := newScenario()
	f.setTopic("T", map[string]int{"broker-a": 2})
	f.setTopic("U", map[string]int{"broker-a": 2})
	f.setOffsets("G", "broker-a", "T", map[int][2]int64{0: {5, 1}, 1: {5, 1}})
	f.setClients("G", map[string]clientSpec{
		"c1": {topics: []string{"T"}, holds: queues("T", "broker-a", 0)},
		"c2": {topics: []string{"T", "U"}, holds: queues("T", "broker-a", 1)},
	})
	svc := NewService(f, Options{})
	rlog := NewRebalanceLog(nil, nil)
	sweep := NewRebalanceSweep(svc, rlog, 0, nil)
	ctx := context.Background()
	read := func() {
		t.Helper()
		l, err := svc.List(ctx, true)
		if err != nil {
			t.Fatal(err)
		}
		sweep.Sweep(ctx, l)
	}
	read()
	sp, ok := rlog.SubscriptionSplit("G")
	if !ok || len(sp.Clients) != 2 || sp.At.IsZero() {
		t.Fatalf("split %+v %v, want both clients", sp, ok)
	}
	for _, c := range sp.Clients {
		want := map[string]int{"c1": 1, "c2": 2}[c.ClientID]
		if len(c.Subscriptions) != want {
			t.Errorf("%s subscribes %+v, want %d topics", c.ClientID, c.Subscriptions, want)
		}
	}
	f.setClients("G", map[string]clientSpec{
		"c1": {topics: []string{"T"}, holds: queues("T", "broker-a", 0)},
		"c2": {topics: []string{"T"}, holds: queues("T", "broker-a", 1)},
	})
	read()
	if sp, ok := rlog.SubscriptionSplit("G"); ok {
		t.Fatalf("clients subscribing alike: split %+v", sp)
	}
}
