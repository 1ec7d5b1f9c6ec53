// Package store keeps the console's own state (audit log, rebalance history, users,
// sessions) through GORM, in one SQLite file (the embedded default) or in a PostgreSQL
// database that several consoles share. The schema comes only from the embedded
// migrations of that database, applied when it is opened. What differs between the two
// databases is spelled here and in package migrations, nowhere else.
package store

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/mattn/go-sqlite3"
	"github.com/pressly/goose/v3"
	"github.com/pressly/goose/v3/lock"
	"gorm.io/driver/sqlite"
	"gorm.io/gorm"
	"gorm.io/gorm/logger"

	"rmqconsole/migrations"
)

// ErrNewerSchema means the database was migrated by a newer console than this one.
var ErrNewerSchema = errors.New("database was written by a newer rmqconsole")

// Dialect names the database behind a Store.
type Dialect string

// The databases the console keeps its state in.
const (
	// SQLite is one file held by one console process.
	SQLite Dialect = "sqlite"
	// Postgres is a PostgreSQL database that several console processes may share.
	Postgres Dialect = "postgres"
)

// Store is an open database with the schema up to date.
type Store struct {
	DB  *gorm.DB
	sql *sql.DB
	// SchemaVersion is the migration version the database is at after Open.
	SchemaVersion int64
	dialect       Dialect
	// replica names this process among the consoles sharing the database; it is written
	// on the audit entries it starts (see replicas.go).
	replica string
	// cluster is the configured cluster this view of the store is bound to (ForCluster):
	// what it writes records it, what it reads is that cluster's.
	cluster string
	// defaultCluster owns the audit entries written before clusters had names ('').
	defaultCluster string
	// timeout bounds each call (SetTimeout).
	timeout time.Duration
}

// ForCluster is the store seen from one configured cluster: the audit entries, rebalance
// events, lag samples and alert rules written through it record the cluster's name, and
// those read through it are that cluster's. The same group name on two clusters is two
// groups.
func (s *Store) ForCluster(name string) *Store {
	c := *s
	c.cluster = name
	return &c
}

// Cluster is the cluster this view of the store is bound to.
func (s *Store) Cluster() string { return s.cluster }

// SetDefaultCluster names the cluster that rows written before clusters had names
// belong to: the one the console then talked to. Call it before ForCluster.
func (s *Store) SetDefaultCluster(name string) { s.defaultCluster = name }

// ClaimUnnamedRows gives the rebalance events, lag samples and alert rules written before
// clusters had names to the default cluster. Audit entries are not changed (they never
// are): an entry without a cluster name reads as the default cluster's.
func (s *Store) ClaimUnnamedRows(ctx context.Context) error {
	ctx, cancel := s.batchDeadline(ctx)
	defer cancel()
	if s.defaultCluster == "" {
		return nil
	}
	for _, table := range []string{"rebalance_events", "lag_samples", "alert_rules"} {
		if err := s.DB.WithContext(ctx).Exec("UPDATE "+table+" SET cluster = ? WHERE cluster = ''", s.defaultCluster).Error; err != nil {
			return fmt.Errorf("give the %s written before clusters had names to cluster %s: %w", table, s.defaultCluster, err)
		}
	}
	return nil
}

// Dialect says which database the store is on.
func (s *Store) Dialect() Dialect { return s.dialect }

// Replica is the id this process goes by in the database: unique per Open.
func (s *Store) Replica() string { return s.replica }

// IsPostgresURL reports whether dsn names a PostgreSQL database rather than a SQLite file.
func IsPostgresURL(dsn string) bool {
	return strings.HasPrefix(dsn, "postgres://") || strings.HasPrefix(dsn, "postgresql://")
}

// Redacted is dsn fit for logs and messages: a PostgreSQL URL without its password.
func Redacted(dsn string) string {
	if !IsPostgresURL(dsn) {
		return dsn
	}
	u, err := url.Parse(dsn)
	if err != nil {
		return "(a PostgreSQL URL that does not parse)"
	}
	return u.Redacted()
}

func newReplicaID() string {
	host, _ := os.Hostname()
	b := make([]byte, 4)
	_, _ = rand.Read(b)
	return fmt.Sprintf("%s-%d-%s", host, os.Getpid(), hex.EncodeToString(b))
}

// pragmas as recommended for a small write-rarely, read-often console database: WAL so
// readers never wait for the writer, a busy timeout instead of SQLITE_BUSY errors, and
// immediate transactions so two writers queue instead of deadlocking on upgrade.
//
// The "unix-excl" VFS keeps WAL's index in this process's heap instead of a
// memory-mapped -shm file. A mapped index is memory SQLite cannot keep when the file
// goes bad under it (made immutable, truncated, on a full or failing disk): touching
// the mapping then raises SIGBUS inside cgo, which no Go code can recover, and the
// whole console dies. In the heap, the same faults come back as errors from the write
// that met them: a reset is refused, the console stays up. The price is that this
// process holds the file exclusively while it is open, which the design already
// assumes (one console per database: interrupted resets are recovered at start-up);
// the users, tokens and audit commands therefore work on the file while no console
// has it open, and say so (ErrInUse) when one does.
const pragmas = "vfs=unix-excl&_journal_mode=WAL&_busy_timeout=5000&_foreign_keys=on&_synchronous=NORMAL&_txlock=immediate"

// ErrInUse means another process (a running console) holds the database file.
var ErrInUse = errors.New("the database is in use by a running rmqconsole, which holds it exclusively; stop it first")

