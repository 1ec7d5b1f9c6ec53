package rocketmq

import (
	"sync"
	"time"
)

// CallTimeBuckets are the upper bounds, in seconds, of the call-time histograms: from a
// loopback answer (about a millisecond) to a broker that answers at the timeout's end.
var CallTimeBuckets = []float64{.001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10}

// CallTimes is how long the requests of one code took, answered or not, as a histogram:
// Buckets[i] counts those that took at most CallTimeBuckets[i] (cumulative).
type CallTimes struct {
	Count   uint64
	Sum     time.Duration
	Buckets []uint64
}

type callTimes struct {
	mu sync.Mutex
	t  CallTimes
}

// observe records one request of code that took d.
func (c *Client) observe(code RequestCode, d time.Duration) {
	v, ok := c.times.Load(code)
	if !ok {
		v, _ = c.times.LoadOrStore(code, &callTimes{t: CallTimes{Buckets: make([]uint64, len(CallTimeBuckets))}})
	}
	ct := v.(*callTimes)
	s := d.Seconds()
	ct.mu.Lock()
	defer ct.mu.Unlock()
	ct.t.Count++
	ct.t.Sum += d
	for i, le := range CallTimeBuckets {
		if s <= le {
			ct.t.Buckets[i]++
		}
	}
}

// CallTimes returns how long requests took so far, per request code, from sending
// (connecting included) to the answer or the failure; a retry on a new connection is
// part of its request.
func (c *Client) CallTimes() map[RequestCode]CallTimes {
	out := make(map[RequestCode]CallTimes)
	c.times.Range(func(k, v any) bool {
		ct := v.(*callTimes)
		ct.mu.Lock()
		t := ct.t
		t.Buckets = append([]uint64(nil), ct.t.Buckets...)
		ct.mu.Unlock()
		out[k.(RequestCode)] = t
		return true
	})
	return out
}
