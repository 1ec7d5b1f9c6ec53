package lookup

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strings"
	"sync"
	"time"

	"rmqconsole/cluster"
	"rmqconsole/filter"
	"rmqconsole/freetext"
	"rmqconsole/rocketmq"
)

// RangeQuery asks for the newest messages of a topic stored within [Begin, End].
type RangeQuery struct {
	Topic string
	Begin time.Time
	End   time.Time
	// Tag keeps only messages with this tag (property TAGS); "" keeps all.
	Tag string
	// Filter keeps only the messages it matches (SQL92 on properties, body
	// conditions); nil keeps all. It was compiled, and so checked, by the caller.
	Filter *filter.Filter
	// Limit caps the answer; 0 means RangeLimit, and more than RangeLimit is refused.
	Limit int
	// Skip leaves out the Skip newest messages stored in End's millisecond: a search
	// continued from a row stored then has shown them already (see Result.After).
	Skip int
}

// Validate checks the query without asking any broker: nil, or an Invalid fault on the
// field at fault.
func (q *RangeQuery) Validate() error {
	q.Topic = strings.TrimSpace(q.Topic)
	q.Tag = strings.TrimSpace(q.Tag)
	if err := checkTopic(q.Topic); err != nil {
		return err
	}
	if q.Begin.IsZero() || q.End.IsZero() {
		return invalid("begin", "missing_range", "lookup.range.missing")
	}
	if q.Begin.After(q.End) {
		return invalid("begin", "bad_range", "lookup.range.reversed",
			"Begin", q.Begin.UTC().Format(time.DateTime+" UTC"), "End", q.End.UTC().Format(time.DateTime+" UTC"))
	}
	if err := checkTag(q.Tag); err != nil {
		return err
	}
	if q.Limit == 0 {
		q.Limit = RangeLimit
	}
	if q.Limit < 0 || q.Limit > RangeLimit {
		return invalid("limit", "bad_limit", "lookup.limit", "Max", RangeLimit)
	}
	if q.Skip < 0 || q.Skip > RangeLimit {
		return invalid("skip", "bad_skip", "lookup.skip", "Max", RangeLimit)
	}
	return nil
}

// checkTag says what is wrong with a tag, one rule per sentence.
func checkTag(tag string) error {
	if len(tag) > maxTextLen {
		return invalid("tag", "bad_tag", "lookup.tag.long", "Max", maxTextLen, "Len", len(tag))
	}
	if err := checkText(freetext.MessageTag, tag); err != nil {
		return err
	}
	switch {
	case strings.ContainsAny(tag, " \t"):
		return invalid("tag", "bad_tag", "lookup.tag.spaces")
	case strings.Contains(tag, "|"):
		return invalid("tag", "bad_tag", "lookup.tag.bar")
	}
	return nil
}

// pullBatch is the most messages one PULL_MESSAGE returns (the broker's cap for
// messages in memory).
const pullBatch = 32

// maxCutRounds bounds the search for the cut time; bisection over milliseconds needs
// fewer than 45 rounds for any range a broker can hold.
const maxCutRounds = 48

// window is one queue's share of a range query: the offsets [lo, hi) hold the messages
// stored within the range, and [top, hi) have been read. oldest is the store time of the
// oldest message read from it (math.MaxInt64 before any).
type window struct {
	broker cluster.Broker
	mq     rocketmq.MessageQueue
	lo, hi int64
	top    int64
	oldest int64
}

