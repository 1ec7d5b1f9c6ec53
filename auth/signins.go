package auth

import (
	"context"
	"encoding/json"
	"errors"
	"maps"
	"slices"
	"sync"
	"time"

	"rmqconsole/fault"
	"rmqconsole/freetext"
	"rmqconsole/i18n"
	"rmqconsole/store"
)

// AuditLog is where sign-ins are recorded (*store.AuditLog). An entry is appended
// finished, sealed into the hash chain like every other entry.
type AuditLog interface {
	Record(ctx context.Context, e *store.AuditEntry) error
}

// SignInMode is the audit entries' mode of a sign-in.
const SignInMode = store.SignInMode

// Outcomes of a sign-in, as its audit entry's "outcome" parameter says them: a code the
// audit pages say in the reader's language.
const (
	OutcomeSignedIn    = "signed_in"
	OutcomeWrong       = "wrong_password"
	OutcomeThrottled   = "throttled"
	OutcomeUnavailable = "unavailable"
	OutcomeRefused     = "refused"
	// OutcomeCounted is the entry that counts the failures not recorded one by one.
	OutcomeCounted = "counted"
)

// What one failed sign-in may store, and how many are recorded one by one: anyone who
// reaches the sign-in page can cause one, and the audit log is never pruned, so they
// must not grow it by more than a small, fixed amount. README documents these numbers.
const (
	// SignInTextMax bounds the user name typed and each group, in characters.
	SignInTextMax = 256
	// SignInGroupsMax bounds how many groups are kept.
	SignInGroupsMax = 16
	// FailuresPerWindow failed sign-ins from one address are recorded one by one per
	// FailureWindow; the rest are counted in one entry when the window ends.
	FailuresPerWindow = 10
	FailureWindow     = time.Minute
)

// SignIn is one sign-in attempt, for the audit log.
type SignIn struct {
	Provider string // ProviderLocal, ProviderLDAP, ProviderOIDC, ProviderProxy
	// Name is the user name: as typed for a password, as the provider named it
	// otherwise ("" when the attempt failed before anyone was named).
	Name, Addr string
	Groups     []string
	Role       Role
	// Err is why the attempt failed; nil when it succeeded.
	Err error
}

// outcome is the attempt's outcome code and, for a failure, its sentence.
func (r SignIn) outcome() (string, i18n.Text) {
	var th *ThrottledError
	switch {
	case r.Err == nil:
		return OutcomeSignedIn, nil
	case errors.Is(r.Err, ErrBadCredentials):
		return OutcomeWrong, i18n.TextOf(i18n.M("signin.audit.wrong"))
	case errors.As(r.Err, &th):
		return OutcomeThrottled, i18n.TextOf(i18n.M("signin.audit.throttled", "Wait", th.Wait.Round(time.Second).String()))
	case fault.Is(r.Err, fault.Unavailable):
		return OutcomeUnavailable, said(r.Err)
	case fault.Is(r.Err, fault.Refused), fault.Is(r.Err, fault.Invalid):
		return OutcomeRefused, said(r.Err)
	}
	return OutcomeUnavailable, said(r.Err)
}

// said is err as a refused sign-in's entry keeps it: its catalogue sentence when that is
// all it says, so the entry reads in its reader's language; otherwise its words, cut.
func said(err error) i18n.Text {
	if fe := fault.As(err); fe != nil && fe.Error() == fe.Msg.String() {
		return i18n.TextOf(fe.Msg)
	}
	return i18n.PlainText(freetext.Cut(err.Error(), 1024))
}

// RecordSignIn appends the attempt to the audit log: every success; failures one by one
// up to FailuresPerWindow per address, the rest counted. A failure to write is logged
// by the caller's logger only through the returned entry being nil: sign-in goes on
// either way, as a refusal is answered either way.
func (s *Service) RecordSignIn(ctx context.Context, r SignIn) *store.AuditEntry {
	if s.cfg.Audit == nil {
		return nil
	}
	if r.Err != nil && !s.failures.admit(s, r) {
		return nil
	}
	outcome, why := r.outcome()
	params := map[string]any{"provider": r.Provider, "outcome": outcome}
	if r.Role != NoRole && r.Err == nil {
		params["role"] = r.Role.String()
	}
	if len(r.Groups) > 0 {
		groups := make([]string, 0, min(len(r.Groups), SignInGroupsMax))
		for _, g := range r.Groups[:min(len(r.Groups), SignInGroupsMax)] {
			groups = append(groups, freetext.Cut(g, SignInTextMax))
		}
		params["groups"] = groups
	}
	status := store.AuditApplied
	if r.Err != nil {
		status = store.AuditRefused
	}
	return s.writeSignIn(ctx, &store.AuditEntry{Actor: freetext.Cut(r.Name, SignInTextMax), ActorAddr: freetext.Cut(r.Addr, SignInTextMax),
		Mode: SignInMode, Params: mustJSON(params), Status: status, Error: why})
}

