package store

import (
	"context"
	"net"
	"os"
	"path/filepath"
	"testing"

	"rmqconsole/dev"
)

func TestMain(m *testing.M) { os.Exit(dev.RunTests(m)) }

// testDB is one of the databases the store's suite runs on, fresh for one test.
type testDB struct {
	dialect Dialect
	// dsn opens it: a SQLite file's path or a PostgreSQL URL.
	dsn string
}

// eachDB runs test on a fresh SQLite file and on a fresh PostgreSQL database (a real
// server, see dev.RequirePostgres): one suite, both databases.
func eachDB(t *testing.T, test func(t *testing.T, db testDB)) {
	t.Helper()
	t.Run("sqlite", func(t *testing.T) {
		test(t, testDB{dialect: SQLite, dsn: filepath.Join(t.TempDir(), "console.db")})
	})
	t.Run("postgres", func(t *testing.T) {
		test(t, testDB{dialect: Postgres, dsn: dev.RequirePostgres(t).NewDatabase(t)})
	})
}

// open opens the database (migrating it) and closes it when the test ends.
func (db testDB) open(t testing.TB) *Store {
	t.Helper()
	s, err := Open(context.Background(), db.dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	if s.Dialect() != db.dialect {
		t.Fatalf("opened %s, want %s", s.Dialect(), db.dialect)
	}
	return s
}

func freePort() (int, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port, nil
}

// requirePostgresDB is a fresh PostgreSQL database for tests that only make sense there
// (several consoles on one database).
func requirePostgresDB(t *testing.T) string {
	t.Helper()
	return dev.RequirePostgres(t).NewDatabase(t)
}
