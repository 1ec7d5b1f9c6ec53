package lookup

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync"
	"time"

	"rmqconsole/clock"
	"rmqconsole/cluster"
	"rmqconsole/filter"
	"rmqconsole/rocketmq"
)

// TailQuery is a live tail: the messages of a topic stored from now on, across every
// queue of every broker, those the filter keeps.
type TailQuery struct {
	Topic string
	// Filter keeps only the messages it matches (SQL92 on properties, body conditions);
	// nil keeps all. It was compiled, and so checked, by the caller.
	Filter *filter.Filter
}

// Validate checks the query without asking any broker.
func (q *TailQuery) Validate() error {
	q.Topic = strings.TrimSpace(q.Topic)
	return checkTopic(q.Topic)
}

// key names the tail a hub shares among its viewers: one per topic and filter.
func (q TailQuery) key() string {
	if q.Filter.IsZero() {
		return q.Topic
	}
	return q.Topic + "?" + q.Filter.Key()
}

// TailEvent is what a running tail reports: messages newly stored (one queue's, in
// queue order), that it has started, or the brokers failing now.
type TailEvent struct {
	// Started is set once, when every queue's starting offset is known: messages stored
	// from then on are reported.
	Started time.Time
	// Messages are one queue's new messages the filter kept, in queue order.
	Messages []Message
	// Failures, when FailuresChanged, are the brokers failing now (nil: none).
	Failures        []BrokerFailure
	FailuresChanged bool
}

// Tuning of a live tail.
const (
	// tailHold is how long a broker holds a tail's pull when nothing new is stored: long
	// enough to cost little, short enough that a queue gone from the route is let go soon.
	tailHold = 10 * time.Second
	// tailRouteEvery is how often a tail reads the topic's route again, to follow
	// queues added to the topic and brokers joining or leaving it.
	tailRouteEvery = 10 * time.Second
	// tailRetryMin and tailRetryMax bound the wait before a failed pull is tried again,
	// doubling in between.
	tailRetryMin = 500 * time.Millisecond
	tailRetryMax = 5 * time.Second
	// tailQuickAnswer is an empty answer that came back too fast to have been held (a
	// slave's consume-queue read, a broker with long polling off): the next pull waits
	// tailIdle, so an idle queue is not asked in a loop.
	tailQuickAnswer = 50 * time.Millisecond
	tailIdle        = 500 * time.Millisecond
)

// opTail names a tail's broker calls in its failures.
const opTail = "live tail"

// Follow runs a live tail of q until ctx ends, reporting to emit: first Started, then
// every new message the filter keeps, exactly once and in order within its queue, and
// the brokers failing whenever that set changes. emit is called from several goroutines
// (one per queue), one call at a time per queue. Each queue is read from its max offset
// as Follow starts, with pulls the broker holds until something arrives (long polling);
// each pull goes on from where the last one ended, so nothing is read twice or skipped.
// Queues added to the route later are read from the offset of Follow's start time. An
// error is returned only when the tail could not start (the topic's route).
func (s *Service) Follow(ctx context.Context, q TailQuery, emit func(TailEvent)) error {
	every := s.tailRouteEvery
	if every <= 0 {
		every = tailRouteEvery
	}
	return s.follow(ctx, q, emit, every)
}

// tailReader is the reader of one queue: the broker it asks, and how to stop it.
type tailReader struct {
	broker cluster.Broker
	stop   context.CancelFunc
}

// tailRun is a tail under way: its queues' readers and the brokers failing now.
type tailRun struct {
	s       *Service
	q       TailQuery
	emit    func(TailEvent)
	started time.Time

	// mu guards the maps, and orders the events: a stopped reader reports nothing more.
	mu      sync.Mutex
	readers map[rocketmq.MessageQueue]tailReader
	// offsets are where each queue read so far goes on: a queue that leaves the route
	// and comes back is read on from there, not again.
	offsets map[rocketmq.MessageQueue]int64
	failing map[string]BrokerFailure // broker name -> its last failure
	wg      sync.WaitGroup
}

func (s *Service) follow(ctx context.Context, q TailQuery, emit func(TailEvent), routeEvery time.Duration) error {
	if err := q.Validate(); err != nil {
		return err
	}
	t := &tailRun{s: s, q: q, emit: emit, readers: map[rocketmq.MessageQueue]tailReader{},
		offsets: map[rocketmq.MessageQueue]int64{}, failing: map[string]BrokerFailure{}}
	defer t.wg.Wait()
	ctx, stop := context.WithCancel(ctx)
	defer stop()
	route, err := s.route(s.cluster.Fanout(ctx), q.Topic, opTail)
	if err != nil {
		return err
	}
	// A queue whose broker does not answer now is read, once it does, from this time.
	t.started = time.Now()
	t.follow(ctx, route, true)
	// Every answering queue is read from its max offset as read just now.
	emit(TailEvent{Started: time.Now()})
	tick := time.NewTicker(routeEvery)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-tick.C:
		}
		route, err := s.cluster.Route(ctx, q.Topic)
		if err != nil {
			if ctx.Err() == nil {
				t.fail(BrokerFailure{Broker: "topic " + q.Topic, Topic: q.Topic, Op: "route", Err: err})
			}
			continue
		}
		t.clear("topic " + q.Topic)
		t.gone(route)
		t.follow(ctx, route, false)
	}
}

