package main

import (
	"bufio"
	"errors"
	"os/exec"
	"syscall"
	"testing"
	"time"
)

// startGroup starts script in a process group of its own, as run starts --also, and
// returns once it has said "ready" (its trap is set).
func startGroup(t *testing.T, script string) (*exec.Cmd, <-chan error) {
	t.Helper()
	cmd := exec.Command("sh", "-c", script)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) })
	if line, _ := bufio.NewReader(out).ReadString('\n'); line != "ready\n" {
		t.Fatalf("the command said %q, want ready", line)
	}
	waited := make(chan error, 1)
	go func() { waited <- cmd.Wait() }()
	return cmd, waited
}

// The demo stops on the Ctrl-C run passes on: it is not killed, and its exit is clean.
func TestBackgroundCommandStopsOnTheInterrupt(t *testing.T) {
	cmd, waited := startGroup(t, `trap 'exit 0' INT; echo ready; while :; do sleep 0.1; done`)
	s := &stopper{hurry: make(chan struct{})}
	s.stopGroup(cmd.Process.Pid)
	if err := <-waited; err != nil {
		t.Fatalf("the command ended with %v, want exit status 0 (stopped by its own trap)", err)
	}
}

// A second Ctrl-C kills a background command that ignores the first at once, instead
// of after alsoGrace.
func TestSecondSignalKillsABackgroundCommandAtOnce(t *testing.T) {
	cmd, waited := startGroup(t, `trap '' INT; echo ready; while :; do sleep 0.1; done`)
	s := &stopper{hurry: make(chan struct{})}
	stopped := make(chan struct{})
	go func() {
		s.stopGroup(cmd.Process.Pid)
		close(stopped)
	}()
	close(s.hurry)
	select {
	case <-stopped:
	case <-time.After(alsoGrace):
		t.Fatalf("the command still ran %s after the second signal", alsoGrace)
	}
	var ee *exec.ExitError
	if err := <-waited; !errors.As(err, &ee) || ee.Sys().(syscall.WaitStatus).Signal() != syscall.SIGKILL {
		t.Fatalf("the command ended with %v, want killed", err)
	}
}
