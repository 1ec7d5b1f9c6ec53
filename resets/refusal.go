package resets

import (
	"context"
	"encoding/json"
	"maps"
	"slices"
	"sync"
	"time"
	"unicode/utf8"

	"rmqconsole/fault"
	"rmqconsole/freetext"
	"rmqconsole/i18n"
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

// RefuseRole records an apply refused because the caller's role may not reset offsets,
// why saying so. The access check runs before any handler, so only what the request
// says is known.
func (s *Service) RefuseRole(ctx context.Context, who Who, group string, asked Asked, why i18n.Message) *store.AuditEntry {
	return s.refuseAsked(ctx, who, group, asked, i18n.TextOf(why))
}

// RefuseInput records an apply refused before any broker was asked because what it sent
// breaks the free-text rule (errs holds a freetext error): text the console does not
// take is worth a record of who sent it, kept escaped like everything a refusal stores.
// Other mistakes in a form are not recorded: nothing was attempted.
func (s *Service) RefuseInput(ctx context.Context, who Who, group string, asked Asked, errs error) *store.AuditEntry {
	if !freetext.Refused(errs) {
		return nil
	}
	var why i18n.Text
	for _, e := range fault.All(errs) {
		why = append(why, e.Msg)
	}
	return s.refuseAsked(ctx, who, group, asked, why)
}

func (s *Service) refuseAsked(ctx context.Context, who Who, group string, asked Asked, why i18n.Text) *store.AuditEntry {
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
	// why says why it was refused.
	why  i18n.Text
	plan *Plan
}

// refusalOf is the refusal of req at apply.
func refusalOf(who Who, req Request, topics []string, why i18n.Message, plan *Plan) refusal {
	if topics == nil && req.Topic != "" {
		topics = []string{req.Topic}
	}
	return refusal{who: who, group: req.Group, topics: topics, mode: string(req.Mode), reason: req.Reason,
		params: req.Params(), why: i18n.TextOf(why), plan: plan}
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
		Cluster: s.nameServers, Group: cut(r.group, RefusalTextMax), Mode: cut(r.mode, RefusalTextMax),
		Reason: cut(r.reason, RefusalTextMax), Status: store.AuditRefused,
		Error: boundedWhy(r.why), Params: boundedParams(r.params),
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
		s.log.Error("record refused reset", "group", e.Group, "actor", e.Actor, "refusal", e.Error.String(), "err", err)
		return nil
	}
	return e
}

// boundedWhy is the sentence saying why an attempt was refused, as its entry keeps it:
// every text in it cut to RefusalTextMax and escaped (see cut), and the whole, said in
// English, at most RefusalErrorMax characters (else kept as that English, cut).
func boundedWhy(why i18n.Text) i18n.Text {
	t := i18n.TextOf(i18n.M("resets.refused_at_apply", "Why", boundedText(why)))
	if s := t.String(); utf8.RuneCountInString(s) > RefusalErrorMax {
		return i18n.PlainText(cut(s, RefusalErrorMax))
	}
	return t
}

func boundedText(t i18n.Text) i18n.Text {
	out := make(i18n.Text, len(t))
	for i, m := range t {
		out[i] = boundedMessage(m)
	}
	return out
}

// boundedMessage is m with each text value cut (see cut), as deep as it goes.
func boundedMessage(m i18n.Message) i18n.Message {
	args := make([]any, len(m.Args))
	for i, a := range m.Args {
		switch v := a.(type) {
		case string:
			if i%2 == 1 { // a value, not a name
				v = cut(v, RefusalTextMax)
			}
			args[i] = v
		case i18n.Message:
			args[i] = boundedMessage(v)
		case i18n.Text:
			args[i] = boundedText(v)
		default:
			args[i] = a
		}
	}
	return i18n.Message{ID: m.ID, Args: args}
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
func cut(s string, n int) string { return freetext.Cut(freetext.Shown(s), n) }

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
		StartedAt: s.now(), Actor: cut(actor, RefusalTextMax), ActorAddr: cut(w.addr, RefusalTextMax), Cluster: s.nameServers,
		Status: store.AuditRefused, Params: mustJSON(map[string]any{"refusals": n, "groups": groups}),
		Error: i18n.TextOf(i18n.M("resets.refusals_counted", "N", n, "Actor", cut(actor, RefusalTextMax), "Window", windowText(l.window),
			"Max", RefusalsPerWindow)),
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

func windowText(d time.Duration) i18n.Message {
	if d == time.Minute {
		return i18n.M("resets.window.minute")
	}
	return i18n.Plain(d.String())
}
