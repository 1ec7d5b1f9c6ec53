// Package e2e drives the real rmqconsole binary in a real headless Chromium, backed by
// the real local RocketMQ from package dev. Its helpers are shared by every browser test.
package e2e

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"rmqconsole/dev"
)

// Console is one running rmqconsole process.
type Console struct {
	URL     string
	DataDir string
	cmd     *exec.Cmd
	mu      sync.Mutex
	log     strings.Builder
	stop    func(t testing.TB) // once: SIGINT, wait, report
	// exited is closed when the process has ended, with exitErr its Wait's error.
	exited  chan struct{}
	exitErr error
}

// Stop stops the console now (SIGINT, as a user's Ctrl-C) and waits for it to exit,
// e.g. to run a command that needs the database file to itself. It runs at the end
// of the test otherwise.
func (c *Console) Stop(t testing.TB) {
	t.Helper()
	c.stop(t)
}

// Interrupt sends SIGINT, as a user's Ctrl-C, and waits up to d for the console to
// exit: ok is false when it still runs after d (the test's end then kills it).
func (c *Console) Interrupt(d time.Duration) (exitErr error, ok bool) {
	_ = c.cmd.Process.Signal(os.Interrupt)
	select {
	case <-c.exited:
		return c.exitErr, true
	case <-time.After(d):
		return nil, false
	}
}

// Log returns what the console has written to stderr so far.
func (c *Console) Log() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.log.String()
}

var (
	buildOnce sync.Once
	binPath   string
	buildErr  error
)

