package lookup

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"sync"
	"testing"
	"time"

	rmq "github.com/apache/rocketmq-client-go/v2"
	"github.com/apache/rocketmq-client-go/v2/primitive"

	"rmqconsole/dev"
	"rmqconsole/dev/rmqclient"
	"rmqconsole/filter"
	"rmqconsole/rocketmq"
)

// tailRead is what one viewer read of a tail.
type tailRead struct {
	mu   sync.Mutex
	msgs []Message
	at   []time.Time // when each was received
	skip int64
}

func (r *tailRead) count() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.msgs)
}

// readTail reads v's frames into r until ctx ends, after the start.
func readTail(ctx context.Context, v *TailViewer, r *tailRead) {
	for {
		f, err := v.Next(ctx)
		if err != nil {
			return
		}
		r.mu.Lock()
		switch f.Kind {
		case TailMessage:
			r.msgs = append(r.msgs, f.Message)
			r.at = append(r.at, time.Now())
		case TailSkipped:
			r.skip += f.Skipped
		}
		r.mu.Unlock()
	}
}

// awaitStart waits for v's start frame: from then on every queue is read.
func awaitStart(t testing.TB, v *TailViewer) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for {
		f, err := v.Next(ctx)
		if err != nil {
			t.Fatalf("the tail did not start: %v", err)
		}
		if f.Kind == TailStarted {
			return
		}
	}
}

