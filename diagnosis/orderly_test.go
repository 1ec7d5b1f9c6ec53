package diagnosis

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"rmqconsole/groups"
	"rmqconsole/i18n"
)

// lockReads answers each group's blocked queues from blocked (absent: none), or fails
// for the groups in failing; it records whom it read.
type lockReads struct {
	mu      sync.Mutex
	blocked map[string][]groups.BlockedQueue
	failing map[string]bool
	read    []string
}

func (r *lockReads) BlockedQueues(_ context.Context, g groups.Summary, _ time.Time) ([]groups.BlockedQueue, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.read = append(r.read, g.Group)
	if r.failing[g.Group] {
		return nil, errors.New("running info: timeout")
	}
	return r.blocked[g.Group], nil
}

func (r *lockReads) take() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := r.read
	r.read = nil
	slices.Sort(out)
	return out
}

// orderlyRead is one read of groups each with one queue committed at off with lag
// messages waiting; mode is their consume mode.
func orderlyRead(at time.Time, mode string, off, lag int64, names ...string) *groups.List {
	l := &groups.List{CheckedAt: at}
	for _, n := range names {
		total := lag
		l.Groups = append(l.Groups, groups.Summary{Group: n, Online: true, Clients: 2, ConsumeMode: mode, TotalLag: &total,
			Queues: []groups.QueueLag{{Topic: "t", BrokerName: "b", QueueID: 0, BrokerOffset: i64(off + lag), ConsumerOffset: i64(off), Lag: &total}}})
	}
	return l
}

func blockedBy(holder string, left time.Time, lag int64) []groups.BlockedQueue {
	warning := i18n.TextOf(i18n.M("group.lock.warn.ago.left", "Name", "Queue 0 of t on b", "Holder", holder, "Expiry", "60 s",
		"Every", "20 s", "Left", "40 s", "In", "20 s"))
	return []groups.BlockedQueue{{Topic: "t", BrokerName: "b", QueueID: 0, Lag: lag,
		Lock: groups.QueueLock{Holder: holder, HolderLeftAt: left.UnixMilli(), Blocked: true, Warning: warning}}}
}

// An orderly group with messages waiting in a queue whose committed offset stood still
// has its locks read; a queue the read finds blocked by a client that left is an
// orderlyBlocked warning naming the holder, since it left, acted on at the group's page.
// Concurrent groups, and orderly ones whose queues move or have nothing waiting, cost no
// read. The finding stays while a read of the locks cannot be made (which is said), and
// goes once the read finds the queue free.
func TestAnOrderlyQueueBlockedByAGoneHolderIsFoundFromALockRead(t *testing.T) {
	at := time.Date(2026, 12, 6, 10, 0, 0, 0, time.UTC)
	left := at.Add(-40 * time.Second)
	r := &lockReads{blocked: map[string][]groups.BlockedQueue{"ord": blockedBy("10.0.0.6@gone", left, 7)}, failing: map[string]bool{}}
	e := New(Options{Locks: r})
	read := func(l *groups.List) []Finding {
		e.Observe(t.Context(), l)
		fs, _ := e.Findings()
		return fs
	}
	both := func(at time.Time, off, lag int64) *groups.List {
		l := orderlyRead(at, groups.ModeOrderly, off, lag, "ord", "ord-idle")
		l.Groups = append(l.Groups, orderlyRead(at, groups.ModeConcurrent, off, lag, "conc").Groups...)
		l.Groups[1].Queues[0].Lag, l.Groups[1].TotalLag = i64(0), i64(0) // nothing waits
		return l
	}
	if fs := read(both(at, 10, 7)); len(fs) != 0 {
		t.Fatalf("first read: %+v, want nothing (no read before to compare offsets with)", fs)
	}
	if got := r.take(); len(got) != 0 {
		t.Errorf("first read read the locks of %v", got)
	}
	fs := read(both(at.Add(30*time.Second), 10, 7))
	if got := r.take(); !slices.Equal(got, []string{"ord"}) {
		t.Errorf("locks read of %v, want ord alone", got)
	}
	if len(fs) != 1 {
		t.Fatalf("findings %+v, want one orderlyBlocked", fs)
	}
	f := fs[0]
	if f.Kind != KindOrderlyBlocked || f.Severity != Warning || f.Group != "ord" || f.Action != "/groups/ord" || !f.Since.Equal(left.Truncate(time.Millisecond)) {
		t.Errorf("finding %+v, want orderlyBlocked (warning) about ord since the holder left, acted on at its page", f)
	}
	if !slices.Equal(f.Topics, []string{"t"}) {
		t.Errorf("topics named %v, want t", f.Topics)
	}
	for _, lang := range []string{"en", "zh-CN"} {
		if ev := i18n.Match(lang).Say(f.Evidence); !strings.Contains(ev, "10.0.0.6@gone") || !strings.Contains(ev, "7") || strings.Contains(ev, "diagnosis.") {
			t.Errorf("%s evidence %q: want the holder and the messages waiting", lang, ev)
		}
	}

	// The read fails: the finding stays, and what was not read is said.
	r.failing["ord"] = true
	fs = read(both(at.Add(60*time.Second), 10, 7))
	if len(fs) != 1 || fs[0].Kind != KindOrderlyBlocked || !fs[0].Since.Equal(f.Since) {
		t.Errorf("findings %+v while the locks cannot be read, want the last one kept", fs)
	}
	if u := e.UnreadFor("ord"); len(u) != 1 || u[0].What != UnreadLocks || u[0].Subject != "ord" || !strings.Contains(u[0].Cause, "timeout") {
		t.Errorf("unread %+v, want ord's locks with the cause", u)
	}
	if u := e.UnreadFor("ord-idle"); len(u) != 0 {
		t.Errorf("unread for ord-idle %+v, want none", u)
	}

	// The lock moved: the queue is consumed, the finding goes.
	r.failing["ord"] = false
	delete(r.blocked, "ord")
	if fs := read(both(at.Add(90*time.Second), 10, 7)); len(fs) != 0 {
		t.Errorf("findings %+v once the read finds nothing blocked", fs)
	}
	if u := e.Unread(); len(u) != 0 {
		t.Errorf("unread %+v after a read that read everything", u)
	}
	r.blocked["ord"] = blockedBy("10.0.0.6@gone", left, 7)
	if fs := read(both(at.Add(120*time.Second), 10, 7)); len(fs) != 1 {
		t.Fatalf("findings %+v, want orderlyBlocked again", fs)
	}
	r.take()
	// Its offsets move: the finding goes without a read (the queue is consumed again).
	if fs := read(both(at.Add(150*time.Second), 15, 2)); len(fs) != 0 {
		t.Errorf("findings %+v once the queue is consumed", fs)
	}
	if got := r.take(); len(got) != 0 {
		t.Errorf("locks read of %v once every queue moves, want none", got)
	}
}

