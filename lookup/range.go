package lookup

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"sync"
	"time"

	"golang.org/x/sync/errgroup"

	"rmqconsole/rocketmq"
)

// pullBatch is the most messages one PULL_MESSAGE returns (the broker's cap for
// messages in memory).
const pullBatch = 32

// maxCutRounds bounds the search for the cut time; bisection over milliseconds needs
// fewer than 45 rounds for any range a broker can hold.
const maxCutRounds = 48

// window is one queue's share of a range query: the offsets [lo, hi) hold the messages
// stored within the range, and the offsets [top, hi) have been read already.
type window struct {
	broker string
	addr   string
	mq     rocketmq.MessageQueue
	lo, hi int64
	top    int64
}

// ByRange returns the newest q.Limit messages of the topic stored within [q.Begin,
// q.End], across every queue of every broker, newest first.
//
// It never pulls much more than it returns. For each queue it asks the broker for the
// offsets at Begin and just after End (SEARCH_OFFSET_BY_TIMESTAMP), which also counts
// exactly what the range holds. When that is more than the limit, it searches for the
// store time T at which the queues together hold just enough messages (again with
// offset searches only), and then pulls, in parallel, only the messages stored at or
// after T. With a tag filter the match count is not known in advance: it pulls in
// slices going back in time until one more than the limit matched, or the range is
// exhausted.
func (s *Service) ByRange(ctx context.Context, q RangeQuery) (*Result, error) {
	if err := q.Validate(); err != nil {
		return nil, err
	}
	route, brokers, routeFails, err := s.route(ctx, q.Topic)
	if err != nil {
		return nil, err
	}
	var fails failures
	for _, f := range routeFails {
		fails.add(f.Broker, f.Err)
	}
	windows, newest := s.windows(ctx, route, brokers, q.Begin, q.End, &fails)

	res := &Result{Limit: q.Limit}
	for _, w := range windows {
		res.InRange += w.hi - w.lo
	}
	need := int64(q.Limit)
	if q.Tag != "" {
		need++ // one more than the limit proves the result is truncated
	}
	filter := func(m *rocketmq.Message) bool {
		if m.StoreTimestamp < q.Begin.UnixMilli() || m.StoreTimestamp > q.End.UnixMilli() {
			return false
		}
		return q.Tag == "" || m.Tags() == q.Tag
	}

	var found []Message
	var scanned int64
	topTime := q.End.UnixMilli() + 1 // every unread message is stored before topTime
	if newest > 0 && newest < q.End.UnixMilli() {
		topTime = newest + 1
	}
	for {
		remaining := int64(0)
		for _, w := range windows {
			if !fails.failed(w.broker) {
				remaining += w.top - w.lo
			}
		}
		if remaining <= 0 || int64(len(found)) >= need || ctx.Err() != nil {
			break
		}
		want := need - int64(len(found))
		if q.Tag != "" && scanned > 0 {
			// Scale by the share of messages that matched so far; with no match yet,
			// read eight times more than before.
			if len(found) == 0 {
				want = scanned * 8
			} else {
				want = want * scanned / int64(len(found))
			}
		}
		cuts := make([]int64, len(windows))
		cutTime := q.Begin.UnixMilli()
		if remaining <= want+slack(want) {
			for i, w := range windows {
				cuts[i] = w.lo
			}
		} else {
			cutTime, cuts = s.cut(ctx, windows, q.Begin.UnixMilli(), topTime, remaining, want, &fails)
		}
		msgs, n := s.pullWindows(ctx, windows, cuts, filter, &fails)
		found = append(found, msgs...)
		scanned += n
		for i := range windows {
			windows[i].top = cuts[i]
		}
		topTime = cutTime
	}

	slices.SortFunc(found, newestFirst)
	res.Failures = fails.all()
	switch {
	case q.Tag == "":
		res.Total = res.InRange
	default:
		res.Total = int64(len(found))
		// Unread messages remain only when the search stopped early on a full result.
		for _, w := range windows {
			if !fails.failed(w.broker) && w.top > w.lo {
				res.TotalIsLowerBound = true
				break
			}
		}
	}
	res.Truncated = res.Total > int64(q.Limit)
	if len(found) > q.Limit {
		found = found[:q.Limit]
	}
	res.Messages = found
	return res, nil
}

