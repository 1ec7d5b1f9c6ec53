package dev

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"sort"
	"strconv"
	"sync"
	"syscall"
	"testing"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // database/sql driver "pgx", to create test databases
)

// Postgres is a PostgreSQL server of the test binary's own: a fresh cluster in a temp
// directory, listening on a free loopback port (and a unix socket in that directory),
// tuned for tests (no fsync). Tests get a fresh database each from NewDatabase.
type Postgres struct {
	// Dir holds the data directory, the socket and the server's log.
	Dir  string
	Port int
	cmd  *exec.Cmd
	// exited is closed when the server process has ended.
	exited chan struct{}
	// bin, data and cred start it again after Halt.
	bin, data string
	cred      *syscall.Credential

	mu sync.Mutex
	n  int // databases created so far
}

var pg struct {
	once    sync.Once
	server  *Postgres
	err     error
	missing string
}

// PostgresOffEnv set to "off" leaves PostgreSQL out: every test that needs it skips and no
// server starts. make test-unit sets it, so the database suites run on SQLite alone there
// (PostgreSQL's cases took most of its time); make test clears it and runs them on both.
const PostgresOffEnv = "RMQC_TEST_POSTGRES"

// RequirePostgres returns the test binary's PostgreSQL server, starting it on first use;
// RunTests stops it (a package without that TestMain calls StopPostgres). Without
// PostgreSQL's server binaries it skips the test saying what to install, or fails it
// when CI=true. It is not an integration test of RocketMQ: it runs under -short too,
// unless PostgresOffEnv is "off".
func RequirePostgres(t testing.TB) *Postgres {
	t.Helper()
	if os.Getenv(PostgresOffEnv) == "off" {
		t.Skip("PostgreSQL left out (" + PostgresOffEnv + "=off, as in make test-unit); make test runs this on PostgreSQL")
	}
	pg.once.Do(func() {
		bin, err := postgresBin()
		if err != nil {
			pg.missing = err.Error()
			return
		}
		pg.server, pg.err = StartPostgres(bin)
	})
	if pg.missing != "" {
		msg := "PostgreSQL: " + pg.missing + " (Debian: apt-get install postgresql)"
		if os.Getenv("CI") == "true" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	if pg.err != nil {
		t.Fatal(pg.err)
	}
	return pg.server
}

// StopPostgres stops the server RequirePostgres started, if any, and removes its files.
func StopPostgres() {
	if pg.server != nil {
		pg.server.Stop()
	}
}

// postgresBin finds the directory of initdb and postgres: the newest under
// /usr/lib/postgresql (Debian's layout, not on PATH), else PATH.
func postgresBin() (string, error) {
	dirs, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
	sort.Slice(dirs, func(i, j int) bool { return versionOf(dirs[i]) > versionOf(dirs[j]) })
	for _, d := range dirs {
		if _, err := os.Stat(filepath.Join(d, "initdb")); err == nil {
			return d, nil
		}
	}
	if p, err := exec.LookPath("initdb"); err == nil {
		return filepath.Dir(p), nil
	}
	return "", errors.New("initdb and postgres not found in /usr/lib/postgresql/*/bin or on PATH")
}

func versionOf(binDir string) int {
	v, _ := strconv.Atoi(filepath.Base(filepath.Dir(binDir)))
	return v
}

// StartPostgres initialises a cluster in a new temp directory with the binaries in bin
// and starts it on a free loopback port. PostgreSQL refuses to run as root: as root, the
// server runs as the "postgres" system user, which owns the directory.
func StartPostgres(bin string) (*Postgres, error) {
	dir, err := os.MkdirTemp("", "rmqc-pg-")
	if err != nil {
		return nil, err
	}
	p := &Postgres{Dir: dir, bin: bin}
	cred, err := postgresCredential(dir)
	if err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	data := filepath.Join(dir, "data")
	p.data, p.cred = data, cred
	initdb := exec.Command(filepath.Join(bin, "initdb"), "-D", data, "-U", "postgres", "--auth=trust", "-E", "UTF8", "--no-sync", "--locale=C")
	initdb.SysProcAttr = &syscall.SysProcAttr{Credential: cred}
	if out, err := initdb.CombinedOutput(); err != nil {
		os.RemoveAll(dir)
		return nil, fmt.Errorf("initdb in %s: %v\n%s", data, err, out)
	}
	// Another test binary may take the port between asking and binding: one more try.
	for attempt := 1; attempt <= 3; attempt++ {
		if p.Port, err = freeLoopbackPort(); err != nil {
			break
		}
		if err = p.start(bin, data, cred); err == nil {
			return p, nil
		}
	}
	os.RemoveAll(dir)
	return nil, err
}

func (p *Postgres) start(bin, data string, cred *syscall.Credential) error {
	logPath := filepath.Join(p.Dir, "postgres.log")
	log, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o644)
	if err != nil {
		return err
	}
	defer log.Close()
	if cred != nil {
		_ = os.Chown(logPath, int(cred.Uid), int(cred.Gid))
	}
	p.cmd = exec.Command(filepath.Join(bin, "postgres"), "-D", data, "-p", strconv.Itoa(p.Port),
		"-c", "listen_addresses=127.0.0.1", "-c", "unix_socket_directories="+p.Dir,
		"-c", "fsync=off", "-c", "synchronous_commit=off", "-c", "full_page_writes=off",
		"-c", "max_connections=200")
	p.cmd.Stdout, p.cmd.Stderr = log, log
	// Pdeathsig: a test binary that dies without stopping it takes the server along.
	p.cmd.SysProcAttr = &syscall.SysProcAttr{Credential: cred, Pdeathsig: syscall.SIGTERM}
	if err := p.cmd.Start(); err != nil {
		return fmt.Errorf("start postgres: %w", err)
	}
	exited := make(chan struct{})
	p.exited = exited
	go func() { p.cmd.Wait(); close(exited) }()
	deadline := time.Now().Add(30 * time.Second)
	for {
		db, err := sql.Open("pgx", p.URL("postgres"))
		if err == nil {
			err = db.Ping()
			db.Close()
		}
		if err == nil {
			return nil
		}
		select {
		case <-exited:
			out, _ := os.ReadFile(logPath)
			return fmt.Errorf("postgres on port %d exited at start:\n%s", p.Port, out)
		case <-time.After(100 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			p.cmd.Process.Kill()
			<-exited
			return fmt.Errorf("postgres on port %d did not answer within 30s: %v (log %s)", p.Port, err, logPath)
		}
	}
}

// postgresCredential is who runs the server: the postgres system user when this process
// is root (given dir), else this process's own user (nil).
func postgresCredential(dir string) (*syscall.Credential, error) {
	if os.Geteuid() != 0 {
		return nil, nil
	}
	u, err := user.Lookup("postgres")
	if err != nil {
		return nil, fmt.Errorf("PostgreSQL refuses to run as root and there is no postgres user: %w", err)
	}
	uid, _ := strconv.Atoi(u.Uid)
	gid, _ := strconv.Atoi(u.Gid)
	if err := os.Chown(dir, uid, gid); err != nil {
		return nil, err
	}
	return &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}, nil
}