// follow starts a reader for each queue of route not read yet, and stops those of
// queues the route no longer has. At the start every queue begins at its max offset;
// later, a queue new to the route begins at the tail's start time, so the messages
// stored in it meanwhile are not lost.
func (t *tailRun) follow(ctx context.Context, route *cluster.Route, first bool) {
	queues := route.ReadQueues()
	t.mu.Lock()
	for mq, r := range t.readers {
		// A queue gone from the route is let go; one whose broker has other addresses
		// now (a new master) is read again from where it was, at those addresses.
		if b, ok := route.Broker(mq.BrokerName); !ok || !slices.Contains(queues, mq) || !slices.Equal(b.Addrs(), r.broker.Addrs()) {
			r.stop()
			delete(t.readers, mq)
		}
	}
	var added []rocketmq.MessageQueue
	starts := make([]int64, 0, len(queues))
	for _, mq := range queues {
		if _, ok := t.readers[mq]; !ok {
			added = append(added, mq)
			starts = append(starts, -1)
			if off, ok := t.offsets[mq]; ok {
				starts[len(starts)-1] = off
			}
		}
	}
	t.mu.Unlock()
	// The starting offsets are read before any reader starts, so Started means every
	// queue is read from then on.
	var wg sync.WaitGroup
	for i, mq := range added {
		b, ok := route.Broker(mq.BrokerName)
		if !ok || starts[i] >= 0 {
			continue
		}
		wg.Go(func() { starts[i] = t.startOffset(ctx, b, mq, first) })
	}
	wg.Wait()
	t.mu.Lock()
	defer t.mu.Unlock()
	for i, mq := range added {
		b, ok := route.Broker(mq.BrokerName)
		if !ok || ctx.Err() != nil {
			continue
		}
		rctx, stop := context.WithCancel(ctx)
		t.readers[mq] = tailReader{broker: b, stop: stop}
		since := int64(0)
		if _, readBefore := t.offsets[mq]; !first && !readBefore {
			since = t.started.UnixMilli()
		}
		t.wg.Go(func() { t.read(rctx, b, mq, starts[i], since) })
	}
}

// startOffset is where mq is read from: its max offset (first), or the offset of the
// tail's start time; -1 when its broker did not answer (the reader asks again, by time).
// One failing broker does not hold up the start of the others' queues.
func (t *tailRun) startOffset(ctx context.Context, b cluster.Broker, mq rocketmq.MessageQueue, first bool) int64 {
	var off int64
	err := t.ask(ctx, b, func(ctx context.Context, addr string) error {
		var err error
		if first {
			off, err = t.s.maxOffset(ctx, addr, mq)
		} else {
			off, err = t.s.admin.SearchOffset(ctx, addr, mq, t.started, rocketmq.BoundaryLower)
		}
		return err
	})
	if err != nil {
		return -1
	}
	return off
}

// offsetSinceStart asks, until its broker answers or ctx ends, for the offset of the
// first message of mq stored since the tail started; false when ctx ended.
func (t *tailRun) offsetSinceStart(ctx context.Context, b cluster.Broker, mq rocketmq.MessageQueue) (int64, bool) {
	wait := tailRetryMin
	for {
		var off int64
		err := t.ask(ctx, b, func(ctx context.Context, addr string) error {
			var err error
			off, err = t.s.admin.SearchOffset(ctx, addr, mq, t.started, rocketmq.BoundaryLower)
			return err
		})
		if err == nil {
			return off, true
		}
		if !clock.Sleep(ctx, wait) {
			return 0, false
		}
		wait = min(wait*2, tailRetryMax)
	}
}

// maxOffsetReader is the admin call that reads a queue's max offset without a pull.
type maxOffsetReader interface {
	MaxOffset(ctx context.Context, addr string, mq rocketmq.MessageQueue) (int64, error)
}

// maxOffset is the offset mq's next message gets.
func (s *Service) maxOffset(ctx context.Context, addr string, mq rocketmq.MessageQueue) (int64, error) {
	if r, ok := s.admin.(maxOffsetReader); ok {
		return r.MaxOffset(ctx, addr, mq)
	}
	r, err := s.admin.Pull(ctx, addr, mq, 0, 1)
	if err != nil {
		return 0, err
	}
	return r.MaxOffset, nil
}

