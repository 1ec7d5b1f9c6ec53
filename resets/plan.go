package resets

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"rmqconsole/cluster"
	"rmqconsole/fault"
	"rmqconsole/i18n"
	"rmqconsole/rocketmq"
	"rmqconsole/store"
)

// Method is how a broker is asked to move a group's offsets.
type Method string

// The ways to reset (see the package documentation).
const (
	MethodResetQueue     Method = "reset-queue"
	MethodResetTimestamp Method = "reset-timestamp"
	MethodUpdateOffset   Method = "update-offset"
)

// Explain says in a sentence what the method does to the group.
func (m Method) Explain() i18n.Message {
	switch m {
	case MethodResetQueue, MethodResetTimestamp, MethodUpdateOffset:
		return i18n.M("audit.method." + string(m))
	}
	return i18n.Plain(string(m))
}

// QueuePlan is one queue of a plan: where the group is and where the reset moves it.
type QueuePlan struct {
	QueueState
	Target int64
	// Note explains a clamped target.
	Note i18n.Text `json:"-"`
}

// Delta is Target - Current: negative means that many messages are consumed again,
// positive that many are skipped.
func (q QueuePlan) Delta() int64 { return q.Target - q.Current }

// LagAfter is the backlog right after the reset.
func (q QueuePlan) LagAfter() int64 { return max(q.Max-q.Target, 0) }

// BrokerPlan is a broker of the plan and how it will be asked.
type BrokerPlan struct {
	BrokerState
	Method Method
}

// Plan is a previewed reset: every queue's current and target offset and what will
// happen. Apply takes its ID.
type Plan struct {
	ID string
	// Hash identifies the plan's content (request, queues, offsets, targets).
	Hash        string
	Request     Request
	Topics      []string
	Online      bool
	OnlineKnown bool
	Clients     []string
	// Pop: the group consumes with POP (see Snapshot.Pop).
	Pop     bool
	Brokers []BrokerPlan
	Queues  []QueuePlan
	// Warnings say what will happen and what to watch, one sentence each.
	Warnings []i18n.Message `json:"-"`
	Failures []BrokerFailure
	// Refused are brokers whose queues are left out because their master did not
	// answer or none is registered (see RefusedBroker); Warnings say so too.
	Refused []RefusedBroker
	// Undo is set for ModeUndo: the entry undone and how its queues moved since.
	Undo *Undo `json:",omitempty"`
	// Copy is set for ModeGroup: the group copied and the queues it has no offset on.
	Copy *Copy `json:",omitempty"`
	// Message is set for ModeMessage: the message the reset starts from.
	Message *Message `json:",omitempty"`
	At      time.Time
}

// Changes counts the queues whose offset the reset moves.
func (p *Plan) Changes() int {
	n := 0
	for _, q := range p.Queues {
		if q.Target != q.Current {
			n++
		}
	}
	return n
}

// Reconsumed and Skipped total the messages consumed again and skipped.
func (p *Plan) Reconsumed() int64 {
	var n int64
	for _, q := range p.Queues {
		n += max(-q.Delta(), 0)
	}
	return n
}

// Skipped totals the messages the reset skips.
func (p *Plan) Skipped() int64 {
	var n int64
	for _, q := range p.Queues {
		n += max(q.Delta(), 0)
	}
	return n
}

// Action names what applying the plan does, for the button that applies it:
// "Reset 8 queues of group G to 2026-11-29 10:00:00 UTC".
func (p *Plan) Action() i18n.Message {
	r := p.Request
	switch {
	case len(p.Queues) == 1:
		q := p.Queues[0].Queue
		return i18n.M("reset.action.queue", "Broker", q.BrokerName, "Queue", q.QueueID, "Topic", q.Topic, "Group", r.Group, "To", r.Describe())
	case len(p.Topics) == 1:
		return i18n.M("reset.action.topic", "Queues", len(p.Queues), "Topic", p.Topics[0], "Group", r.Group, "To", r.Describe())
	}
	return i18n.M("reset.action", "Queues", len(p.Queues), "Group", r.Group, "To", r.Describe())
}

