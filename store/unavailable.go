package store

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"io"
	"net"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/mattn/go-sqlite3"
	"gorm.io/driver/postgres"
	"gorm.io/driver/sqlite"
	"gorm.io/gorm"
)

// ErrUnavailable is matched (errors.Is) by every error of a database that could not be
// reached, did not answer within the store's timeout, or could not take a write (a full
// disk, a file or server gone read-only): the console's failure, not the caller's. A
// write that failed so was not kept (each is one statement or one transaction).
var ErrUnavailable = errors.New("the console's database is unavailable")

// UnavailableError is ErrUnavailable with the database's own error.
type UnavailableError struct{ Err error }

func (e *UnavailableError) Error() string {
	if errors.Is(e.Err, context.DeadlineExceeded) || pgconn.Timeout(e.Err) {
		return "the console's database did not answer in time (" + oneLine(e.Err) + ")"
	}
	return "the console's database is unavailable (" + oneLine(e.Err) + ")"
}

// Is makes errors.Is(err, ErrUnavailable) hold.
func (e *UnavailableError) Is(target error) bool { return target == ErrUnavailable }

// Unwrap returns the database's error.
func (e *UnavailableError) Unwrap() error { return e.Err }

// DefaultTimeout bounds one call of the store unless SetTimeout says otherwise.
const DefaultTimeout = 5 * time.Second

// SetTimeout bounds every later call of the store (and of the views ForCluster makes
// after it): a database that does not answer within d fails the call with ErrUnavailable
// instead of holding the request that made it. Call it before ForCluster.
func (s *Store) SetTimeout(d time.Duration) {
	if d > 0 {
		s.timeout = d
	}
}

// Timeout is the bound of one call of the store.
func (s *Store) Timeout() time.Duration { return orDefault(s.timeout) }

func orDefault(d time.Duration) time.Duration {
	if d <= 0 {
		return DefaultTimeout
	}
	return d
}

// deadline bounds one call of the store by its timeout.
func (s *Store) deadline(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(ctx, s.Timeout())
}

// batchDeadline bounds the store's own upkeep (pruning, compaction), which may touch
// many rows: a dozen calls' worth, still an end.
func (s *Store) batchDeadline(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(ctx, 12*s.Timeout())
}

// failed is err as callers of the store see it: an *UnavailableError when the database
// itself failed (databaseFailed), else err unchanged. Every error of a statement passes
// through it (the dialects below); the few calls made on the *sql.DB directly use it too.
func failed(err error) error {
	if err == nil || errors.Is(err, ErrUnavailable) || !databaseFailed(err) {
		return err
	}
	return &UnavailableError{Err: err}
}

// databaseFailed reports whether err says the database, rather than the statement,
// failed: the one place that tells them apart. A statement's error (a constraint, a
// value the column refuses, a bug in SQL) is not the database's failure. A deadline
// that ran out is the store's own (deadline) or, rarely, a shorter one of the caller's:
// either way the database did not answer in time.
func databaseFailed(err error) bool {
	switch {
	case errors.Is(err, context.Canceled):
		return false // the caller went away
	case errors.Is(err, context.DeadlineExceeded), errors.Is(err, driver.ErrBadConn), errors.Is(err, sql.ErrConnDone),
		errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, io.EOF), pgconn.Timeout(err):
		return true
	}
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		return pgUnavailable(pe.Code)
	}
	var ce *pgconn.ConnectError
	var ne net.Error
	if errors.As(err, &ce) || errors.As(err, &ne) {
		return true
	}
	var se sqlite3.Error
	if errors.As(err, &se) {
		switch se.Code {
		case sqlite3.ErrFull, sqlite3.ErrIoErr, sqlite3.ErrReadonly, sqlite3.ErrCantOpen, sqlite3.ErrBusy,
			sqlite3.ErrLocked, sqlite3.ErrPerm, sqlite3.ErrNomem, sqlite3.ErrCorrupt, sqlite3.ErrNotADB,
			sqlite3.ErrProtocol, sqlite3.ErrNoLFS:
			return true
		}
	}
	return false
}

// pgUnavailable reports whether a PostgreSQL SQLSTATE says the server, not the statement,
// failed: a lost connection (08), too few resources such as a full disk (53), the
// server shutting down or starting (57P), an I/O error (58), a cancelled statement
// (57014, the store's deadline), or a server that takes no writes (25006: a standby or
// a read-only session).
func pgUnavailable(code string) bool {
	for _, p := range []string{"08", "53", "57P", "58"} {
		if strings.HasPrefix(code, p) {
			return true
		}
	}
	return code == "57014" || code == "25006"
}

// reportFailures passes the error of every row query (Raw…Scan, Rows) through failed:
// GORM hands the errors of other statements, of transactions and of reading rows to the
// dialect's Translate (below), but sets a row query's own.
func reportFailures(db *gorm.DB) error {
	return db.Callback().Row().After("gorm:row").Register("rmqconsole:failed", func(db *gorm.DB) {
		db.Error = failed(db.Error)
	})
}

// sqliteDialect and postgresDialect are GORM's dialects with every error a statement
// meets passed through failed (GORM hands them to Translate because the store opens
// with TranslateError).
type sqliteDialect struct{ *sqlite.Dialector }

func (d sqliteDialect) Translate(err error) error { return failed(d.Dialector.Translate(err)) }

type postgresDialect struct{ *postgres.Dialector }

func (d postgresDialect) Translate(err error) error { return failed(d.Dialector.Translate(err)) }
