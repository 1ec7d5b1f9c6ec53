package groups

import (
	"context"
	"strings"
	"testing"
	"time"

	"rmqconsole/cluster/clustertest"
	"rmqconsole/rocketmq"
)

// behind makes group's offset on queue 0 of its topic T-<group> stop before messages stored ago, ago-1s, …
// and queue 1 caught up.
func behind(f scenario, group string, ago ...time.Duration) {
	topic := "T-" + group
	f.setTopic(topic, map[string]int{"broker-a": 2})
	f.group(group)
	q0, q1 := mq(topic, "broker-a", 0), mq(topic, "broker-a", 1)
	for f.MaxOffset(q0) < 3 {
		f.Put(topic, "broker-a", 0, clustertest.NewMessage("", "", nil, "", time.Now().Add(-time.Hour)))
	}
	f.SetOffset(group, q0, f.MaxOffset(q0))
	for _, a := range ago {
		f.Put(topic, "broker-a", 0, clustertest.NewMessage("", "", nil, "", time.Now().Add(-a)))
	}
	f.Put(topic, "broker-a", 1, clustertest.NewMessage("", "", nil, "", time.Now().Add(-time.Hour)))
	f.SetOffset(group, q1, 1)
}

func near(ms *int64, want time.Duration) bool {
	return ms != nil && time.Duration(*ms)*time.Millisecond >= want-2*time.Second && time.Duration(*ms)*time.Millisecond <= want+2*time.Second
}

// The time behind of a queue is the age of the message at the committed offset, 0 when
// caught up; the group's is the largest.
func TestDetailSaysHowOldTheOldestUnconsumedMessageIs(t *testing.T) {
	f := newScenario()
	behind(f, "G", 40*time.Second, 10*time.Second)
	d, err := NewService(f, Options{}).Detail(context.Background(), "G")
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range d.Queues {
		switch q.QueueID {
		case 0:
			if !near(q.LagTimeMs, 40*time.Second) {
				t.Errorf("queue 0 (2 behind, the oldest 40 s old): time behind %v (%s)", q.LagTimeMs, q.LagTimeUnknown.String())
			}
		case 1:
			if q.LagTimeMs == nil || *q.LagTimeMs != 0 {
				t.Errorf("queue 1 (caught up): time behind %v (%s), want 0", q.LagTimeMs, q.LagTimeUnknown.String())
			}
		}
	}
	if !near(d.MaxLagTimeMs, 40*time.Second) {
		t.Errorf("group time behind %v (%s), want about 40 s", d.MaxLagTimeMs, d.MaxLagTimeNote.String())
	}
}

// The list reads at most LagTimeLookups store times per pass, the most lagging first, and
// remembers them while the offset stays: the next pass reads only the others.
func TestListReadsABoundedNumberOfTimesBehindAndRemembersThem(t *testing.T) {
	f := newScenario()
	behind(f, "few", 20*time.Second)
	behind(f, "many", 30*time.Second, 20*time.Second, 10*time.Second)
	s := NewService(f, Options{LagTimeLookups: 1})
	l, err := s.List(context.Background(), true)
	if err != nil {
		t.Fatal(err)
	}
	if g := find(l, "many"); !near(g.MaxLagTimeMs, 30*time.Second) {
		t.Errorf("many: %v (%s), want about 30 s read first", g.MaxLagTimeMs, g.MaxLagTimeNote.String())
	}
	if g := find(l, "few"); g.MaxLagTimeMs == nil || *g.MaxLagTimeMs != 0 || !strings.Contains(g.MaxLagTimeNote.String(), "Not read in this pass") {
		// its caught-up queue is known (0); the lagging one is left out and says so
		t.Errorf("few: %v (%q), want 0 leaving out the queue not read", g.MaxLagTimeMs, g.MaxLagTimeNote.String())
	}
	before := f.Calls()["ConsumeTimeSpan"]
	l, _ = s.List(context.Background(), true)
	if n := f.Calls()["ConsumeTimeSpan"] - before; n != 1 {
		t.Errorf("second pass made %d store-time reads, want 1 (many's is remembered)", n)
	}
	if g := find(l, "few"); !near(g.MaxLagTimeMs, 20*time.Second) || !near(find(l, "many").MaxLagTimeMs, 30*time.Second) {
		t.Errorf("second pass: few %v, many %v", g.MaxLagTimeMs, find(l, "many").MaxLagTimeMs)
	}
}

// oddSpans is a broker whose time span puts the queue's oldest message later than the
// store time it gives for the message at the committed offset.
// Its min offsets are min's (0 for the rest), as after the broker deleted old files.
type oddSpans struct {
	scenario
	min map[rocketmq.MessageQueue]int64
}