func (s *Service) writeSignIn(ctx context.Context, e *store.AuditEntry) *store.AuditEntry {
	e.StartedAt = s.now()
	e.FinishedAt = e.StartedAt
	// The attempt happened: it is recorded even when the caller has gone.
	if err := s.cfg.Audit.Record(context.WithoutCancel(ctx), e); err != nil {
		if s.cfg.OnRecordError != nil {
			s.cfg.OnRecordError(err)
		}
		return nil
	}
	return e
}

// ProxySignIn records a user named by a trusted proxy as signed in when the console
// sees them for the first time, or again after SessionIdle without a request: the proxy
// sends its headers with every request, and a record per request would say nothing.
func (s *Service) ProxySignIn(ctx context.Context, c *Caller, addr string) {
	if s.cfg.Audit == nil || !s.proxySeen.fresh(c.Name, s.now(), s.cfg.SessionIdle) {
		return
	}
	s.RecordSignIn(ctx, SignIn{Provider: ProviderProxy, Name: c.Name, Addr: addr, Role: c.Role})
}

// Close writes the failures counted but not yet recorded.
func (s *Service) Close() { s.failures.flush(s) }

// proxySeen remembers when each proxy-named user last made a request.
type proxySeen struct {
	mu    sync.Mutex
	users map[string]time.Time
}

// fresh records that name was seen at now and reports whether that starts a session:
// first seen, or idle longer than idle.
func (p *proxySeen) fresh(name string, now time.Time, idle time.Duration) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	last, ok := p.users[name]
	p.users[name] = now
	if len(p.users) > maxKeys {
		for k, t := range p.users {
			if now.Sub(t) > idle {
				delete(p.users, k)
			}
		}
	}
	return !ok || now.Sub(last) > idle
}

// failureLimiter lets each address have FailuresPerWindow failed sign-ins recorded per
// window and counts the rest, written as one entry when the window ends.
type failureLimiter struct {
	window time.Duration
	mu     sync.Mutex
	addrs  map[string]*failureWindow
}

type failureWindow struct {
	recorded, counted int
	providers, names  map[string]bool
	timer             *time.Timer
}

func newFailureLimiter(window time.Duration) *failureLimiter {
	return &failureLimiter{window: window, addrs: map[string]*failureWindow{}}
}

// admit reports whether r is recorded on its own; when not, it is counted.
func (l *failureLimiter) admit(s *Service, r SignIn) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	w := l.addrs[r.Addr]
	if w == nil {
		if len(l.addrs) >= maxKeys {
			return false // a flood from everywhere: not one more timer
		}
		w = &failureWindow{providers: map[string]bool{}, names: map[string]bool{}}
		l.addrs[r.Addr] = w
		addr := r.Addr
		w.timer = time.AfterFunc(l.window, func() { l.end(s, addr, w) })
	}
	if w.recorded < FailuresPerWindow {
		w.recorded++
		return true
	}
	w.counted++
	w.providers[r.Provider] = true
	if len(w.names) < SignInGroupsMax && r.Name != "" {
		w.names[freetext.Cut(r.Name, SignInTextMax)] = true
	}
	return false
}

// end closes an address's window and writes the count of what it did not record.
func (l *failureLimiter) end(s *Service, addr string, w *failureWindow) {
	l.mu.Lock()
	if l.addrs[addr] == w {
		delete(l.addrs, addr)
	}
	n := w.counted
	w.counted = 0
	l.mu.Unlock()
	if n == 0 {
		return
	}
	providers := slices.Sorted(maps.Keys(w.providers))
	provider := ""
	if len(providers) == 1 {
		provider = providers[0]
	}
	s.writeSignIn(context.Background(), &store.AuditEntry{ActorAddr: freetext.Cut(addr, SignInTextMax), Mode: SignInMode,
		Status: store.AuditRefused,
		Params: mustJSON(map[string]any{"provider": provider, "outcome": OutcomeCounted, "failures": n,
			"names": slices.Sorted(maps.Keys(w.names))}),
		Error: i18n.TextOf(i18n.M("signin.audit.counted", "N", n, "Addr", addr, "Window", l.window.String(), "Max", FailuresPerWindow))})
}

// flush ends every window now, so the counts are written before the console stops.
func (l *failureLimiter) flush(s *Service) {
	l.mu.Lock()
	ws := maps.Clone(l.addrs)
	l.mu.Unlock()
	for addr, w := range ws {
		if w.timer.Stop() {
			l.end(s, addr, w)
		}
	}
}

func mustJSON(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err) // maps of strings and numbers
	}
	return b
}
