package dev

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// ConsumerProcess is a real rocketmq-client-go push consumer running in its own
// process (dev/demo's consume mode): starting it is a client joining, Stop (SIGTERM)
// one leaving, and the client library's own data races stay out of race-checked
// test binaries.
type ConsumerProcess struct {
	// Instance is the consumer's instance name: its client id is ip@Instance.
	Instance string
	// Started is when the consumer reported that it runs (its Start returned).
	Started time.Time

	cmd    *exec.Cmd
	exited chan struct{}
	done   chan struct{} // closed when a gRPC SimpleConsumer received all it was told to
	once   sync.Once

	mu       sync.Mutex
	received []string // "topic broker queue offset keys offsetMsgId" of each message given to the listener (Print)
}

// ConsumerOptions shape a consumer process; the zero value is a concurrent consumer
// with the client's defaults.
type ConsumerOptions struct {
	// Orderly consumes with MessageListenerOrderly.
	Orderly bool
	// LockInterval is how often an orderly consumer renews its locks.
	LockInterval time.Duration
	// Work is the time spent on each message; Goroutines how many are consumed at once.
	Work       time.Duration
	Goroutines int
	// Print records every message given to the listener (see Received);
	// PrintProperties adds its properties and body as a seventh field, a query string.
	Print           bool
	PrintProperties bool
	// Fail fails every message, so it is delivered again through the group's retry
	// topic and, after MaxReconsumeTimes more deliveries, moved to its dead-letter
	// topic; RetryDelayLevel sets the delay before each (1 is one second).
	Fail              bool
	MaxReconsumeTimes int
	RetryDelayLevel   int
	// Trace has the client record message traces (its trace option), to TraceTopic
	// ("" for RMQ_SYS_TRACE_TOPIC).
	Trace      bool
	TraceTopic string
}

func (o ConsumerOptions) args() []string {
	var a []string
	if o.Orderly {
		a = append(a, "-orderly")
	}
	if o.LockInterval > 0 {
		a = append(a, "-lock-interval", o.LockInterval.String())
	}
	if o.Work > 0 {
		a = append(a, "-work", o.Work.String())
	}
	if o.Goroutines > 0 {
		a = append(a, "-goroutines", fmt.Sprint(o.Goroutines))
	}
	if o.Print {
		a = append(a, "-print")
	}
	if o.PrintProperties {
		a = append(a, "-print-props")
	}
	if o.Fail {
		a = append(a, "-fail")
	}
	if o.MaxReconsumeTimes > 0 {
		a = append(a, "-max-reconsume", fmt.Sprint(o.MaxReconsumeTimes))
	}
	if o.RetryDelayLevel > 0 {
		a = append(a, "-retry-delay-level", fmt.Sprint(o.RetryDelayLevel))
	}
	return append(a, traceArgs(o.Trace, o.TraceTopic)...)
}

func traceArgs(on bool, topic string) []string {
	var a []string
	if on {
		a = append(a, "-trace")
	}
	if topic != "" {
		a = append(a, "-trace-topic", topic)
	}
	return a
}

// demo is dev/demo built once per test binary; RunTests removes it.
var demo struct {
	once sync.Once
	dir  string
	bin  string
	err  error
}

func demoBinary() (string, error) {
	demo.once.Do(func() {
		root, err := RepoRoot()
		if err != nil {
			demo.err = err
			return
		}
		if demo.dir, demo.err = os.MkdirTemp("", "rmqconsole-demo-"); demo.err != nil {
			return
		}
		bin := filepath.Join(demo.dir, "demo")
		cmd := exec.Command("go", "build", "-o", bin, ".")
		cmd.Dir = filepath.Join(root, "dev", "demo")
		if out, err := cmd.CombinedOutput(); err != nil {
			demo.err = fmt.Errorf("build dev/demo: %v\n%s", err, out)
			return
		}
		demo.bin = bin
	})
	return demo.bin, demo.err
}

// StartConsumerProcess starts a push consumer of group on topics, from the first
// offset, and waits until it runs. It is stopped when the test ends unless Stop was
// called before.
func StartConsumerProcess(t testing.TB, nameServer, group string, topics ...string) *ConsumerProcess {
	t.Helper()
	return StartConsumerProcessWith(t, nameServer, group, ConsumerOptions{}, topics...)
}