func (p *Plan) method(broker string) Method {
	for _, b := range p.Brokers {
		if b.Name == broker {
			return b.Method
		}
	}
	return ""
}

// auditPlan is the plan as the pending audit entry stores it.
func (p *Plan) auditPlan() store.AuditPlan {
	ap := store.AuditPlan{Hash: p.Hash, PlannedAt: p.At, Online: p.Online, Clients: p.Clients}
	for _, w := range p.Warnings {
		ap.Warnings = append(ap.Warnings, i18n.TextOf(w))
	}
	for _, b := range p.Brokers {
		ap.Brokers = append(ap.Brokers, store.AuditBroker{Name: b.Name, Addr: b.Addr, Version: VersionText(b.Version), Method: string(b.Method)})
	}
	for _, f := range p.Failures {
		ap.Warnings = append(ap.Warnings, i18n.TextOf(i18n.M("resets.warn.not_in_plan", "Failure", f.Message())))
	}
	for _, q := range p.Queues {
		ap.Queues = append(ap.Queues, store.AuditQueue{
			Topic: q.Queue.Topic, BrokerName: q.Queue.BrokerName, QueueID: q.Queue.QueueID, BrokerAddr: q.Addr,
			Before: q.Current, Target: q.Target, MinOffset: q.Min, MaxOffset: q.Max,
			Method: string(p.method(q.Queue.BrokerName)), Note: q.Note,
		})
	}
	return ap
}

// VersionText names a broker's version for people: "5.3.3", or "unknown" when the
// broker did not say.
func VersionText(v rocketmq.BrokerVersion) string {
	if v.Ordinal == 0 && v.Name == "" {
		return "unknown"
	}
	return v.String()
}

// Plan previews a reset: it reads every queue's offsets, computes the targets and says
// what will happen. It changes nothing. Bad input (including what only the cluster can
// tell: an unknown group, topic or queue, an offset past the end) is answered as
// fault.Invalid errors on their fields; it is not an audit event, since nothing was
// attempted against the cluster.
func (s *Service) Plan(ctx context.Context, req Request) (*Plan, error) {
	return s.planKept(ctx, req, nil)
}

// planKept plans req and keeps the preview; found, when set, is the message a
// ModeMessage request starts from, read already.
func (s *Service) planKept(ctx context.Context, req Request, found *foundMessage) (*Plan, error) {
	p, err := s.plan(ctx, req, found)
	if err != nil {
		return nil, err
	}
	s.previews.put(p)
	return p, nil
}

func (s *Service) plan(ctx context.Context, req Request, found *foundMessage) (*Plan, error) {
	if errs := req.Check(s.now()); len(errs) > 0 {
		return nil, errs
	}
	o, topic, err := s.origin(ctx, req, found)
	if err != nil {
		return nil, err
	}
	snap, err := s.Snapshot(ctx, req.Group, topic)
	if err != nil {
		return nil, err
	}
	return s.planFrom(ctx, req, snap, o)
}

// origin is what a plan starts from besides the group's offsets: the audit entry an undo
// restores, the message a ModeMessage reset starts from.
type origin struct {
	undo *undoSource
	msg  *Message
}

// origin reads (and checks) what req starts from, before any offset is read, and the
// topic to read the group's offsets on. found, when set, is the message a ModeMessage
// request starts from, read already.
func (s *Service) origin(ctx context.Context, req Request, found *foundMessage) (origin, string, error) {
	switch req.Mode {
	case ModeUndo:
		u, err := s.undoSource(ctx, req)
		if err != nil {
			return origin{}, "", err
		}
		return origin{undo: u}, u.topic(), nil
	case ModeMessage:
		if found == nil {
			f := s.lookupMessage(ctx, req)
			found = &f
		}
		m, err := found.forGroup(req)
		if err != nil {
			return origin{}, "", err
		}
		return origin{msg: m}, m.Queue.Topic, nil
	}
	return origin{}, req.Topic, nil
}

