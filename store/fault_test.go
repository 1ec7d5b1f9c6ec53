package store

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// WAL's index lives in the heap: there is no -shm file whose mapping a fault of
// the file could turn into SIGBUS.
func TestNoMappedWALIndexFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "console.db")
	s, err := Open(t.Context(), path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if err := s.Writable(t.Context()); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path + "-shm"); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("%s-shm exists (%v): the WAL index is memory-mapped from a file", path, err)
	}
}

// immutable makes files immutable with chattr (root on ext4 and most Linux file
// systems) and returns the undo; it skips the test where that is impossible.
func immutable(t *testing.T, paths ...string) func() {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("chattr +i needs root")
	}
	var done []string
	undo := func() {
		for _, p := range done {
			_ = exec.Command("chattr", "-i", p).Run()
		}
		done = nil
	}
	for _, p := range paths {
		if _, err := os.Stat(p); err != nil {
			continue
		}
		if out, err := exec.Command("chattr", "+i", p).CombinedOutput(); err != nil {
			undo()
			t.Skipf("chattr +i %s: %v %s", p, err, out)
		}
		done = append(done, p)
	}
	t.Cleanup(undo)
	return undo
}

const faultChildEnv = "RMQC_STORE_FAULT_CHILD"

// A store whose files become immutable under it (as an operator's chattr, or a
// file system gone read-only, leaves them) fails its writes with an error and
// recovers when the fault is lifted; it never takes the process down. The
// faulty part runs in a child process so a crash is reported rather than
// ending this test binary.
func TestImmutableFilesFailWritesNotTheProcess(t *testing.T) {
	if path := os.Getenv(faultChildEnv); path != "" {
		faultChild(t, path)
		return
	}
	if os.Geteuid() != 0 {
		t.Skip("chattr +i needs root")
	}
	path := filepath.Join(t.TempDir(), "console.db")
	cmd := exec.Command(os.Args[0], "-test.run=^TestImmutableFilesFailWritesNotTheProcess$", "-test.v")
	cmd.Env = append(os.Environ(), faultChildEnv+"="+path)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("the process with the faulty store ended badly (%v):\n%s", err, out)
	}
	for _, want := range []string{"write failed:", "writable check failed:", "recovered"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("child output lacks %q:\n%s", want, out)
		}
	}
}

func faultChild(t *testing.T, path string) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	s, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	write := func(i int) error {
		return s.DB.WithContext(ctx).Exec("INSERT INTO users(name, role, password_hash, created_at, updated_at) VALUES (?, 'viewer', 'x', 1, 1)",
			fmt.Sprintf("u%d", i)).Error
	}
	if err := write(0); err != nil {
		t.Fatal(err)
	}
	undo := immutable(t, path, path+"-wal", path+"-shm")
	var werr error
	for i := 1; i < 2000 && werr == nil; i++ { // enough to grow the log past what is mapped or cached
		werr = write(i)
	}
	if werr == nil {
		t.Fatal("2000 writes to immutable files all succeeded")
	}
	fmt.Println("write failed:", werr)
	if err := s.Writable(ctx); err != nil {
		fmt.Println("writable check failed:", err)
	} else {
		t.Error("Writable passed on immutable files")
	}
	undo()
	if err := s.Writable(ctx); err != nil {
		t.Fatalf("after the fault was lifted: %v", err)
	}
	fmt.Println("recovered")
}

// While a console holds the file, another process (the users, tokens or audit
// command) is told so instead of getting "database is locked".
func TestSecondProcessToldDatabaseInUse(t *testing.T) {
	if path := os.Getenv(faultChildEnv + "_OPEN"); path != "" {
		_, err := Open(context.Background(), path)
		_, roErr := OpenReadOnly(context.Background(), path)
		fmt.Printf("open: inUse=%v %v\nread-only: inUse=%v %v\n", errors.Is(err, ErrInUse), err, errors.Is(roErr, ErrInUse), roErr)
		return
	}
	if testing.Short() {
		t.Skip("waits out SQLite's 5 s busy timeout twice")
	}
	path := filepath.Join(t.TempDir(), "console.db")
	s, err := Open(t.Context(), path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	cmd := exec.Command(os.Args[0], "-test.run=^TestSecondProcessToldDatabaseInUse$")
	cmd.Env = append(os.Environ(), faultChildEnv+"_OPEN="+path)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("child: %v\n%s", err, out)
	}
	if strings.Count(string(out), "inUse=true") != 2 {
		t.Errorf("a second process opening a held database:\n%s", out)
	}
}