func (o oddSpans) TopicStats(ctx context.Context, addr, topic string) (*rocketmq.TopicStats, error) {
	ts, err := o.Fake.TopicStats(ctx, addr, topic)
	if err != nil {
		return nil, err
	}
	for mq, to := range ts.Offsets {
		to.MinOffset = o.min[mq]
		ts.Offsets[mq] = to
	}
	return ts, nil
}

func (o oddSpans) ConsumeTimeSpan(ctx context.Context, addr, topic, group string) ([]rocketmq.QueueTimeSpan, error) {
	spans, err := o.Fake.ConsumeTimeSpan(ctx, addr, topic, group)
	for i := range spans {
		spans[i].MinTimeStamp += (10 * time.Minute).Milliseconds()
	}
	return spans, err
}

// A queue whose committed offset 0 is also its min offset still stores the message there:
// the page says so with the min offset beside it, never that the message is gone; a queue
// whose committed offset is below its min offset is the one that says gone.
func TestOffsetZeroAtMinOffsetZeroIsNotCalledGone(t *testing.T) {
	f := newScenario()
	f.setTopic("T", map[string]int{"broker-a": 2})
	f.group("G")
	for qid := range 2 {
		for range 3 {
			f.Put("T", "broker-a", qid, clustertest.NewMessage("", "", nil, "", time.Now().Add(-time.Hour)))
		}
	}
	f.SetOffset("G", mq("T", "broker-a", 0), 0)
	f.SetOffset("G", mq("T", "broker-a", 1), 1)
	odd := oddSpans{f, map[rocketmq.MessageQueue]int64{mq("T", "broker-a", 1): 2}}
	d, err := NewService(odd, Options{}).Detail(context.Background(), "G")
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range d.Queues {
		note := q.LagTimeUnknown.String()
		switch q.QueueID {
		case 0:
			if q.MinOffset == nil || *q.MinOffset != 0 || strings.Contains(note, "no longer stored") || !strings.Contains(note, "still stores") {
				t.Errorf("committed 0, min offset 0: min offset %v, note %q", q.MinOffset, note)
			}
		case 1:
			if q.MinOffset == nil || *q.MinOffset != 2 || !strings.Contains(note, "offset 1 is no longer stored") {
				t.Errorf("committed 1, min offset 2: min offset %v, note %q", q.MinOffset, note)
			}
		}
	}
}

// deletable is a broker that, once deleted is set, has deleted the messages below min:
// the store time it gives for the committed offset is older than its oldest message.
type deletable struct {
	oddSpans
	deleted *bool
}

func (d deletable) TopicStats(ctx context.Context, addr, topic string) (*rocketmq.TopicStats, error) {
	if !*d.deleted {
		return d.Fake.TopicStats(ctx, addr, topic)
	}
	return d.oddSpans.TopicStats(ctx, addr, topic)
}

func (d deletable) ConsumeTimeSpan(ctx context.Context, addr, topic, group string) ([]rocketmq.QueueTimeSpan, error) {
	spans, err := d.Fake.ConsumeTimeSpan(ctx, addr, topic, group)
	for i := range spans {
		if *d.deleted { // the oldest message left is newer than any the clock may say
			spans[i].MinTimeStamp += (time.Hour).Milliseconds()
		}
	}
	return spans, err
}

// A remembered store time is read again after storeTimeFresh: a group that stays behind
// at one offset while the broker deletes the message there is then shown with the
// queue's min offset above its committed one (what the diagnosis calls messages lost),
// not with the age it had before the deletion forever.
func TestARememberedStoreTimeIsReadAgainSoADeletedMessageShows(t *testing.T) {
	f := newScenario()
	f.setTopic("T", map[string]int{"broker-a": 1})
	f.group("G")
	for range 3 {
		f.Put("T", "broker-a", 0, clustertest.NewMessage("", "", nil, "", time.Now().Add(-time.Hour)))
	}
	f.SetOffset("G", mq("T", "broker-a", 0), 1)
	deleted := false
	b := deletable{oddSpans{f, map[rocketmq.MessageQueue]int64{mq("T", "broker-a", 0): 2}}, &deleted}
	now := time.Now()
	s := NewService(b, Options{Now: func() time.Time { return now }})
	minOffset := func() *int64 {
		t.Helper()
		l, err := s.List(context.Background(), true)
		if err != nil {
			t.Fatal(err)
		}
		return find(l, "G").Queues[0].MinOffset
	}
	if m := minOffset(); m != nil {
		t.Fatalf("before the deletion: min offset %d read, want none", *m)
	}
	deleted = true
	now = now.Add(storeTimeFresh - time.Second)
	if m := minOffset(); m != nil {
		t.Fatalf("within storeTimeFresh: min offset %d read, want the remembered store time", *m)
	}
	now = now.Add(time.Second)
	if m := minOffset(); m == nil || *m != 2 {
		t.Fatalf("after storeTimeFresh: min offset %v, want 2 (the message at the committed 1 deleted)", m)
	}
}
