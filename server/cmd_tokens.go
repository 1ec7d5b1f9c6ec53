package server

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"text/tabwriter"

	"rmqconsole/auth"
	"rmqconsole/i18n"
)

// tokensCommand runs `rmqconsole tokens ...`.
func tokensCommand(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) int {
	cmd, err := parseCommand(args, []string{"user", "name"}, getenv, stderr)
	l := cmd.l
	tokensUsage := l.T("cli.tokens.usage")
	if err != nil {
		return cmd.fail(err, tokensUsage)
	}
	defer cmd.close()
	svc := cmd.service()
	user := cmd.own["user"]
	switch cmd.verb {
	case "create":
		if user == "" || len(cmd.args) != 0 {
			return cmd.fail(usageError(l.T("cli.tokens.create_needs_user")), tokensUsage)
		}
		name := cmd.own["name"]
		if name == "" {
			name = "command line"
		}
		secret, tok, err := svc.CreateToken(ctx, user, name, "command line")
		if err != nil {
			return cmd.fail(userNotFound(user, err), "")
		}
		fmt.Fprintln(stderr, l.T("cli.tokens.created", "ID", tok.ID, "Name", tok.Name, "User", tok.User, "Role", tok.Role))
		fmt.Fprintln(stdout, secret)
	case "list":
		if len(cmd.args) != 0 {
			return cmd.fail(usageError(l.T("cli.tokens.list_no_args")), tokensUsage)
		}
		if user != "" {
			if _, err := svc.UserByName(ctx, user); err != nil {
				return cmd.fail(userNotFound(user, err), "")
			}
		}
		ts, err := svc.Tokens(ctx, user)
		if err != nil {
			return cmd.fail(err, "")
		}
		if len(ts) == 0 {
			fmt.Fprintln(stdout, l.T("cli.tokens.none"))
			return 0
		}
		tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, l.T("cli.tokens.header"))
		for _, t := range ts {
			used, state := l.T("tokens.never"), l.T("tokens.active")
			if !t.LastUsedAt.IsZero() {
				used = t.LastUsedAt.Format("2006-01-02 15:04:05")
			}
			if t.Revoked() {
				state = l.T("tokens.revoked", "When", t.RevokedAt.Format("2006-01-02 15:04:05"))
			}
			fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", t.ID, t.User, t.Role, t.Name, t.Hint,
				t.CreatedAt.Format("2006-01-02 15:04:05"), used, state)
		}
		tw.Flush()
	case "revoke":
		if len(cmd.args) != 1 {
			return cmd.fail(usageError(l.T("cli.tokens.revoke_one")), tokensUsage)
		}
		id, err := strconv.ParseInt(cmd.args[0], 10, 64)
		if err != nil || id <= 0 {
			return cmd.fail(usageError(l.T("cli.tokens.bad_id", "ID", strconv.Quote(cmd.args[0]))), tokensUsage)
		}
		tok, err := svc.RevokeToken(ctx, user, id)
		if errors.Is(err, auth.ErrTokenNotFound) {
			if user == "" {
				return cmd.fail(i18n.M("cli.tokens.not_found", "ID", id), "")
			}
			return cmd.fail(i18n.M("cli.tokens.not_found.user", "ID", id, "User", user), "")
		}
		if err != nil {
			return cmd.fail(err, "")
		}
		fmt.Fprintln(stdout, l.T("cli.tokens.revoked", "ID", tok.ID, "Name", tok.Name, "User", tok.User))
	default:
		return cmd.fail(usageError(l.T("cli.unknown_command", "Command", "tokens "+strconv.Quote(cmd.verb))), tokensUsage)
	}
	return 0
}
