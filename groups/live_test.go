package groups

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"rmqconsole/fault"
	"rmqconsole/rocketmq"
	"rmqconsole/store"
)

// scriptedReader returns whatever snapshot the test sets, stamped with the time of the
// read, and counts reads.
type scriptedReader struct {
	mu    sync.Mutex
	cur   *Detail
	err   error
	reads atomic.Int64
}

func (r *scriptedReader) set(clients []string, owners map[int]string) {
	d := snap(0, clients, owners)
	r.mu.Lock()
	r.cur, r.err = d, nil
	r.mu.Unlock()
}

func (r *scriptedReader) fail(err error) {
	r.mu.Lock()
	r.err = err
	r.mu.Unlock()
}

func (r *scriptedReader) Detail(_ context.Context, group string) (*Detail, error) {
	r.reads.Add(1)
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.err != nil {
		return nil, r.err
	}
	c := *r.cur
	c.Group, c.CheckedAt = group, time.Now()
	return &c, nil
}

// recordingRenderer counts renders and keeps the updates.
type recordingRenderer struct {
	mu      sync.Mutex
	updates []*Update
}

func (r *recordingRenderer) Render(_ context.Context, u *Update) (Frame, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.updates = append(r.updates, u)
	// The same state renders the same bytes, as a real renderer does.
	var at int64
	if u.Detail != nil {
		at = u.Detail.CheckedAt.UnixNano()
	}
	return Frame{fmt.Appendf(nil, "state %d full=%v events=%d err=%v", at, u.Full, len(u.Events), u.Err != nil)}, nil
}

func (r *recordingRenderer) count() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.updates)
}

// memStore is an EventStore in memory.
type memStore struct {
	mu     sync.Mutex
	events []store.RebalanceEvent
}

func (m *memStore) AddRebalanceEvents(_ context.Context, ev []store.RebalanceEvent) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.events = append(m.events, ev...)
	return nil
}

func (m *memStore) RebalanceEvents(_ context.Context, group string, limit int, _ time.Time) ([]store.RebalanceEvent, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []store.RebalanceEvent
	for i := len(m.events) - 1; i >= 0 && len(out) < limit; i-- {
		if m.events[i].Group == group {
			out = append(out, m.events[i])
		}
	}
	return out, nil
}

