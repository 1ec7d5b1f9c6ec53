package handlers

import (
	"strconv"
	"sync/atomic"

	"github.com/gin-gonic/gin"

	"rmqconsole/fault"
)

// HeavyGate caps how many heavy queries run at once. A time-range search holds up to
// 2000 messages, bodies included, from the brokers' answers until its page or export is
// written; thirty of them at once held hundreds of megabytes. Past the cap a search is
// answered 503 with Retry-After straight away, so memory stays bounded under load
// instead of growing with the queue.
type HeavyGate struct {
	slots    chan struct{}
	rejected atomic.Uint64
}

// HeavyStats is what a gate holds and has refused, for /metrics.
type HeavyStats struct {
	Limit, Running int
	Rejected       uint64
}

// Stats reads the gate now.
func (g *HeavyGate) Stats() HeavyStats {
	return HeavyStats{Limit: cap(g.slots), Running: len(g.slots), Rejected: g.rejected.Load()}
}

// NewHeavyGate returns a gate letting n heavy queries run at once.
func NewHeavyGate(n int) *HeavyGate { return &HeavyGate{slots: make(chan struct{}, n)} }

// heavyRetryAfter is the Retry-After of a refused heavy query, in seconds: about what
// one takes.
const heavyRetryAfter = 5

func (g *HeavyGate) enter() (leave func(), ok bool) {
	select {
	case g.slots <- struct{}{}:
		return func() { <-g.slots }, true
	default:
		g.rejected.Add(1)
		return nil, false
	}
}

// enterHeavy takes a slot for a time-range search (key and id searches are capped at 64
// messages and do not ask for one). When every slot is taken it sets Retry-After and
// returns the Busy fault to answer.
func (h *Messages) enterHeavy(c *gin.Context) (leave func(), err error) {
	if h.Heavy == nil {
		return func() {}, nil
	}
	if leave, ok := h.Heavy.enter(); ok {
		return leave, nil
	}
	c.Header("Retry-After", strconv.Itoa(heavyRetryAfter))
	return nil, fault.New(fault.Busy, "error.busy_searches", "Count", cap(h.Heavy.slots)).Because("busy")
}
