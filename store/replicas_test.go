package store

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"rmqconsole/fault"
)

// Consoles sharing a database each open their own handle: two handles on one PostgreSQL
// database stand for two replicas. (A SQLite file is held by one process only.)
func twoReplicas(t *testing.T) (*Store, *Store) {
	t.Helper()
	db := testDB{dialect: Postgres}
	db.dsn = requirePostgresDB(t)
	a, b := db.open(t), db.open(t)
	if a.Replica() == b.Replica() {
		t.Fatalf("two handles share the replica id %s", a.Replica())
	}
	return a, b
}

// Two replicas appending to the audit log at once keep one chain: every append
// succeeds, each at its own position, and the chain verifies.
func TestAuditChainStaysOneWithConcurrentReplicas(t *testing.T) {
	a, b := twoReplicas(t)
	ctx := context.Background()
	const perWriter, writers = 25, 4
	var wg sync.WaitGroup
	errs := make(chan error, writers*perWriter)
	for w := range writers {
		st := []*Store{a, b}[w%2]
		wg.Add(1)
		go func() {
			defer wg.Done()
			l := st.Audit()
			for i := range perWriter {
				// Half refusals (sealed at once), half resets (pending, then finished).
				if i%2 == 0 {
					errs <- l.Record(ctx, &AuditEntry{Actor: "bob", Group: fmt.Sprintf("g%d", w), Mode: "offset", Status: AuditRefused})
					continue
				}
				e := pendingEntry(fmt.Sprintf("g%d", w))
				if err := l.Begin(ctx, e); err != nil {
					errs <- err
					continue
				}
				e.Status = AuditApplied
				errs <- l.Finish(ctx, e)
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatalf("concurrent append: %v", err)
		}
	}
	rep, err := a.Audit().Verify(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !rep.Intact || rep.Sealed != writers*perWriter || rep.Pending != 0 {
		t.Fatalf("chain after concurrent appends: intact %v, %d sealed (want %d), %d pending, problems %v",
			rep.Intact, rep.Sealed, writers*perWriter, rep.Pending, rep.Problems)
	}
}

// Two replicas starting a reset of one group at the same moment: the database lets
// exactly one through; the other is told the group is busy, as on one console.
func TestAuditOnePendingPerGroupAcrossReplicas(t *testing.T) {
	a, b := twoReplicas(t)
	ctx := context.Background()
	for round := range 10 {
		group := fmt.Sprintf("race%d", round)
		var wg sync.WaitGroup
		results := make([]error, 2)
		entries := []*AuditEntry{pendingEntry(group), pendingEntry(group)}
		for i, st := range []*Store{a, b} {
			wg.Add(1)
			go func() {
				defer wg.Done()
				results[i] = st.Audit().Begin(ctx, entries[i])
			}()
		}
		wg.Wait()
		won, busy := 0, 0
		for _, err := range results {
			var be *AuditBusyError
			switch {
			case err == nil:
				won++
			case errors.As(err, &be) && fault.Is(err, fault.Conflict):
				busy++
			default:
				t.Fatalf("round %d: %v", round, err)
			}
		}
		if won != 1 || busy != 1 {
			t.Fatalf("round %d: %d began and %d were told busy, want 1 and 1", round, won, busy)
		}
	}
}

// Only one replica holds the leader lease; it passes on when its holder leaves or lets
// it expire.
func TestLeaderLeaseHasOneHolder(t *testing.T) {
	a, b := twoReplicas(t)
	ctx := context.Background()
	take := func(s *Store) bool {
		t.Helper()
		ok, err := s.TakeLease(ctx, LeaderLease)
		if err != nil {
			t.Fatal(err)
		}
		return ok
	}
	if !take(a) || take(b) || !take(a) {
		t.Fatal("first taker does not keep the lease alone")
	}
	if h, err := b.LeaseHolder(ctx, LeaderLease); err != nil || h != a.Replica() {
		t.Fatalf("holder %q (%v), want %s", h, err, a.Replica())
	}
	// The holder stops renewing (a crash): once the lease runs out, the other takes it.
	if err := a.DB.Exec(`UPDATE leases SET expires_at_ms = expires_at_ms - ?`, 2*ReplicaLease.Milliseconds()).Error; err != nil {
		t.Fatal(err)
	}
	if !take(b) || take(a) {
		t.Fatal("an expired lease was not taken over")
	}
	// A clean stop hands it over at once.
	if err := b.Leave(ctx); err != nil {
		t.Fatal(err)
	}
	if !take(a) {
		t.Fatal("the lease of a replica that left was not free")
	}
}

// The crash reconciler's view: an entry another replica is applying is not orphaned
// while that replica beats; it is once the heartbeat stops.
func TestOrphanedEntriesAreThoseOfGoneReplicas(t *testing.T) {
	a, b := twoReplicas(t)
	ctx := context.Background()
	if err := a.Heartbeat(ctx); err != nil {
		t.Fatal(err)
	}
	mine := beginPending(t, a.Audit(), "g1")
	orphaned := func(s *Store) []int64 {
		t.Helper()
		es, err := s.Audit().Orphaned(ctx)
		if err != nil {
			t.Fatal(err)
		}
		var ids []int64
		for _, e := range es {
			ids = append(ids, e.ID)
		}
		return ids
	}
	if got := orphaned(b); len(got) != 0 {
		t.Fatalf("entries of a live replica seen as orphaned: %v", got)
	}
	if got := orphaned(a); len(got) != 0 {
		t.Fatalf("a replica sees its own entries as orphaned: %v", got)
	}
	// a stops beating (killed): after the lease, its entry is b's to reconcile.
	if err := a.DB.Exec(`UPDATE replicas SET heartbeat_at_ms = heartbeat_at_ms - ? WHERE id = ?`, 2*ReplicaLease.Milliseconds(), a.Replica()).Error; err != nil {
		t.Fatal(err)
	}
	if got := orphaned(b); len(got) != 1 || got[0] != mine.ID {
		t.Fatalf("orphaned after the writer stopped: %v, want [%d]", got, mine.ID)
	}
}

// On SQLite the previous run's pending entries are orphaned at the next open, and the
// one console holds the lease.
func TestSQLiteNextRunReconcilesAndLeads(t *testing.T) {
	db := testDB{dialect: SQLite, dsn: t.TempDir() + "/console.db"}
	s, err := Open(context.Background(), db.dsn)
	if err != nil {
		t.Fatal(err)
	}
	left := beginPending(t, s.Audit(), "g1")
	s.Close()
	s = db.open(t)
	es, err := s.Audit().Orphaned(context.Background())
	if err != nil || len(es) != 1 || es[0].ID != left.ID {
		t.Fatalf("orphaned after restart: %+v, %v", es, err)
	}
	if ok, err := s.TakeLease(context.Background(), LeaderLease); !ok || err != nil {
		t.Fatalf("lease on SQLite: %v, %v", ok, err)
	}
}

// Consoles watching the same group see the same rebalance: the history keeps it once,
// and another console records once the first stopped recording.
func TestRebalanceSeenByTwoReplicasIsStoredOnce(t *testing.T) {
	a, b := twoReplicas(t)
	ctx := context.Background()
	ev := func(at int64) []RebalanceEvent {
		return []RebalanceEvent{{Group: "G", At: time.UnixMilli(at), Kind: "joined", ClientID: "c1"}}
	}
	for i, st := range []*Store{a, b, a, b} {
		if err := st.AddRebalanceEvents(ctx, ev(1_700_000_000_000+int64(i))); err != nil {
			t.Fatal(err)
		}
	}
	count := func() int {
		t.Helper()
		es, err := b.RebalanceEvents(ctx, "G", 100, time.Time{})
		if err != nil {
			t.Fatal(err)
		}
		return len(es)
	}
	if n := count(); n != 2 {
		t.Fatalf("%d events stored, want the 2 of the recording console", n)
	}
	// a stops watching: its lease runs out and b's sightings are kept.
	if err := a.DB.Exec(`UPDATE leases SET expires_at_ms = 0 WHERE name = ?`, rebalanceLease(a.Cluster(), "G")).Error; err != nil {
		t.Fatal(err)
	}
	if err := b.AddRebalanceEvents(ctx, ev(1_700_000_001_000)); err != nil {
		t.Fatal(err)
	}
	if n := count(); n != 3 {
		t.Fatalf("%d events after the recorder changed, want 3", n)
	}
}

// Consoles started together on a fresh database migrate it one at a time: each opens it.
func TestReplicasStartingTogetherMigrateOnce(t *testing.T) {
	dsn := requirePostgresDB(t)
	const n = 4
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s, err := Open(context.Background(), dsn)
			if err == nil {
				s.Close()
			}
			errs[i] = err
		}()
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("console %d: %v", i, err)
		}
	}
}