// noWatchers waits until no watcher goroutine is left: a leaked one is a bug.
func noWatchers(t *testing.T) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		buf := make([]byte, 1<<20)
		stacks := string(buf[:runtime.Stack(buf, true)])
		if !strings.Contains(stacks, "live.(*watch).run") && !strings.Contains(stacks, "live.(*watch).stopIfIdle") {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("watcher goroutines still running:\n%s", stacks)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func next(t *testing.T, v *Viewer) []byte {
	t.Helper()
	select {
	case f, ok := <-v.C:
		if !ok {
			t.Fatal("viewer closed")
		}
		return bytes.Join(f, nil)
	case <-time.After(5 * time.Second):
		t.Fatal("no frame within 5 s")
	}
	return nil
}

func TestLiveCostsOneReadPerTickWhateverTheNumberOfViewers(t *testing.T) {
	defer noWatchers(t)
	r := &scriptedReader{}
	r.set([]string{"a"}, map[int]string{0: "a"})
	rend := &recordingRenderer{}
	l := NewLive(r, LiveOptions{Interval: 20 * time.Millisecond, Renderer: rend})
	defer l.Close()

	const viewers = 50
	vs := make([]*Viewer, viewers)
	for i := range vs {
		v, err := l.Watch(tG)
		if err != nil {
			t.Fatal(err)
		}
		vs[i] = v
	}
	// Every viewer first gets the same full frame, then the same deltas.
	for round := range 5 {
		var first []byte
		for i, v := range vs {
			b := next(t, v)
			if i == 0 {
				first = b
				if round == 0 && !bytes.Contains(b, []byte("full=true")) {
					t.Fatalf("first frame %q is not full", b)
				}
				continue
			}
			if !bytes.Equal(b, first) {
				t.Fatalf("round %d: viewer %d got %q, viewer 0 got %q", round, i, b, first)
			}
		}
	}
	st := l.Stats()
	if st.Watchers != 1 || st.Viewers != viewers {
		t.Errorf("stats %+v: want one watcher for %d viewers", st, viewers)
	}
	if reads, ticks := r.reads.Load(), l.Stats().Ticks; reads != int64(ticks) {
		t.Errorf("%d reads in %d ticks: one read per tick, however many viewers", reads, ticks)
	}
	if renders, ticks := rend.count(), int(l.Stats().Ticks); renders > ticks+1 {
		t.Errorf("%d renders in %d ticks for %d viewers: render once per tick and share the bytes", renders, ticks, viewers)
	}
}

func TestLiveDropsASlowViewerAndKeepsServingTheOthers(t *testing.T) {
	defer noWatchers(t)
	r := &scriptedReader{}
	r.set([]string{"a"}, map[int]string{0: "a"})
	l := NewLive(r, LiveOptions{Interval: 10 * time.Millisecond, ViewerBuffer: 2, Renderer: &recordingRenderer{}})
	defer l.Close()
	slow, _ := l.Watch(tG)
	fast, _ := l.Watch(tG)
	for range 10 { // five times the slow viewer's buffer
		next(t, fast)
	}
	deadline := time.Now().Add(5 * time.Second)
	for !slow.Dropped() {
		if time.Now().After(deadline) {
			t.Fatal("a viewer that never reads was not dropped")
		}
		time.Sleep(5 * time.Millisecond)
	}
	n := 0
	for range slow.C { // drains what was queued, then sees the channel closed
		n++
	}
	if n > 2 {
		t.Errorf("slow viewer held %d frames, more than its buffer of 2", n)
	}
	next(t, fast) // the fast one is still served
	if fast.Dropped() {
		t.Error("the fast viewer was dropped too")
	}
}

func TestLiveStopsShortlyAfterTheLastViewerLeaves(t *testing.T) {
	r := &scriptedReader{}
	r.set([]string{"a"}, map[int]string{0: "a"})
	l := NewLive(r, LiveOptions{Interval: 10 * time.Millisecond, Linger: 50 * time.Millisecond, Renderer: &recordingRenderer{}})
	defer l.Close()
	v1, _ := l.Watch(tG)
	v2, _ := l.Watch(tG)
	next(t, v1)
	v1.Close()
	v1.Close() // twice is fine
	next(t, v2)
	v2.Close()
	noWatchers(t)
	if st := l.Stats(); st.Watchers != 0 || st.Viewers != 0 {
		t.Fatalf("stats %+v after the last viewer left", st)
	}
	reads := r.reads.Load()
	time.Sleep(50 * time.Millisecond)
	if r.reads.Load() != reads {
		t.Fatal("the group is still polled with nobody watching")
	}
}

func TestLiveReturningWithinTheLingerKeepsTheWatcherAndItsHistory(t *testing.T) {
	defer noWatchers(t)
	r := &scriptedReader{}
	r.set([]string{"a"}, map[int]string{0: "a"})
	l := NewLive(r, LiveOptions{Interval: 10 * time.Millisecond, Linger: time.Hour, Renderer: &recordingRenderer{}})
	defer l.Close()
	v, _ := l.Watch(tG)
	for range 5 {
		next(t, v)
	}
	v.Close()
	s1, ok := l.Latest(tG)
	if !ok {
		t.Fatal("no latest snapshot while lingering")
	}
	v, _ = l.Watch(tG) // a page reload
	if b := next(t, v); !bytes.Contains(b, []byte("full=true")) {
		t.Fatalf("a returning viewer's first frame %q is not full", b)
	}
	s2, _ := l.Latest(tG)
	if len(s2.History.Totals) < len(s1.History.Totals) {
		t.Errorf("history shrank from %d to %d samples: the watcher restarted", len(s1.History.Totals), len(s2.History.Totals))
	}
}

func TestLiveStoresEventsAndShowsThemAfterARestart(t *testing.T) {
	defer noWatchers(t)
	r := &scriptedReader{}
	r.set([]string{"a"}, map[int]string{0: "a"})
	ms := &memStore{}
	rend := &recordingRenderer{}
	l := NewLive(r, LiveOptions{Interval: 10 * time.Millisecond, Renderer: rend, Store: ms})
	v, _ := l.Watch(tG)
	next(t, v)
	r.set([]string{"a", "b"}, map[int]string{0: "b"})
	for {
		if b := next(t, v); bytes.Contains(b, []byte("events=2")) {
			break
		}
	}
	l.Close()
	ms.mu.Lock()
	stored := append([]store.RebalanceEvent(nil), ms.events...)
	ms.mu.Unlock()
	if len(stored) != 2 || stored[0].Kind != KindJoined || stored[0].ClientID != "b" || stored[1].Kind != KindMoved || stored[1].From != "a" {
		t.Fatalf("stored %+v: want b joined, then queue 0 moved from a", stored)
	}

	// A new console on the same store: the first frame carries the history.
	rend2 := &recordingRenderer{}
	l2 := NewLive(r, LiveOptions{Interval: 10 * time.Millisecond, Renderer: rend2, Store: ms})
	defer l2.Close()
	v2, _ := l2.Watch(tG)
	next(t, v2)
	rend2.mu.Lock()
	first := rend2.updates[0]
	rend2.mu.Unlock()
	if len(first.Recent) != 2 || first.Recent[0].Kind != KindMoved || first.Recent[1].Kind != KindJoined {
		t.Fatalf("recent after restart %+v: want the two stored events, newest first", first.Recent)
	}
}

func TestLiveFailedPollSaysSoAndKeepsTheLastState(t *testing.T) {
	defer noWatchers(t)
	r := &scriptedReader{}
	r.set([]string{"a"}, map[int]string{0: "a"})
	rend := &recordingRenderer{}
	l := NewLive(r, LiveOptions{Interval: 10 * time.Millisecond, Renderer: rend})
	defer l.Close()
	v, _ := l.Watch(tG)
	next(t, v)
	r.fail(errors.New("no NameServer answered"))
	for {
		if b := next(t, v); bytes.Contains(b, []byte("err=true")) {
			break
		}
	}
	rend.mu.Lock()
	last := rend.updates[len(rend.updates)-1]
	rend.mu.Unlock()
	if last.Detail == nil || len(last.Detail.Clients) != 1 || len(last.Events) != 0 {
		t.Fatalf("failed poll update %+v: want the last good state and no events", last)
	}
}

// A group watched before any broker knows it (a POP group whose first gRPC client is
// about to start) sees that client join.
func TestLiveFirstClientOfAnUnknownGroupJoins(t *testing.T) {
	defer noWatchers(t)
	r := &scriptedReader{}
	r.fail(NotFound(tG))
	rend := &recordingRenderer{}
	l := NewLive(r, LiveOptions{Interval: 10 * time.Millisecond, Renderer: rend})
	defer l.Close()
	v, _ := l.Watch(tG)
	next(t, v)
	r.set([]string{"a"}, nil)
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		next(t, v)
		rend.mu.Lock()
		for _, u := range rend.updates {
			for _, e := range u.Events {
				if e.Kind == KindJoined && e.ClientID == "a" {
					rend.mu.Unlock()
					return
				}
			}
		}
		rend.mu.Unlock()
	}
	t.Fatal("the first client of a group no broker knew never joined")
}