// A live tail of a real topic, while a real producer sends: every message stored after
// the tail started arrives exactly once, in queue order, none stored before it; two
// viewers share one tail (one puller), a filtered viewer gets only its matches from a
// tail of its own, a queue added to the topic meanwhile is followed, and the tail stops
// when its last viewer leaves.
func TestIntegrationTailSeesEveryNewMessageOnceInQueueOrder(t *testing.T) {
	e, topic, p := startIT(t, "tail", 4)
	svc := New(e.c, Options{Tail: TailOptions{Rate: 1_000_000, Buffer: 1_000_000, RouteEvery: 200 * time.Millisecond}})
	before := sendAll(t, p, 2, msg(topic, "before-0", "", nil, nil), msg(topic, "before-1", "", nil, nil))

	ctx := ctxT(t)
	// A send is answered once the message is in the commit log; the broker puts it in its
	// queue's index a moment later, and only then does the queue's max offset, where the
	// tail starts, count it. On a loaded machine that moment can outlast the tail's start.
	waitFor(t, 30*time.Second, "the messages sent before the tail are in their queues' max offsets", func() bool {
		var stored int64
		for _, br := range e.cl.Brokers {
			st, err := e.c.TopicStats(ctx, br.Addr, topic)
			if err != nil {
				return false
			}
			for _, o := range st.Offsets {
				stored += o.MaxOffset
			}
		}
		return stored >= int64(len(before))
	})
	a, err := svc.Tail(ctx, TailQuery{Topic: topic}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	b, err := svc.Tail(ctx, TailQuery{Topic: topic}, nil)
	if err != nil {
		t.Fatal(err)
	}
	flt, err := filter.Compile(filter.Query{Where: "parity = 'even'"})
	if err != nil {
		t.Fatal(err)
	}
	even, err := svc.Tail(ctx, TailQuery{Topic: topic, Filter: flt}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer even.Close()
	if n := svc.Tails().Starts(); n != 2 {
		t.Fatalf("two viewers of one tail and a filtered one started %d tails, want 2", n)
	}
	for _, v := range []*TailViewer{a, b, even} {
		awaitStart(t, v)
	}
	reads := []*tailRead{{}, {}, {}}
	rctx, stopReading := context.WithCancel(ctx)
	defer stopReading()
	var wg sync.WaitGroup
	for i, v := range []*TailViewer{a, b, even} {
		wg.Go(func() { readTail(rctx, v, reads[i]) })
	}

	const n = 200
	ms := make([]*primitive.Message, n)
	for i := range ms {
		parity := map[bool]string{true: "even", false: "odd"}[i%2 == 0]
		ms[i] = msg(topic, fmt.Sprintf("tail-%d", i), "", nil, map[string]string{"parity": parity})
	}
	sent := sendAll(t, p, 4, ms...)

	// A queue added to the topic on every broker while the tail runs, written to by our
	// own client straight away, before any producer knows the route has it.
	for _, br := range e.cl.Brokers {
		if err := e.c.CreateTopic(ctx, br.Addr, rocketmq.TopicConfig{TopicName: topic, ReadQueueNums: 5, WriteQueueNums: 5, Perm: 6}); err != nil {
			t.Fatal(err)
		}
	}
	br := e.cl.Brokers[0]
	late := rocketmq.MessageQueue{Topic: topic, BrokerName: br.Name, QueueID: 4}
	waitFor(t, 30*time.Second, "the NameServer routes the added queue", func() bool {
		r, err := e.c.TopicRoute(ctx, topic)
		return err == nil && slices.Contains(r.ReadQueues(), late)
	})
	uk := rocketmq.NewUniqueKey()
	if _, err := e.c.SendMessage(ctx, br.Addr, late, "tail-it", rocketmq.OutgoingMessage{Topic: topic, Body: []byte("late"),
		Properties: map[string]string{rocketmq.PropertyUniqueKey: uk, "parity": "even"}}); err != nil {
		t.Fatal(err)
	}

	waitFor(t, 60*time.Second, "every message reaches both viewers", func() bool {
		return reads[0].count() >= n+1 && reads[1].count() >= n+1 && reads[2].count() >= n/2+1
	})
	stopReading()
	wg.Wait()

	want := map[string]bool{uk: true}
	for _, s := range sent {
		want[s.uniq] = true
	}
	for _, s := range before {
		if want[s.uniq] {
			t.Fatal("a message sent before the tail is among those sent after it")
		}
	}
	for i, r := range reads[:2] {
		seen := map[string]int{}
		lastOffset := map[rocketmq.MessageQueue]int64{}
		for _, m := range r.msgs {
			seen[m.UniqueKey()]++
			mq := rocketmq.MessageQueue{Topic: topic, BrokerName: m.BrokerName, QueueID: m.QueueID}
			if last, ok := lastOffset[mq]; ok && m.QueueOffset != last+1 {
				t.Errorf("viewer %d: %s offset %d after %d, want the next one", i, mq, m.QueueOffset, last)
			}
			lastOffset[mq] = m.QueueOffset
		}
		for k, c := range seen {
			if c != 1 || !want[k] {
				t.Errorf("viewer %d: %s arrived %d times (sent after the tail started: %v)", i, k, c, want[k])
			}
		}
		if len(seen) != len(want) || r.skip != 0 {
			t.Errorf("viewer %d: %d distinct messages, %d skipped; want %d, none skipped", i, len(seen), r.skip, len(want))
		}
	}
	for _, m := range reads[2].msgs {
		if m.Properties["parity"] != "even" {
			t.Errorf("the filtered viewer got %s with parity %q", m.UniqueKey(), m.Properties["parity"])
		}
	}
	if len(reads[2].msgs) != n/2+1 {
		t.Errorf("the filtered viewer got %d messages, want %d", len(reads[2].msgs), n/2+1)
	}

	a.Close()
	if svc.Tails().Running() != 2 {
		t.Errorf("one of two viewers left: %d tails running, want 2", svc.Tails().Running())
	}
	b.Close()
	even.Close()
	waitFor(t, 10*time.Second, "the tails stop with their last viewers", func() bool { return svc.Tails().Running() == 0 })
}

// BenchmarkTailLatency measures how soon a message stored reaches a tail's viewer: a
// real producer sends 200 messages at 50 a second while the tail runs, and each
// message's store time (the broker's clock, on this machine) is compared with the time
// its frame was received. Metrics: ms-p50 and ms-p95 of store → frame, and, as the
// baseline of the same run, ack-ms-p95: store → the producer's SendSync returning.
func BenchmarkTailLatency(b *testing.B) {
	e := newIT(b)
	topic := e.topic(b, "tail-bench", 4)
	p := rmqclient.StartProducer(b, e.cl.NameServer, "")
	svc := New(e.c, Options{Tail: TailOptions{Rate: 1_000_000, Buffer: 1_000_000}})
	var lat, ack []float64
	for b.Loop() {
		l, a := tailLatencyRound(b, svc, p, topic, 200, 50)
		lat, ack = append(lat, l...), append(ack, a...)
	}
	b.ReportMetric(percentile(lat, 50), "ms-p50")
	b.ReportMetric(percentile(lat, 95), "ms-p95")
	b.ReportMetric(percentile(ack, 95), "ack-ms-p95")
}

// tailLatencyRound sends n messages at rate a second while a tail of topic runs, and
// returns store → frame and store → send acknowledged, in ms, per message.
func tailLatencyRound(b *testing.B, svc *Service, p rmq.Producer, topic string, n, rate int) (lat, ack []float64) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	v, err := svc.Tail(ctx, TailQuery{Topic: topic}, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer v.Close()
	awaitStart(b, v)
	r := &tailRead{}
	rctx, stop := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() { defer close(done); readTail(rctx, v, r) }()
	acked := map[string]time.Time{}
	tick := time.NewTicker(time.Second / time.Duration(rate))
	for i := range n {
		<-tick.C
		res, err := p.SendSync(ctx, primitive.NewMessage(topic, fmt.Appendf(nil, "latency-%d", i)))
		if err != nil {
			b.Fatal(err)
		}
		acked[res.MsgID] = time.Now()
	}
	tick.Stop()
	waitFor(b, 30*time.Second, "every message reaches the tail", func() bool { return r.count() >= n })
	stop()
	<-done
	for i, m := range r.msgs {
		stored := time.UnixMilli(m.StoreTimestamp)
		lat = append(lat, float64(r.at[i].Sub(stored).Microseconds())/1000)
		if at, ok := acked[m.UniqueKey()]; ok {
			ack = append(ack, float64(at.Sub(stored).Microseconds())/1000)
		}
	}
	return lat, ack
}

// percentile is the p-th percentile of xs (nearest rank).
func percentile(xs []float64, p float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	sort.Float64s(s)
	i := int(float64(len(s))*p/100+0.5) - 1
	return s[min(max(i, 0), len(s)-1)]
}

// waitFor polls cond until it holds, failing t after timeout.
func waitFor(t testing.TB, timeout time.Duration, what string, cond func() bool) {
	t.Helper()
	dev.Eventually(t, timeout, what, func() error {
		if cond() {
			return nil
		}
		return errors.New("not yet")
	})
}
