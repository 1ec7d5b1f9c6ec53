package store

import (
	"context"
	"testing"
	"time"
)

func TestRebalanceEventsSurviveReopenNewestFirst(t *testing.T) {
	eachDB(t, func(t *testing.T, db testDB) {
		ctx := context.Background()
		path := db.dsn
		s, err := Open(ctx, path)
		if err != nil {
			t.Fatal(err)
		}
		base := time.UnixMilli(1_700_000_000_000).UTC()
		q := 3
		in := []RebalanceEvent{
			{Group: "G", At: base, Kind: "joined", ClientID: "a"},
			{Group: "G", At: base.Add(time.Second), Kind: "joined", ClientID: "b"},
			{Group: "G", At: base.Add(2 * time.Second), Kind: "moved", ClientID: "b", Topic: "T", BrokerName: "broker-a", QueueID: &q, From: "a", To: "b", UnownedMs: 1200},
			{Group: "other", At: base, Kind: "left", ClientID: "x"},
		}
		if err := s.AddRebalanceEvents(ctx, in); err != nil {
			t.Fatal(err)
		}
		s.Close()

		s, err = Open(ctx, path)
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		got, err := s.RebalanceEvents(ctx, "G", 10, time.Time{})
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != 3 || got[0].Kind != "moved" || got[2].ClientID != "a" {
			t.Fatalf("events %+v: want G's three, newest first", got)
		}
		m := got[0]
		if m.QueueID == nil || *m.QueueID != 3 || m.From != "a" || m.To != "b" || m.UnownedMs != 1200 || !m.At.Equal(base.Add(2*time.Second)) {
			t.Errorf("moved event read back as %+v", m)
		}
		if got[1].QueueID != nil {
			t.Errorf("a client event has queue id %v", *got[1].QueueID)
		}
		page, _ := s.RebalanceEvents(ctx, "G", 1, base.Add(2*time.Second))
		if len(page) != 1 || page[0].ClientID != "b" || page[0].Kind != "joined" {
			t.Errorf("limit 1 before the move: %+v, want b joined", page)
		}
		if err := s.AddRebalanceEvents(ctx, []RebalanceEvent{{Group: "G", At: base, Kind: "exploded"}}); err == nil {
			t.Error("an unknown kind was stored")
		}
	})
}

func TestPruneRebalanceEventsDropsOnlyOlderOnes(t *testing.T) {
	eachDB(t, func(t *testing.T, db testDB) {
		ctx := context.Background()
		s, err := Open(ctx, db.dsn)
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		base := time.UnixMilli(1_700_000_000_000).UTC()
		in := []RebalanceEvent{
			{Group: "G", At: base.Add(-time.Hour), Kind: "joined", ClientID: "old"},
			{Group: "other", At: base.Add(-time.Millisecond), Kind: "left", ClientID: "old-too"},
			{Group: "G", At: base, Kind: "joined", ClientID: "kept"},
		}
		if err := s.AddRebalanceEvents(ctx, in); err != nil {
			t.Fatal(err)
		}
		n, err := s.PruneRebalanceEvents(ctx, base)
		if err != nil || n != 2 {
			t.Fatalf("pruned %d (%v), want 2", n, err)
		}
		g, _ := s.RebalanceEvents(ctx, "G", 10, time.Time{})
		o, _ := s.RebalanceEvents(ctx, "other", 10, time.Time{})
		if len(g) != 1 || g[0].ClientID != "kept" || len(o) != 0 {
			t.Errorf("after pruning: G %+v, other %+v; want only G's kept", g, o)
		}
	})
}

