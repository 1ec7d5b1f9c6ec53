package store

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"rmqconsole/dev"
)

// faultyDB is a database a test can break and mend: unreachable or unwritable (stop),
// and not answering at all (freeze).
type faultyDB struct {
	testDB
	stop, freeze func(t *testing.T, s *Store) (mend func())
}

// eachFaultyDB runs test on a SQLite file and on a PostgreSQL server of the test's own
// (dev.OwnPostgres: the shared one is never stopped). SQLite is "stopped" by making its
// files immutable (as a full or read-only disk leaves them: reads still work) and
// "frozen" by a transaction of another connection holding the write lock (reads go on
// in WAL mode); PostgreSQL is stopped (every connection refused) and frozen (SIGSTOP:
// connections accepted, nothing answered).
func eachFaultyDB(t *testing.T, test func(t *testing.T, db faultyDB)) {
	t.Helper()
	t.Run("sqlite", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "console.db")
		test(t, faultyDB{testDB: testDB{dialect: SQLite, dsn: path},
			stop: func(t *testing.T, _ *Store) func() {
				return immutable(t, path, path+"-wal")
			},
			freeze: func(t *testing.T, s *Store) func() {
				tx, err := s.SQL().BeginTx(context.Background(), nil) // _txlock=immediate: takes the write lock
				if err != nil {
					t.Fatal(err)
				}
				if _, err := tx.Exec(`UPDATE console_meta SET value = value WHERE key = 'created_at'`); err != nil {
					t.Fatal(err)
				}
				return func() { _ = tx.Rollback() }
			}})
	})
	t.Run("postgres", func(t *testing.T) {
		pg := dev.OwnPostgres(t)
		dsn := pg.URL("postgres")
		test(t, faultyDB{testDB: testDB{dialect: Postgres, dsn: dsn},
			stop: func(t *testing.T, _ *Store) func() {
				if err := pg.Halt(); err != nil {
					t.Fatal(err)
				}
				return func() {
					if err := pg.Resume(); err != nil {
						t.Fatal(err)
					}
				}
			},
			freeze: func(t *testing.T, _ *Store) func() {
				if err := pg.Freeze(); err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { _ = pg.Thaw() })
				return func() {
					if err := pg.Thaw(); err != nil {
						t.Fatal(err)
					}
				}
			}})
	})
}

// seedCaller is a user with an API token and a session, as the console's every request
// looks them up.
func seedCaller(t *testing.T, s *Store) {
	t.Helper()
	ctx := context.Background()
	u := &User{Name: "alice", Role: "admin", PasswordHash: "x", CreatedAt: 1, UpdatedAt: 1}
	if err := s.CreateUser(ctx, u); err != nil {
		t.Fatal(err)
	}
	if err := s.CreateAPIToken(ctx, &APIToken{UserID: u.ID, Name: "ci", TokenHash: "t1", CreatedAt: 1}); err != nil {
		t.Fatal(err)
	}
	if err := s.CreateSession(ctx, &Session{TokenHash: "h1", UserID: u.ID, CreatedAt: 1, LastSeenAt: 1, ExpiresAt: 1 << 41}); err != nil {
		t.Fatal(err)
	}
}

// within runs call and fails the test when it has not returned by limit: a store call
// must end, whatever the database does.
func within(t *testing.T, limit time.Duration, what string, call func() error) error {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- call() }()
	select {
	case err := <-done:
		return err
	case <-time.After(limit):
		t.Fatalf("%s still waiting after %s", what, limit)
		return nil
	}
}

