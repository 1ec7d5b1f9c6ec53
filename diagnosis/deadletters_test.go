package diagnosis

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"rmqconsole/groups"
	"rmqconsole/i18n"
)

// dlqCounter is a dead-letter counter over fixed counts: written[g] is what g's
// dead-letter topic received in all (absent: no such topic). It records whom it was
// asked about.
type dlqCounter struct {
	written map[string]int64
	asked   [][]string
	fail    bool
}

func (c *dlqCounter) Written(_ context.Context, gs []string, max int) (map[string]int64, error) {
	c.asked = append(c.asked, slices.Clone(gs))
	if c.fail {
		return nil, errors.New("topic list: timeout")
	}
	out := map[string]int64{}
	n := 0
	for _, g := range gs {
		w, ok := c.written[g]
		if !ok {
			out[g] = 0
			continue
		}
		if n++; n <= max {
			out[g] = w
		}
	}
	return out, nil
}

// consumerRead is one read of groups each with one caught-up queue at offset off.
func consumerRead(at time.Time, off int64, names ...string) *groups.List {
	l := &groups.List{CheckedAt: at}
	for _, n := range names {
		lag := int64(0)
		l.Groups = append(l.Groups, groups.Summary{Group: n, Online: true, Clients: 1, TotalLag: &lag,
			Queues: []groups.QueueLag{queue("t", 0, off, i64(off), nil)}})
	}
	return l
}

// A consuming group whose dead-letter topic received messages since it was last counted
// has dead letters arriving: a warning counting them, linking to the topic's messages.
// The topic made by the first dead letter counts whole; a group that did not consume is
// not asked about (it cannot have new dead letters) and its finding goes; so does the
// finding of a group counted again with nothing new.
func TestNewMessagesInADeadLetterTopicAreDeadLettersArriving(t *testing.T) {
	c := &dlqCounter{written: map[string]int64{}}
	e := New(Options{DeadLetters: c})
	t0 := time.Date(2026, 12, 6, 10, 0, 0, 0, time.UTC)
	at := func(s int) time.Time { return t0.Add(time.Duration(s) * time.Second) }
	e.Observe(t.Context(), consumerRead(at(0), 10, "pay"))
	if len(c.asked) != 0 {
		t.Fatalf("asked %v at the first read, want nobody (no consume seen yet)", c.asked)
	}
	e.Observe(t.Context(), consumerRead(at(30), 20, "pay")) // consumed; no dead-letter topic yet
	c.written["pay"] = 3                                    // the first dead letters make the topic
	e.Observe(t.Context(), consumerRead(at(60), 30, "pay"))
	fs, _ := e.Findings()
	if len(fs) != 1 || fs[0].Kind != KindDeadLetters || fs[0].Severity != Warning ||
		fs[0].Action != "/messages?tab=range&topic=%25DLQ%25pay" || fs[0].ActionKind != "deadLetters" {
		t.Fatalf("findings %+v, want deadLettersArriving linking to %%DLQ%%pay's messages", fs)
	}
	if got, want := i18n.Match("en").Say(fs[0].Evidence), "3 messages arrived in the dead-letter topic %DLQ%pay between 2026-12-06 10:00:30 UTC and 2026-12-06 10:01:00 UTC: they failed every retry and no consumer will read them. Fix the listener, then resend them from the dead letters."; got != want {
		t.Errorf("evidence %q, want %q", got, want)
	}
	if got := i18n.Match("zh-CN").Say(fs[0].Evidence); got == "" || got == i18n.Match("en").Say(fs[0].Evidence) {
		t.Errorf("Chinese evidence %q", got)
	}
	c.written["pay"] = 5
	e.Observe(t.Context(), consumerRead(at(90), 40, "pay"))
	if fs, _ := e.Findings(); len(fs) != 1 || !fs[0].Since.Equal(at(60)) || !slices.Contains(fs[0].Evidence.Args, any(int64(2))) {
		t.Fatalf("two more: %+v, want deadLettersArriving since %v counting 2", fs, at(60))
	}
	// Counted again with nothing new: gone.
	e.Observe(t.Context(), consumerRead(at(120), 50, "pay"))
	if k := kinds(e); len(k) != 0 {
		t.Fatalf("nothing new: %v, want nothing", k)
	}
	// More arrive, then the group stops consuming and the count fails: what was found
	// stays while the group may still have consumed, and goes without a count once it
	// cannot have.
	c.written["pay"] = 9
	e.Observe(t.Context(), consumerRead(at(150), 60, "pay"))
	if k := kinds(e); len(k) != 1 {
		t.Fatalf("four more: %v, want deadLettersArriving", k)
	}
	c.fail = true
	e.Observe(t.Context(), consumerRead(at(180), 60, "pay"))
	if k := kinds(e); len(k) != 1 {
		t.Fatalf("count failed: %v, want deadLettersArriving kept", k)
	}
	asked := len(c.asked)
	e.Observe(t.Context(), consumerRead(at(210), 60, "pay"))
	if k := kinds(e); len(k) != 0 || len(c.asked) != asked {
		t.Fatalf("stopped consuming: %v, asked %d more times; want nothing, not asked", k, len(c.asked)-asked)
	}
}

// A group whose dead-letter topic existed before its first count is compared from that
// count on: its old dead letters are no arrival. Past the lookups, the groups counted
// longest ago are asked first.
func TestDeadLettersAreCountedFromTheFirstCountWithinTheLookups(t *testing.T) {
	c := &dlqCounter{written: map[string]int64{"a": 100, "b": 100, "c": 100}}
	e := New(Options{DeadLetters: c, DeadLetterLookups: 2})
	t0 := time.Date(2026, 12, 6, 10, 0, 0, 0, time.UTC)
	for i := range 4 {
		e.Observe(t.Context(), consumerRead(t0.Add(time.Duration(i)*30*time.Second), int64(10*i), "a", "b", "c"))
	}
	if k := kinds(e); len(k) != 0 {
		t.Fatalf("old dead letters: %v, want nothing", k)
	}
	// Reads 2, 3 and 4 asked: a and b (never counted), then c (never), then the one of
	// a and b counted longest ago.
	if len(c.asked) != 3 || c.asked[1][0] != "c" {
		t.Fatalf("asked %v, want c first at the second count", c.asked)
	}
	c.written["c"] = 101
	e.Observe(t.Context(), consumerRead(t0.Add(120*time.Second), 40, "a", "b", "c"))
	e.Observe(t.Context(), consumerRead(t0.Add(150*time.Second), 50, "a", "b", "c"))
	if fs, _ := e.Findings(); len(fs) != 1 || fs[0].Group != "c" {
		t.Fatalf("one more in c's topic: %+v, want deadLettersArriving of c", fs)
	}
}
