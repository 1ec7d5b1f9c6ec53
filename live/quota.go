package live

import "sync"

// Quota bounds how many live views one owner (a signed-in user, or an address when the
// console has no users) has open at once, whatever they watch: every view is a
// connection the console holds, and every new key a poller.
type Quota struct {
	max  int
	mu   sync.Mutex
	open map[string]int
}

// NewQuota returns a Quota of max views per owner; max <= 0 bounds nothing.
func NewQuota(max int) *Quota { return &Quota{max: max, open: map[string]int{}} }

// Max is the number of views an owner may have open.
func (q *Quota) Max() int { return q.max }

// Take counts one more view of owner and returns the function that uncounts it (safe
// to call more than once); ok is false, and nothing is counted, when owner has Max open.
// A nil Quota bounds nothing.
func (q *Quota) Take(owner string) (release func(), ok bool) {
	if q == nil || q.max <= 0 {
		return func() {}, true
	}
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.open[owner] >= q.max {
		return nil, false
	}
	q.open[owner]++
	var once sync.Once
	return func() {
		once.Do(func() {
			q.mu.Lock()
			defer q.mu.Unlock()
			if q.open[owner]--; q.open[owner] <= 0 {
				delete(q.open, owner)
			}
		})
	}, true
}
