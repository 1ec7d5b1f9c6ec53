package resets

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sync"
	"time"
	"unicode/utf8"

	"rmqconsole/freetext"
	"rmqconsole/store"
)

// What one refused attempt may store in the audit log, and how many are recorded one by
// one. The log is never pruned, so a refusal (which anyone signed in can cause) must not
// be able to grow it by more than a small, fixed amount; README documents these numbers.
const (
	// RefusalTextMax bounds the reason typed and each parameter, in characters.
	RefusalTextMax = 256
	// RefusalParamsMax bounds how many parameters are kept.
	RefusalParamsMax = 16
	// RefusalErrorMax bounds the sentence saying why the attempt was refused.
	RefusalErrorMax = 1024
	// RefusalsPerWindow is how many refusals of one actor are recorded one by one per
	// RefusalWindow; the rest are counted in one entry at the end of the window.
	RefusalsPerWindow = 10
	// RefusalWindow is the window of RefusalsPerWindow.
	RefusalWindow = time.Minute
)

// Asked is what a refused request asked for, as typed: nothing in it was checked.
type Asked struct {
	Topic, Mode, Reason string
	// Params are the other fields as typed.
	Params map[string]string
}

// RefuseRole records an apply refused because the caller's role may not reset offsets.
// The access check runs before any handler, so only what the request says is known.
func (s *Service) RefuseRole(ctx context.Context, who Who, group string, asked Asked, why string) *store.AuditEntry {
	return s.refuseAsked(ctx, who, group, asked, why)
}

// RefuseInput records an apply refused before any broker was asked because what it sent
// breaks the free-text rule (errs holds a freetext error): text the console does not
// take is worth a record of who sent it, kept escaped like everything a refusal stores.
// Other mistakes in a form are not recorded: nothing was attempted.
func (s *Service) RefuseInput(ctx context.Context, who Who, group string, asked Asked, errs InputErrors) *store.AuditEntry {
	if !errors.Is(errs, freetext.ErrInvalid) {
		return nil
	}
	return s.refuseAsked(ctx, who, group, asked, errs.Error())
}

func (s *Service) refuseAsked(ctx context.Context, who Who, group string, asked Asked, why string) *store.AuditEntry {
	params := make(map[string]any, len(asked.Params)+2)
	for k, v := range asked.Params {
		params[k] = v
	}
	params["topic"], params["mode"] = asked.Topic, asked.Mode
	var topics []string
	if asked.Topic != "" {
		topics = []string{asked.Topic}
	}
	return s.recordRefusal(ctx, refusal{who: who, group: group, topics: topics, mode: asked.Mode,
		reason: asked.Reason, params: params, why: why})
}

// refusal is one refused apply, before it is bounded and written.
type refusal struct {
	who    Who
	group  string
	topics []string
	mode   string
	reason string
	params map[string]any
	// why says why it was refused, in a sentence.
	why  string
	plan *Plan
}

// refusalOf is the refusal of req at apply.
func refusalOf(who Who, req Request, topics []string, why string, plan *Plan) refusal {
	if topics == nil && req.Topic != "" {
		topics = []string{req.Topic}
	}
	return refusal{who: who, group: req.Group, topics: topics, mode: string(req.Mode), reason: req.Reason,
		params: req.Params(), why: why, plan: plan}
}

// recordRefusal writes a refused entry, bounded (see RefusalTextMax and the others) and
// rate-limited per actor; nil when it was only counted or could not be written. A failure
// to write it is logged: the refusal is answered either way, and nothing was changed.
// Every text it keeps was typed by the refused caller and checked by nothing: what the
// free-text rule does not allow is kept escaped (freetext.Shown), so any database
// stores it and the log shows exactly what was sent.
func (s *Service) recordRefusal(ctx context.Context, r refusal) *store.AuditEntry {
	if !s.refusals.admit(s, r) {
		return nil
	}
	e := &store.AuditEntry{
		StartedAt: s.now(), Actor: cut(r.who.Actor, RefusalTextMax), ActorAddr: cut(r.who.Addr, RefusalTextMax),
		Cluster: s.cluster, Group: cut(r.group, RefusalTextMax), Mode: cut(r.mode, RefusalTextMax),
		Reason: cut(r.reason, RefusalTextMax), Status: store.AuditRefused,
		Error: cut("Refused at apply: "+freetext.Shown(r.why), RefusalErrorMax), Params: boundedParams(r.params),
	}
	for _, t := range r.topics[:min(len(r.topics), RefusalParamsMax)] {
		e.Topics = append(e.Topics, cut(t, RefusalTextMax))
	}
	if r.plan != nil {
		e.Plan = r.plan.auditPlan()
	}
	return s.writeRefusal(ctx, e)
}

