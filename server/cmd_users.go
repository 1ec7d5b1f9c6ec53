package server

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"

	"golang.org/x/term"

	"rmqconsole/auth"
	"rmqconsole/i18n"
	"rmqconsole/store"
)

// usersCommand runs `rmqconsole users ...`. stdin supplies passwords.
func usersCommand(ctx context.Context, args []string, getenv func(string) string, stdin io.Reader, stdout, stderr io.Writer) int {
	cmd, err := parseCommand(args, []string{"role"}, getenv, stderr)
	l := cmd.l
	usersUsage := l.T("cli.users.usage")
	if err != nil {
		return cmd.fail(err, usersUsage)
	}
	defer cmd.close()
	svc := cmd.service()
	need := func(n int, what string) error {
		if len(cmd.args) != n {
			return usageError(l.T("cli.users.takes."+what, "Verb", cmd.verb))
		}
		return nil
	}
	switch cmd.verb {
	case "add":
		if err := need(1, "one"); err != nil {
			return cmd.fail(err, usersUsage)
		}
		if cmd.own["role"] == "" {
			return cmd.fail(usageError(l.T("cli.users.needs_role")), usersUsage)
		}
		role, err := auth.ParseRole(cmd.own["role"])
		if err != nil {
			return cmd.fail(usageError(cliSay(l, err)), usersUsage)
		}
		name := cmd.args[0]
		if err := auth.CheckUserName(name); err != nil {
			return cmd.fail(err, "")
		}
		exists := i18n.M("cli.users.exists", "Name", name)
		// Say so before asking for a password that would be thrown away.
		if _, err := svc.UserByName(ctx, name); err == nil {
			return cmd.fail(exists, "")
		}
		pw, err := readPassword(l, stdin, stderr, l.T("cli.users.password_for", "Name", name))
		if err != nil {
			return cmd.fail(err, "")
		}
		u, err := svc.AddUser(ctx, name, role, pw)
		if errors.Is(err, auth.ErrUserExists) {
			return cmd.fail(exists, "")
		}
		if err != nil {
			return cmd.fail(err, "")
		}
		fmt.Fprintln(stdout, l.T("cli.users.added", "Name", u.Name, "Role", u.Role.String()))
	case "list":
		if err := need(0, "none"); err != nil {
			return cmd.fail(err, usersUsage)
		}
		us, err := svc.Users(ctx)
		if err != nil {
			return cmd.fail(err, "")
		}
		if len(us) == 0 {
			fmt.Fprintln(stdout, l.T("cli.users.none"))
			return 0
		}
		tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, l.T("cli.users.header"))
		for _, u := range us {
			n, err := svc.SessionCount(ctx, u.Name)
			if err != nil {
				return cmd.fail(err, "")
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%s\t%s\n", u.Name, u.Role, u.Provider, n,
				u.CreatedAt.Format("2006-01-02 15:04:05"), u.UpdatedAt.Format("2006-01-02 15:04:05"))
		}
		tw.Flush()
	case "passwd":
		if err := need(1, "one"); err != nil {
			return cmd.fail(err, usersUsage)
		}
		name := cmd.args[0]
		if _, err := svc.UserByName(ctx, name); err != nil {
			return cmd.fail(userNotFound(name, err), "")
		}
		pw, err := readPassword(l, stdin, stderr, l.T("cli.users.new_password_for", "Name", name))
		if err != nil {
			return cmd.fail(err, "")
		}
		ended, err := svc.SetPassword(ctx, name, pw)
		if err != nil {
			return cmd.fail(userNotFound(name, err), "")
		}
		fmt.Fprintln(stdout, l.T("cli.users.passwd_changed", "Name", name, "Ended", ended))
	case "remove":
		if err := need(1, "one"); err != nil {
			return cmd.fail(err, usersUsage)
		}
		if err := svc.RemoveUser(ctx, cmd.args[0]); err != nil {
			return cmd.fail(userNotFound(cmd.args[0], err), "")
		}
		fmt.Fprintln(stdout, l.T("cli.users.removed", "Name", cmd.args[0]))
	default:
		return cmd.fail(usageError(l.T("cli.unknown_command", "Command", "users "+strconv.Quote(cmd.verb))), usersUsage)
	}
	return 0
}

func userNotFound(name string, err error) error {
	if errors.Is(err, auth.ErrUserNotFound) {
		return i18n.M("cli.users.not_found", "Name", name)
	}
	return err
}