// ByRange returns the newest q.Limit messages of the topic stored within [q.Begin,
// q.End], across every queue of every broker, newest first.
//
// It pulls little more than it returns. For each queue it asks the broker for the
// offsets at Begin and just after End (SEARCH_OFFSET_BY_TIMESTAMP), which also counts
// exactly what the range holds. When that is more than the limit, each queue first gives
// its newest messages in proportion to its share of the range, rounded up to whole pulls
// of 32. Let T be the store time of the limit-th newest message read: a queue whose
// oldest message read is still newer than T may hold more messages at or after T, so
// for such a queue alone the offset at T is searched and the gap pulled. When messages
// are spread alike across the queues (the usual case: producers round-robin), no queue
// falls short and the query costs the two offset searches per queue and the pulls.
//
// With a tag filter the number of matches is unknown in advance, so when the first
// round finds too few, it goes on in slices back in time, each cut at a store time found
// by offset searches, scaled by the share of messages that matched so far, until one more
// than the limit matched or the range is exhausted.
func (s *Service) ByRange(ctx context.Context, q RangeQuery) (*Result, error) {
	if err := q.Validate(); err != nil {
		return nil, err
	}
	if q.Skip == 0 {
		return s.byRange(ctx, q)
	}
	// The messages to skip are the newest of the range: ask for that many more and
	// leave them out, so the answer is the same list the continued search would show.
	wide := q
	wide.Limit += q.Skip
	res, err := s.byRange(ctx, wide)
	if err != nil {
		return nil, err
	}
	end, skipped := q.End.UnixMilli(), 0
	for skipped < q.Skip && skipped < len(res.Messages) && res.Messages[skipped].StoreTimestamp == end {
		skipped++
	}
	res.Messages = res.Messages[skipped:]
	res.Limit = q.Limit
	res.Total -= int64(skipped)
	res.InRange -= int64(skipped)
	res.Truncated = res.Truncated && res.Total > int64(q.Limit)
	if len(res.Messages) > q.Limit {
		res.Messages = res.Messages[:q.Limit]
		res.Truncated = true
	}
	return res, nil
}

// byRange is ByRange for a valid query: the queues' windows of the range, their newest
// messages by share, then slices back in time until enough matched.
func (s *Service) byRange(ctx context.Context, q RangeQuery) (*Result, error) {
	fails := s.cluster.Fanout(ctx)
	route, err := s.route(fails, q.Topic, opRange)
	if err != nil {
		return nil, err
	}
	r := &rangeScan{q: q, ws: s.windows(ctx, route, q.Begin, q.End, fails), fails: fails,
		begin: q.Begin.UnixMilli(), end: q.End.UnixMilli(), need: int64(q.Limit)}
	if r.filtered() {
		r.need++ // one more than the limit proves the result is truncated
	}
	if r.inRange() > r.need {
		r.found, r.scanned = s.newestByShare(ctx, r.ws, r.need, r.keep, fails)
	}
	s.readSlices(ctx, r)
	return r.result(), nil
}

// rangeScan is a range query under way: its queues' windows, the messages kept of
// those read, and the brokers that failed.
type rangeScan struct {
	q     RangeQuery
	ws    []window
	fails *cluster.Fanout
	// begin and end are q's bounds in epoch milliseconds.
	begin, end int64
	// need is how many matches end the search.
	need        int64
	found       []Message
	scanned     int64
	scanLimited bool
}

// keep reports whether a message read matches the query.
func (r *rangeScan) keep(m *rocketmq.Message) bool {
	return m.StoreTimestamp >= r.begin && m.StoreTimestamp <= r.end && (r.q.Tag == "" || m.Tags() == r.q.Tag) && r.q.Filter.Match(m)
}

// filtered reports whether the query keeps only some messages of the range, so how
// many match is unknown until they are read.
func (r *rangeScan) filtered() bool { return r.q.Tag != "" || !r.q.Filter.IsZero() }

// inRange is how many messages the windows hold, before any tag filter.
func (r *rangeScan) inRange() int64 {
	var n int64
	for _, w := range r.ws {
		n += w.hi - w.lo
	}
	return n
}

// unread is how many messages of the answering brokers' windows are not read yet, and
// the newest store time one of them may have (math.MinInt64 when none is left).
func (r *rangeScan) unread() (n, newest int64) {
	newest = math.MinInt64
	for _, w := range r.ws {
		if r.fails.Failed(w.broker.Name) || w.top <= w.lo {
			continue
		}
		n += w.top - w.lo
		newest = max(newest, min(w.oldest, r.end))
	}
	return n, newest
}

// readSlices reads the windows back in time, one slice per round cut at a store time,
// until enough matched, the range is exhausted or a tag filter used up the scan budget.
func (s *Service) readSlices(ctx context.Context, r *rangeScan) {
	for {
		remaining, topTime := r.unread() // every unread message is stored at or before topTime
		if remaining <= 0 || int64(len(r.found)) >= r.need || ctx.Err() != nil {
			return
		}
		if r.filtered() && r.scanned >= s.maxScan {
			r.scanLimited = true
			return
		}
		want := r.want(s.maxScan)
		cuts := make([]int64, len(r.ws))
		if remaining <= want+slack(want) {
			for i, w := range r.ws {
				cuts[i] = w.lo
			}
		} else {
			cuts = s.cut(ctx, r.ws, r.begin, topTime+1, remaining, want, r.fails)
		}
		msgs, n := s.pullWindows(ctx, r.ws, cuts, r.keep, r.fails)
		r.found = append(r.found, msgs...)
		r.scanned += n
	}
}

