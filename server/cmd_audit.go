package server

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"

	"rmqconsole/store"
)

const auditUsage = `Usage:
  rmqconsole audit verify [--db FILE | --data-dir DIR]

verify recomputes the hash chain of the audit log of offset resets: every finished
entry's hash over its content and the hash of the entry before it. It opens the database
read-only and exits 0 when the chain is intact, 1 when it is broken (each problem is
named), 2 on a usage or open error.
`

// auditCommand runs `rmqconsole audit ...`.
func auditCommand(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) int {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		fmt.Fprint(stderr, auditUsage)
		if len(args) == 0 {
			return 2
		}
		return 0
	}
	if args[0] != "verify" {
		fmt.Fprintf(stderr, "rmqconsole audit: unknown command %q\n\n%s", args[0], auditUsage)
		return 2
	}
	cfg, err := ParseConfig(args[1:], getenv, stderr)
	if isHelp(err) {
		return 0
	}
	if err != nil {
		fmt.Fprintf(stderr, "rmqconsole audit verify: %v\n", err)
		return 2
	}
	if _, err := os.Stat(cfg.DB); err != nil && !store.IsPostgresURL(cfg.DB) {
		fmt.Fprintf(stderr, "rmqconsole audit verify: no database at %s (%v): pass --db FILE or --data-dir DIR\n", cfg.DB, err)
		return 2
	}
	st, err := store.OpenReadOnly(ctx, cfg.DB)
	if err != nil {
		fmt.Fprintf(stderr, "rmqconsole audit verify: %v\n", err)
		if errors.Is(err, store.ErrInUse) {
			fmt.Fprintln(stderr, "The running console checks the same chain: its audit page, and the \"chain\" field of GET /api/v1/audit.")
		}
		return 2
	}
	defer st.Close()
	rep, err := st.Audit().Verify(ctx)
	if err != nil {
		if errors.Is(err, context.Canceled) {
			return 2
		}
		fmt.Fprintf(stderr, "rmqconsole audit verify: %v (is %s a console database?)\n", err, store.Redacted(cfg.DB))
		return 2
	}
	if rep.Intact {
		fmt.Fprintf(stdout, "audit chain intact: %d finished entries, each linked to the one before; %d in progress.\nhead %s\n", rep.Sealed, rep.Pending, rep.Head)
		fmt.Fprintln(stdout, "Keep the head hash somewhere else: a later run showing a different head without newer entries means entries were removed.")
		return 0
	}
	fmt.Fprintf(stdout, "audit chain BROKEN: %d problem(s) in %d finished entries (%s):\n", len(rep.Problems), rep.Sealed, store.Redacted(cfg.DB))
	for _, p := range rep.Problems {
		fmt.Fprintf(stdout, "  entry %d: %s\n", p.ID, p.Reason)
	}
	return 1
}
