package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"strings"
	"sync"
	"syscall"
	"time"

	"rmqconsole/dev"
)

// How long each part of what run started gets to stop after a Ctrl-C before it is
// killed. The console and the --also command are clients: they stop together, and
// before the brokers, so neither sees a broker vanish under it. The console's own
// graceful shutdown is bounded by its requests' deadlines; the demo leaves its clients
// after two seconds.
const (
	consoleGrace = 15 * time.Second
	alsoGrace    = 5 * time.Second
	// defaultStopGrace is --stop-grace's default: a 5.3.3 broker's clean shutdown
	// takes 10-30 s (most of it waiting for its POP revive threads), which a Ctrl-C
	// of a development cluster should not cost.
	defaultStopGrace = 3 * time.Second
)

// run starts (or reuses) the cluster, runs the command with RMQC_NAMESRV set, and
// stops everything it started when the command ends or on SIGINT/SIGTERM: the
// command and --also together, then the cluster it started. A second signal kills
// whatever is still running at once.
func run(args []string) (int, error) {
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	second := fs.Bool("second-broker", false, fmt.Sprintf("also start broker-b on 127.0.0.1:%d", ports().BrokerB))
	also := fs.String("also", "", "a second command (run by sh -c) to run in the background meanwhile, e.g. demo traffic")
	proxy := fs.Bool("proxy", true, "when starting RocketMQ 5.x, also start the Proxy, for gRPC clients")
	grace := fs.Duration("stop-grace", defaultStopGrace, "how long the RocketMQ run started may take to stop (SIGTERM) before it is killed; its stores are kept and recovered at the next start, as after a crash (30s lets a broker shut down cleanly)")
	if err := fs.Parse(args); err != nil {
		return 2, err
	}
	argv := fs.Args()
	if len(argv) == 0 {
		return 2, errors.New("run: no command (rmqdev run [flags] -- CMD ARGS...)")
	}

	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	startDone := make(chan struct{})
	go func() { // a signal while RocketMQ boots aborts the boot
		select {
		case <-sigs:
			cancel()
		case <-startDone:
		}
	}()

	version := dev.VersionFromEnv()
	var c *dev.Cluster
	var statePath string
	// A running cluster is reused with or without its Proxy: the demo's gRPC
	// clients simply stay off without one.
	k, err := reusable(ctx, version, *second, false, false, false)
	if err == nil && k != nil {
		c = k.cluster
		fmt.Fprintf(os.Stderr, "rmqdev: using the running RocketMQ %s at %s\n", version, c.NameServer)
	} else if err == nil {
		dir, derr := runDir(version)
		if derr != nil {
			return 1, derr
		}
		// Not detached: the JVMs get SIGTERM if rmqdev itself dies.
		c, err = dev.Start(ctx, dev.Options{Version: version, Dir: dir, Ports: ports(), SecondBroker: *second,
			Proxy: *proxy && dev.ProxySupported(version), StartupTimeout: startupTimeout, Log: os.Stderr})
		if err == nil {
			if statePath, err = writeState(c); err != nil {
				c.Kill()
			}
		}
	}
	close(startDone)
	started := err == nil && statePath != ""
	if ctx.Err() != nil { // Ctrl-C while it booted
		if started {
			c.Kill()
			os.Remove(statePath)
		}
		fmt.Fprintln(os.Stderr, "rmqdev: stopped before RocketMQ was up")
		return 0, nil
	}
	if err != nil {
		return 1, err
	}

	st := &stopper{sigs: sigs, hurry: make(chan struct{}), first: make(chan os.Signal, 1)}
	go st.watch()

	env := append(os.Environ(), clusterEnv(c.State())...)
	stopAlso := func() {}
	if *also != "" {
		alsoCmd := exec.Command("sh", "-c", *also)
		alsoCmd.Env, alsoCmd.Stdout, alsoCmd.Stderr = env, os.Stdout, os.Stderr
		alsoCmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGTERM}
		if err := alsoCmd.Start(); err != nil {
			st.stopCluster(c, started, statePath, *grace)
			return 1, fmt.Errorf("run --also %q: %w", *also, err)
		}
		go func() {
			// Its end is news only while nothing is being stopped.
			if err := alsoCmd.Wait(); err != nil && !st.stopping() {
				fmt.Fprintf(os.Stderr, "rmqdev: --also command ended: %v\n", err)
			}
		}()
		stopAlso = sync.OnceFunc(func() { st.stopGroup(alsoCmd.Process.Pid) })
	}

	child := exec.Command(argv[0], argv[1:]...)
	child.Env, child.Stdin, child.Stdout = env, os.Stdin, os.Stdout
	logs, err := child.StderrPipe()
	if err != nil {
		return 1, fmt.Errorf("run %s: %w", argv[0], err)
	}
	logged := make(chan struct{})
	go func() {
		defer close(logged)
		announceReady(logs, os.Stderr, healthy)
	}()
	// Own process group: a terminal's Ctrl-C reaches only rmqdev, which
	// forwards it once, so the child never sees the signal twice.
	child.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGTERM}
	if err := child.Start(); err != nil {
		stopAlso()
		st.stopCluster(c, started, statePath, *grace)
		return 1, fmt.Errorf("run %s: %w", argv[0], err)
	}
	exited := make(chan error, 1)
	go func() {
		<-logged // Wait closes the pipe: read it to the end first
		exited <- child.Wait()
	}()

	var childErr error
	hung := false
	select {
	case sig := <-st.first:
		began := time.Now()
		fmt.Fprintln(os.Stderr, "rmqdev: stopping (Ctrl-C again kills everything at once)")
		defer func() {
			fmt.Fprintf(os.Stderr, "rmqdev: stopped in %s\n", time.Since(began).Round(100*time.Millisecond))
		}()
		_ = child.Process.Signal(sig)
		go stopAlso()
		select {
		case childErr = <-exited:
		case <-time.After(consoleGrace):
			fmt.Fprintf(os.Stderr, "rmqdev: %s still running %s after the signal; killing it\n", argv[0], consoleGrace)
			hung = true
			_ = child.Process.Kill()
			childErr = <-exited
		case <-st.hurry:
			_ = child.Process.Kill()
			childErr = <-exited
		}
	case childErr = <-exited:
		// It ended by itself: stop what was started for it.
	}
	stopAlso()
	st.stopCluster(c, started, statePath, *grace)
	code, err := childExit(argv[0], childErr, st.stopping())
	if hung { // a command that does not stop when asked is a bug to see
		code = max(code, 1)
	}
	return code, err
}