// want is how many messages the next slice should read: what is still needed, or with
// a tag filter that scaled by the share of messages that matched so far (eight times
// more than read before while none matched), never past the scan budget maxScan.
func (r *rangeScan) want(maxScan int64) int64 {
	want := r.need - int64(len(r.found))
	if !r.filtered() || r.scanned == 0 {
		return want
	}
	if len(r.found) == 0 {
		want = r.scanned * 8
	} else {
		want = want * r.scanned / int64(len(r.found))
	}
	return max(min(want, maxScan-r.scanned), 1)
}

// result is the answer: the newest q.Limit matches, and how many matched in all.
func (r *rangeScan) result() *Result {
	found := r.found
	slices.SortFunc(found, newestFirst)
	res := &Result{Limit: r.q.Limit, InRange: r.inRange(), Failures: r.fails.Failures(), FromSlaves: r.fails.FromSlaves(),
		Scanned: r.scanned, ScanLimited: r.scanLimited}
	// Unread messages remain only when the search stopped early on a full result.
	unread, newestUnread := r.unread()
	if r.scanLimited {
		// Every queue was read down to the last cut: the newest of the oldest reads of
		// the queues that still have unread messages.
		res.ScannedBackTo = time.UnixMilli(max(r.begin, newestUnread))
	}
	switch {
	case unread <= 0:
		// Everything in the windows was read and filtered by store time: count what
		// matched. (A 4.x broker's offset search answers the closest message rather than
		// the first at or after a time, so its windows can hold a neighbour or two.)
		res.Total = int64(len(found))
	case !r.filtered():
		res.Total = res.InRange
	default:
		res.Total = int64(len(found))
		res.TotalIsLowerBound = true
	}
	res.Truncated = res.Total > int64(r.q.Limit)
	if len(found) > r.q.Limit {
		found = found[:r.q.Limit]
	}
	res.Messages = found
	return res
}

// newestByShare reads from every queue its newest messages in proportion to its share of
// the unread range, enough for need in all, rounded up to whole pulls; then tops up the
// queues that may hold more of the newest need (see ByRange). It returns the messages
// filter kept and how many were read. When fewer than need were kept, the windows are
// left for ByRange's slices to continue.
func (s *Service) newestByShare(ctx context.Context, ws []window, need int64, filter func(*rocketmq.Message) bool, fails *cluster.Fanout) ([]Message, int64) {
	var total int64
	for _, w := range ws {
		total += w.top - w.lo
	}
	cuts := make([]int64, len(ws))
	for i, w := range ws {
		n := w.top - w.lo
		share := (n*need + total - 1) / total
		share = min(n, (share+pullBatch-1)/pullBatch*pullBatch)
		cuts[i] = w.top - share
	}
	found, read := s.pullWindows(ctx, ws, cuts, filter, fails)
	if int64(len(found)) < need {
		return found, read
	}
	slices.SortFunc(found, newestFirst)
	cutTime := found[need-1].StoreTimestamp
	// A queue whose oldest message read is not older than cutTime (or that gave
	// nothing) may hold more messages at or after it. Those stored in cutTime's own
	// millisecond are read too: the tie order among them decides which are shown, and a
	// search continued from a row stored then (Cursor) relies on that order.
	short := make([]int64, len(ws))
	for i := range ws {
		w := &ws[i]
		short[i] = w.top
		if fails.Failed(w.broker.Name) || w.top <= w.lo || w.oldest < cutTime {
			continue
		}
		fails.Read(w.broker, opRange, func(ctx context.Context, addr string) error {
			off, err := s.admin.SearchOffset(ctx, addr, w.mq, time.UnixMilli(cutTime), rocketmq.BoundaryLower)
			if err != nil {
				return err
			}
			short[i] = min(max(off, w.lo), w.top)
			return nil
		})
	}
	fails.Wait()
	more, n := s.pullWindows(ctx, ws, short, filter, fails)
	return append(found, more...), read + n
}

// slack is how many messages more than wanted a cut may leave to pull: searching
// further costs a round of requests to every queue, pulling a few more costs little.
func slack(want int64) int64 {
	return max(want/32, 16)
}

