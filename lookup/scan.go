package lookup

import (
	"context"
	"errors"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"rmqconsole/cluster"
	"rmqconsole/rocketmq"
)

// Defaults and bounds of a deep scan.
const (
	// DefaultScanBudget and DefaultScanTime end a deep scan that has not reached the
	// range's beginning: a million messages or thirty seconds, whichever comes first.
	DefaultScanBudget = 1_000_000
	DefaultScanTime   = 30 * time.Second
	// MaxScanBudget and MaxScanTime bound what a caller may ask for.
	MaxScanBudget = 100_000_000
	MaxScanTime   = 10 * time.Minute
	// ScanKeep is how many matches a deep scan keeps; it counts the others.
	ScanKeep = RangeLimit
	// scanParallel is how many pulls a deep scan has in flight at once.
	scanParallel = 16
)

// Why a deep scan ended (ScanResult.Ended).
const (
	ScanDone    = "done"    // the whole range was read
	ScanBudget  = "budget"  // it read Budget messages
	ScanTimeout = "time"    // it ran for Time
	ScanStopped = "stopped" // the caller stopped it (Stop, a page left)
)

// ScanQuery is a deep scan: every message of a range query's range is read, newest
// first, within a budget, and the filter's matches are streamed as they are found.
type ScanQuery struct {
	RangeQuery
	// Budget bounds the messages read (0: DefaultScanBudget); Time the scan's duration
	// (0: DefaultScanTime).
	Budget int64
	Time   time.Duration
}

// ScanProgress is where a deep scan is: "scanned X of Y in range, matched Z".
type ScanProgress struct {
	Scanned int64 `json:"scanned"`
	InRange int64 `json:"inRange"`
	Matched int64 `json:"matched"`
}

// ScanResult is a finished deep scan: its matches (at most ScanKeep, newest first),
// its counts, why it ended, and the brokers that failed.
type ScanResult struct {
	ScanProgress
	Messages []Message
	// Ended is ScanDone, ScanBudget, ScanTimeout or ScanStopped.
	Ended    string
	Took     time.Duration
	Failures []BrokerFailure
}

// ScanSink receives a deep scan's matches as they are found (each batch once, in no
// particular order across queues) and its progress; it is called from one goroutine at a
// time. Either may be nil.
type ScanSink struct {
	Matches  func(ms []Message, p ScanProgress)
	Progress func(p ScanProgress)
}

// Validate checks the query without asking any broker.
func (q *ScanQuery) Validate() error {
	if err := q.RangeQuery.Validate(); err != nil {
		return err
	}
	switch {
	case q.Budget == 0:
		q.Budget = DefaultScanBudget
	case q.Budget < 0 || q.Budget > MaxScanBudget:
		return invalid("scanBudget", "bad_scan_budget", "lookup.scan.budget", "Max", MaxScanBudget)
	}
	switch {
	case q.Time == 0:
		q.Time = DefaultScanTime
	case q.Time < 0 || q.Time > MaxScanTime:
		return invalid("scanTime", "bad_scan_time", "lookup.scan.time", "Max", MaxScanTime.String())
	}
	return nil
}

// scanTask is one pull of a deep scan: offsets [from, to) of window w.
type scanTask struct {
	w        int
	from, to int64
}