// planFrom computes the targets of req on a snapshot, from o.
func (s *Service) planFrom(ctx context.Context, req Request, snap *Snapshot, o origin) (*Plan, error) {
	undo := o.undo
	p := &Plan{
		Request: req, Topics: snap.Topics, Online: snap.Online, OnlineKnown: snap.OnlineKnown,
		Clients: snap.Clients, Pop: snap.Pop, Failures: append([]BrokerFailure(nil), snap.Failures...), At: s.now(),
		Refused: refusedIn(req, snap.Refused), Message: o.msg,
	}
	queues := snap.Queues
	if req.OneQueue() {
		q, err := pickQueue(req, snap)
		if err != nil {
			return nil, err
		}
		queues = []QueueState{q}
	}
	if undo != nil {
		queues, p.Undo = undo.queues(snap)
		p.Topics = undo.entry.Topics
	}
	if len(queues) == 0 {
		switch {
		case undo != nil && len(snap.Failures) == 0:
			return nil, fault.InvalidField("auditId", "resets.input.undo.nothing_left", "ID", req.AuditID)
		case len(snap.Failures) > 0:
			return nil, fmt.Errorf("preview reset of group %q: no broker answered: %w", req.Group, failures(snap.Failures))
		case len(snap.Topics) == 0:
			return nil, fault.InvalidField("topic", "resets.input.no_topics", "Group", strconv.Quote(req.Group))
		default:
			return nil, fault.InvalidField("topic", "resets.input.no_queue", "Topic", strings.Join(snap.Topics, ", "))
		}
	}

	// How each broker will be asked.
	used := map[string]bool{}
	for _, q := range queues {
		used[q.Queue.BrokerName] = true
	}
	var errs fault.List
	for _, b := range snap.Brokers {
		if !used[b.Name] {
			continue
		}
		bp := BrokerPlan{BrokerState: b, Method: methodFor(b, snap, req)}
		if bp.Method == "" {
			errs.Invalid("mode", "resets.input.old_broker", "Broker", b.Name, "Version", VersionText(b.Version))
		}
		p.Brokers = append(p.Brokers, bp)
	}
	if len(errs) > 0 {
		return nil, errs
	}

	byName := map[string]BrokerPlan{}
	for _, b := range p.Brokers {
		byName[b.Name] = b
	}
	src := sources{undo: undo, msg: o.msg}
	if req.Mode == ModeGroup {
		from, err := s.readFrom(ctx, req.FromGroup, queues)
		if err != nil {
			return nil, err
		}
		src.from, p.Copy = from, &Copy{FromGroup: req.FromGroup}
	}
	// Targets. Timestamps need one SEARCH_OFFSET_BY_TIMESTAMP per queue.
	p.Queues = make([]QueuePlan, len(queues))
	var mu sync.Mutex
	failed := map[int]bool{}
	fo := s.cluster.Fanout(ctx)
	for i, q := range queues {
		fo.At(q.Queue.BrokerName, q.Addr, "target", func(ctx context.Context, _ string) error {
			qp, err := s.planQueue(ctx, req, q, byName[q.Queue.BrokerName], src)
			mu.Lock()
			defer mu.Unlock()
			switch {
			case fault.Is(err, fault.Invalid):
				errs = append(errs, fault.All(err)...)
			case err != nil:
				failed[i] = true
				p.Failures = append(p.Failures, BrokerFailure{Broker: q.Queue.BrokerName, Addr: q.Addr, Topic: q.Queue.Topic,
					Op: fmt.Sprintf("queue %d", q.Queue.QueueID), Err: err})
			default:
				p.Queues[i] = qp
			}
			return nil
		})
	}
	fo.Wait()
	if len(errs) > 0 {
		return nil, dedupe(errs)
	}
	if len(failed) > 0 {
		kept := p.Queues[:0]
		for i, q := range p.Queues {
			if !failed[i] {
				kept = append(kept, q)
			}
		}
		p.Queues = kept
		if len(p.Queues) == 0 {
			return nil, fmt.Errorf("preview reset of group %q: %w", req.Group, failures(p.Failures))
		}
	}
	if p.Copy != nil {
		if err := p.Copy.collect(p); err != nil {
			return nil, err
		}
	}
	if p.Undo != nil {
		for i := range p.Queues {
			p.Queues[i].Note = joinNote(p.Queues[i].Note, undoNote(p.Undo, p.Queues[i].Queue))
		}
	}
	cluster.SortFailures(p.Failures)
	p.Warnings = warnings(p)
	p.Hash = planHash(p)
	p.ID = newID()
	return p, nil
}