// A database that cannot be reached or written fails the store's calls with
// ErrUnavailable (the console's failure, not the caller's), at once; a statement's own
// error does not; and the store works again once the database is back, without being
// opened again.
func TestStoppedDatabaseIsUnavailable(t *testing.T) {
	eachFaultyDB(t, func(t *testing.T, db faultyDB) {
		ctx := context.Background()
		s := db.open(t)
		seedCaller(t, s)
		if err := s.CreateUser(ctx, &User{Name: "alice", Role: "viewer", PasswordHash: "y"}); !errors.Is(err, ErrUserExists) || errors.Is(err, ErrUnavailable) {
			t.Fatalf("a duplicate name: %v, want ErrUserExists and not ErrUnavailable", err)
		}
		mend := db.stop(t, s)
		writes := map[string]func() error{
			"create a user": func() error {
				return s.CreateUser(ctx, &User{Name: "bob", Role: "viewer", PasswordHash: "y", CreatedAt: 2, UpdatedAt: 2})
			},
			"begin an audit entry": func() error {
				return s.Audit().Begin(ctx, &AuditEntry{StartedAt: time.Now(), Actor: "alice", Group: "g", Mode: "latest"})
			},
			"create an alert rule": func() error {
				return s.CreateAlertRule(ctx, &AlertRule{Name: "r", GroupPattern: "g", Metric: "lag", WebhookURL: "http://x/",
					Format: "json", CreatedBy: "alice", CreatedAt: time.Now()},
					&AuditEntry{Actor: "alice", Group: "g", Mode: "alert-rule-create", Status: AuditApplied, StartedAt: time.Now()})
			},
		}
		if db.dialect == SQLite {
			// SQLite may take a few writes into what it holds in memory before one meets
			// the file; the first that fails must say why.
			var err error
			for i := 0; i < 2000 && err == nil; i++ {
				err = s.CreateUser(ctx, &User{Name: fmt.Sprintf("u%d", i), Role: "viewer", PasswordHash: "y"})
			}
			if !errors.Is(err, ErrUnavailable) {
				t.Errorf("writes to immutable files: %v, want ErrUnavailable", err)
			}
		} else {
			if _, err := s.APITokenByHash(ctx, "t1"); !errors.Is(err, ErrUnavailable) {
				t.Errorf("token lookup with the server stopped: %v, want ErrUnavailable", err)
			}
			if _, err := s.SessionByTokenHash(ctx, "h1"); !errors.Is(err, ErrUnavailable) {
				t.Errorf("session lookup with the server stopped: %v, want ErrUnavailable", err)
			}
		}
		for what, write := range writes {
			if err := within(t, 3*s.Timeout(), what, write); !errors.Is(err, ErrUnavailable) {
				t.Errorf("%s on a database that cannot take it: %v, want ErrUnavailable", what, err)
			}
		}
		mend()
		dev.Eventually(t, 30*time.Second, "the store works again", func() error {
			if _, err := s.APITokenByHash(ctx, "t1"); err != nil {
				return err
			}
			return s.Writable(ctx)
		})
	})
}

// A database that takes connections but answers nothing (PostgreSQL stopped with
// SIGSTOP; a SQLite write lock held by another writer) fails each call within the
// store's timeout with ErrUnavailable instead of holding it for as long as the
// database stalls; once it answers again, so does the store.
func TestFrozenDatabaseFailsWithinTheTimeout(t *testing.T) {
	eachFaultyDB(t, func(t *testing.T, db faultyDB) {
		ctx := context.Background()
		s := db.open(t)
		seedCaller(t, s)
		s.SetTimeout(time.Second)
		thaw := db.freeze(t, s)
		calls := map[string]func() error{
			"begin an audit entry": func() error {
				return s.Audit().Begin(ctx, &AuditEntry{StartedAt: time.Now(), Actor: "alice", Group: "g", Mode: "latest"})
			},
		}
		if db.dialect == Postgres { // SQLite's readers do not wait for its writer
			calls["touch a token"] = func() error { return s.TouchAPIToken(ctx, 1, 2) }
			calls["look a token up"] = func() error { _, err := s.APITokenByHash(ctx, "t1"); return err }
			calls["look a session up"] = func() error { _, err := s.SessionByTokenHash(ctx, "h1"); return err }
		}
		// SQLite waits out its busy timeout (5 s) before it gives up on the lock.
		limit := 3*s.Timeout() + 6*time.Second
		for what, call := range calls {
			if err := within(t, limit, what, call); !errors.Is(err, ErrUnavailable) {
				t.Errorf("%s on a frozen database: %v, want ErrUnavailable", what, err)
			}
		}
		thaw()
		dev.Eventually(t, 30*time.Second, "the store answers again", func() error {
			_, err := s.APITokenByHash(ctx, "t1")
			return err
		})
	})
}

// The deadline is the store's: a call that waits longer than it on a database fails;
// the caller's own cancellation stays a cancellation, not an unavailable database.
func TestCancelledCallerIsNotAnUnavailableDatabase(t *testing.T) {
	eachDB(t, func(t *testing.T, db testDB) {
		s := db.open(t)
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		_, err := s.UserByName(ctx, "nobody")
		if err == nil || errors.Is(err, ErrUnavailable) || !errors.Is(err, context.Canceled) {
			t.Errorf("a call whose caller went away: %v, want context.Canceled and not ErrUnavailable", err)
		}
	})
}
