package auth

import (
	"sync"
	"time"
)

// ThrottleConfig says how sign-in slows down after failures. After Free failed attempts
// on one key (a user name from one address, or an address whatever the name), each
// further attempt must wait Base, doubling with every failure, up to Max. Failures older
// than Forget no longer count.
type ThrottleConfig struct {
	// UserFree counts per user name × address: someone mistyping their password slows
	// down only themselves, and nobody can lock a user out from other addresses.
	UserFree int
	// AddrFree counts per address, well above UserFree: one address guessing many users'
	// passwords is slowed, while the people behind one NAT address are not.
	AddrFree          int
	Base, Max, Forget time.Duration
}

// DefaultThrottle allows 5 attempts per user name and address, and 100 per address,
// before slowing down from 1 s to at most 15 min.
var DefaultThrottle = ThrottleConfig{UserFree: 5, AddrFree: 100, Base: time.Second, Max: 15 * time.Minute, Forget: time.Hour}

// throttle counts sign-in attempts per key in memory. A restart forgets the counts; the
// bcrypt cost still bounds guessing to a few attempts per second per core.
type throttle struct {
	cfg  ThrottleConfig
	mu   sync.Mutex
	keys map[string]*attempts
}

type attempts struct {
	failures int
	last     time.Time
}

// maxKeys bounds memory when someone sprays random user names.
const maxKeys = 100_000

func newThrottle(cfg ThrottleConfig) *throttle {
	return &throttle{cfg: cfg, keys: map[string]*attempts{}}
}

func (t *throttle) delay(n, free int) time.Duration {
	if n < free {
		return 0
	}
	d := t.cfg.Base
	for i := free; i < n && d < t.cfg.Max; i++ {
		d *= 2
	}
	return min(d, t.cfg.Max)
}

// begin checks both keys and, when the attempt is allowed, counts it as a failure until
// succeed says otherwise. Counting up front means parallel attempts cannot all pass the
// check before any failure is recorded.
func (t *throttle) begin(now time.Time, user, addr string) time.Duration {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.sweep(now)
	wait := time.Duration(0)
	for _, k := range []struct {
		key  string
		free int
	}{{userKey(user, addr), t.cfg.UserFree}, {"a:" + addr, t.cfg.AddrFree}} {
		a := t.keys[k.key]
		if a == nil {
			continue
		}
		if now.Sub(a.last) > t.cfg.Forget {
			delete(t.keys, k.key)
			continue
		}
		if w := a.last.Add(t.delay(a.failures, k.free)).Sub(now); w > wait {
			wait = w
		}
	}
	if wait > 0 {
		return wait
	}
	for _, key := range []string{userKey(user, addr), "a:" + addr} {
		a := t.keys[key]
		if a == nil {
			a = &attempts{}
			t.keys[key] = a
		}
		a.failures++
		a.last = now
	}
	return 0
}

// userKey is the key of one user name at one address.
func userKey(user, addr string) string { return "u:" + addr + "\x00" + user }

// succeed forgets the user's failures from addr and takes back the address's count for
// this attempt. The address keeps its earlier failures: one valid account must not reset
// the count of an address that is guessing other users' passwords.
func (t *throttle) succeed(user, addr string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	delete(t.keys, userKey(user, addr))
	if a := t.keys["a:"+addr]; a != nil {
		if a.failures--; a.failures <= 0 {
			delete(t.keys, "a:"+addr)
		}
	}
}

func (t *throttle) sweep(now time.Time) {
	if len(t.keys) < maxKeys/2 {
		// Cheap path: forget only on demand below half the bound.
		return
	}
	for k, a := range t.keys {
		if now.Sub(a.last) > t.cfg.Forget {
			delete(t.keys, k)
		}
	}
	for k := range t.keys { // still full: drop arbitrary entries rather than grow
		if len(t.keys) < maxKeys {
			break
		}
		delete(t.keys, k)
	}
}

// undo takes back the attempt begin counted: the password was never checked (the
// directory or the database did not answer), so it was no guess.
func (t *throttle) undo(user, addr string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, key := range []string{userKey(user, addr), "a:" + addr} {
		if a := t.keys[key]; a != nil {
			if a.failures--; a.failures <= 0 {
				delete(t.keys, key)
			}
		}
	}
}
