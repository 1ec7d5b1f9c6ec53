package server

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"time"

	"rmqconsole/i18n"
	"rmqconsole/store"
)

// auditCommand runs `rmqconsole audit ...`.
func auditCommand(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) int {
	l := i18n.FromEnv(getenv)
	auditUsage := l.T("cli.audit.usage")
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		fmt.Fprint(stderr, auditUsage)
		if len(args) == 0 {
			return 2
		}
		return 0
	}
	if args[0] != "verify" {
		fmt.Fprintf(stderr, "rmqconsole audit: %s\n\n%s", l.T("cli.unknown_command", "Command", strconv.Quote(args[0])), auditUsage)
		return 2
	}
	cfg, err := ParseConfig(args[1:], getenv, stderr)
	if isHelp(err) {
		return 0
	}
	if err != nil {
		fmt.Fprintf(stderr, "rmqconsole audit verify: %s\n", cliSay(l, err))
		return 2
	}
	if _, err := os.Stat(cfg.DB); err != nil && !store.IsPostgresURL(cfg.DB) {
		fmt.Fprintf(stderr, "rmqconsole audit verify: %s\n", l.T("cli.audit.no_db", "DB", cfg.DB, "Error", err.Error()))
		return 2
	}
	st, err := store.OpenReadOnly(ctx, cfg.DB)
	if err != nil {
		fmt.Fprintf(stderr, "rmqconsole audit verify: %v\n", err)
		if errors.Is(err, store.ErrInUse) {
			fmt.Fprintln(stderr, l.T("cli.audit.in_use"))
		}
		return 2
	}
	defer st.Close()
	st.SetTimeout(time.Hour) // one pass over the whole log, however long; Ctrl-C ends it sooner
	rep, err := st.Audit().Verify(ctx)
	if err != nil {
		if errors.Is(err, context.Canceled) {
			return 2
		}
		fmt.Fprintf(stderr, "rmqconsole audit verify: %s\n", l.T("cli.audit.not_console_db", "Error", err.Error(), "DB", store.Redacted(cfg.DB)))
		return 2
	}
	if rep.Intact {
		fmt.Fprintln(stdout, l.T("cli.audit.intact", "Sealed", rep.Sealed, "Pending", rep.Pending))
		fmt.Fprintln(stdout, l.T("cli.audit.head", "Head", rep.Head))
		fmt.Fprintln(stdout, l.T("cli.audit.keep_head"))
		return 0
	}
	fmt.Fprintln(stdout, l.T("cli.audit.broken", "Problems", len(rep.Problems), "Sealed", rep.Sealed, "DB", store.Redacted(cfg.DB)))
	for _, p := range rep.Problems {
		fmt.Fprintln(stdout, "  "+l.T("cli.audit.problem", "ID", p.ID, "Reason", p.Reason))
	}
	return 1
}
