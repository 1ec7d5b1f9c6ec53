package dev

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// proc is one JVM of the cluster. cmd and done are nil when the process was
// adopted from a state file (started by another rmqdev command).
type proc struct {
	name   string // "namesrv", "broker-a", ...
	pid    int
	home   string // its -Duser.home: logs/ and, for brokers, store/
	cmd    *exec.Cmd
	done   chan struct{} // closed when cmd.Wait returned
	waitEr error
}

func (p *proc) stdoutPath() string { return filepath.Join(p.home, "stdout.log") }
func (p *proc) stderrPath() string { return filepath.Join(p.home, "stderr.log") }

// startJava starts java with args in its own process group, stdout and stderr
// going to files in home. Detached processes get their own session so they
// outlive the calling command; attached ones get SIGTERM if their parent dies,
// so a killed `go test` does not leave JVMs behind.
func startJava(name, home string, env, args []string, detached bool) (*proc, error) {
	p := &proc{name: name, home: home}
	stdout, err := os.Create(p.stdoutPath())
	if err != nil {
		return nil, fmt.Errorf("start %s: %w", name, err)
	}
	defer stdout.Close()
	stderr, err := os.Create(p.stderrPath())
	if err != nil {
		return nil, fmt.Errorf("start %s: %w", name, err)
	}
	defer stderr.Close()

	cmd := exec.Command("java", args...)
	cmd.Dir = home
	cmd.Env = env
	cmd.Stdout, cmd.Stderr = stdout, stderr
	if detached {
		cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	} else {
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGTERM}
	}
	if err := os.WriteFile(filepath.Join(home, "cmdline.txt"), []byte("java "+strings.Join(args, " ")+"\n"), 0o644); err != nil {
		return nil, fmt.Errorf("start %s: %w", name, err)
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start %s: %w", name, err)
	}
	p.cmd, p.pid, p.done = cmd, cmd.Process.Pid, make(chan struct{})
	go func() {
		p.waitEr = cmd.Wait()
		close(p.done)
	}()
	return p, nil
}

// exited reports whether the process is gone, with its exit status when known.
func (p *proc) exited() (bool, string) {
	if p.done != nil {
		select {
		case <-p.done:
			if p.waitEr != nil {
				return true, p.waitEr.Error()
			}
			return true, "exit status 0"
		default:
			return false, ""
		}
	}
	if !pidAlive(p.pid) {
		return true, "gone"
	}
	return false, ""
}

// pidAlive reports whether pid runs and is not a zombie.
func pidAlive(pid int) bool {
	if pid <= 0 || syscall.Kill(pid, 0) != nil {
		return false
	}
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return true // no procfs: trust kill(0)
	}
	// Format: pid (comm) state ...; comm may hold spaces, so look after the last ')'.
	if i := bytes.LastIndexByte(stat, ')'); i >= 0 && i+2 < len(stat) {
		return stat[i+2] != 'Z'
	}
	return true
}

// isOurs guards against pid reuse: an adopted pid must still be the JVM whose
// command line names its home dir.
func (p *proc) isOurs() bool {
	if p.cmd != nil {
		return true
	}
	cmdline, err := os.ReadFile("/proc/" + strconv.Itoa(p.pid) + "/cmdline")
	if err != nil {
		return pidAlive(p.pid)
	}
	return bytes.Contains(cmdline, []byte("-Duser.home="+p.home+"\x00"))
}

// stop sends SIGTERM to the process group (RocketMQ's shutdown hooks flush the
// store and unregister from the NameServer), then SIGKILL after grace; with
// grace 0 it sends SIGKILL at once. Killed after grace is an error: whoever
// asked for a clean stop did not get one.
func (p *proc) stop(grace time.Duration) error {
	killed, err := p.halt(grace)
	if err == nil && killed && grace > 0 {
		return fmt.Errorf("stop %s (pid %d): killed after %s without exiting on SIGTERM", p.name, p.pid, grace)
	}
	return err
}

// halt is stop that reports whether the process had to be killed after grace
// instead of calling it an error; err says the process survived SIGKILL.
func (p *proc) halt(grace time.Duration) (killed bool, err error) {
	if gone, _ := p.exited(); gone || !p.isOurs() {
		return false, nil
	}
	// A frozen (SIGSTOPped) JVM would handle SIGTERM only once resumed.
	signalGroup(p.pid, syscall.SIGCONT)
	if grace > 0 {
		signalGroup(p.pid, syscall.SIGTERM)
		if p.waitGone(grace) {
			return false, nil
		}
	}
	signalGroup(p.pid, syscall.SIGKILL)
	if p.waitGone(10 * time.Second) {
		return grace > 0, nil
	}
	return true, fmt.Errorf("stop %s (pid %d): still running after SIGKILL", p.name, p.pid)
}

// kill sends SIGKILL to the process group now, without waiting.
func (p *proc) kill() {
	if gone, _ := p.exited(); !gone && p.isOurs() {
		signalGroup(p.pid, syscall.SIGCONT)
		signalGroup(p.pid, syscall.SIGKILL)
	}
}

func signalGroup(pid int, sig syscall.Signal) {
	// pid is its own group leader (Setpgid/Setsid); fall back to the process alone.
	if err := syscall.Kill(-pid, sig); err != nil {
		syscall.Kill(pid, sig)
	}
}

func (p *proc) waitGone(d time.Duration) bool {
	deadline := time.Now().Add(d)
	for {
		if gone, _ := p.exited(); gone {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// logFiles lists the process's stdout/stderr and the RocketMQ logs under its home.
func (p *proc) logFiles() []string {
	files := []string{p.stdoutPath(), p.stderrPath()}
	matches, _ := filepath.Glob(filepath.Join(p.home, "logs", "rocketmqlogs", "*.log"))
	return append(files, matches...)
}

// mainLog is the file RocketMQ writes its own log to (same name on 4.x with
// our logback config and on 5.x with the built-in one).
func (p *proc) mainLog() string {
	base := "broker.log"
	if p.name == "namesrv" {
		base = "namesrv.log"
	}
	return filepath.Join(p.home, "logs", "rocketmqlogs", base)
}

// tails returns the end of the process's output and log for error messages.
func (p *proc) tails() string {
	parts := []string{tailFile(p.stdoutPath(), 15), tailFile(p.stderrPath(), 15)}
	if _, err := os.Stat(p.mainLog()); err == nil {
		parts = append(parts, tailFile(p.mainLog(), 15))
	}
	return strings.Join(parts, "\n")
}
