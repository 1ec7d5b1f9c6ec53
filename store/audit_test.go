package store

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"rmqconsole/fault"
	"rmqconsole/i18n"
)

func openAuditStore(t *testing.T, db testDB) (*Store, string) {
	t.Helper()
	return db.open(t), db.dsn
}

func pendingEntry(group string) *AuditEntry {
	return &AuditEntry{
		StartedAt: time.Now(), Actor: "alice", ActorAddr: "10.0.0.7", Cluster: "127.0.0.1:9876",
		Group: group, Topics: []string{"orders"}, Mode: "earliest", Params: json.RawMessage(`{"mode":"earliest"}`),
		Reason: "replay after the bug fix",
		Plan: AuditPlan{Hash: "abc", Queues: []AuditQueue{
			{Topic: "orders", BrokerName: "broker-a", QueueID: 0, Before: 120, Target: 0, MaxOffset: 130},
		}},
	}
}

// beginPending writes a pending entry of group.
func beginPending(t *testing.T, l *AuditLog, group string) *AuditEntry {
	t.Helper()
	e := pendingEntry(group)
	if err := l.Begin(context.Background(), e); err != nil {
		t.Fatal(err)
	}
	return e
}

func finishApplied(t *testing.T, l *AuditLog, e *AuditEntry) {
	t.Helper()
	after := e.Plan.Queues[0].Target
	q := e.Plan.Queues[0]
	q.After = &after
	e.Result = []AuditQueue{q}
	e.Status = AuditApplied
	if err := l.Finish(context.Background(), e); err != nil {
		t.Fatal(err)
	}
}

// An entry goes pending → applied once, lands in the chain, and reads back whole.
func TestAuditBeginFinishReadsBackWhole(t *testing.T) {
	eachDB(t, func(t *testing.T, db testDB) {
		s, _ := openAuditStore(t, db)
		l := s.Audit()
		ctx := context.Background()
		e := pendingEntry("g1")
		if err := l.Begin(ctx, e); err != nil {
			t.Fatal(err)
		}
		if e.ID == 0 {
			t.Fatal("Begin did not set the id")
		}
		got, err := l.Get(ctx, e.ID)
		if err != nil {
			t.Fatal(err)
		}
		if got.Status != AuditPending || got.Seq != 0 || got.Hash != "" || len(got.Plan.Queues) != 1 || got.Plan.Queues[0].Before != 120 {
			t.Fatalf("pending entry reads back as %+v", got)
		}
		finishApplied(t, l, e)
		got, err = l.Get(ctx, e.ID)
		if err != nil {
			t.Fatal(err)
		}
		if got.Status != AuditApplied || got.Seq != 1 || got.PrevHash != genesisHash || len(got.Hash) != 64 {
			t.Fatalf("finished entry: status %s seq %d prev %s hash %s", got.Status, got.Seq, got.PrevHash, got.Hash)
		}
		if got.Actor != "alice" || got.ActorAddr != "10.0.0.7" || got.Reason != "replay after the bug fix" ||
			got.Cluster != "127.0.0.1:9876" || got.Topics[0] != "orders" || string(got.Params) != `{"mode":"earliest"}` {
			t.Fatalf("who/what lost: %+v", got)
		}
		if q := got.Queues()[0]; q.After == nil || *q.After != 0 || q.Before != 120 {
			t.Fatalf("result queue %+v", q)
		}
		if got.FinishedAt.IsZero() || got.FinishedAt.Before(got.StartedAt) {
			t.Fatalf("finished %v started %v", got.FinishedAt, got.StartedAt)
		}
		// Finishing twice is refused: a finished entry is final.
		e.Status = AuditFailed
		if err := l.Finish(ctx, e); !errors.Is(err, ErrAuditNotPending) {
			t.Fatalf("second Finish: %v, want ErrAuditNotPending", err)
		}
	})
}