// windows finds, for every readable queue of the topic, the offsets of the messages
// stored within [begin, end]. A broker that fails is recorded and its queues left out.
func (s *Service) windows(ctx context.Context, route *cluster.Route, begin, end time.Time, fails *cluster.Fanout) []window {
	var ws []window
	for _, mq := range route.ReadQueues() {
		if b, ok := route.Broker(mq.BrokerName); ok {
			ws = append(ws, window{broker: b, mq: mq, oldest: math.MaxInt64})
		}
	}
	// A 4.x broker ignores the boundary type and answers the offset whose store time is
	// closest, so the end offset may be one short; a 5.5 broker's answers are off by one
	// message too. Their windows are widened by one at the end, then trimmed by store
	// time (trimWindows). The version is known from earlier answers, so asking costs
	// nothing after the first query; everything goes out at once.
	inexact := map[string]bool{}
	var mu sync.Mutex
	for _, b := range route.Brokers {
		fails.Read(b, opRange, func(ctx context.Context, addr string) error {
			v, err := s.admin.BrokerVersion(ctx, addr)
			if err == nil && inexactSearch(v) {
				mu.Lock()
				inexact[b.Name] = true
				mu.Unlock()
			}
			return nil
		})
	}
	for i := range ws {
		w := &ws[i]
		for j, at := range []time.Time{begin, end.Add(time.Millisecond)} {
			fails.Read(w.broker, opRange, func(ctx context.Context, addr string) error {
				if fails.Failed(w.broker.Name) {
					return nil
				}
				off, err := s.admin.SearchOffset(ctx, addr, w.mq, at, rocketmq.BoundaryLower)
				if err != nil {
					return err
				}
				if j == 0 {
					w.lo = off
				} else {
					w.hi = off
				}
				return nil
			})
		}
	}
	fails.Wait()
	out := ws[:0]
	for _, w := range ws {
		if fails.Failed(w.broker.Name) {
			continue
		}
		if inexact[w.broker.Name] {
			w.hi++
		}
		w.hi = max(w.lo, w.hi)
		out = append(out, w)
	}
	s.trimWindows(out, inexact, begin.UnixMilli(), end.UnixMilli(), fails)
	for i := range out {
		out[i].top = out[i].hi
	}
	return out
}

// inexactSearch reports whether the broker's SEARCH_OFFSET_BY_TIMESTAMP can answer a
// neighbour of the first message stored at or after a time: 4.x (the closest message)
// and 5.5 (a window one message wider per queue, see docs/rocketmq-protocol-notes.md).
func inexactSearch(v rocketmq.BrokerVersion) bool {
	return !v.Is5() || v.AtLeast(rocketmq.VersionOrdinal5_5_0)
}

// maxTrim bounds how many messages trimWindows drops from each end of a window: the
// offset searches are off by one message at most.
const maxTrim = 2

// trimWindows narrows each window to the messages stored within [begin, end] by the store
// times of its first and last messages, the one place the range query makes its offset
// windows exact, for the brokers whose offset searches are inexact (inexactSearch):
// without it the count of messages in the range (InRange, and Total when the search
// stops before reading everything) is too high. It costs a one-message pull at each end
// of each such window.
func (s *Service) trimWindows(ws []window, inexact map[string]bool, begin, end int64, fails *cluster.Fanout) {
	storeAt := func(ctx context.Context, addr string, mq rocketmq.MessageQueue, off int64) (int64, bool, error) {
		r, err := s.admin.Pull(ctx, addr, mq, off, 1)
		if err != nil {
			return 0, false, err
		}
		for _, m := range r.Messages {
			if m.QueueOffset == off {
				return m.StoreTimestamp, true, nil
			}
		}
		return 0, false, nil // no message at that offset (past the queue's end, or expired)
	}
	for i := range ws {
		w := &ws[i]
		if w.hi <= w.lo || !inexact[w.broker.Name] {
			continue
		}
		fails.Read(w.broker, opRange, func(ctx context.Context, addr string) error {
			for n := 0; n < maxTrim && w.lo < w.hi; n++ {
				t, ok, err := storeAt(ctx, addr, w.mq, w.lo)
				if err != nil {
					return err
				}
				if ok && t >= begin {
					break
				}
				w.lo++
			}
			for n := 0; n < maxTrim && w.lo < w.hi; n++ {
				t, ok, err := storeAt(ctx, addr, w.mq, w.hi-1)
				if err != nil {
					return err
				}
				if ok && t <= end {
					break
				}
				w.hi-- // stored after the range, or no message there (the widened end past the last)
			}
			return nil
		})
	}
	fails.Wait()
}

