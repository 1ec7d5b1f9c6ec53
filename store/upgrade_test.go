package store

import (
	"context"
	"testing"

	"github.com/pressly/goose/v3"

	"rmqconsole/migrations"
)

// A database of the console before replicas (schema 8) with a reset left pending
// upgrades in place: the entry is kept whole, belongs to no live console, and is
// reconciled by the first console on the new schema.
func TestUpgradeFromBeforeReplicasKeepsPendingEntries(t *testing.T) {
	eachDB(t, func(t *testing.T, db testDB) {
		ctx := context.Background()
		old := openAtVersion(t, db, 8)
		// As the console of schema 8 wrote it: no replica column yet.
		if err := old.DB.Exec(`INSERT INTO audit_entries (started_at, actor, group_name, status) VALUES ('2026-11-30T10:00:00.000000000Z', 'alice', 'g1', 'pending')`).Error; err != nil {
			t.Fatal(err)
		}
		old.Close() // that console stops; the new one starts
		s := db.open(t)
		if s.SchemaVersion < 10 {
			t.Fatalf("schema %d after the upgrade", s.SchemaVersion)
		}
		es, err := s.Audit().Orphaned(ctx)
		if err != nil || len(es) != 1 || es[0].Actor != "alice" || es[0].Group != "g1" {
			t.Fatalf("orphaned after the upgrade: %+v, %v", es, err)
		}
		e := es[0]
		e.Status = AuditInterrupted
		if err := s.Audit().Finish(ctx, &e); err != nil {
			t.Fatal(err)
		}
		if rep, err := s.Audit().Verify(ctx); err != nil || !rep.Intact || rep.Sealed != 1 {
			t.Fatalf("chain: %+v, %v", rep, err)
		}
	})
}

// openAtVersion migrates a fresh database to the newest schema, then back down to
// version (so both directions of the migrations run), and returns the open store.
func openAtVersion(t *testing.T, db testDB, version int64) *Store {
	t.Helper()
	s, err := Open(context.Background(), db.dsn)
	if err != nil {
		t.Fatal(err)
	}
	dialect, files := goose.DialectSQLite3, migrations.SQLite
	if db.dialect == Postgres {
		dialect, files = goose.DialectPostgres, migrations.Postgres
	}
	p, err := goose.NewProvider(dialect, s.SQL(), files)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.DownTo(context.Background(), version); err != nil {
		t.Fatalf("migrate down to %d: %v", version, err)
	}
	if v, err := p.GetDBVersion(context.Background()); err != nil || v != version {
		t.Fatalf("version %d (%v), want %d", v, err, version)
	}
	return s
}