// Two consoles sharing the database whose default clusters differ (each was moved to a
// clusters file from another single cluster) record the rebalances of their clusters'
// groups of one name each: a group's recorder lease is per cluster and group, whichever
// cluster is a console's default.
func TestRebalancesOfOneGroupNameOnTwoClustersAreBothRecorded(t *testing.T) {
	a, b := twoReplicas(t)
	ctx := context.Background()
	a.SetDefaultCluster("prod")
	b.SetDefaultCluster("test")
	prodOnA, testOnB := a.ForCluster("prod"), b.ForCluster("test")
	for i, st := range []*Store{prodOnA, testOnB} {
		ev := []RebalanceEvent{{Group: "G", At: time.UnixMilli(1_700_000_000_000 + int64(i)), Kind: "joined", ClientID: st.Cluster()}}
		if err := st.AddRebalanceEvents(ctx, ev); err != nil {
			t.Fatal(err)
		}
	}
	for _, st := range []*Store{prodOnA, testOnB} {
		if es, err := st.RebalanceEvents(ctx, "G", 10, time.Time{}); err != nil || len(es) != 1 || es[0].ClientID != st.Cluster() {
			t.Errorf("cluster %s's rebalances of G: %+v, %v; want the one its console saw", st.Cluster(), es, err)
		}
	}
}