func (s *Service) writeRefusal(ctx context.Context, e *store.AuditEntry) *store.AuditEntry {
	e.FinishedAt = e.StartedAt
	if err := s.audit.Record(context.WithoutCancel(ctx), e); err != nil {
		s.log.Error("record refused reset", "group", e.Group, "actor", e.Actor, "refusal", e.Error, "err", err)
		return nil
	}
	return e
}

// boundedParams is params as JSON with at most RefusalParamsMax entries (in name order),
// each text cut to RefusalTextMax.
func boundedParams(params map[string]any) json.RawMessage {
	out := map[string]any{}
	for _, k := range slices.Sorted(maps.Keys(params))[:min(len(params), RefusalParamsMax)] {
		v := params[k]
		if sv, ok := v.(string); ok {
			if sv == "" {
				continue
			}
			v = cut(sv, RefusalTextMax)
		}
		out[cut(k, RefusalTextMax)] = v
	}
	return mustJSON(out)
}

// cut shortens s, escaped where the free-text rule does not allow it, to at most n
// characters, marking the cut with "…".
func cut(s string, n int) string {
	s = freetext.Shown(s)
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n-1]) + "…"
}

// refusalLimiter lets each actor have RefusalsPerWindow refusals recorded per window and
// counts the rest, written as one entry when the window ends (or the service closes).
type refusalLimiter struct {
	window time.Duration
	mu     sync.Mutex
	actors map[string]*refusalWindow
}

type refusalWindow struct {
	recorded, counted int
	addr              string
	groups            map[string]bool
	timer             *time.Timer
}

func newRefusalLimiter(window time.Duration) *refusalLimiter {
	return &refusalLimiter{window: window, actors: map[string]*refusalWindow{}}
}

// admit reports whether r is recorded on its own; when not, it is counted.
func (l *refusalLimiter) admit(s *Service, r refusal) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	actor := r.who.Actor
	w := l.actors[actor]
	if w == nil {
		w = &refusalWindow{groups: map[string]bool{}}
		l.actors[actor] = w
		w.timer = time.AfterFunc(l.window, func() { l.end(s, actor, w) })
	}
	if w.recorded < RefusalsPerWindow {
		w.recorded++
		return true
	}
	w.counted++
	w.addr = r.who.Addr
	if len(w.groups) < RefusalParamsMax {
		w.groups[cut(r.group, RefusalTextMax)] = true
	}
	return false
}

// end closes an actor's window and writes the count of what it did not record.
func (l *refusalLimiter) end(s *Service, actor string, w *refusalWindow) {
	l.mu.Lock()
	if l.actors[actor] == w {
		delete(l.actors, actor)
	}
	n := w.counted
	w.counted = 0
	l.mu.Unlock()
	if n == 0 {
		return
	}
	groups := slices.Sorted(maps.Keys(w.groups))
	e := &store.AuditEntry{
		StartedAt: s.now(), Actor: cut(actor, RefusalTextMax), ActorAddr: cut(w.addr, RefusalTextMax), Cluster: s.cluster,
		Status: store.AuditRefused, Params: mustJSON(map[string]any{"refusals": n, "groups": groups}),
		Error: fmt.Sprintf("…and %d more refusals by %s in the last %s, counted here rather than recorded one by one (at most %d per person are).",
			n, freetext.Shown(actor), windowText(l.window), RefusalsPerWindow),
	}
	if len(groups) == 1 {
		e.Group = groups[0]
	}
	s.writeRefusal(context.Background(), e)
}

// flush ends every window now: the counts are written before the service stops.
func (l *refusalLimiter) flush(s *Service) {
	l.mu.Lock()
	ws := maps.Clone(l.actors)
	l.mu.Unlock()
	for actor, w := range ws {
		if w.timer.Stop() {
			l.end(s, actor, w)
		}
	}
}

func windowText(d time.Duration) string {
	if d == time.Minute {
		return "minute"
	}
	return d.String()
}
