package store

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
)

func TestOpenMigratesFreshFileAndRerunIsNoop(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "sub", "console.db")
	s, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	v1 := s.SchemaVersion
	if v1 < 1 {
		t.Fatalf("schema version %d after migrating a fresh file", v1)
	}
	var mode string
	if err := s.SQL().QueryRow("PRAGMA journal_mode").Scan(&mode); err != nil || mode != "wal" {
		t.Fatalf("journal_mode = %q (%v), want wal", mode, err)
	}
	var created string
	if err := s.SQL().QueryRow("SELECT value FROM console_meta WHERE key='created_at'").Scan(&created); err != nil {
		t.Fatal(err)
	}
	s.Close()

	s, err = Open(ctx, path)
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
}

func TestOpenRefusesNewerSchema(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "console.db")
	s, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	// Pretend a newer console applied a migration this binary does not know.
	if _, err := s.SQL().Exec(`INSERT INTO goose_db_version (version_id, is_applied) VALUES (?, 1)`, s.SchemaVersion+1000); err != nil {
		t.Fatal(err)
	}
	s.Close()
	_, err = Open(ctx, path)
	if !errors.Is(err, ErrNewerSchema) {
		t.Fatalf("Open of a newer file: %v, want ErrNewerSchema", err)
	}
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