func freeLoopbackPort() (int, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port, nil
}

// URL is the connection URL of database name on this server.
func (p *Postgres) URL(name string) string {
	return fmt.Sprintf("postgres://postgres@127.0.0.1:%d/%s?sslmode=disable", p.Port, name)
}

// NewDatabase creates an empty database of the test's own and returns its URL. It is
// dropped when the test ends.
func (p *Postgres) NewDatabase(t testing.TB) string {
	t.Helper()
	p.mu.Lock()
	p.n++
	name := fmt.Sprintf("t%d", p.n)
	p.mu.Unlock()
	if err := p.exec("CREATE DATABASE " + name); err != nil {
		t.Fatalf("create test database: %v", err)
	}
	t.Cleanup(func() {
		if err := p.exec("DROP DATABASE " + name + " WITH (FORCE)"); err != nil {
			t.Logf("drop test database %s: %v", name, err)
		}
	})
	return p.URL(name)
}

func (p *Postgres) exec(stmt string) error {
	db, err := sql.Open("pgx", p.URL("postgres"))
	if err != nil {
		return err
	}
	defer db.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	_, err = db.ExecContext(ctx, stmt)
	return err
}

// Stop stops the server at once and removes its directory.
func (p *Postgres) Stop() {
	if p.running() {
		p.signalAll(syscall.SIGCONT) // a frozen server would not see the next signal
		// SIGQUIT: immediate shutdown; the data is thrown away anyway.
		p.cmd.Process.Signal(syscall.SIGQUIT)
		<-p.exited
	}
	os.RemoveAll(p.Dir)
}

