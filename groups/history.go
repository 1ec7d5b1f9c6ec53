package groups

import (
	"math"
	"sync"
	"time"

	"rmqconsole/rocketmq"
)

// Sizes of the lag history a watcher keeps in memory. At a 1 s poll that is ten minutes
// of total lag for the chart and one minute per queue for its sparkline.
const (
	TotalSamples = 600
	QueueSamples = 60
)

// LagSample is the group's total lag at one tick; Lag is NaN when it was unknown.
type LagSample struct {
	At  time.Time
	Lag float64
}

// History is the lag a watcher has seen, oldest first. It is a copy: safe to keep.
type History struct {
	Totals []LagSample
	// Queues holds each queue's recent lag, oldest first; NaN where it was unknown.
	Queues map[rocketmq.MessageQueue][]float64
}

// history is a bounded ring of samples. Memory stays fixed however long a group is
// watched. A watcher's goroutine owns it; mu guards it while a stopped watcher's last
// tick may overlap the next watcher's first (see Live.start).
type history struct {
	mu     sync.Mutex
	totals ring[LagSample]
	queues map[rocketmq.MessageQueue]*ring[float64]
}

func newHistory() *history {
	return &history{totals: newRing[LagSample](TotalSamples), queues: map[rocketmq.MessageQueue]*ring[float64]{}}
}

// add records d's lags. Queues that disappeared from d are forgotten.
func (h *history) add(d *Detail) LagSample {
	h.mu.Lock()
	defer h.mu.Unlock()
	s := LagSample{At: d.CheckedAt, Lag: math.NaN()}
	if d.TotalLag != nil {
		s.Lag = float64(*d.TotalLag)
	}
	h.totals.push(s)
	present := make(map[rocketmq.MessageQueue]bool, len(d.Queues))
	for _, q := range d.Queues {
		mq := q.Queue()
		present[mq] = true
		r := h.queues[mq]
		if r == nil {
			nr := newRing[float64](QueueSamples)
			r = &nr
			h.queues[mq] = r
		}
		v := math.NaN()
		if q.Lag != nil {
			v = float64(*q.Lag)
		}
		r.push(v)
	}
	for mq := range h.queues {
		if !present[mq] {
			delete(h.queues, mq)
		}
	}
	return s
}

// gap records that nobody watched until at: the chart breaks its line there instead of
// drawing a straight one over the minutes nobody sampled.
func (h *history) gap(at time.Time) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.totals.push(LagSample{At: at, Lag: math.NaN()})
}

func (h *history) snapshot() *History {
	h.mu.Lock()
	defer h.mu.Unlock()
	out := &History{Totals: h.totals.slice(), Queues: make(map[rocketmq.MessageQueue][]float64, len(h.queues))}
	for mq, r := range h.queues {
		out.Queues[mq] = r.slice()
	}
	return out
}

// ring keeps the last cap values pushed.
type ring[T any] struct {
	buf  []T
	next int
	full bool
}

func newRing[T any](n int) ring[T] { return ring[T]{buf: make([]T, n)} }

func (r *ring[T]) push(v T) {
	r.buf[r.next] = v
	r.next = (r.next + 1) % len(r.buf)
	if r.next == 0 {
		r.full = true
	}
}

// slice returns the values oldest first.
func (r *ring[T]) slice() []T {
	if !r.full {
		return append([]T(nil), r.buf[:r.next]...)
	}
	out := make([]T, 0, len(r.buf))
	out = append(out, r.buf[r.next:]...)
	return append(out, r.buf[:r.next]...)
}
