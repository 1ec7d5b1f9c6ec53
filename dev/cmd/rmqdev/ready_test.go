package main

import (
	"bytes"
	"strings"
	"sync"
	"testing"
	"time"
)

type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// Once the console answers, its URL is printed on a line of its own, after its log.
func TestRunAnnouncesTheURLOnItsOwnLine(t *testing.T) {
	log := "time=x level=INFO msg=\"rmqconsole listening\" url=http://127.0.0.1:8090 namesrv=127.0.0.1:19876\n"
	var out lockedBuffer
	asked := make(chan string, 1)
	announceReady(strings.NewReader(log), &out, func(url string) bool { asked <- url; return true })
	if url := <-asked; url != "http://127.0.0.1:8090" {
		t.Fatalf("asked %q whether the console answers", url)
	}
	deadline := time.Now().Add(5 * time.Second)
	for !strings.Contains(out.String(), "\n    http://127.0.0.1:8090\n") {
		if time.Now().After(deadline) {
			t.Fatalf("no line with only the URL in:\n%s", out.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
	if !strings.HasPrefix(out.String(), log) {
		t.Errorf("the console's own log is not passed on first:\n%s", out.String())
	}
}

// Ctrl-C stops the command as asked: run answers 0, not the signal's status, so make
// does not report an error.
func TestRunInterruptedIsASuccess(t *testing.T) {
	for _, c := range []struct {
		status              int
		signaled, interrupt bool
		want                int
	}{
		{130, true, true, 0},    // the command died of the forwarded SIGINT
		{0, false, true, 0},     // it shut down cleanly
		{3, false, true, 3},     // it failed while stopping
		{130, true, false, 130}, // something else killed it
		{1, false, false, 1},
	} {
		if got := exitCode(c.status, c.signaled, c.interrupt); got != c.want {
			t.Errorf("exitCode(%d, signaled %v, interrupted %v) = %d, want %d", c.status, c.signaled, c.interrupt, got, c.want)
		}
	}
}
