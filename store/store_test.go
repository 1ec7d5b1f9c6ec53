package store

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"rmqconsole/dev"
)

func TestOpenMigratesFreshDatabaseAndRerunIsNoop(t *testing.T) {
	eachDB(t, func(t *testing.T, db testDB) {
		ctx := context.Background()
		if db.dialect == SQLite {
			db.dsn = filepath.Join(filepath.Dir(db.dsn), "sub", "console.db") // creates the directory
		}
		s, err := Open(ctx, db.dsn)
		if err != nil {
			t.Fatal(err)
		}
		v1 := s.SchemaVersion
		if v1 < 1 {
			t.Fatalf("schema version %d after migrating a fresh database", v1)
		}
		if db.dialect == SQLite {
			var mode string
			if err := s.SQL().QueryRow("PRAGMA journal_mode").Scan(&mode); err != nil || mode != "wal" {
				t.Fatalf("journal_mode = %q (%v), want wal", mode, err)
			}
		}
		var created string
		if err := s.SQL().QueryRow("SELECT value FROM console_meta WHERE key='created_at'").Scan(&created); err != nil {
			t.Fatal(err)
		}
		if _, err := time.Parse(time.RFC3339, created); err != nil {
			t.Fatalf("created_at %q: %v", created, err)
		}
		s.Close()

		s, err = Open(ctx, db.dsn)
		if err != nil {
			t.Fatalf("re-open: %v", err)
		}
		defer s.Close()
		if s.SchemaVersion != v1 {
			t.Fatalf("re-open moved schema from %d to %d", v1, s.SchemaVersion)
		}
		var again string
		s.SQL().QueryRow("SELECT value FROM console_meta WHERE key='created_at'").Scan(&again)
		if again != created {
			t.Fatalf("re-running migrations rewrote data: %q → %q", created, again)
		}
		if err := s.Writable(ctx); err != nil {
			t.Fatalf("Writable on a fresh database: %v", err)
		}
	})
}

// Both databases are migrated to the same version: the sets must not drift apart.
func TestBothDatabasesReachTheSameVersion(t *testing.T) {
	versions := map[Dialect]int64{}
	eachDB(t, func(t *testing.T, db testDB) {
		versions[db.dialect] = db.open(t).SchemaVersion
	})
	if len(versions) == 2 && versions[SQLite] != versions[Postgres] {
		t.Fatalf("SQLite at version %d, PostgreSQL at %d", versions[SQLite], versions[Postgres])
	}
}

func TestOpenRefusesNewerSchema(t *testing.T) {
	eachDB(t, func(t *testing.T, db testDB) {
		ctx := context.Background()
		s, err := Open(ctx, db.dsn)
		if err != nil {
			t.Fatal(err)
		}
		// Pretend a newer console applied a migration this binary does not know.
		if err := s.DB.Exec(`INSERT INTO goose_db_version (version_id, is_applied) VALUES (?, true)`, s.SchemaVersion+1000).Error; err != nil {
			t.Fatal(err)
		}
		s.Close()
		_, err = Open(ctx, db.dsn)
		if !errors.Is(err, ErrNewerSchema) {
			t.Fatalf("Open of a newer database: %v, want ErrNewerSchema", err)
		}
	})
}

func TestOpenFailsOnUnwritableLocation(t *testing.T) {
	path := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(path, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(context.Background(), filepath.Join(path, "x.db")); err == nil {
		t.Fatal("Open under a regular file succeeded")
	}
}

// A PostgreSQL URL that leads nowhere fails quickly, on one line that names the
// database without its password.
func TestOpenPostgresFailsOnBadURL(t *testing.T) {
	pg := dev.RequirePostgres(t)
	closed, err := freePort()
	if err != nil {
		t.Fatal(err)
	}
	for name, url := range map[string]string{
		"nothing listens":  fmt.Sprintf("postgres://console:s3cret-pw@127.0.0.1:%d/console?sslmode=disable", closed),
		"no such database": strings.Replace(pg.URL("no_such_db"), "postgres@", "postgres:s3cret-pw@", 1),
		"not a URL":        "postgres://console:s3cret-pw@127.0.0.1:port/x",
	} {
		t.Run(name, func(t *testing.T) {
			start := time.Now()
			s, err := Open(context.Background(), url)
			if err == nil {
				s.Close()
				t.Fatal("Open succeeded")
			}
			msg := err.Error()
			if strings.Contains(msg, "s3cret-pw") || strings.Contains(msg, "\n") || !strings.Contains(msg, "open database ") {
				t.Fatalf("error %q: want one line naming the database, without its password", msg)
			}
			if d := time.Since(start); d > connectWait+5*time.Second {
				t.Fatalf("took %s", d)
			}
		})
	}
}