// command is a parsed `rmqconsole users|tokens VERB ...`: its positional arguments, its
// own flags, and the console's configuration from the remaining flags.
type command struct {
	// l speaks the language of the environment (LC_ALL, LC_MESSAGES, LANG).
	l      *i18n.Localizer
	verb   string
	args   []string
	own    map[string]string
	cfg    *Config
	st     *store.Store
	stderr io.Writer
}

// usageError is a mistake in the command line (exit code 2, usage printed).
type usageError string

func (e usageError) Error() string { return string(e) }

// parseCommand splits args into the verb, positional arguments, the command's own flags
// (ownFlags) and the console's flags, which go to ParseConfig. Every flag takes a value,
// as --flag VALUE or --flag=VALUE. It opens the database.
func parseCommand(args, ownFlags []string, getenv func(string) string, stderr io.Writer) (*command, error) {
	cmd := &command{l: i18n.FromEnv(getenv), own: map[string]string{}, stderr: stderr}
	var rest []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "-h" || a == "--help" || a == "help" {
			return cmd, usageError("")
		}
		if !strings.HasPrefix(a, "-") {
			if cmd.verb == "" {
				cmd.verb = a
			} else {
				cmd.args = append(cmd.args, a)
			}
			continue
		}
		name, val, hasVal := strings.Cut(strings.TrimLeft(a, "-"), "=")
		if !hasVal {
			if i+1 >= len(args) {
				return cmd, usageError(cmd.l.T("cli.flag_needs_value", "Flag", a))
			}
			i++
			val = args[i]
		}
		if slices.Contains(ownFlags, name) {
			cmd.own[name] = val
			continue
		}
		rest = append(rest, "--"+name+"="+val)
	}
	if cmd.verb == "" {
		return cmd, usageError("")
	}
	cfg, err := ParseConfig(rest, getenv, io.Discard)
	if err != nil {
		return cmd, err
	}
	cmd.cfg = cfg
	if cmd.st, err = store.Open(context.Background(), cfg.DB); err != nil {
		return cmd, err
	}
	return cmd, nil
}

// service is the auth service over the command's database.
func (c *command) service() *auth.Service {
	return auth.New(c.st, auth.Config{SessionIdle: c.cfg.SessionIdle, SessionMax: c.cfg.SessionMax})
}

func (c *command) close() {
	if c.st != nil {
		c.st.Close()
		c.st = nil
	}
}

// fail prints err as one line (and usage for command-line mistakes) and returns the exit
// code: 2 for usage, 1 otherwise.
func (c *command) fail(err error, usage string) int {
	c.close()
	var ue usageError
	if errors.As(err, &ue) {
		if ue != "" {
			fmt.Fprintf(c.stderr, "rmqconsole: %s\n\n", ue)
		}
		fmt.Fprint(c.stderr, usage)
		return 2
	}
	var ce *ConfigError
	if errors.As(err, &ce) {
		fmt.Fprintf(c.stderr, "rmqconsole: %s\n", cliSay(c.l, err))
		return 2
	}
	fmt.Fprintf(c.stderr, "rmqconsole: %s\n", cliSay(c.l, err))
	return 1
}

// readPassword asks for a password twice on a terminal, or reads the first line of in
// when it is not one.
func readPassword(l *i18n.Localizer, in io.Reader, prompt io.Writer, what string) ([]byte, error) {
	if f, ok := in.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		fmt.Fprintf(prompt, "%s: ", what)
		pw, err := term.ReadPassword(int(f.Fd()))
		fmt.Fprintln(prompt)
		if err != nil {
			return nil, fmt.Errorf("read password: %w", err)
		}
		if err := auth.CheckPassword(pw); err != nil {
			return nil, err
		}
		fmt.Fprint(prompt, l.T("cli.password.again"))
		again, err := term.ReadPassword(int(f.Fd()))
		fmt.Fprintln(prompt)
		if err != nil {
			return nil, fmt.Errorf("read password: %w", err)
		}
		if string(again) != string(pw) {
			return nil, i18n.M("cli.password.differ")
		}
		return pw, nil
	}
	line, err := bufio.NewReader(in).ReadString('\n')
	if err != nil && !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("read password from standard input: %w", err)
	}
	line = strings.TrimSuffix(strings.TrimSuffix(line, "\n"), "\r")
	if line == "" {
		return nil, i18n.M("cli.password.none")
	}
	return []byte(line), nil
}