// inUse turns SQLite's "database is locked", met when opening, into ErrInUse.
func inUse(err error) error {
	var se sqlite3.Error
	if errors.As(err, &se) && se.Code == sqlite3.ErrBusy {
		return fmt.Errorf("%w (%v)", ErrInUse, err)
	}
	return err
}

// Open opens the database named by dsn and applies pending migrations: a PostgreSQL URL
// (postgres://...), or else the path of a SQLite file, created if needed. It refuses a
// database whose schema is newer than this binary knows.
func Open(ctx context.Context, dsn string) (*Store, error) {
	if IsPostgresURL(dsn) {
		return openPostgres(ctx, dsn, false)
	}
	return openSQLite(ctx, dsn)
}

func openSQLite(ctx context.Context, path string) (*Store, error) {
	if dir := filepath.Dir(path); dir != "" {
		if err := os.MkdirAll(dir, 0o750); err != nil {
			return nil, fmt.Errorf("create database directory %s: %w", dir, err)
		}
	}
	dsn := "file:" + (&url.URL{Path: path}).EscapedPath() + "?" + pragmas
	db, err := gorm.Open(sqliteDialect{&sqlite.Dialector{DSN: dsn}}, &gorm.Config{Logger: logger.Discard, TranslateError: true})
	if err != nil {
		return nil, fmt.Errorf("open database %s: %w", path, inUse(err))
	}
	sqlDB, err := db.DB()
	if err == nil {
		err = reportFailures(db)
	}
	if err != nil {
		return nil, fmt.Errorf("open database %s: %w", path, err)
	}
	s := &Store{DB: db, sql: sqlDB, dialect: SQLite, replica: newReplicaID(), timeout: DefaultTimeout}
	if err := s.migrate(ctx); err != nil {
		sqlDB.Close()
		return nil, fmt.Errorf("database %s: %w", path, inUse(err))
	}
	return s, nil
}

func (s *Store) migrate(ctx context.Context) error {
	var (
		dialect goose.Dialect
		files   fs.FS
		opts    []goose.ProviderOption
	)
	switch s.dialect {
	case Postgres:
		// Consoles starting together migrate one at a time: a session advisory lock,
		// tried every second for up to five minutes (a long migration holding it).
		locker, err := lock.NewPostgresSessionLocker(lock.WithLockTimeout(1, 300))
		if err != nil {
			return err
		}
		dialect, files, opts = goose.DialectPostgres, migrations.Postgres, []goose.ProviderOption{goose.WithSessionLocker(locker)}
	default:
		dialect, files = goose.DialectSQLite3, migrations.SQLite
	}
	provider, err := goose.NewProvider(dialect, s.sql, files, opts...)
	if err != nil {
		return err
	}
	current, err := provider.GetDBVersion(ctx)
	if err != nil {
		return fmt.Errorf("read schema version: %w", err)
	}
	latest := latestVersion(provider)
	if current > latest {
		return fmt.Errorf("%w (schema version %d, this binary knows up to %d): upgrade rmqconsole or use another --db file", ErrNewerSchema, current, latest)
	}
	if _, err := provider.Up(ctx); err != nil {
		return fmt.Errorf("apply migrations: %w", err)
	}
	s.SchemaVersion = latest // Up applies every migration or fails: no need to read it back
	return nil
}

func latestVersion(p *goose.Provider) int64 {
	var v int64
	for _, src := range p.ListSources() {
		v = max(v, src.Version)
	}
	return v
}

// Ping checks that the database answers a query.
func (s *Store) Ping(ctx context.Context) error {
	ctx, cancel := s.deadline(ctx)
	defer cancel()
	var one int
	return failed(s.sql.QueryRowContext(ctx, "SELECT 1").Scan(&one))
}

// Writable checks that the database takes a write: it commits a transaction that
// rewrites the schema cookie users never see (PRAGMA user_version, unused by the
// migrations) with its own value. A file or disk that became read-only, or a disk too
// full for the write-ahead log to grow, fails here as it would fail the next audit
// entry; reading alone would still answer.
func (s *Store) Writable(ctx context.Context) error {
	ctx, cancel := s.deadline(ctx)
	defer cancel()
	if s.dialect == Postgres {
		return s.writablePostgres(ctx)
	}
	return s.writableSQLite(ctx)
}

func (s *Store) writableSQLite(ctx context.Context) error {
	tx, err := s.sql.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("database cannot be written: %w", failed(err))
	}
	defer tx.Rollback()
	var v int64
	if err := tx.QueryRowContext(ctx, "PRAGMA user_version").Scan(&v); err != nil {
		return fmt.Errorf("database cannot be read: %w", failed(err))
	}
	if _, err := tx.ExecContext(ctx, fmt.Sprintf("PRAGMA user_version = %d", v)); err != nil {
		return fmt.Errorf("database cannot be written: %w", failed(err))
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("database cannot be written: %w", failed(err))
	}
	return nil
}

// SQL exposes the underlying database handle (for migrations tests and backups).
func (s *Store) SQL() *sql.DB { return s.sql }

// Close closes the database. On a shared database the console first leaves: its
// heartbeat and leases end now, so another console takes its work over at once.
func (s *Store) Close() error {
	if s.dialect == Postgres {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		_ = s.Leave(ctx) // at worst the leases run out by themselves
		cancel()
	}
	return s.sql.Close()
}