// At most LockLookups groups' locks are read at one read, those with the most messages
// waiting first.
func TestLockReadsAreBoundedMostWaitingFirst(t *testing.T) {
	at := time.Date(2026, 12, 6, 10, 0, 0, 0, time.UTC)
	r := &lockReads{blocked: map[string][]groups.BlockedQueue{}}
	e := New(Options{Locks: r, LockLookups: 2})
	l := func(at time.Time) *groups.List {
		out := &groups.List{CheckedAt: at}
		for i, n := range []string{"few", "most", "some"} {
			out.Groups = append(out.Groups, orderlyRead(at, groups.ModeOrderly, 10, []int64{1, 100, 10}[i], n).Groups...)
		}
		return out
	}
	e.Observe(t.Context(), l(at))
	e.Observe(t.Context(), l(at.Add(30*time.Second)))
	if got := r.take(); !slices.Equal(got, []string{"most", "some"}) {
		t.Errorf("locks read of %v, want the two with the most waiting", got)
	}
}

// A group blocked at the read before and beyond LockLookups now (more groups are
// blocked than one read reads the locks of) keeps its finding while its messages still
// wait in a queue that does not move: only the reads are cut, not what was found.
func TestABlockedGroupBeyondLockLookupsKeepsItsFinding(t *testing.T) {
	at := time.Date(2026, 12, 6, 10, 0, 0, 0, time.UTC)
	left := at.Add(-40 * time.Second)
	r := &lockReads{blocked: map[string][]groups.BlockedQueue{"most": blockedBy("10.0.0.6@gone", left, 100), "some": blockedBy("10.0.0.7@gone", left, 10)}}
	e := New(Options{Locks: r, LockLookups: 2})
	l := func(at time.Time) *groups.List {
		out := &groups.List{CheckedAt: at}
		for i, n := range []string{"most", "some"} {
			out.Groups = append(out.Groups, orderlyRead(at, groups.ModeOrderly, 10, []int64{100, 10}[i], n).Groups...)
		}
		return out
	}
	blocked := func() []string {
		fs, _ := e.Findings()
		var out []string
		for _, f := range fs {
			if f.Kind == KindOrderlyBlocked {
				out = append(out, f.Group)
			}
		}
		slices.Sort(out)
		return out
	}
	e.Observe(t.Context(), l(at))
	e.Observe(t.Context(), l(at.Add(30*time.Second)))
	if got := blocked(); !slices.Equal(got, []string{"most", "some"}) {
		t.Fatalf("blocked %v, want most and some", got)
	}
	r.take()
	e.opts.LockLookups = 1 // now more groups are blocked than one read reads
	e.Observe(t.Context(), l(at.Add(60*time.Second)))
	if got := r.take(); !slices.Equal(got, []string{"most"}) {
		t.Errorf("locks read of %v, want the one with the most waiting alone", got)
	}
	if got := blocked(); !slices.Equal(got, []string{"most", "some"}) {
		t.Errorf("blocked %v after a read that left some unread, want most and some still", got)
	}
}
