package live

import (
	"sync"
	"sync/atomic"
	"time"
)

// Quota bounds how many live views one owner (a signed-in user, or an address when the
// console has no users) has open at once, whatever they watch: every view is a
// connection the console holds, and every new key a poller.
type Quota struct {
	max  int
	mu   sync.Mutex
	open map[string]int
	// streaming counts the views taken and not yet released, whatever max is.
	streaming atomic.Int64
}

// NewQuota returns a Quota of max views per owner; max <= 0 bounds nothing.
func NewQuota(max int) *Quota { return &Quota{max: max, open: map[string]int{}} }

// Max is the number of views an owner may have open.
func (q *Quota) Max() int { return q.max }

// Take counts one more view of owner and returns the function that uncounts it (safe
// to call more than once); ok is false, and nothing is counted, when owner has Max open.
// A nil Quota bounds nothing.
func (q *Quota) Take(owner string) (release func(), ok bool) {
	if q == nil {
		return func() {}, true
	}
	if q.max <= 0 {
		q.streaming.Add(1)
		return sync.OnceFunc(func() { q.streaming.Add(-1) }), true
	}
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.open[owner] >= q.max {
		return nil, false
	}
	q.open[owner]++
	q.streaming.Add(1)
	return sync.OnceFunc(func() {
		q.mu.Lock()
		defer q.mu.Unlock()
		if q.open[owner]--; q.open[owner] <= 0 {
			delete(q.open, owner)
		}
		q.streaming.Add(-1)
	}), true
}

// Drain waits, at most timeout, until every view taken has been released, and says
// whether they all were. At shutdown the hubs close their viewers, and each view then
// tells its page the console is going away (close 1012, on which the page reconnects by
// itself): without the wait the process could exit before some of them have written it.
func (q *Quota) Drain(timeout time.Duration) bool {
	if q == nil {
		return true
	}
	deadline := time.Now().Add(timeout)
	for q.streaming.Load() > 0 {
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(10 * time.Millisecond)
	}
	return true
}