// StartConsumerProcessWith is StartConsumerProcess with options.
func StartConsumerProcessWith(t testing.TB, nameServer, group string, o ConsumerOptions, topics ...string) *ConsumerProcess {
	t.Helper()
	instance := UniqueName("c")
	env := []string{"RMQC_NAMESRV=" + nameServer}
	if a, ok := AccountFor(nameServer); ok {
		env = append(env, "RMQC_ACCESS_KEY="+a.AccessKey, "RMQC_SECRET_KEY="+a.SecretKey)
	}
	c := startDemoProcess(t, "consumer of "+group, env,
		append([]string{"consume", "-group", group, "-topics", strings.Join(topics, ","), "-instance", instance}, o.args()...)...)
	c.Instance = instance
	return c
}

// startDemoProcess runs dev/demo with args and waits until it prints its "consuming"
// line. It is stopped when the test ends unless Stop was called before.
func startDemoProcess(t testing.TB, what string, env []string, args ...string) *ConsumerProcess {
	t.Helper()
	bin, err := demoBinary()
	if err != nil {
		t.Fatal(err)
	}
	c := &ConsumerProcess{exited: make(chan struct{}), done: make(chan struct{})}
	c.cmd = exec.Command(bin, args...)
	c.cmd.Env = append(os.Environ(), env...)
	out, err := c.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	c.cmd.Stderr = &stderr
	if err := c.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	ready := make(chan time.Time, 1)
	go func() {
		// Read stdout to the end (the pipe must not fill up), then reap the process.
		sc := bufio.NewScanner(out)
		sent, finished := false, false
		for sc.Scan() {
			if !sent && strings.HasPrefix(sc.Text(), "consuming ") {
				ready <- time.Now()
				sent = true
			}
			if m, ok := strings.CutPrefix(sc.Text(), "recv "); ok {
				c.mu.Lock()
				c.received = append(c.received, m)
				c.mu.Unlock()
			}
			if !finished && strings.HasPrefix(sc.Text(), "received ") {
				close(c.done)
				finished = true
			}
		}
		_ = c.cmd.Wait()
		close(c.exited)
	}()
	t.Cleanup(c.Stop)
	select {
	case c.Started = <-ready:
		return c
	case <-c.exited:
		t.Fatalf("%s exited before starting: %s", what, stderr.String())
	case <-time.After(60 * time.Second):
		// Reap it first: stderr is written until the process is gone.
		_ = c.cmd.Process.Kill()
		<-c.exited
		t.Fatalf("%s did not start within 60 s: %s", what, stderr.String())
	}
	return nil
}

// Received returns the messages given to the listener so far ("topic broker queue
// offset keys offsetMsgId", keys comma-separated or "-", broker "-" for a message
// consumed directly, which comes without it), when started with Print; a message
// delivered again appears again.
func (c *ConsumerProcess) Received() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]string(nil), c.received...)
}

// Kill ends the consumer with SIGKILL, as a crash would: it neither unregisters nor
// commits its offsets nor unlocks its queues. It waits until the process is gone.
func (c *ConsumerProcess) Kill() {
	c.once.Do(func() {
		_ = c.cmd.Process.Kill()
		<-c.exited
	})
}

// Freeze stops the consumer with SIGSTOP, as a long pause would: it stays connected, so
// the brokers still list it, but it answers nothing (its running info, its locks) until
// Thaw.
func (c *ConsumerProcess) Freeze() error { return c.cmd.Process.Signal(syscall.SIGSTOP) }

// Thaw resumes a frozen consumer (SIGCONT).
func (c *ConsumerProcess) Thaw() error { return c.cmd.Process.Signal(syscall.SIGCONT) }

// Stop shuts the consumer down as an operator would (SIGTERM: it unregisters), and
// kills it if it has not exited 30 s later. Later calls do nothing.
func (c *ConsumerProcess) Stop() {
	c.once.Do(func() {
		_ = c.cmd.Process.Signal(syscall.SIGTERM)
		_ = c.cmd.Process.Signal(syscall.SIGCONT) // a frozen consumer takes SIGTERM once thawed
		select {
		case <-c.exited:
		case <-time.After(30 * time.Second):
			_ = c.cmd.Process.Kill()
			<-c.exited
		}
	})
}
