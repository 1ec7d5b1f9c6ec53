package live

import (
	"context"
	"sync/atomic"
	"testing"
	"time"
)

// However many viewers watch a key, it is polled once per tick, every viewer gets each
// frame, and the poller stops once the last viewer has left.
func TestOnePollPerTickForAllViewers(t *testing.T) {
	var polls atomic.Int64
	h := New(func(ctx context.Context, key string) Frame {
		polls.Add(1)
		return Frame{[]byte(key)}
	}, Options{Interval: 20 * time.Millisecond, Linger: 50 * time.Millisecond})
	defer h.Close()
	var vs []*Viewer
	for range 10 {
		v, err := h.Watch("broker-a")
		if err != nil {
			t.Fatal(err)
		}
		vs = append(vs, v)
	}
	for _, v := range vs {
		select {
		case f := <-v.C:
			if string(f[0]) != "broker-a" {
				t.Fatalf("frame %q", f[0])
			}
		case <-time.After(5 * time.Second):
			t.Fatal("no frame")
		}
	}
	time.Sleep(200 * time.Millisecond)
	n := polls.Load()
	if n > 15 { // about 10 ticks in 200 ms; ten viewers each polling would be 100
		t.Errorf("%d polls in 200 ms for 10 viewers of one key", n)
	}
	for _, v := range vs {
		v.Close()
	}
	deadline := time.Now().Add(5 * time.Second)
	for h.Watchers() > 0 {
		if time.Now().After(deadline) {
			t.Fatal("the poller kept running after its last viewer left")
		}
		time.Sleep(10 * time.Millisecond)
	}
	// A poll that began as the poller stopped may still end; none begins after.
	time.Sleep(20 * time.Millisecond)
	stopped := polls.Load()
	time.Sleep(100 * time.Millisecond)
	if polls.Load() != stopped {
		t.Errorf("polled after stopping")
	}
}

// A viewer that does not read is dropped (its channel closes, Dropped says why); the
// others keep receiving.
func TestSlowViewerIsDropped(t *testing.T) {
	h := New(func(context.Context, string) Frame { return Frame{[]byte("x")} }, Options{Interval: 5 * time.Millisecond, Buffer: 2})
	defer h.Close()
	slow, _ := h.Watch("k")
	fast, _ := h.Watch("k")
	defer fast.Close()
	deadline := time.After(5 * time.Second)
	for !slow.Dropped() {
		select {
		case <-fast.C:
		case <-deadline:
			t.Fatal("the slow viewer was never dropped")
		}
	}
	for range len(slow.C) {
		<-slow.C
	}
	if _, ok := <-slow.C; ok {
		t.Error("a dropped viewer's channel is still open")
	}
	select {
	case <-fast.C:
	case <-time.After(5 * time.Second):
		t.Error("the reading viewer stopped receiving")
	}
	slow.Close() // safe after being dropped
}

// After Close nothing can watch, and open viewers are closed.
func TestCloseEndsViewers(t *testing.T) {
	h := New(func(context.Context, string) Frame { return nil }, Options{Interval: time.Hour})
	v, _ := h.Watch("k")
	h.Close()
	if _, ok := <-v.C; ok {
		t.Error("viewer still open after Close")
	}
	if _, err := h.Watch("k"); err != ErrClosed {
		t.Errorf("Watch after Close: %v", err)
	}
}

// deltaSource renders a full frame on its first poll and deltas after; CatchUp says
// which poll it renders.
type deltaSource struct {
	polls   int
	catchUp atomic.Int64
}

func (s *deltaSource) Poll(context.Context) Tick {
	s.polls++
	if s.polls == 1 {
		return Tick{Frame: Frame{[]byte("full")}, Send: SendFull}
	}
	return Tick{Frame: Frame{[]byte("delta")}, Send: SendDelta}
}

func (s *deltaSource) CatchUp() Frame {
	s.catchUp.Add(1)
	return Frame{[]byte("catch-up")}
}

// A viewer joining a running poller gets everything first, never a delta it could not
// apply; the viewers already there keep getting deltas and no catch-up.
func TestJoiningViewerCatchesUpBeforeDeltas(t *testing.T) {
	src := &deltaSource{}
	h := NewSources(func(string) Source { return src }, Options{Interval: 5 * time.Millisecond})
	defer h.Close()
	first, _ := h.Watch("k")
	defer first.Close()
	read := func(v *Viewer) string {
		t.Helper()
		select {
		case f := <-v.C:
			return string(f[0])
		case <-time.After(5 * time.Second):
			t.Fatal("no frame")
			return ""
		}
	}
	if got := read(first); got != "full" {
		t.Fatalf("first viewer's first frame %q, want full", got)
	}
	if got := read(first); got != "delta" {
		t.Fatalf("first viewer's second frame %q, want delta", got)
	}
	late, _ := h.Watch("k")
	defer late.Close()
	if got := read(late); got != "catch-up" {
		t.Fatalf("a viewer joining a running poller first got %q, want catch-up", got)
	}
	for range 5 {
		if got := read(first); got != "delta" {
			t.Fatalf("the viewer already there got %q, want only deltas", got)
		}
		if got := read(late); got != "delta" {
			t.Fatalf("the caught-up viewer got %q, want delta", got)
		}
	}
	if n := src.catchUp.Load(); n != 1 {
		t.Errorf("CatchUp rendered %d times for one joining viewer", n)
	}
}

