package server

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"text/tabwriter"

	"rmqconsole/auth"
)

const tokensUsage = `Usage:
  rmqconsole tokens create --user NAME [--name LABEL]   create an API token; prints it once on stdout
  rmqconsole tokens list [--user NAME]                  list tokens (all users' without --user)
  rmqconsole tokens revoke ID [--user NAME]             stop a token from working

A token acts with its user's role. Send it as: Authorization: Bearer TOKEN
The database is the console's (--db, --data-dir or their RMQC_* variables).
`

// tokensCommand runs `rmqconsole tokens ...`.
func tokensCommand(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) int {
	cmd, err := parseCommand(args, []string{"user", "name"}, getenv, stderr)
	if err != nil {
		return cmd.fail(err, tokensUsage)
	}
	defer cmd.close()
	svc := cmd.service()
	user := cmd.own["user"]
	switch cmd.verb {
	case "create":
		if user == "" || len(cmd.args) != 0 {
			return cmd.fail(usageError("tokens create needs --user NAME and no other argument"), tokensUsage)
		}
		name := cmd.own["name"]
		if name == "" {
			name = "command line"
		}
		secret, tok, err := svc.CreateToken(ctx, user, name, "command line")
		if err != nil {
			return cmd.fail(userNotFound(user, err), "")
		}
		fmt.Fprintf(stderr, "Created API token %d (%s) for %s, acting as %s. It is shown only this once:\n", tok.ID, tok.Name, tok.User, tok.Role)
		fmt.Fprintln(stdout, secret)
	case "list":
		if len(cmd.args) != 0 {
			return cmd.fail(usageError("tokens list takes no argument"), tokensUsage)
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
			fmt.Fprintln(stdout, "No API tokens. Create one with rmqconsole tokens create --user NAME.")
			return 0
		}
		tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "ID\tUSER\tROLE\tNAME\tTOKEN\tCREATED (UTC)\tLAST USED (UTC)\tSTATE")
		for _, t := range ts {
			used, state := "never", "active"
			if !t.LastUsedAt.IsZero() {
				used = t.LastUsedAt.Format("2006-01-02 15:04:05")
			}
			if t.Revoked() {
				state = "revoked " + t.RevokedAt.Format("2006-01-02 15:04:05")
			}
			fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", t.ID, t.User, t.Role, t.Name, t.Hint,
				t.CreatedAt.Format("2006-01-02 15:04:05"), used, state)
		}
		tw.Flush()
	case "revoke":
		if len(cmd.args) != 1 {
			return cmd.fail(usageError("tokens revoke takes one token id (see rmqconsole tokens list)"), tokensUsage)
		}
		id, err := strconv.ParseInt(cmd.args[0], 10, 64)
		if err != nil || id <= 0 {
			return cmd.fail(usageError(fmt.Sprintf("token id %q is not a number (see rmqconsole tokens list)", cmd.args[0])), tokensUsage)
		}
		tok, err := svc.RevokeToken(ctx, user, id)
		if errors.Is(err, auth.ErrTokenNotFound) {
			return cmd.fail(fmt.Errorf("there is no API token %d%s (see rmqconsole tokens list)", id, ofUser(user)), "")
		}
		if err != nil {
			return cmd.fail(err, "")
		}
		fmt.Fprintf(stdout, "Revoked API token %d (%s) of %s.\n", tok.ID, tok.Name, tok.User)
	default:
		return cmd.fail(usageError(fmt.Sprintf("unknown command tokens %q", cmd.verb)), tokensUsage)
	}
	return 0
}

func ofUser(user string) string {
	if user == "" {
		return ""
	}
	return " of user " + user
}