func (p *Postgres) running() bool {
	if p.cmd == nil || p.cmd.Process == nil {
		return false
	}
	select {
	case <-p.exited:
		return false
	default:
		return true
	}
}

// OwnPostgres starts a PostgreSQL server for the calling test alone, on its own port and
// directory, for tests that stop or freeze it (never the shared one of RequirePostgres,
// which other tests of the binary use); it is removed when the test ends. Without
// PostgreSQL it skips or fails as RequirePostgres does.
func OwnPostgres(t testing.TB) *Postgres {
	t.Helper()
	RequirePostgres(t) // the same skip or failure when PostgreSQL is missing
	bin, err := postgresBin()
	if err != nil {
		t.Fatal(err)
	}
	p, err := StartPostgres(bin)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(p.Stop)
	return p
}

// Freeze stops every process of the server with SIGSTOP: connections stay open and the
// kernel still accepts new ones, but nothing answers, as a server on a dead disk or in a
// long stall.
func (p *Postgres) Freeze() error { return p.signal(syscall.SIGSTOP, "freeze") }

// Thaw resumes a frozen server with SIGCONT.
func (p *Postgres) Thaw() error { return p.signal(syscall.SIGCONT, "thaw") }

func (p *Postgres) signal(sig syscall.Signal, what string) error {
	if !p.running() {
		return fmt.Errorf("%s postgres on port %d: not running", what, p.Port)
	}
	p.signalAll(sig)
	return nil
}

// signalAll signals the postmaster, then each process it started: the backends serving
// connections, the writers. They are not in its process group (each is a session leader
// of its own), so the signal goes to each by pid, as /proc lists them.
func (p *Postgres) signalAll(sig syscall.Signal) {
	pid := p.cmd.Process.Pid
	syscall.Kill(pid, sig)
	stats, _ := filepath.Glob("/proc/[0-9]*/stat")
	for _, f := range stats {
		b, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		// pid (comm) state ppid …: comm may hold spaces and parentheses; ppid follows the last ')'.
		rest := string(b[bytes.LastIndexByte(b, ')')+1:])
		var state string
		var ppid int
		if _, err := fmt.Sscan(rest, &state, &ppid); err != nil || ppid != pid {
			continue
		}
		if child, err := strconv.Atoi(filepath.Base(filepath.Dir(f))); err == nil {
			syscall.Kill(child, sig)
		}
	}
}

// Halt stops the server and keeps its data (a fast shutdown: sessions are ended): every
// connection is refused until Resume.
func (p *Postgres) Halt() error {
	if !p.running() {
		return fmt.Errorf("halt postgres on port %d: not running", p.Port)
	}
	p.signalAll(syscall.SIGCONT)
	p.cmd.Process.Signal(syscall.SIGINT)
	select {
	case <-p.exited:
		return nil
	case <-time.After(30 * time.Second):
		return fmt.Errorf("halt postgres on port %d: still running after 30s", p.Port)
	}
}

// Resume starts a halted server again, on the same port and data.
func (p *Postgres) Resume() error {
	if p.running() {
		return nil
	}
	return p.start(p.bin, p.data, p.cred)
}