// planQueue computes one queue's target: a fault.Invalid when the request cannot apply
// to the queue, another error when its broker did not answer.
func (s *Service) planQueue(ctx context.Context, req Request, q QueueState, b BrokerPlan, src sources) (QueuePlan, error) {
	qp := QueuePlan{QueueState: q}
	var err error
	switch req.Mode {
	case ModeTimestamp:
		var note i18n.Message
		qp.Target, note, err = s.timestampTarget(ctx, q, req.Timestamp, b)
		qp.Note = joinNote(nil, note)
	case ModeEarliest:
		qp.Target = q.Min
	case ModeLatest:
		qp.Target = q.Max
	case ModeOffset:
		qp.Target = req.Offset
	case ModeShift:
		if req.Shift > 0 && q.Current > math.MaxInt64-req.Shift {
			err = fault.InvalidField("shift", "resets.input.shift_overflow", "Broker", q.Queue.BrokerName, "Queue", q.Queue.QueueID,
				"Topic", q.Queue.Topic, "Offset", q.Current, "Shift", req.Shift)
		} else {
			qp.Target = q.Current + req.Shift
		}
	case ModeUndo:
		qp.Target = src.undo.before(q.Queue)
	case ModeMessage:
		qp.Target, qp.Note, err = s.messageTarget(ctx, src.msg, q, b)
	case ModeGroup:
		if f, ok := src.from[q.Queue]; ok && f.Committed {
			qp.Target = f.Current
		} else {
			qp.Target = q.Current
			qp.Note = i18n.TextOf(i18n.M("resets.note.copy_none", "Group", req.FromGroup))
		}
	}
	if err != nil {
		return qp, err
	}
	if req.Mode == ModeOffset && qp.Target > q.Max {
		return qp, fault.InvalidField("offset", "resets.input.offset_past_end", "Offset", qp.Target, "Broker", q.Queue.BrokerName,
			"Queue", q.Queue.QueueID, "Topic", q.Queue.Topic, "Min", q.Min, "Max", q.Max)
	}
	var clampNote i18n.Message
	qp.Target, clampNote = clamp(qp.Target, q.Min, q.Max)
	qp.Note = joinNote(qp.Note, clampNote)
	return qp, nil
}

// timestampTarget is the offset of the first message stored at or after t. 5.x brokers
// answer that directly (boundary LOWER). 4.x brokers answer the message stored closest to
// t, and the last one when all are older: when the broker itself applies the timestamp
// (reset-timestamp) that is what the group gets, so the plan says so; otherwise the
// answer is corrected by reading that message's store time.
func (s *Service) timestampTarget(ctx context.Context, q QueueState, t time.Time, b BrokerPlan) (off int64, note i18n.Message, err error) {
	off, err = s.admin.SearchOffset(ctx, q.Addr, q.Queue, t, rocketmq.BoundaryLower)
	if err != nil || b.Version.Is5() || b.Version.Ordinal == 0 {
		return off, note, err
	}
	if b.Method == MethodResetTimestamp {
		return off, i18n.M("resets.note.closest", "Version", VersionText(b.Version)), nil
	}
	if off < q.Min || off >= q.Max {
		return off, note, nil
	}
	res, err := s.admin.Pull(ctx, q.Addr, q.Queue, off, 1)
	if err != nil {
		return 0, note, err
	}
	if len(res.Messages) > 0 && res.Messages[0].StoreTimestamp < t.UnixMilli() {
		off = res.Messages[0].QueueOffset + 1
	}
	return off, note, nil
}