// cut finds a store time T in (loT, hiT) at which the unread parts of the windows
// together hold at least want messages stored at or after T, and not many more, and
// returns each window's offset at T. At loT (the range's begin) every remaining message
// counts; at hiT none is assumed to. It interpolates on the counts and falls back to
// bisection when interpolation keeps landing on one side.
func (s *Service) cut(ctx context.Context, ws []window, loT, hiT, remaining, want int64, fails *cluster.Fanout) []int64 {
	loOffs := make([]int64, len(ws))
	for i, w := range ws {
		loOffs[i] = w.lo
	}
	loCount, hiCount := remaining, int64(0)
	lastSide := 0
	for round := 0; round < maxCutRounds && hiT-loT > 1 && ctx.Err() == nil; round++ {
		var t int64
		if lastSide >= 2 || lastSide <= -2 {
			t = loT + (hiT-loT)/2
		} else {
			frac := float64(loCount-want) / float64(max(loCount-hiCount, 1))
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
	return loOffs
}

// countAt returns each window's offset at store time t (clamped to its unread part) and
// how many unread messages lie at or after it.
func (s *Service) countAt(ctx context.Context, ws []window, t int64, fails *cluster.Fanout) ([]int64, int64) {
	offs := make([]int64, len(ws))
	at := time.UnixMilli(t)
	for i, w := range ws {
		offs[i] = w.top
		if fails.Failed(w.broker.Name) || w.top <= w.lo {
			continue
		}
		fails.Read(w.broker, opRange, func(ctx context.Context, addr string) error {
			off, err := s.admin.SearchOffset(ctx, addr, w.mq, at, rocketmq.BoundaryLower)
			if err != nil {
				return err
			}
			offs[i] = min(max(off, w.lo), w.top)
			return nil
		})
	}
	fails.Wait()
	var n int64
	for i, w := range ws {
		if !fails.Failed(w.broker.Name) {
			n += w.top - offs[i]
		}
	}
	return offs, n
}

// pullWindows pulls, for every window, the offsets [cuts[i], top) in batches of 32, all
// batches in parallel, and keeps the messages filter accepts. It moves each window's top
// down to its cut and records the oldest store time read. It returns the kept messages
// and how many were read.
func (s *Service) pullWindows(ctx context.Context, ws []window, cuts []int64, filter func(*rocketmq.Message) bool, fails *cluster.Fanout) ([]Message, int64) {
	type batch struct {
		w        int
		from, to int64
		out      []Message
		read     int64
		oldest   int64
	}
	var batches []*batch
	for i := range ws {
		w := &ws[i]
		for from := cuts[i]; from < w.top; from += pullBatch {
			batches = append(batches, &batch{w: i, from: from, to: min(from+pullBatch, w.top), oldest: math.MaxInt64})
		}
	}
	for _, b := range batches {
		w := &ws[b.w]
		fails.Read(w.broker, opRange, func(ctx context.Context, addr string) error {
			if fails.Failed(w.broker.Name) {
				return nil
			}
			msgs, err := s.pullRange(ctx, addr, w.mq, b.from, b.to)
			b.read = int64(len(msgs))
			b.out = b.out[:0]
			for _, m := range msgs {
				b.oldest = min(b.oldest, m.StoreTimestamp)
				if filter(m) {
					b.out = append(b.out, Message{BrokerName: w.broker.Name, Message: m})
				}
			}
			return err
		})
	}
	fails.Wait()
	n := 0
	for _, b := range batches {
		n += len(b.out)
	}
	out := make([]Message, 0, n)
	var read int64
	for _, b := range batches {
		out = append(out, b.out...)
		read += b.read
		ws[b.w].oldest = min(ws[b.w].oldest, b.oldest)
	}
	for i := range ws {
		ws[i].top = min(ws[i].top, cuts[i])
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

// The operations a failure names, one per query: a broker is named once per query.
const (
	opRange     = "range query"
	opKey       = "key query"
	opUniqueKey = "unique-key lookup"
	opOffsetID  = "offsetMsgId read"
	opGroups    = "consumer groups of the topic"
	opTopics    = "topic configs"
)
