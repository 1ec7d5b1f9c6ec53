package store

import (
	"context"
	"fmt"
	"net/url"
	"strings"
	"time"

	"gorm.io/driver/postgres"
	"gorm.io/gorm"
	"gorm.io/gorm/logger"
)

// connectWait bounds how long opening a PostgreSQL database waits for the server: an
// unreachable address stops start-up with an error rather than a hang.
const connectWait = 10 * time.Second

// openPostgres opens the PostgreSQL database at dsn. Unless readOnly, it applies pending
// migrations (one console at a time); readOnly sessions refuse every write.
func openPostgres(ctx context.Context, dsn string, readOnly bool) (*Store, error) {
	name := Redacted(dsn)
	u, err := url.Parse(dsn)
	if err != nil {
		// url's error quotes the whole URL, password included: say only what is wrong.
		return nil, fmt.Errorf("open database %s: not a valid PostgreSQL URL", name)
	}
	if readOnly {
		q := u.Query()
		q.Set("default_transaction_read_only", "on")
		u.RawQuery = q.Encode()
	}
	db, err := gorm.Open(postgresDialect{&postgres.Dialector{Config: &postgres.Config{DSN: u.String()}}}, &gorm.Config{
		Logger: logger.Discard, TranslateError: true, DisableAutomaticPing: true})
	if err != nil {
		return nil, fmt.Errorf("open database %s: %s", name, oneLine(err))
	}
	sqlDB, err := db.DB()
	if err == nil {
		err = reportFailures(db)
	}
	if err != nil {
		return nil, fmt.Errorf("open database %s: %s", name, oneLine(err))
	}
	// A console's own work is a few short transactions at a time; stay well below
	// the server's max_connections with several consoles sharing it.
	sqlDB.SetMaxOpenConns(10)
	sqlDB.SetMaxIdleConns(4)
	sqlDB.SetConnMaxIdleTime(5 * time.Minute)
	s := &Store{DB: db, sql: sqlDB, dialect: Postgres, replica: newReplicaID(), timeout: DefaultTimeout}
	pctx, cancel := context.WithTimeout(ctx, connectWait)
	defer cancel()
	if err := s.Ping(pctx); err != nil {
		sqlDB.Close()
		return nil, fmt.Errorf("open database %s: %s", name, oneLine(err))
	}
	if readOnly {
		return s, nil
	}
	if err := s.migrate(ctx); err != nil {
		sqlDB.Close()
		return nil, fmt.Errorf("database %s: %w", name, err)
	}
	return s, nil
}

// oneLine is err's message on one line: start-up errors are printed as one line.
func oneLine(err error) string {
	return strings.Join(strings.Fields(err.Error()), " ")
}

// writablePostgres commits a write that changes nothing anyone reads (a row rewritten
// with its own value): a server in recovery, a read-only session or a full disk fails
// here as it would fail the next audit entry.
func (s *Store) writablePostgres(ctx context.Context) error {
	tx, err := s.sql.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("database cannot be written: %w", failed(err))
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, `UPDATE console_meta SET value = value WHERE key = 'created_at'`); err != nil {
		return fmt.Errorf("database cannot be written: %w", failed(err))
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("database cannot be written: %w", failed(err))
	}
	return nil
}