// Two pending entries of one group cannot coexist; another group is not blocked.
func TestAuditOnePendingPerGroup(t *testing.T) {
	eachDB(t, func(t *testing.T, db testDB) {
		s, _ := openAuditStore(t, db)
		l := s.Audit()
		ctx := context.Background()
		first := beginPending(t, l, "g1")
		second := pendingEntry("g1")
		second.Actor = "bob"
		err := l.Begin(ctx, second)
		var busy *AuditBusyError
		if !fault.Is(err, fault.Conflict) || !errors.As(err, &busy) || busy.Holder.ID != first.ID || busy.Holder.Actor != "alice" {
			t.Fatalf("second Begin: %v, want busy held by entry %d of alice", err, first.ID)
		}
		if err := l.Begin(ctx, pendingEntry("g2")); err != nil {
			t.Fatalf("another group: %v", err)
		}
		finishApplied(t, l, first)
		if err := l.Begin(ctx, pendingEntry("g1")); err != nil {
			t.Fatalf("after the first finished: %v", err)
		}
	})
}

// The database itself refuses to delete entries or to change finished ones.
func TestAuditTriggersRefuseEditsAndDeletes(t *testing.T) {
	eachDB(t, func(t *testing.T, db testDB) {
		s, _ := openAuditStore(t, db)
		l := s.Audit()
		e := beginPending(t, l, "g1")
		if err := s.DB.Exec(`UPDATE audit_entries SET actor = 'mallory' WHERE id = ?`, e.ID).Error; err == nil {
			t.Fatal("changing the actor of a pending entry succeeded")
		}
		finishApplied(t, l, e)
		for _, stmt := range []string{
			`UPDATE audit_entries SET actor = 'mallory' WHERE id = ?`,
			`UPDATE audit_entries SET status = 'failed' WHERE id = ?`,
			`DELETE FROM audit_entries WHERE id = ?`,
		} {
			if err := s.DB.Exec(stmt, e.ID).Error; err == nil {
				t.Errorf("%s succeeded on a finished entry", stmt)
			}
		}
		rep, err := l.Verify(context.Background())
		if err != nil || !rep.Intact || rep.Sealed != 1 {
			t.Fatalf("verify after refused edits: %+v, %v", rep, err)
		}
	})
}

// dropAuditGuards is what someone holding the database runs to get past the triggers.
var dropAuditGuards = map[Dialect]string{
	SQLite:   `DROP TRIGGER audit_entries_finished_once; DROP TRIGGER audit_entries_never_deleted;`,
	Postgres: `ALTER TABLE audit_entries DISABLE TRIGGER USER`,
}

// Verification finds a changed entry, a removed one and a broken link, naming the entry.
func TestAuditVerifyDetectsTampering(t *testing.T) {
	for _, tc := range []struct {
		name   string
		tamper string
		want   string
	}{
		{"edited actor", `UPDATE audit_entries SET actor = 'mallory' WHERE id = 2`, "entry 2 was changed"},
		{"edited result", `UPDATE audit_entries SET result = replace(result, '"after":0', '"after":5') WHERE id = 2`, "entry 2 was changed"},
		{"deleted middle", `DELETE FROM audit_entries WHERE id = 2`, "entries 2 to 2 are missing"},
		{"relinked", `UPDATE audit_entries SET prev_hash = hash WHERE id = 3`, "entry 3 does not link"},
		{"unsealed", `UPDATE audit_entries SET seq = NULL WHERE id = 3`, "entry 3 is refused but not in the chain"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			eachDB(t, func(t *testing.T, db testDB) {
				s, _ := openAuditStore(t, db)
				l := s.Audit()
				ctx := context.Background()
				for i := 0; i < 2; i++ {
					finishApplied(t, l, beginPending(t, l, "g1"))
				}
				if err := l.Record(ctx, &AuditEntry{Actor: "bob", Group: "g1", Mode: "offset", Status: AuditRefused, Error: i18n.PlainText("offset beyond max")}); err != nil {
					t.Fatal(err)
				}
				rep, err := l.Verify(ctx)
				if err != nil || !rep.Intact || rep.Sealed != 3 {
					t.Fatalf("before tampering: %+v, %v", rep, err)
				}
				// Someone with the file drops the guard and edits a row.
				if _, err := s.SQL().Exec(dropAuditGuards[db.dialect]); err != nil {
					t.Fatal(err)
				}
				if _, err := s.SQL().Exec(tc.tamper); err != nil {
					t.Fatal(err)
				}
				rep, err = l.Verify(ctx)
				if err != nil {
					t.Fatal(err)
				}
				if rep.Intact {
					t.Fatalf("verify says intact after %q", tc.tamper)
				}
				var reasons []string
				for _, p := range rep.Problems {
					reasons = append(reasons, p.Reason)
				}
				if !strings.Contains(strings.Join(reasons, "\n"), tc.want) {
					t.Fatalf("problems %q do not say %q", reasons, tc.want)
				}
			})
		})
	}
}

