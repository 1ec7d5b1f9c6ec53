package server

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"text/tabwriter"

	"golang.org/x/term"

	"rmqconsole/auth"
	"rmqconsole/store"
)

const usersUsage = `Usage:
  rmqconsole users add NAME --role viewer|operator|admin   add a user (asks for the password)
  rmqconsole users list                                    list users
  rmqconsole users passwd NAME                             set a new password; signs out their sessions
  rmqconsole users remove NAME                             remove a user with their sessions and API tokens

Passwords are read from the terminal, or from the first line of standard input when it is
not a terminal (for scripts): echo "$PASSWORD" | rmqconsole users add ci --role viewer
The database is the console's (--db, --data-dir or their RMQC_* variables).
Roles: viewer reads everything; operator may also reset offsets; admin may also manage
other users' API tokens.
`

// usersCommand runs `rmqconsole users ...`. stdin supplies passwords.
func usersCommand(ctx context.Context, args []string, getenv func(string) string, stdin io.Reader, stdout, stderr io.Writer) int {
	cmd, err := parseCommand(args, []string{"role"}, getenv, stderr)
	if err != nil {
		return cmd.fail(err, usersUsage)
	}
	defer cmd.close()
	svc := cmd.service()
	need := func(n int, what string) error {
		if len(cmd.args) != n {
			return usageError("users " + cmd.verb + " takes " + what)
		}
		return nil
	}
	switch cmd.verb {
	case "add":
		if err := need(1, "one user name"); err != nil {
			return cmd.fail(err, usersUsage)
		}
		if cmd.own["role"] == "" {
			return cmd.fail(usageError("users add needs --role viewer, operator or admin"), usersUsage)
		}
		role, err := auth.ParseRole(cmd.own["role"])
		if err != nil {
			return cmd.fail(usageError(err.Error()), usersUsage)
		}
		name := cmd.args[0]
		if err := auth.CheckUserName(name); err != nil {
			return cmd.fail(err, "")
		}
		exists := fmt.Errorf("user %s already exists: change the password with rmqconsole users passwd %s, or remove it first", name, name)
		// Say so before asking for a password that would be thrown away.
		if _, err := svc.UserByName(ctx, name); err == nil {
			return cmd.fail(exists, "")
		}
		pw, err := readPassword(stdin, stderr, "Password for "+name)
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
		fmt.Fprintf(stdout, "Added user %s (%s).\n", u.Name, u.Role)
	case "list":
		if err := need(0, "no arguments"); err != nil {
			return cmd.fail(err, usersUsage)
		}
		us, err := svc.Users(ctx)
		if err != nil {
			return cmd.fail(err, "")
		}
		if len(us) == 0 {
			fmt.Fprintln(stdout, "No users: the console runs in single-user local mode (loopback only). Add one with rmqconsole users add NAME --role admin.")
			return 0
		}
		tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "NAME\tROLE\tSESSIONS\tCREATED (UTC)\tCHANGED (UTC)")
		for _, u := range us {
			n, err := svc.SessionCount(ctx, u.Name)
			if err != nil {
				return cmd.fail(err, "")
			}
			fmt.Fprintf(tw, "%s\t%s\t%d\t%s\t%s\n", u.Name, u.Role, n,
				u.CreatedAt.Format("2006-01-02 15:04:05"), u.UpdatedAt.Format("2006-01-02 15:04:05"))
		}
		tw.Flush()
	case "passwd":
		if err := need(1, "one user name"); err != nil {
			return cmd.fail(err, usersUsage)
		}
		name := cmd.args[0]
		if _, err := svc.UserByName(ctx, name); err != nil {
			return cmd.fail(userNotFound(name, err), "")
		}
		pw, err := readPassword(stdin, stderr, "New password for "+name)
		if err != nil {
			return cmd.fail(err, "")
		}
		ended, err := svc.SetPassword(ctx, name, pw)
		if err != nil {
			return cmd.fail(userNotFound(name, err), "")
		}
		fmt.Fprintf(stdout, "Changed the password of %s; %d session(s) signed out.\n", name, ended)
	case "remove":
		if err := need(1, "one user name"); err != nil {
			return cmd.fail(err, usersUsage)
		}
		if err := svc.RemoveUser(ctx, cmd.args[0]); err != nil {
			return cmd.fail(userNotFound(cmd.args[0], err), "")
		}
		fmt.Fprintf(stdout, "Removed user %s with their sessions and API tokens.\n", cmd.args[0])
	default:
		return cmd.fail(usageError(fmt.Sprintf("unknown command users %q", cmd.verb)), usersUsage)
	}
	return 0
}

func userNotFound(name string, err error) error {
	if errors.Is(err, auth.ErrUserNotFound) {
		return fmt.Errorf("there is no user %s (see rmqconsole users list)", name)
	}
	return err
}

// command is a parsed `rmqconsole users|tokens VERB ...`: its positional arguments, its
// own flags, and the console's configuration from the remaining flags.
type command struct {
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
	cmd := &command{own: map[string]string{}, stderr: stderr}
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
				return cmd, usageError("flag " + a + " needs a value")
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
		fmt.Fprintf(c.stderr, "rmqconsole: %v\n", err)
		return 2
	}
	fmt.Fprintf(c.stderr, "rmqconsole: %v\n", err)
	return 1
}

// readPassword asks for a password twice on a terminal, or reads the first line of in
// when it is not one.
func readPassword(in io.Reader, prompt io.Writer, what string) ([]byte, error) {
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
		fmt.Fprintf(prompt, "Again: ")
		again, err := term.ReadPassword(int(f.Fd()))
		fmt.Fprintln(prompt)
		if err != nil {
			return nil, fmt.Errorf("read password: %w", err)
		}
		if string(again) != string(pw) {
			return nil, errors.New("the two passwords differ; nothing was changed")
		}
		return pw, nil
	}
	line, err := bufio.NewReader(in).ReadString('\n')
	if err != nil && !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("read password from standard input: %w", err)
	}
	line = strings.TrimSuffix(strings.TrimSuffix(line, "\n"), "\r")
	if line == "" {
		return nil, errors.New("no password: type it on a terminal, or give it as the first line of standard input")
	}
	return []byte(line), nil
}
