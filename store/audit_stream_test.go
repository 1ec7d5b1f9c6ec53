package store

import (
	"context"
	"testing"
)

// Reads of message bodies and exports are entries of their own kind: listed apart from
// changes and sign-ins, by cluster, and chained like every other entry.
func TestAuditReadsAreTheirOwnKind(t *testing.T) {
	eachDB(t, func(t *testing.T, db testDB) {
		s, ctx := db.open(t), context.Background()
		s.SetDefaultCluster("prod")
		prod := s.ForCluster("prod").Audit()
		if err := prod.Record(ctx, &AuditEntry{Actor: "ann", Mode: "latest", Group: "g", Status: AuditRefused}); err != nil {
			t.Fatal(err)
		}
		if err := prod.RecordRead(ctx, Read{Mode: ReadBodyMode, Actor: "ann", ActorAddr: "10.0.0.1", Topic: "T", MsgID: "U1", OffsetMsgID: "O1", Rows: 1}); err != nil {
			t.Fatal(err)
		}
		if err := s.ForCluster("test").Audit().RecordRead(ctx, Read{Mode: ExportMode, Actor: "bob", Topic: "T2", Format: "csv", Rows: 42,
			Query: map[string]string{"topic": "T2", "tab": "range"}}); err != nil {
			t.Fatal(err)
		}
		if err := prod.RecordRead(ctx, Read{Mode: "latest", Topic: "T"}); err == nil {
			t.Fatal("a change's mode was recorded as a read")
		}
		list := func(f AuditFilter) []AuditEntry {
			t.Helper()
			es, _, err := s.Audit().List(ctx, f)
			if err != nil {
				t.Fatal(err)
			}
			return es
		}
		if es := list(AuditFilter{}); len(es) != 1 || es[0].Mode != "latest" {
			t.Fatalf("changes list %d entries (%+v), want the one change", len(es), es)
		}
		if es := list(AuditFilter{Kind: AuditKindReads}); len(es) != 2 {
			t.Fatalf("reads list %d entries, want 2", len(es))
		}
		es := list(AuditFilter{Kind: AuditKindReads, Cluster: "prod"})
		if len(es) != 1 || es[0].Mode != ReadBodyMode || es[0].Actor != "ann" || es[0].ActorAddr != "10.0.0.1" ||
			es[0].Topics[0] != "T" || es[0].Seq == 0 || es[0].Hash == "" {
			t.Fatalf("prod's reads: %+v", es)
		}
		if got := string(es[0].Params); got != `{"msgId":"U1","offsetMsgId":"O1","rows":1}` {
			t.Fatalf("params %s", got)
		}
		if es := list(AuditFilter{Kind: AuditKindAll}); len(es) != 3 {
			t.Fatalf("all lists %d entries, want 3", len(es))
		}
		if rep, err := s.Audit().Verify(ctx); err != nil || !rep.Intact || rep.Sealed != 3 {
			t.Fatalf("chain: %+v, %v", rep, err)
		}
	})
}

// The streams read the chain in order from a cursor kept in the database, which only
// moves forward.
func TestAuditStreamCursorAndSealed(t *testing.T) {
	eachDB(t, func(t *testing.T, db testDB) {
		s, ctx := db.open(t), context.Background()
		log := s.Audit()
		pending := &AuditEntry{Actor: "ann", Mode: "latest", Group: "g1"}
		if err := log.Begin(ctx, pending); err != nil {
			t.Fatal(err)
		}
		for _, g := range []string{"g2", "g3", "g4"} {
			if err := log.Record(ctx, &AuditEntry{Actor: "ann", Mode: "latest", Group: g, Status: AuditRefused}); err != nil {
				t.Fatal(err)
			}
		}
		es, err := log.Sealed(ctx, 1, 10)
		if err != nil || len(es) != 2 || es[0].Seq != 2 || es[1].Seq != 3 || es[0].PrevHash == "" || es[1].PrevHash != es[0].Hash {
			t.Fatalf("after position 1: %+v, %v", es, err)
		}
		if es, _ := log.Sealed(ctx, 0, 2); len(es) != 2 || es[0].Group != "g2" {
			t.Fatalf("the first two: %+v", es)
		}
		if n, err := s.StreamCursor(ctx, "webhook"); err != nil || n != 0 {
			t.Fatalf("a new cursor is at %d (%v), want 0", n, err)
		}
		for _, seq := range []int64{2, 3, 1} {
			if err := s.SaveStreamCursor(ctx, "webhook", seq); err != nil {
				t.Fatal(err)
			}
		}
		if n, _ := s.StreamCursor(ctx, "webhook"); n != 3 {
			t.Fatalf("cursor at %d, want 3 (it never moves back)", n)
		}
		if n, _ := s.StreamCursor(ctx, "topic"); n != 0 {
			t.Fatalf("another stream's cursor at %d", n)
		}
	})
}