func TestLiveCloseEndsEveryViewer(t *testing.T) {
	r := &scriptedReader{}
	r.set([]string{"a"}, map[int]string{0: "a"})
	l := NewLive(r, LiveOptions{Interval: 10 * time.Millisecond, Renderer: &recordingRenderer{}})
	v, _ := l.Watch(tG)
	w, _ := l.Watch("other")
	next(t, v)
	l.Close()
	for _, x := range []*Viewer{v, w} {
		for range x.C {
		}
	}
	if _, err := l.Watch(tG); !errors.Is(err, ErrLiveClosed) {
		t.Errorf("Watch after Close: %v", err)
	}
	noWatchers(t)
}

func TestRowsAreResentOnlyWhileTheyChange(t *testing.T) {
	lag := func(v int64) *int64 { return &v }
	mk := func(l0, l1 int64) *Detail {
		return &Detail{Queues: []QueueLag{
			{Topic: tT, BrokerName: "b", QueueID: 0, Lag: lag(l0)},
			{Topic: tT, BrokerName: "b", QueueID: 1, Lag: lag(l1)},
		}}
	}
	h := &History{Queues: map[rocketmq.MessageQueue][]float64{
		mq(tT, "b", 0): {5, 5, 5, 5},
		mq(tT, "b", 1): {5, 7, 7, 7}, // changed a few ticks ago: its sparkline still slides
	}}
	u := &Update{}
	diff(mk(5, 7), mk(5, 7), u, h)
	if len(u.ChangedQueues) != 1 || u.ChangedQueues[0].QueueID != 1 {
		t.Fatalf("changed %v: want only the queue whose recent lag moved", u.ChangedQueues)
	}
	u = &Update{}
	diff(mk(5, 7), mk(6, 7), u, h)
	if len(u.ChangedQueues) != 2 {
		t.Fatalf("changed %v: a new lag value must be sent", u.ChangedQueues)
	}
	u = &Update{}
	diff(mk(5, 7), &Detail{Queues: mk(5, 7).Queues[:1]}, u, h)
	if !u.QueuesReshaped {
		t.Fatal("a queue that went away did not reshape the table")
	}
}