// childExit is run's answer once the command ended with err (from Wait).
func childExit(name string, err error, interrupted bool) (int, error) {
	var ee *exec.ExitError
	switch {
	case err == nil:
		return 0, nil
	case errors.As(err, &ee):
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			return exitCode(128+int(ws.Signal()), true, interrupted), nil
		}
		return exitCode(ee.ExitCode(), false, interrupted), nil
	default:
		return 1, fmt.Errorf("run %s: %w", name, err)
	}
}

// stopper follows the signals run receives once its cluster is up: the first asks
// everything to stop (on first), a second hurries the stop (hurry is closed).
type stopper struct {
	sigs  chan os.Signal
	first chan os.Signal
	hurry chan struct{}

	mu      sync.Mutex
	signals int
}

func (s *stopper) watch() {
	for sig := range s.sigs {
		s.mu.Lock()
		s.signals++
		n := s.signals
		s.mu.Unlock()
		switch n {
		case 1:
			s.first <- sig
		case 2:
			close(s.hurry)
		}
	}
}

// stopping reports whether a signal asked run to stop.
func (s *stopper) stopping() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.signals > 0
}

// stopGroup ends a background child's process group: SIGINT, as a Ctrl-C would
// (the demo stops on it), then SIGKILL after alsoGrace or a second signal.
func (s *stopper) stopGroup(pid int) {
	if syscall.Kill(-pid, syscall.SIGINT) != nil {
		return
	}
	deadline := time.After(alsoGrace)
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case <-tick.C:
			if syscall.Kill(-pid, 0) != nil {
				return
			}
			continue
		case <-deadline:
		case <-s.hurry:
		}
		_ = syscall.Kill(-pid, syscall.SIGKILL)
		return
	}
}

// stopCluster stops the cluster if run started it (a reused one is left running):
// everything at once with grace, then SIGKILL, or SIGKILL at once on a second signal.
func (s *stopper) stopCluster(c *dev.Cluster, started bool, statePath string, grace time.Duration) {
	if !started {
		return
	}
	done := make(chan struct{})
	defer close(done)
	go func() {
		select {
		case <-s.hurry:
			c.KillNow()
		case <-done:
		}
	}()
	killed, err := c.StopWithin(grace)
	if err != nil {
		fmt.Fprintln(os.Stderr, "rmqdev:", err)
	}
	if live := c.Running(); len(live) > 0 {
		fmt.Fprintf(os.Stderr, "rmqdev: RocketMQ %s: still running: %v (state kept in %s)\n", c.Version, live, statePath)
		return
	}
	os.Remove(statePath)
	if len(killed) > 0 && !s.stopping() {
		// A Ctrl-C expects it; otherwise say why the next start recovers the stores.
		fmt.Fprintf(os.Stderr, "rmqdev: stopped RocketMQ %s; killed after %s: %s (their stores are recovered at the next start)\n",
			c.Version, grace, strings.Join(killed, ", "))
	}
}