// pickQueue finds the one queue a request names.
func pickQueue(req Request, snap *Snapshot) (QueueState, error) {
	var hosts []string
	var ids []int
	for _, q := range snap.Queues {
		if q.Queue.Topic != req.Topic {
			continue
		}
		if req.BrokerName == "" || q.Queue.BrokerName == req.BrokerName {
			ids = append(ids, q.Queue.QueueID)
		}
		if q.Queue.QueueID == req.QueueID && (req.BrokerName == "" || q.Queue.BrokerName == req.BrokerName) {
			hosts = append(hosts, q.Queue.BrokerName)
		}
	}
	switch {
	case len(hosts) == 1:
		q, _ := snap.Queue(rocketmq.MessageQueue{Topic: req.Topic, BrokerName: hosts[0], QueueID: req.QueueID})
		return q, nil
	case len(hosts) > 1:
		return QueueState{}, fault.InvalidField("brokerName", "resets.input.choose_broker", "Topic", req.Topic, "Queue", req.QueueID, "Brokers", strings.Join(hosts, " and "))
	}
	for _, f := range snap.Failures {
		if req.BrokerName == "" || f.Broker == req.BrokerName {
			return QueueState{}, fmt.Errorf("preview reset of queue %d of topic %q: %w", req.QueueID, req.Topic, f)
		}
	}
	where, name := i18n.M("resets.where.topic"), fmt.Sprint(req.QueueID)
	if req.BrokerName != "" {
		where, name = i18n.M("resets.where.broker", "Broker", req.BrokerName), req.BrokerName+"/"+name
	}
	have := i18n.M("resets.have.none")
	if len(ids) > 0 {
		sort.Ints(ids)
		have = i18n.M("resets.have.range", "First", ids[0], "Last", ids[len(ids)-1])
	}
	return QueueState{}, fault.InvalidField("queueId", "resets.input.no_such_queue", "Queue", name, "Topic", req.Topic, "Where", where, "Have", have)
}

// clamp keeps a target within the queue's offsets and says so when it had to.
func clamp(target, lo, hi int64) (int64, i18n.Message) {
	switch {
	case target < lo:
		return lo, i18n.M("resets.note.clamped_min", "Target", target, "Min", lo)
	case target > hi:
		return hi, i18n.M("resets.note.clamped_max", "Target", target, "Max", hi)
	}
	return target, i18n.Message{}
}

// dedupe drops the errors said already on the same field (several queues may break the
// same rule).
func dedupe(errs fault.List) fault.List {
	type key struct{ field, message string }
	seen := map[key]bool{}
	out := errs[:0]
	for _, e := range errs {
		if k := (key{e.Field, e.Msg.String()}); !seen[k] {
			seen[k] = true
			out = append(out, e)
		}
	}
	return out
}

// failures is the failures of several brokers as one error: their sentences joined by
// "; ", each still a BrokerFailure to errors.As (the console answers them as broker
// failures, not its own).
type failures []BrokerFailure

func (fs failures) Error() string {
	parts := make([]string, len(fs))
	for i, f := range fs {
		parts[i] = f.String()
	}
	return strings.Join(parts, "; ")
}

func (fs failures) Unwrap() []error {
	errs := make([]error, len(fs))
	for i, f := range fs {
		errs[i] = f
	}
	return errs
}