// A group opened again after its watcher stopped starts from the lag history it had,
// with a gap where nobody watched; the history of many groups stays bounded.
func TestLiveKeepsHistoryAfterTheWatcherStops(t *testing.T) {
	r := &scriptedReader{}
	r.set([]string{"a"}, map[int]string{0: "a"})
	l := NewLive(r, LiveOptions{Interval: 10 * time.Millisecond, Linger: 20 * time.Millisecond, Renderer: &recordingRenderer{}})
	defer l.Close()
	v, _ := l.Watch(tG)
	for range 5 {
		next(t, v)
	}
	before, _ := l.Latest(tG)
	v.Close()
	noWatchers(t)
	v, _ = l.Watch(tG)
	defer v.Close()
	next(t, v)
	after, ok := l.Latest(tG)
	if !ok {
		t.Fatal("no snapshot after watching again")
	}
	if len(after.History.Totals) < len(before.History.Totals)+2 {
		t.Fatalf("history restarted: %d samples, had %d before", len(after.History.Totals), len(before.History.Totals))
	}
	if !slices.ContainsFunc(after.History.Totals, func(s LagSample) bool { return math.IsNaN(s.Lag) }) {
		t.Errorf("no gap where nobody watched in %+v", after.History.Totals)
	}

	for i := range KeptHistories + 10 {
		l.keep(fmt.Sprintf("g%d", i), newHistory())
	}
	l.keptMu.Lock()
	n := len(l.kept)
	l.keptMu.Unlock()
	if n != KeptHistories {
		t.Errorf("%d histories kept, want at most %d", n, KeptHistories)
	}
}

// Open watches only what the cluster knows, and only so many groups: a name Known does
// not know starts no watcher (no read at all), a watched group is not checked again, and
// a group beyond MaxGroups is refused before anything is asked.
func TestLiveOpenWatchesOnlyKnownGroupsWithinTheBound(t *testing.T) {
	defer noWatchers(t)
	r := &scriptedReader{}
	r.set([]string{"a"}, map[int]string{0: "a"})
	var asked atomic.Int64
	l := NewLive(r, LiveOptions{Interval: 10 * time.Millisecond, Linger: 10 * time.Millisecond, Renderer: &recordingRenderer{}, MaxGroups: 2,
		Known: func(_ context.Context, group string) error {
			asked.Add(1)
			if strings.HasPrefix(group, "no-such") {
				return NotFound(group)
			}
			return errors.New("a broker did not answer") // not known to be absent: watch
		}})
	defer l.Close()
	ctx := t.Context()
	if _, err := l.Open(ctx, "no-such-group", ""); !fault.Is(err, fault.NotFound) ||
		!strings.Contains(fault.As(err).Msg.String(), "there is nothing to watch, so this page is not live") {
		t.Fatalf("a group nobody knows: %v", err)
	}
	if st := l.Stats(); st.Watchers != 0 || r.reads.Load() != 0 {
		t.Fatalf("a refused name started %d watchers and %d reads", st.Watchers, r.reads.Load())
	}
	a, err := l.Open(ctx, "a", "")
	if err != nil {
		t.Fatal(err)
	}
	next(t, a)
	n := asked.Load()
	if v, err := l.Open(ctx, "a", "zh-CN"); err != nil || asked.Load() != n {
		t.Fatalf("a second viewer of a watched group: %v, checked %d times more", err, asked.Load()-n)
	} else {
		v.Close()
	}
	b, err := l.Open(ctx, "b", "")
	if err != nil {
		t.Fatal(err)
	}
	n = asked.Load()
	if _, err := l.Open(ctx, "c", ""); !errors.Is(err, ErrTooManyGroups) || !fault.Is(err, fault.Busy) || asked.Load() != n ||
		!strings.Contains(fault.As(err).Msg.String(), "already watches 2 consumer groups live") {
		t.Fatalf("a third group beyond MaxGroups 2: %v, checked %d times", err, asked.Load()-n)
	}
	b.Close()
	deadline := time.Now().Add(5 * time.Second)
	for {
		v, err := l.Open(ctx, "c", "")
		if err == nil {
			v.Close()
			break
		}
		if !errors.Is(err, ErrTooManyGroups) || time.Now().After(deadline) {
			t.Fatalf("once b is no longer watched, c: %v", err)
		}
		time.Sleep(10 * time.Millisecond)
	}
	a.Close()
}