func TestRebalanceCostIsKeptAndSummedPerDay(t *testing.T) {
	eachDB(t, func(t *testing.T, db testDB) {
		ctx := context.Background()
		s, err := Open(ctx, db.dsn)
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		day1 := time.Date(2026, 11, 30, 23, 59, 0, 0, time.UTC)
		day2 := day1.Add(2 * time.Minute)
		q := 1
		dup := func(n int64) *int64 { return &n }
		in := []RebalanceEvent{
			{Group: "G", At: day1, Kind: "moved", Topic: "T", BrokerName: "b", QueueID: &q, From: "a", To: "b", UnownedMs: 100, DuplicatesAtRisk: dup(7)},
			{Group: "G", At: day2, Kind: "moved", Topic: "T", BrokerName: "b", QueueID: &q, From: "b", To: "a", UnownedMs: 50, DuplicatesAtRisk: dup(3)},
			{Group: "G", At: day2, Kind: "moved", Topic: "T", BrokerName: "b", QueueID: &q, To: "a"},
			{Group: "G", At: day2, Kind: "locked", Topic: "T", BrokerName: "b", QueueID: &q, From: "b", To: "a", UnlockedMs: 61000},
			{Group: "other", At: day2, Kind: "moved", DuplicatesAtRisk: dup(100)},
		}
		if err := s.AddRebalanceEvents(ctx, in); err != nil {
			t.Fatal(err)
		}
		got, err := s.RebalanceEvents(ctx, "G", 10, time.Time{})
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != 4 || got[0].Kind != "locked" || got[0].UnlockedMs != 61000 {
			t.Fatalf("events %+v: want the lock handover first, with its 61 s unlocked", got)
		}
		if got[3].DuplicatesAtRisk == nil || *got[3].DuplicatesAtRisk != 7 || got[1].DuplicatesAtRisk != nil {
			t.Errorf("duplicates at risk read back as %v and %v, want 7 and nil", got[3].DuplicatesAtRisk, got[1].DuplicatesAtRisk)
		}
		days, err := s.RebalanceDays(ctx, "G", time.Time{})
		if err != nil {
			t.Fatal(err)
		}
		want := []RebalanceDay{
			{Day: "2026-12-01", Moves: 2, DuplicatesAtRisk: 3, UnknownMoves: 1, UnownedMs: 50},
			{Day: "2026-11-30", Moves: 1, DuplicatesAtRisk: 7, UnownedMs: 100},
		}
		if len(days) != 2 || days[0] != want[0] || days[1] != want[1] {
			t.Errorf("days %+v, want %+v", days, want)
		}
	})
}

// The counts the diagnosis reads at each collection: per group named, the moves and the
// clients joined or left from the given time on, in one call; groups without events,
// events before the time and groups not named are left out.
func TestRebalanceCountsCountEachNamedGroupSinceATime(t *testing.T) {
	eachDB(t, func(t *testing.T, db testDB) {
		ctx := context.Background()
		s := db.open(t)
		since := time.Date(2026, 12, 6, 9, 0, 0, 0, time.UTC)
		q := 0
		var in []RebalanceEvent
		for i := range 3 {
			at := since.Add(time.Duration(i) * time.Minute)
			in = append(in,
				RebalanceEvent{Group: "G", At: at, Kind: "left", ClientID: "a"},
				RebalanceEvent{Group: "G", At: at, Kind: "joined", ClientID: "a"},
				RebalanceEvent{Group: "G", At: at, Kind: "moved", Topic: "T", BrokerName: "b", QueueID: &q, From: "a", To: "b"},
				RebalanceEvent{Group: "G", At: at, Kind: "moved", Topic: "T", BrokerName: "b", QueueID: &q, From: "b", To: "a"})
		}
		in = append(in,
			RebalanceEvent{Group: "G", At: since.Add(-time.Second), Kind: "joined", ClientID: "old"},
			RebalanceEvent{Group: "G", At: since, Kind: "locked", Topic: "T", BrokerName: "b", QueueID: &q, To: "a"},
			RebalanceEvent{Group: "calm", At: since.Add(-time.Hour), Kind: "joined", ClientID: "c"},
			RebalanceEvent{Group: "unnamed", At: since, Kind: "joined", ClientID: "u"})
		if err := s.AddRebalanceEvents(ctx, in); err != nil {
			t.Fatal(err)
		}
		got, err := s.RebalanceCounts(ctx, []string{"G", "calm", "absent"}, since)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != 1 || got["G"] != (RebalanceCount{Moves: 6, Clients: 6}) {
			t.Errorf("counts %+v, want only G with 6 moves and 6 clients joined or left", got)
		}
		if got, err := s.RebalanceCounts(ctx, nil, since); err != nil || len(got) != 0 {
			t.Errorf("no group named: %+v, %v", got, err)
		}
	})
}