// newestFirst orders messages by store time, newest first; ties keep a stable order by
// broker, queue and offset so a repeated query shows the same list.
func newestFirst(a, b Message) int {
	if c := cmp.Compare(b.StoreTimestamp, a.StoreTimestamp); c != 0 {
		return c
	}
	if c := cmp.Compare(a.BrokerName, b.BrokerName); c != 0 {
		return c
	}
	if c := cmp.Compare(a.QueueID, b.QueueID); c != 0 {
		return c
	}
	return cmp.Compare(b.QueueOffset, a.QueueOffset)
}

// slack is how many messages more than wanted a cut may leave to pull: searching
// further costs a round of requests to every queue, pulling a few more costs little.
func slack(want int64) int64 {
	return max(want/32, 16)
}

// windows finds, for every readable queue of the topic, the offsets of the messages
// stored within [begin, end], and the store time of the newest message of the topic (0
// when unknown). A broker that fails is recorded and its queues left out.
func (s *Service) windows(ctx context.Context, route *rocketmq.TopicRoute, brokers []brokerAddr, begin, end time.Time, fails *failures) ([]window, int64) {
	addrOf := map[string]string{}
	for _, b := range brokers {
		addrOf[b.name] = b.addr
	}
	var ws []window
	for _, mq := range route.ReadQueues() {
		if addr, ok := addrOf[mq.BrokerName]; ok {
			ws = append(ws, window{broker: mq.BrokerName, addr: addr, mq: mq})
		}
	}
	// A 4.x broker ignores the boundary type and answers the offset whose store time is
	// closest; the end offset may then be one short, so it is widened by one and the
	// pulls drop what lies outside the range. The topic's stats give the store time of
	// each queue's last message, which bounds the search for the cut from above.
	legacy := map[string]bool{}
	var newest int64
	var mu sync.Mutex
	g := s.group()
	for _, b := range brokers {
		g.Go(func() error {
			v, err := s.admin.BrokerVersion(ctx, b.addr)
			if err == nil && !v.Is5() {
				mu.Lock()
				legacy[b.name] = true
				mu.Unlock()
			}
			return nil
		})
		g.Go(func() error {
			st, err := s.admin.TopicStats(ctx, b.addr, route.Topic)
			if err != nil {
				return nil // only a hint; the offset searches report a failing broker
			}
			mu.Lock()
			for _, o := range st.Offsets {
				newest = max(newest, o.LastUpdateTimestamp)
			}
			mu.Unlock()
			return nil
		})
	}
	g.Wait()

	g = s.group()
	for i := range ws {
		w := &ws[i]
		g.Go(func() error {
			if fails.failed(w.broker) {
				return nil
			}
			lo, err := s.admin.SearchOffset(ctx, w.addr, w.mq, begin, rocketmq.BoundaryLower)
			if err != nil {
				fails.add(w.broker, err)
				return nil
			}
			hi, err := s.admin.SearchOffset(ctx, w.addr, w.mq, end.Add(time.Millisecond), rocketmq.BoundaryLower)
			if err != nil {
				fails.add(w.broker, err)
				return nil
			}
			if legacy[w.broker] {
				hi++
			}
			w.lo, w.hi = lo, max(lo, hi)
			w.top = w.hi
			return nil
		})
	}
	g.Wait()
	out := ws[:0]
	for _, w := range ws {
		if !fails.failed(w.broker) {
			out = append(out, w)
		}
	}
	return out, newest
}

// cut finds a store time T in (loT, hiT) at which the unread parts of the windows
// together hold at least want messages stored at or after T, and not many more, and
// returns T with each window's offset at T. loT is the range's begin, where all
// remaining messages count; at hiT none do. It interpolates on the counts (store times
// are usually spread evenly enough that two or three rounds do) and falls back to
// bisection when interpolation stalls.
func (s *Service) cut(ctx context.Context, ws []window, loT, hiT, remaining, want int64, fails *failures) (int64, []int64) {
	loOffs := make([]int64, len(ws))
	for i, w := range ws {
		loOffs[i] = w.lo
	}
	loCount, hiCount := remaining, int64(0)
	lastSide := 0
	for round := 0; round < maxCutRounds && hiT-loT > 1 && ctx.Err() == nil; round++ {
		var t int64
		if lastSide >= 2 || lastSide <= -2 {
			t = loT + (hiT-loT)/2 // interpolation keeps landing on one side: bisect
		} else {
			frac := float64(loCount-want) / float64(loCount-hiCount)
			t = loT + int64(frac*float64(hiT-loT))
		}
		t = min(max(t, loT+1), hiT-1)
		offs, count := s.countAt(ctx, ws, t, fails)
		if count >= want {
			loT, loCount, loOffs = t, count, offs
			if count <= want+slack(want) {
				break
			}
			lastSide = min(lastSide, 0) - 1
		} else {
			hiT, hiCount = t, count
			lastSide = max(lastSide, 0) + 1
		}
	}
	return loT, loOffs
}

