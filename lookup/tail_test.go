package lookup

import (
	"context"
	"errors"
	"testing"
	"time"

	"rmqconsole/cluster/clustertest"
)

// A tail starts without a broker that does not answer and names it; once it answers,
// what it stored since the tail started is read. Messages stored before the start are
// not, and a queue added to the route later is followed.
func TestFollowNamesAFailingBrokerAndReadsItOnceItAnswers(t *testing.T) {
	f := clustertest.New()
	const addrA, addrB = "127.0.0.1:10911", "127.0.0.1:10921"
	f.AddBroker("broker-a", addrA)
	f.AddBroker("broker-b", addrB)
	f.AddTopic("T", 1, "broker-a", "broker-b")
	f.Put("T", "broker-a", 0, clustertest.NewMessage("old", "", nil, "u-old", time.Now().Add(-time.Minute)))
	down := errors.New("connection refused")
	f.FailOn("Pull", addrB, down)
	f.FailOn("SearchOffset", addrB, down)

	svc := New(f, Options{})
	events := make(chan TailEvent, 1000)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- svc.follow(ctx, TailQuery{Topic: "T"}, func(ev TailEvent) { events <- ev }, 20*time.Millisecond)
	}()
	defer func() {
		cancel()
		if err := <-done; err != nil {
			t.Error(err)
		}
	}()
	var failing []string
	started := false
	// next waits for an event that ok accepts, keeping track of the start and the
	// brokers failing.
	next := func(what string, ok func(TailEvent) bool) {
		t.Helper()
		timeout := time.After(10 * time.Second)
		for {
			select {
			case ev := <-events:
				if !ev.Started.IsZero() {
					started = true
				}
				if ev.FailuresChanged {
					failing = failing[:0]
					for _, fl := range ev.Failures {
						failing = append(failing, fl.Broker)
					}
				}
				for _, m := range ev.Messages {
					if string(m.Body) == "old" {
						t.Errorf("a message stored before the tail started was reported")
					}
				}
				if ok(ev) {
					return
				}
			case <-timeout:
				t.Fatalf("%s: not within 10 s (failing %v, started %v)", what, failing, started)
			}
		}
	}
	body := func(want string) func(TailEvent) bool {
		return func(ev TailEvent) bool { return len(ev.Messages) == 1 && string(ev.Messages[0].Body) == want }
	}
	next("the tail starts, naming broker-b", func(TailEvent) bool { return started && len(failing) == 1 && failing[0] == "broker-b" })

	f.Put("T", "broker-a", 0, clustertest.NewMessage("a-1", "", nil, "u-a1", time.Now()))
	next("broker-a's new message", body("a-1"))

	f.Put("T", "broker-b", 0, clustertest.NewMessage("b-1", "", nil, "u-b1", time.Now()))
	f.FailOn("Pull", addrB, nil)
	f.FailOn("SearchOffset", addrB, nil)
	next("broker-b's message stored while it failed", body("b-1"))
	if len(failing) != 0 {
		t.Errorf("broker-b answers again and is still named: %v", failing)
	}

	f.AddTopic("T", 2, "broker-a")
	f.Put("T", "broker-a", 1, clustertest.NewMessage("a-late", "", nil, "u-late", time.Now()))
	next("the message of a queue added to the route", body("a-late"))
}