// Binary builds rmqconsole once per test binary and returns its path.
func Binary(t testing.TB) string {
	t.Helper()
	skipShort(t)
	buildOnce.Do(func() {
		dir, err := os.MkdirTemp("", "rmqconsole-e2e-bin-")
		if err != nil {
			buildErr = err
			return
		}
		binPath = filepath.Join(dir, "rmqconsole")
		root, err := dev.RepoRoot()
		if err != nil {
			buildErr = err
			return
		}
		// The tag adds the test hooks (server/testhooks.go) that the shipped binary lacks.
		cmd := exec.Command("go", "build", "-tags", "rmqc_testhooks", "-o", binPath, ".")
		cmd.Dir = root
		if out, err := cmd.CombinedOutput(); err != nil {
			buildErr = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return binPath
}

var listenLine = regexp.MustCompile(`url=http://(127\.0\.0\.1:\d+)`)

// StartConsole starts the real binary on a free loopback port with its own data
// directory. env adds or overrides RMQC_* variables ("RMQC_NAMESRV=..."). The process is
// stopped (SIGINT, as a user's Ctrl-C) when the test ends, and its log is printed if the
// test failed.
func StartConsole(t testing.TB, env ...string) *Console {
	t.Helper()
	bin := Binary(t)
	c := &Console{DataDir: t.TempDir()}
	c.cmd = exec.Command(bin)
	c.cmd.Env = append(os.Environ(),
		"RMQC_LISTEN=127.0.0.1:0",
		"RMQC_DATA_DIR="+c.DataDir,
		"RMQC_LOG_LEVEL=debug",
	)
	c.cmd.Env = append(c.cmd.Env, env...)
	stderr, err := c.cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := c.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	urlc := make(chan string, 1)
	c.exited = make(chan struct{})
	go func() {
		// Wait only after stderr is read to the end: it closes the pipe, and the log
		// printed for a failed test would lose its last lines.
		sc := bufio.NewScanner(stderr)
		sc.Buffer(make([]byte, 64*1024), 1024*1024)
		sent := false
		for sc.Scan() {
			line := sc.Text()
			c.mu.Lock()
			c.log.WriteString(line + "\n")
			c.mu.Unlock()
			if m := listenLine.FindStringSubmatch(line); m != nil && !sent {
				urlc <- "http://" + m[1]
				sent = true
			}
		}
		io.Copy(io.Discard, stderr)
		c.exitErr = c.cmd.Wait()
		close(c.exited)
	}()
	var once sync.Once
	c.stop = func(t testing.TB) {
		once.Do(func() {
			_ = c.cmd.Process.Signal(os.Interrupt)
			select {
			case <-c.exited:
			case <-time.After(15 * time.Second):
				_ = c.cmd.Process.Kill()
				<-c.exited
				t.Errorf("console did not stop within 15 s of SIGINT")
			}
		})
	}
	t.Cleanup(func() {
		c.stop(t)
		if t.Failed() {
			t.Logf("console log:\n%s", c.Log())
		}
	})
	select {
	case c.URL = <-urlc:
	case <-c.exited:
		t.Fatalf("console exited before listening: %v\n%s", c.exitErr, c.Log())
	case <-time.After(60 * time.Second):
		t.Fatalf("console did not start listening within 60 s\n%s", c.Log())
	}
	// Wait until it answers, not just listens.
	deadline := time.Now().Add(20 * time.Second)
	for {
		res, err := http.Get(c.URL + "/healthz")
		if err == nil {
			res.Body.Close()
			if res.StatusCode == 200 {
				return c
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("console at %s never answered /healthz: %v\n%s", c.URL, err, c.Log())
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// skipShort skips a test of the real binary or browser under -short: the unit
// suite (make test-unit) builds nothing, starts nothing and opens no port.
func skipShort(t testing.TB) {
	t.Helper()
	if testing.Short() {
		t.Skip("end-to-end test (real binary, Chromium): skipped under -short")
	}
}

// chromiumPath finds Debian's chromium (or another Chrome on PATH).
func chromiumPath() string {
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	return ""
}

// Browser starts a fresh headless Chromium for one test and returns a context for
// chromedp actions. Under CI=true a missing Chromium fails the test; elsewhere it skips
// with what to install.
func Browser(t testing.TB) context.Context {
	t.Helper()
	skipShort(t)
	path := chromiumPath()
	if path == "" {
		msg := "headless Chromium is needed for browser tests: apt-get install chromium"
		if os.Getenv("CI") == "true" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(path),
		chromedp.UserDataDir(t.TempDir()),
		chromedp.Flag("headless", true),
		chromedp.Flag("no-sandbox", true),
		chromedp.Flag("disable-gpu", true),
		chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("no-first-run", true),
		chromedp.Flag("no-default-browser-check", true),
		chromedp.WindowSize(1400, 1000),
	}
	allocCtx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancel := chromedp.NewContext(allocCtx)
	// The first action starts the browser: no timeout on it.
	if err := chromedp.Do(ctx); err != nil {
		cancel()
		cancelAlloc()
		t.Fatalf("start chromium: %v", err)
	}
	t.Cleanup(func() {
		cancel()
		cancelAlloc()
	})
	return ctx
}

// Do runs chromedp steps with a deadline, failing the test with what was being done.
func Do(t testing.TB, ctx context.Context, what string, steps ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	tctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	if err := chromedp.Do(tctx, steps...); err != nil {
		t.Fatalf("%s: %v", what, err)
	}
}

// Get runs one chromedp action that returns a value, with a deadline.
func Get[T any](t testing.TB, ctx context.Context, what string, a chromedp.Action[T]) T {
	t.Helper()
	tctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	v, err := chromedp.Run(tctx, a)
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	return v
}

// TextNow reads the text of the first element css matches as chromedp.Text does (its
// rendered text), looked up and read in one script: on a live page a frame may swap the
// element between a lookup and a read, and chromedp.Text reads a swapped-out (no longer
// rendered) node as "".
func TextNow(t testing.TB, ctx context.Context, what, css string) string {
	t.Helper()
	sel, _ := json.Marshal(css)
	return Get(t, ctx, what, chromedp.Evaluate[string](`(function (e) { return e ? e.innerText : "" })(document.querySelector(`+string(sel)+`))`))
}

// Screenshot keeps a full-page screenshot named name.png in RMQC_SCREENSHOT_DIR, for a
// person to look at; without it, nothing is taken.
func Screenshot(t testing.TB, ctx context.Context, name string) {
	t.Helper()
	dir := os.Getenv("RMQC_SCREENSHOT_DIR")
	if dir == "" {
		return
	}
	png := Get(t, ctx, "screenshot "+name, chromedp.FullScreenshot(100))
	if err := os.WriteFile(filepath.Join(dir, name+".png"), png, 0o644); err != nil {
		t.Error(err)
	}
}