// Filters select by group, topic, actor, status and time, and count what they select;
// paging goes back by id.
func TestAuditListFilters(t *testing.T) {
	eachDB(t, func(t *testing.T, db testDB) {
		s, _ := openAuditStore(t, db)
		l := s.Audit()
		ctx := context.Background()
		base := time.Date(2026, 11, 29, 10, 0, 0, 0, time.UTC)
		mk := func(group, topic, actor string, status AuditStatus, at time.Time) {
			e := &AuditEntry{StartedAt: at, FinishedAt: at.Add(time.Second), Actor: actor, Group: group, Topics: []string{topic, "common"}, Mode: "latest", Status: status}
			if err := l.Record(ctx, e); err != nil {
				t.Fatal(err)
			}
		}
		mk("g1", "t1", "alice", AuditRefused, base)
		mk("g1", "t2", "bob", AuditRefused, base.Add(time.Hour))
		mk("g2", "t1", "alice", AuditFailed, base.Add(2*time.Hour))
		count := func(f AuditFilter) int {
			es, _, err := l.List(ctx, f)
			if err != nil {
				t.Fatal(err)
			}
			return len(es)
		}
		for name, tc := range map[string]struct {
			f    AuditFilter
			want int
		}{
			"all":          {AuditFilter{}, 3},
			"group":        {AuditFilter{Group: "g1"}, 2},
			"topic":        {AuditFilter{Topic: "t1"}, 2},
			"topic prefix": {AuditFilter{Topic: "t"}, 0},
			"actor":        {AuditFilter{Actor: "bob"}, 1},
			"status":       {AuditFilter{Status: AuditFailed}, 1},
			"since":        {AuditFilter{Since: base.Add(time.Hour)}, 2},
			"until":        {AuditFilter{Until: base.Add(time.Hour)}, 1},
			"combined":     {AuditFilter{Group: "g1", Actor: "alice", Topic: "common"}, 1},
		} {
			if got := count(tc.f); got != tc.want {
				t.Errorf("%s: %d entries, want %d", name, got, tc.want)
			}
			if n, err := l.Count(ctx, tc.f); err != nil || n != int64(tc.want) {
				t.Errorf("%s: counted %d (%v), want %d", name, n, err, tc.want)
			}
		}
		page, more, err := l.List(ctx, AuditFilter{Limit: 2})
		if err != nil || len(page) != 2 || !more || page[0].ID <= page[1].ID {
			t.Fatalf("first page: %d entries, more %v, %v", len(page), more, err)
		}
		rest, more, err := l.List(ctx, AuditFilter{Limit: 2, BeforeID: page[1].ID})
		if err != nil || len(rest) != 1 || more || rest[0].ID >= page[1].ID {
			t.Fatalf("second page: %+v, more %v, %v", rest, more, err)
		}
		// The count is of every page: a page's bound and size do not narrow it.
		if n, err := l.Count(ctx, AuditFilter{Limit: 2, BeforeID: page[1].ID}); err != nil || n != 3 {
			t.Errorf("counted %d (%v) past the first page; want the 3 entries of every page", n, err)
		}
	})
}

// A read-only handle reads and verifies, and refuses every write.
func TestAuditOpenReadOnlyRefusesWrites(t *testing.T) {
	eachDB(t, func(t *testing.T, db testDB) {
		s, path := openAuditStore(t, db)
		finishApplied(t, s.Audit(), beginPending(t, s.Audit(), "g1"))
		ro, err := OpenReadOnly(context.Background(), path)
		if err != nil {
			t.Fatal(err)
		}
		defer ro.Close()
		if rep, err := ro.Audit().Verify(context.Background()); err != nil || !rep.Intact || rep.Sealed != 1 {
			t.Fatalf("verify read-only: %+v, %v", rep, err)
		}
		err = ro.Audit().Begin(context.Background(), pendingEntry("g2"))
		// SQLite says "readonly", PostgreSQL "read-only transaction".
		if err == nil || !strings.Contains(strings.ReplaceAll(err.Error(), "-", ""), "readonly") {
			t.Fatalf("Begin on a read-only handle: %v, want a read-only error", err)
		}
	})
}