// countAt returns each window's offset at store time t (clamped to its unread part) and
// how many unread messages lie at or after it.
func (s *Service) countAt(ctx context.Context, ws []window, t int64, fails *failures) ([]int64, int64) {
	offs := make([]int64, len(ws))
	at := time.UnixMilli(t)
	g := s.group()
	for i, w := range ws {
		offs[i] = w.top
		if fails.failed(w.broker) || w.top <= w.lo {
			continue
		}
		g.Go(func() error {
			off, err := s.admin.SearchOffset(ctx, w.addr, w.mq, at, rocketmq.BoundaryLower)
			if err != nil {
				fails.add(w.broker, err)
				return nil
			}
			offs[i] = min(max(off, w.lo), w.top)
			return nil
		})
	}
	g.Wait()
	var n int64
	for i, w := range ws {
		if !fails.failed(w.broker) {
			n += w.top - offs[i]
		}
	}
	return offs, n
}

// pullWindows pulls, for every window, the offsets [cuts[i], top) in batches of 32, all
// batches in parallel, and keeps the messages filter accepts. It returns them with how
// many messages were read.
func (s *Service) pullWindows(ctx context.Context, ws []window, cuts []int64, filter func(*rocketmq.Message) bool, fails *failures) ([]Message, int64) {
	type batch struct {
		w        *window
		from, to int64
		out      []Message
		read     int64
	}
	var batches []*batch
	for i := range ws {
		w := &ws[i]
		for from := cuts[i]; from < w.top; from += pullBatch {
			batches = append(batches, &batch{w: w, from: from, to: min(from+pullBatch, w.top)})
		}
	}
	g := s.group()
	for _, b := range batches {
		g.Go(func() error {
			if fails.failed(b.w.broker) {
				return nil
			}
			msgs, err := s.pullRange(ctx, b.w.addr, b.w.mq, b.from, b.to)
			b.read = int64(len(msgs))
			for _, m := range msgs {
				if filter(m) {
					b.out = append(b.out, Message{BrokerName: b.w.broker, Message: m})
				}
			}
			if err != nil {
				fails.add(b.w.broker, err)
			}
			return nil
		})
	}
	g.Wait()
	var out []Message
	var read int64
	n := 0
	for _, b := range batches {
		n += len(b.out)
	}
	out = make([]Message, 0, n)
	for _, b := range batches {
		out = append(out, b.out...)
		read += b.read
	}
	return out, read
}

// pullRange reads the queue's messages at offsets [from, to). A batch usually takes one
// pull; the broker answers fewer messages when they are large or read from disk.
func (s *Service) pullRange(ctx context.Context, addr string, mq rocketmq.MessageQueue, from, to int64) ([]*rocketmq.Message, error) {
	var out []*rocketmq.Message
	for off := from; off < to; {
		r, err := s.admin.Pull(ctx, addr, mq, off, int(to-off))
		if err != nil {
			return out, err
		}
		switch r.Status {
		case rocketmq.PullFound:
		case rocketmq.PullNoNewMsg:
			return out, nil
		default: // no match or an offset outside the queue: go on where the broker says
			if r.NextBeginOffset <= off {
				return out, nil
			}
			off = r.NextBeginOffset
			continue
		}
		for _, m := range r.Messages {
			if m.QueueOffset >= off && m.QueueOffset < to {
				out = append(out, m)
			}
		}
		if r.NextBeginOffset <= off {
			return out, fmt.Errorf("pull %s at offset %d on %s: the broker did not move past it", mq, off, addr)
		}
		off = r.NextBeginOffset
	}
	return out, nil
}

// group returns an errgroup bounded by the service's parallelism. Tasks record their own
// failures and return nil, so one broker's error never cancels the others.
func (s *Service) group() *errgroup.Group {
	var g errgroup.Group
	g.SetLimit(s.parallelism)
	return &g
}
