package lookup

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"rmqconsole/filter"
	"rmqconsole/rocketmq"
)

// fakeTail is a tail whose messages the test hands it: each batch sent on feed is
// emitted as one queue's new messages.
type fakeTail struct {
	feed chan []Message
}

func (f *fakeTail) follow(ctx context.Context, q TailQuery, emit func(TailEvent)) error {
	emit(TailEvent{Started: time.UnixMilli(1_700_000_000_000)})
	for {
		select {
		case <-ctx.Done():
			return nil
		case ms := <-f.feed:
			emit(TailEvent{Messages: ms})
		}
	}
}

func tailMessages(from, n int) []Message {
	out := make([]Message, n)
	for i := range out {
		out[i] = Message{BrokerName: "broker-a", Message: &rocketmq.Message{Topic: "T", QueueID: 0, QueueOffset: int64(from + i)}}
	}
	return out
}

// nextFrame waits for v's next frame, failing the test after a deadline.
func nextFrame(t *testing.T, v *TailViewer) TailFrame {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	f, err := v.Next(ctx)
	if err != nil {
		t.Fatalf("no frame: %v", err)
	}
	return f
}

func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within 10 s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// Viewers of one topic and filter share one tail; another filter is another tail; the
// tail stops when its last viewer leaves, and gives back what admitted it.
func TestTailHubRunsOneTailPerTopicAndFilterUntilTheLastViewerLeaves(t *testing.T) {
	ft := &fakeTail{feed: make(chan []Message)}
	h := NewTailHub(ft.follow, TailOptions{})
	admitted, left := 0, make(chan struct{}, 4)
	admit := func() (func(), error) {
		admitted++
		return func() { left <- struct{}{} }, nil
	}
	a, err := h.Watch(TailQuery{Topic: "T"}, admit)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := h.Watch(TailQuery{Topic: "T"}, admit)
	flt, err := filter.Compile(filter.Query{BodyContains: "x"})
	if err != nil {
		t.Fatal(err)
	}
	c, _ := h.Watch(TailQuery{Topic: "T", Filter: flt}, admit)
	if h.Starts() != 2 || h.Running() != 2 || admitted != 2 {
		t.Fatalf("three viewers, two filters: %d tails started, %d running, %d admitted; want 2", h.Starts(), h.Running(), admitted)
	}
	c.Close()
	a.Close()
	eventually(t, "the filtered tail stops with its only viewer", func() bool { return h.Running() == 1 })
	if st := h.Stats(); st.Viewers != 1 {
		t.Fatalf("one viewer left: stats %+v", st)
	}
	b.Close()
	eventually(t, "the last tail stops with its last viewer", func() bool { return h.Running() == 0 })
	if st := h.Stats(); st.Tails != 0 || st.Viewers != 0 {
		t.Fatalf("every viewer gone: stats %+v", st)
	}
	for range 2 {
		<-left
	}
	refused := errors.New("busy")
	if _, err := h.Watch(TailQuery{Topic: "T"}, func() (func(), error) { return nil, refused }); err != refused {
		t.Fatalf("a tail refused by admit: %v", err)
	}
}

// A viewer that does not read never holds up the others: its buffer overflows and what
// did not fit is counted as skipped, while the viewer that reads gets every message, in
// order.
func TestTailViewerThatDoesNotReadNeverHoldsUpTheOthers(t *testing.T) {
	ft := &fakeTail{feed: make(chan []Message)}
	h := NewTailHub(ft.follow, TailOptions{Rate: 1000, Window: time.Hour, Buffer: 8})
	fast, _ := h.Watch(TailQuery{Topic: "T"}, nil)
	defer fast.Close()
	slow, _ := h.Watch(TailQuery{Topic: "T"}, nil)
	defer slow.Close()
	if f := nextFrame(t, fast); f.Kind != TailStarted {
		t.Fatalf("first frame %+v, want the start", f)
	}
	for i := range 20 {
		ft.feed <- tailMessages(i*5, 5)
		for j := range 5 {
			f := nextFrame(t, fast)
			if f.Kind != TailMessage || f.Message.QueueOffset != int64(i*5+j) {
				t.Fatalf("reading viewer: frame %+v, want offset %d", f, i*5+j)
			}
		}
	}
	nextFrame(t, slow) // the start
	f := nextFrame(t, slow)
	if f.Kind != TailSkipped || f.Skipped != 92 {
		t.Fatalf("viewer that did not read: %+v, want 92 skipped", f)
	}
	for j := range 8 {
		if f := nextFrame(t, slow); f.Kind != TailMessage || f.Message.QueueOffset != int64(j) {
			t.Fatalf("viewer that did not read, buffered message %d: %+v", j, f)
		}
	}
}

// A viewer gets Rate messages per window and then one frame counting the rest; paused,
// it gets only the count.
func TestTailViewerRateAndPauseCountWhatIsNotSent(t *testing.T) {
	ft := &fakeTail{feed: make(chan []Message)}
	h := NewTailHub(ft.follow, TailOptions{Rate: 50, Window: time.Hour})
	v, _ := h.Watch(TailQuery{Topic: "T"}, nil)
	defer v.Close()
	nextFrame(t, v)
	ft.feed <- tailMessages(0, 120)
	var got []string
	for range 51 {
		f := nextFrame(t, v)
		switch f.Kind {
		case TailMessage:
			got = append(got, fmt.Sprint(f.Message.QueueOffset))
		case TailSkipped:
			got = append(got, fmt.Sprintf("skipped %d", f.Skipped))
		}
	}
	if len(got) != 51 || got[0] != "0" || got[49] != "49" || got[50] != "skipped 70" {
		t.Fatalf("120 messages at a rate of 50: %v", got)
	}
	if st := h.Stats(); st != (TailStats{Tails: 1, Viewers: 1, Sent: 50, Skipped: 70}) {
		t.Fatalf("stats after 50 sent and 70 counted: %+v", st)
	}

	ft2 := &fakeTail{feed: make(chan []Message)}
	h2 := NewTailHub(ft2.follow, TailOptions{Window: time.Hour})
	p, _ := h2.Watch(TailQuery{Topic: "U"}, nil)
	defer p.Close()
	nextFrame(t, p)
	p.Pause(true)
	ft2.feed <- tailMessages(0, 5)
	if f := nextFrame(t, p); f.Kind != TailSkipped || f.Skipped != 5 {
		t.Fatalf("paused: %+v, want 5 skipped", f)
	}
	p.Pause(false)
	ft2.feed <- tailMessages(5, 1)
	if f := nextFrame(t, p); f.Kind != TailMessage || f.Message.QueueOffset != 5 {
		t.Fatalf("resumed: %+v, want the message at offset 5", f)
	}
}