// read follows one queue from offset until ctx ends. Messages stored before since
// (epoch ms; 0 for none) are left out: a queue found later starts at an offset searched
// by time, which may be a message early.
func (t *tailRun) read(ctx context.Context, b cluster.Broker, mq rocketmq.MessageQueue, offset, since int64) {
	if offset < 0 {
		// Its broker did not answer when the tail started: what it stored since then is
		// read once it answers.
		var ok bool
		if offset, ok = t.offsetSinceStart(ctx, b, mq); !ok {
			return
		}
		since = t.started.UnixMilli()
	}
	wait := tailRetryMin
	for ctx.Err() == nil {
		var r *rocketmq.PullResult
		began := time.Now()
		err := t.ask(ctx, b, func(ctx context.Context, addr string) error {
			var err error
			r, err = t.s.admin.PullHeld(ctx, addr, mq, offset, pullBatch, tailHold)
			return err
		})
		if err != nil {
			if !clock.Sleep(ctx, wait) {
				return
			}
			wait = min(wait*2, tailRetryMax)
			continue
		}
		wait = tailRetryMin
		switch r.Status {
		case rocketmq.PullFound:
			var kept []Message
			next := offset
			for _, m := range r.Messages {
				if m.QueueOffset < offset {
					continue // read already
				}
				next = max(next, m.QueueOffset+1)
				if m.StoreTimestamp >= since && t.q.Filter.Match(m) {
					kept = append(kept, Message{BrokerName: b.Name, Message: m})
				}
			}
			moved := max(next, r.NextBeginOffset) > offset
			offset = max(next, r.NextBeginOffset)
			if !t.readTo(ctx, mq, offset, kept) {
				return
			}
			if !moved && !clock.Sleep(ctx, tailIdle) { // an answer that does not move on: do not spin
				return
			}
		case rocketmq.PullNoNewMsg:
			if time.Since(began) < tailQuickAnswer && !clock.Sleep(ctx, tailIdle) {
				return
			}
		default: // no match, or an offset outside the queue: go on where the broker says
			if r.NextBeginOffset != offset {
				offset = r.NextBeginOffset
				if !t.readTo(ctx, mq, offset, nil) {
					return
				}
			} else if !clock.Sleep(ctx, tailIdle) {
				return
			}
		}
	}
}

// ask calls b for the tail: its master, then (when the master does not answer) its
// slaves, as every read does. A failure names the broker until it answers again.
func (t *tailRun) ask(ctx context.Context, b cluster.Broker, call func(ctx context.Context, addr string) error) error {
	addrs := t.s.cluster.ReadOrder(b)
	if len(addrs) == 0 || addrs[0] == "" {
		err := errors.New("the NameServer lists no address for broker " + b.Name)
		t.fail(BrokerFailure{Broker: b.Name, Topic: t.q.Topic, Op: opTail, Err: err})
		return err
	}
	var err error
	var addr string
	for _, addr = range addrs {
		err = call(ctx, addr)
		if err == nil {
			t.clear(b.Name)
			return nil
		}
		if ctx.Err() != nil {
			return err // the tail is stopping: no broker's failure
		}
		if !cluster.Unanswered(err) {
			break
		}
	}
	t.fail(BrokerFailure{Broker: b.Name, Addr: addr, Topic: t.q.Topic, Op: opTail, Err: err})
	return err
}

// readTo reports what a reader of mq kept from its last pull and records where its
// reading goes on, unless the reader was stopped (ctx): then a reader that replaced it
// reads them, and it returns false. One lock makes the two one step, so no message is
// reported by both.
func (t *tailRun) readTo(ctx context.Context, mq rocketmq.MessageQueue, offset int64, kept []Message) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	if ctx.Err() != nil {
		return false
	}
	if len(kept) > 0 {
		t.emit(TailEvent{Messages: kept})
	}
	t.offsets[mq] = offset
	return true
}

// gone names the brokers that served the topic a moment ago and are missing from its
// route now, and forgets the failures of brokers neither in the route nor missing.
func (t *tailRun) gone(route *cluster.Route) {
	missing := map[string]bool{}
	for _, g := range route.Gone {
		missing[g.Name] = true
		t.fail(g.Failure(t.q.Topic, opTail))
	}
	t.mu.Lock()
	var forget []string
	for name := range t.failing {
		if _, ok := route.Broker(name); !ok && !missing[name] && !strings.HasPrefix(name, "topic ") {
			forget = append(forget, name)
		}
	}
	t.mu.Unlock()
	for _, name := range forget {
		t.clear(name)
	}
}

// fail records f as its broker's failure and reports the failing brokers when the set
// changed (a broker's newer error of the same kind changes nothing).
func (t *tailRun) fail(f BrokerFailure) {
	t.mu.Lock()
	old, had := t.failing[f.Broker]
	t.failing[f.Broker] = f
	defer t.mu.Unlock()
	if !had || old.Addr != f.Addr || old.Code() != f.Code() {
		t.emit(TailEvent{Failures: t.failuresLocked(), FailuresChanged: true})
	}
}

// clear forgets the broker's failure: it answered again.
func (t *tailRun) clear(broker string) {
	t.mu.Lock()
	_, had := t.failing[broker]
	delete(t.failing, broker)
	defer t.mu.Unlock()
	if had {
		t.emit(TailEvent{Failures: t.failuresLocked(), FailuresChanged: true})
	}
}

func (t *tailRun) failuresLocked() []BrokerFailure {
	var out []BrokerFailure
	for _, f := range t.failing {
		out = append(out, f)
	}
	cluster.SortFailures(out)
	return out
}