// refusedIn keeps the refused queues the request covers: a one-queue reset is about that
// queue alone.
func refusedIn(req Request, rs []RefusedBroker) []RefusedBroker {
	if !req.OneQueue() {
		return rs
	}
	var out []RefusedBroker
	for _, r := range rs {
		if req.BrokerName != "" && r.Broker != req.BrokerName {
			continue
		}
		r.Queues = slices.DeleteFunc(slices.Clone(r.Queues), func(q rocketmq.MessageQueue) bool { return q.QueueID != req.QueueID })
		if len(r.Queues) > 0 {
			out = append(out, r)
		}
	}
	return out
}

// warnings say what applying the plan will do, given the group's state and the brokers.
func warnings(p *Plan) []i18n.Message {
	var w []i18n.Message
	add := func(id string, kv ...any) { w = append(w, i18n.M(id, kv...)) }
	g := p.Request.Group
	if p.Undo != nil {
		w = append(w, undoWarnings(p.Undo)...)
	}
	if p.Copy != nil {
		w = append(w, p.Copy.warnings()...)
	}
	if p.Message != nil {
		w = append(w, messageWarnings(p)...)
	}
	switch {
	case p.Online && p.Pop:
		add("resets.warn.online_pop", "N", len(p.Clients), "Group", g, "Clients", strings.Join(p.Clients, ", "))
	case p.Online:
		add("resets.warn.online", "N", len(p.Clients), "Group", g, "Clients", strings.Join(p.Clients, ", "))
	case p.OnlineKnown:
		add("resets.warn.offline", "Group", g)
	default:
		add("resets.warn.online_unknown", "Group", g)
	}
	for _, b := range p.Brokers {
		add("resets.warn.broker", "Broker", b.Name, "Version", VersionText(b.Version), "How", b.Method.Explain())
	}
	if p.Pop {
		add("resets.warn.pop")
	} else if p.Online {
		add("resets.warn.async_commit")
	}
	clamped, unchanged := 0, 0
	for _, q := range p.Queues {
		if slices.ContainsFunc(q.Note, func(m i18n.Message) bool { return strings.HasPrefix(m.ID, "resets.note.clamped_") }) {
			clamped++
		}
		if q.Target == q.Current {
			unchanged++
		}
	}
	if clamped > 0 {
		add("resets.warn.clamped", "N", clamped)
	}
	switch {
	case unchanged == len(p.Queues):
		add("resets.warn.all_at_target")
	case unchanged > 0:
		add("resets.warn.some_at_target", "N", unchanged)
	}
	for _, r := range p.Refused {
		w = append(w, r.Sentence())
	}
	for _, f := range p.Failures {
		if slices.ContainsFunc(p.Refused, func(r RefusedBroker) bool { return r.Broker == f.Broker }) {
			continue // said above, with its queues
		}
		if f.Gone() {
			add("resets.warn.gone", "Broker", f.Broker, "Addr", f.Addr, "Error", errorMessage(f.Err))
			continue
		}
		add("resets.warn.no_answer", "Failure", f.Message())
	}
	if t := p.Request.Topic; rocketmq.IsRetryTopic(t) {
		add("resets.warn.retry_topic", "Topic", t, "Group", g)
	}
	return w
}

func planHash(p *Plan) string {
	type q struct {
		T string
		B string
		Q int
		C int64
		X int64
	}
	qs := make([]q, len(p.Queues))
	for i, x := range p.Queues {
		qs[i] = q{x.Queue.Topic, x.Queue.BrokerName, x.Queue.QueueID, x.Current, x.Target}
	}
	b, _ := json.Marshal(struct {
		G string
		P map[string]any
		Q []q
	}{p.Request.Group, p.Request.Params(), qs})
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:16])
}

func newID() string {
	b := make([]byte, 16)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

func (p *Plan) previewed() (string, time.Time) { return p.ID, p.At }

// Preview returns a preview that can still be applied, without using it up.
func (s *Service) Preview(id string) (*Plan, bool) {
	return s.previews.peek(id, s.now())
}

// ExpiresAt is when the preview can no longer be applied.
func (s *Service) ExpiresAt(p *Plan) time.Time { return p.At.Add(s.previewTTL) }
