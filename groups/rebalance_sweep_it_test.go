package groups

import (
	"context"
	"fmt"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"rmqconsole/dev"
	"rmqconsole/store"
)

// sweeping runs the lag collector at a short interval with the rebalance sweep after each
// collection, as the console's leader does, over a fresh store; nobody watches any group.
// swept counts the sweeps done.
func sweeping(t *testing.T, it *itCluster) (st *store.Store, sweep *RebalanceSweep, swept func() int64) {
	t.Helper()
	st, err := store.Open(t.Context(), filepath.Join(t.TempDir(), "console.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	rlog := NewRebalanceLog(st, nil)
	live := NewLive(it.svc, LiveOptions{Store: st, Rebalances: rlog})
	t.Cleanup(live.Close)
	// A budget the shared cluster's other groups cannot exhaust before this test's.
	sweep = NewRebalanceSweep(it.svc, rlog, 2000, live.Watching)
	col := NewLagCollector(it.svc, 500*time.Millisecond)
	col.Then(sweep.Sweep)
	var n atomic.Int64
	col.Then(func(context.Context, *List) { n.Add(1) }) // hooks run in order: after the sweep
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); col.Run(ctx) }()
	t.Cleanup(func() { cancel(); <-done })
	return st, sweep, n.Load
}

// Real consumers join and leave a group nobody watches (no websocket, no watcher): the
// collector's sweep records the joins, the queues that moved and the leave in the group's
// stored timeline, each once.
func TestSweepRecordsRebalancesOfAnUnwatchedGroup(t *testing.T) {
	it := newIT(t)
	topic := it.topic(t, "grp-sweep", 4)
	group := dev.UniqueName("grp-sweep-cg")
	st, sweep, swept := sweeping(t, it)
	// The group is new to the cluster: its first client's arrival is a join. (A sweep
	// may have no candidate: a 4.x cluster has no group of its own online.)
	dev.Eventually(t, 30*time.Second, "a first sweep", func() error {
		if swept() == 0 {
			return fmt.Errorf("no sweep yet")
		}
		return nil
	})
	stored := func() map[string]int {
		evs, err := st.RebalanceEvents(t.Context(), group, 1000, time.Time{})
		if err != nil {
			t.Fatal(err)
		}
		n := map[string]int{}
		for _, e := range evs {
			n[e.Kind]++
			n[e.Kind+" "+e.ClientID+" "+e.Topic+fmt.Sprint(e.QueueID)]++
			if n[e.Kind+" "+e.ClientID+" "+e.Topic+fmt.Sprint(e.QueueID)] > 1 && e.Kind != KindMoved {
				t.Fatalf("event stored twice: %+v", e)
			}
		}
		return n
	}
	first := dev.StartConsumerProcess(t, it.cl.NameServer, group, topic)
	dev.Eventually(t, 60*time.Second, "the first client's join and its queues, recorded", func() error {
		if n := stored(); n[KindJoined] < 1 || n[KindMoved] < 4 {
			return fmt.Errorf("stored %v", n)
		}
		return nil
	})
	second := dev.StartConsumerProcess(t, it.cl.NameServer, group, topic)
	dev.Eventually(t, 60*time.Second, "the second client's join and the queues moved to it, recorded", func() error {
		if n := stored(); n[KindJoined] < 2 || n[KindMoved] < 6 {
			return fmt.Errorf("stored %v", n)
		}
		return nil
	})
	second.Stop()
	dev.Eventually(t, 60*time.Second, "the leave and the queues moved back, recorded", func() error {
		if n := stored(); n[KindLeft] < 1 || n[KindMoved] < 8 {
			return fmt.Errorf("stored %v", n)
		}
		return nil
	})
	_ = first
	if s := sweep.Last(); s.Calls > sweep.Calls() {
		t.Errorf("a sweep made %d calls, over its budget of %d", s.Calls, sweep.Calls())
	}
}