// Scan reads every message of the query's range, newest first across the queues (each
// queue read from its newest offset down, the queues in step), in pulls of 32 with
// scanParallel in flight, and keeps those the tag and filter match. It ends at the
// range's beginning, at the budget of messages or time, or when ctx ends (ScanStopped).
// Matches and progress go to sink as they are found; the result keeps the newest
// ScanKeep matches.
func (s *Service) Scan(ctx context.Context, q ScanQuery, sink ScanSink) (*ScanResult, error) {
	if err := q.Validate(); err != nil {
		return nil, err
	}
	start := time.Now()
	fails := s.cluster.Fanout(ctx).Limit(scanParallel)
	route, err := s.route(fails, q.Topic, opRange)
	if err != nil {
		return nil, err
	}
	ws := s.windows(ctx, route, q.Begin, q.End, fails)
	r := &rangeScan{q: q.RangeQuery, ws: ws, begin: q.Begin.UnixMilli(), end: q.End.UnixMilli()}
	res := &ScanResult{ScanProgress: ScanProgress{InRange: r.inRange()}, Ended: ScanDone}

	tasks, covered := scanTasks(ws, q.Budget)
	var (
		next atomic.Int64 // the next task to take
		stop atomic.Value // why the scan ends early ("" while it goes on)
		mu   sync.Mutex   // guards res and calls to sink
		wg   sync.WaitGroup
	)
	stop.Store("")
	ending := func(why string) { stop.CompareAndSwap("", why) }
	deadline := start.Add(q.Time)
	lastProgress := time.Now()
	for range scanParallel {
		wg.Go(func() {
			for {
				if stop.Load() != "" {
					return
				}
				if ctx.Err() != nil {
					ending(ScanStopped)
					return
				}
				if time.Now().After(deadline) {
					ending(ScanTimeout)
					return
				}
				i := next.Add(1) - 1
				if i >= int64(len(tasks)) {
					return
				}
				if s.beforeScanPull != nil {
					if s.beforeScanPull(ctx); ctx.Err() != nil {
						ending(ScanStopped)
						return
					}
				}
				t := tasks[i]
				w := &ws[t.w]
				// The first address straight away: a fan-out call per pull costs a
				// goroutine and locks the scan does not need. A failing pull is asked
				// again through the fan-out, which tries the slaves and names the broker.
				var msgs []*rocketmq.Message
				var err error
				if addrs := s.cluster.ReadOrder(w.broker); len(addrs) > 0 && addrs[0] != "" && !fails.Failed(w.broker.Name) {
					msgs, err = s.pullRange(ctx, addrs[0], w.mq, t.from, t.to)
				}
				if msgs == nil || err != nil {
					cluster.EachRead(fails, []cluster.Broker{w.broker}, opRange, func(ctx context.Context, addr string) (struct{}, error) {
						var err error
						msgs, err = s.pullRange(ctx, addr, w.mq, t.from, t.to)
						return struct{}{}, err
					})
				}
				var found []Message
				for _, m := range msgs {
					if r.keep(m) {
						found = append(found, Message{BrokerName: w.broker.Name, Message: m})
					}
				}
				// Counted under the lock: a count taken before it could land after a
				// larger one and make the progress go backwards.
				mu.Lock()
				res.Scanned += int64(len(msgs))
				res.Matched += int64(len(found))
				if room := ScanKeep - len(res.Messages); room > 0 {
					res.Messages = append(res.Messages, found[:min(room, len(found))]...)
				}
				p := res.ScanProgress
				switch {
				case len(found) > 0 && sink.Matches != nil:
					sink.Matches(found, p)
					lastProgress = time.Now()
				case sink.Progress != nil && time.Since(lastProgress) >= 200*time.Millisecond:
					sink.Progress(p)
					lastProgress = time.Now()
				}
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	res.Ended = stop.Load().(string)
	if res.Ended == "" {
		res.Ended = ScanDone
		if covered < res.InRange {
			res.Ended = ScanBudget
		}
	}
	res.Took = time.Since(start)
	for _, f := range fails.Failures() {
		// A pull the caller's stop cut short is no broker's failure.
		if res.Ended == ScanStopped && (errors.Is(f.Err, context.Canceled) || errors.Is(f.Err, context.DeadlineExceeded)) {
			continue
		}
		res.Failures = append(res.Failures, f)
	}
	slices.SortFunc(res.Messages, newestFirst)
	if sink.Progress != nil {
		sink.Progress(res.ScanProgress)
	}
	return res, nil
}

// scanTasks cuts the windows into pulls, newest first in every queue, taking the queues
// in turn so they are read in step, up to budget messages; total is how many they read.
func scanTasks(ws []window, budget int64) (out []scanTask, total int64) {
	for depth := int64(0); ; depth++ {
		more := false
		for i, w := range ws {
			to := w.hi - depth*pullBatch
			if to <= w.lo {
				continue
			}
			more = true
			from := max(w.lo, to-pullBatch)
			if total >= budget {
				return out, total
			}
			// The last pull is cut to the budget.
			from = max(from, to-(budget-total))
			out = append(out, scanTask{w: i, from: from, to: to})
			total += to - from
		}
		if !more {
			return out, total
		}
	}
}