// langSource renders each tick per language, counting renders per language and tick.
type langSource struct {
	tick    atomic.Int64
	renders atomic.Int64
}

func (s *langSource) Poll(context.Context) Tick {
	n := s.tick.Add(1)
	return Tick{Send: SendFull, Render: func(lang string) Frame {
		s.renders.Add(1)
		return Frame{[]byte(lang + ":" + time.Duration(n).String())}
	}}
}

func (s *langSource) CatchUp() Frame { return nil }

// Viewers of one key in two languages: each tick is rendered once per language, however
// many viewers read it, and each viewer receives its language's frame.
func TestOneRenderPerLanguagePerTick(t *testing.T) {
	src := &langSource{}
	h := NewSources(func(string) Source { return src }, Options{Interval: time.Hour})
	defer h.Close()
	langs := []string{"en", "en", "en", "zh-CN", "zh-CN"}
	var vs []*Viewer
	for _, l := range langs {
		v, err := h.WatchIn("g", l)
		if err != nil {
			t.Fatal(err)
		}
		vs = append(vs, v)
	}
	// The first tick ran when the first viewer came, perhaps before the others: wait for
	// a tick that every viewer had joined before.
	for src.tick.Load() == 0 {
		time.Sleep(time.Millisecond)
	}
	time.Sleep(50 * time.Millisecond)
	h.mu.Lock()
	w := h.watches["g"]
	h.mu.Unlock()
	src.renders.Store(0)
	w.tick()
	if n := src.renders.Load(); n != 2 {
		t.Errorf("%d renders for one tick to viewers in 2 languages, want 2", n)
	}
	for i, v := range vs {
		var last Frame
		for len(v.C) > 0 {
			last = <-v.C
		}
		if last == nil || string(last[0][:len(langs[i])]) != langs[i] {
			t.Errorf("viewer %d (%s) got %q", i, langs[i], last)
		}
	}
}

// With MaxKeys keys polled, a viewer of another key is refused and starts nothing; a
// viewer of a polled key is not, and a key no longer polled makes room.
func TestHubRefusesKeysBeyondMaxKeys(t *testing.T) {
	h := New(func(context.Context, string) Frame { return Frame{[]byte("x")} },
		Options{Interval: 10 * time.Millisecond, Linger: 10 * time.Millisecond, MaxKeys: 1})
	defer h.Close()
	a, err := h.Watch("a")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := h.Watch("b"); err != ErrTooManyKeys || h.Watchers() != 1 {
		t.Fatalf("a second key beyond MaxKeys 1: %v, %d watchers", err, h.Watchers())
	}
	again, err := h.Watch("a")
	if err != nil {
		t.Fatalf("another viewer of the polled key: %v", err)
	}
	again.Close()
	a.Close()
	deadline := time.Now().Add(5 * time.Second)
	for h.Watching("a") {
		if time.Now().After(deadline) {
			t.Fatal("a is still polled after its viewers left")
		}
		time.Sleep(5 * time.Millisecond)
	}
	b, err := h.Watch("b")
	if err != nil {
		t.Fatalf("b once a stopped: %v", err)
	}
	b.Close()
}

// A quota counts each owner's views apart: an owner at its bound is refused, another is
// not, and a view released (once, however often release is called) makes room.
func TestQuotaBoundsEachOwner(t *testing.T) {
	q := NewQuota(2)
	r1, ok1 := q.Take("user vera")
	_, ok2 := q.Take("user vera")
	if _, ok := q.Take("user vera"); !ok1 || !ok2 || ok {
		t.Fatalf("vera's views: %v %v, third %v", ok1, ok2, ok)
	}
	if _, ok := q.Take("user otto"); !ok {
		t.Fatal("otto was refused for vera's views")
	}
	r1()
	r1()
	if _, ok := q.Take("user vera"); !ok {
		t.Fatal("a released view made no room")
	}
	if _, ok := q.Take("user vera"); ok {
		t.Fatal("releasing twice made room twice")
	}
	var none *Quota
	if _, ok := none.Take("anyone"); !ok {
		t.Fatal("a nil quota refused")
	}
}

// Drain waits for every view taken to be released, bounded or not, and gives up after
// its timeout while one is still open.
func TestQuotaDrainWaitsForEveryView(t *testing.T) {
	for _, max := range []int{0, 2} {
		q := NewQuota(max)
		r1, _ := q.Take("user vera")
		r2, _ := q.Take("user otto")
		r1()
		r1()
		if q.Drain(20 * time.Millisecond) {
			t.Fatalf("max %d: drained with a view still open", max)
		}
		go func() {
			time.Sleep(50 * time.Millisecond)
			r2()
		}()
		if !q.Drain(10 * time.Second) {
			t.Fatalf("max %d: not drained after every view was released", max)
		}
	}
	if !(*Quota)(nil).Drain(0) {
		t.Fatal("a nil quota did not drain")
	}
}
