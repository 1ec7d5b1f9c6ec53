package resets

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"sync"
	"time"

	"rmqconsole/clock"
	"rmqconsole/cluster"
	"rmqconsole/fault"
	"rmqconsole/i18n"
	"rmqconsole/rocketmq"
	"rmqconsole/store"
)

// Confirmation is an operator's go-ahead for a previewed plan.
type Confirmation struct {
	// PlanID is the preview being applied.
	PlanID string
	// Request is the reset as the confirming form or API call states it; it must be the
	// previewed one. Its Reason, when set, replaces the preview's.
	Request   Request
	Confirmed bool
	Who       Who
}

// Apply applies a previewed plan: it writes the audit entry as pending (and changes
// nothing when that fails), checks the preview still holds (see the package
// documentation), asks each broker, reads every queue's offset back and finishes the
// entry as applied, partial or failed.
//
// A mistake in the confirmation is a fault.Invalid; a refusal for the group's state (an
// expired or stale preview, another reset of the group in flight) is recorded and
// answered as a fault.Conflict whose cause is a *Rejected; an audit log that cannot be
// written is a fault.Unavailable. When the reset ran but its outcome could not be
// recorded, Apply returns the entry as it stands with that fault.Unavailable.
//
// Once the pending entry is written the reset runs to its end even if ctx is cancelled
// (the person who asked left): a half-applied reset must still be verified and recorded.
func (s *Service) Apply(ctx context.Context, c Confirmation) (*store.AuditEntry, error) {
	ctx = context.WithoutCancel(ctx)
	req := c.Request
	var errs fault.List
	if c.PlanID == "" {
		errs.Invalid("planId", "resets.input.no_plan")
	}
	if !c.Confirmed {
		errs.Invalid("confirm", "resets.input.confirm")
	}
	if len(errs) > 0 {
		return nil, errs // a form mistake: nothing was attempted, so nothing is audited
	}
	if s.admin == nil {
		return nil, errNoCluster()
	}

	plan, found, expired, err := s.previews.take(c.PlanID, s.now())
	if err != nil {
		return nil, fmt.Errorf("read preview %s to apply it (nothing was changed): %w", c.PlanID, err)
	}
	var say i18n.Message
	switch {
	case !found:
		say = i18n.M("resets.conflict.unknown_preview")
	case expired:
		say = i18n.M("resets.conflict.expired", "TTL", s.previewTTL.String())
	case !plan.Request.sameAs(req):
		say = i18n.M("resets.conflict.differs")
	}
	if say.ID != "" {
		fresh, err := s.plan(ctx, req, nil)
		if err != nil {
			return nil, err
		}
		s.previews.put(fresh)
		rec := s.recordRefusal(ctx, refusalOf(c.Who, req, fresh.Topics, say, nil))
		return nil, reject(say, &Rejected{Fresh: fresh, EntryID: entryID(rec)})
	}
	if req.Reason != "" {
		plan.Request.Reason = req.Reason
	}
	return s.apply(ctx, plan, c.Who)
}

func entryID(e *store.AuditEntry) int64 {
	if e == nil {
		return 0
	}
	return e.ID
}

func (s *Service) apply(ctx context.Context, plan *Plan, who Who) (*store.AuditEntry, error) {
	req := plan.Request
	entry := &store.AuditEntry{
		StartedAt: s.now(), Actor: who.Actor, ActorAddr: who.Addr, Cluster: s.nameServers, Group: req.Group,
		Topics: plan.Topics, Mode: string(req.Mode), Params: mustJSON(req.Params()), Reason: req.Reason,
		Plan: plan.auditPlan(), Status: store.AuditPending,
	}
	// 1. The audit entry, before anything else reaches a broker.
	if err := s.audit.Begin(ctx, entry); err != nil {
		var busy *store.AuditBusyError
		if errors.As(err, &busy) {
			say := i18n.M("resets.conflict.busy", "Group", req.Group, "ID", busy.Holder.ID, "Actor", busy.Holder.Actor,
				"At", busy.Holder.StartedAt.UTC().Format("2006-01-02 15:04:05 UTC"))
			rec := s.recordRefusal(ctx, refusalOf(who, req, plan.Topics, say, plan))
			return nil, reject(say, &Rejected{EntryID: entryID(rec)})
		}
		s.log.Error("reset not applied: audit log not writable", "group", req.Group, "actor", who.Actor, "err", err)
		if !errors.Is(err, store.ErrUnavailable) {
			// Not the disk or the server: the console's own failure, said as such.
			return nil, fmt.Errorf("write the pending audit entry of the reset (nothing was changed): %w", err)
		}
		return nil, fault.Wrap(err, fault.Unavailable, "resets.audit_unavailable", "Error", errorMessage(err)).Because("audit_unavailable")
	}
	s.log.Info("reset started", "audit_id", entry.ID, "group", req.Group, "actor", who.Actor, "action", plan.Action().String())
	if s.afterPending != nil {
		s.afterPending(ctx, entry)
	}
	finish := func() (*store.AuditEntry, error) {
		if err := s.audit.Finish(ctx, entry); err != nil {
			s.log.Error("reset outcome not recorded", "audit_id", entry.ID, "group", req.Group, "status", entry.Status, "err", err)
			return entry, fault.Wrap(err, fault.Unavailable, "resets.unrecorded", "ID", entry.ID, "Error", errorMessage(err)).Because("audit_unavailable")
		}
		s.log.Info("reset finished", "audit_id", entry.ID, "group", req.Group, "status", entry.Status)
		return entry, nil
	}

	// 2. The preview must still describe the group.
	snap, err := s.Snapshot(ctx, req.Group, plan.topic())
	if err != nil {
		entry.Status = store.AuditFailed
		entry.Error = i18n.TextOf(i18n.M("resets.unread_at_apply", "Error", errorMessage(err)))
		return finish()
	}
	if reasons := staleReasons(plan, snap, s.now(), s.previewTTL); len(reasons) > 0 {
		say := i18n.M("resets.conflict.moved", "Reasons", i18n.Series(i18n.ListSemicolon, reasons...))
		entry.Status = store.AuditRefused
		entry.Error = i18n.TextOf(i18n.M("resets.refused_at_apply", "Why", say))
		entry.Result = observed(plan, snap)
		fresh, ferr := s.replan(ctx, req, snap)
		if ferr == nil {
			s.previews.put(fresh)
		}
		if _, err := finish(); err != nil {
			return entry, err
		}
		return nil, reject(say, &Rejected{Reasons: reasons, Fresh: fresh, EntryID: entry.ID})
	}

	// 3. Ask the brokers, then 4. read every offset back.
	rows := s.execute(ctx, plan, snap)
	s.verify(ctx, req.Group, snap.Online, rows)
	entry.Result = rows
	entry.Status, entry.Error = outcome(rows)
	return finish()
}

// staleReasons applies the re-preview rule of the package documentation.
func staleReasons(plan *Plan, snap *Snapshot, now time.Time, ttl time.Duration) []i18n.Message {
	var r []i18n.Message
	add := func(id string, kv ...any) { r = append(r, i18n.M(id, kv...)) }
	if age := now.Sub(plan.At); age > ttl {
		add("resets.stale.old", "Age", age.Round(time.Second).String())
	}
	for _, b := range plan.Brokers {
		fb, ok := snap.Broker(b.Name)
		switch {
		case !ok:
			add("resets.stale.broker_gone", "Broker", b.Name)
		case fb.Addr != b.Addr:
			add("resets.stale.broker_moved", "Broker", b.Name, "From", b.Addr, "To", fb.Addr)
		case methodFor(fb, snap, plan.Request) != b.Method:
			add("resets.stale.broker_method", "Broker", b.Name)
		}
	}
	for _, q := range plan.Queues {
		f, ok := snap.Queue(q.Queue)
		kv := []any{"Broker", q.Queue.BrokerName, "Queue", q.Queue.QueueID, "Topic", q.Queue.Topic}
		switch {
		case !ok:
			add("resets.stale.unread", kv...)
		case f.Current < q.Current:
			add("resets.stale.back", append(kv, "From", q.Current, "To", f.Current)...)
		case f.Current != q.Current && plan.OnlineKnown && !plan.Online && !snap.Online:
			add("resets.stale.offline", append(kv, "From", q.Current, "To", f.Current)...)
		case f.Current > f.Max:
			add("resets.stale.past_end", append(kv, "At", f.Current, "End", f.Max)...)
		case q.Target < f.Min || q.Target > f.Max:
			add("resets.stale.target", append(kv, "Target", q.Target, "Min", f.Min, "Max", f.Max)...)
		}
	}
	return r
}

// topic is the topic a plan reads the group's offsets on at apply.
func (p *Plan) topic() string {
	switch {
	case p.Undo != nil && len(p.Undo.Topics) == 1:
		return p.Undo.Topics[0]
	case p.Message != nil:
		return p.Message.Queue.Topic
	}
	return p.Request.Topic
}

// replan is a fresh plan of req on snap, for a refused apply.
func (s *Service) replan(ctx context.Context, req Request, snap *Snapshot) (*Plan, error) {
	o, _, err := s.origin(ctx, req, nil)
	if err != nil {
		return nil, err
	}
	return s.planFrom(ctx, req, snap, o)
}

// methodFor is how a broker is asked given the group's state, "" when it cannot reset
// the request. planFrom plans with it and staleReasons checks the plan still holds.
func methodFor(b BrokerState, snap *Snapshot, req Request) Method {
	switch {
	case b.ServerSideReset:
		return MethodResetQueue
	case snap.OnlineKnown && !snap.Online:
		return MethodUpdateOffset
	case (req.Mode == ModeTimestamp || req.Mode == ModeEarliest || req.Mode == ModeLatest) && !req.OneQueue():
		return MethodResetTimestamp
	}
	return ""
}

// observed is the plan's queues with the offsets just read, for a refused entry.
func observed(plan *Plan, snap *Snapshot) []store.AuditQueue {
	rows := plan.auditPlan().Queues
	for i := range rows {
		mq := plan.Queues[i].Queue
		if f, ok := snap.Queue(mq); ok {
			cur := f.Current
			rows[i].Before, rows[i].MinOffset, rows[i].MaxOffset = cur, f.Min, f.Max
			rows[i].After = &cur
			rows[i].Note = i18n.TextOf(i18n.M("resets.note.not_applied"))
		}
	}
	return rows
}

// execute asks each broker to move the plan's queues and returns one row per queue with
// the error, if any. Every queue (every topic, for a reset by timestamp) is asked at
// once; a row records its own outcome, so the fan-out's failures are not used.
func (s *Service) execute(ctx context.Context, plan *Plan, snap *Snapshot) []store.AuditQueue {
	x := &execution{s: s, plan: plan, group: plan.Request.Group, rows: plan.auditPlan().Queues, fo: s.cluster.Fanout(ctx)}
	byBroker := map[string][]int{}
	for i, q := range plan.Queues {
		if f, ok := snap.Queue(q.Queue); ok {
			x.rows[i].Before, x.rows[i].MinOffset, x.rows[i].MaxOffset = f.Current, f.Min, f.Max
		}
		byBroker[q.Queue.BrokerName] = append(byBroker[q.Queue.BrokerName], i)
	}
	for _, broker := range sortedKeys(byBroker) {
		idx := byBroker[broker]
		switch plan.method(broker) {
		case MethodResetQueue:
			x.resetQueues(idx)
		case MethodUpdateOffset:
			x.updateOffsets(idx)
		case MethodResetTimestamp:
			x.resetByTimestamp(idx)
		default:
			for _, i := range idx {
				x.set(i, i18n.Message{}, fault.New(fault.Internal, "resets.error.no_method", "Broker", broker))
			}
		}
	}
	x.fo.Wait()
	return x.rows
}

// execution is one plan being applied: the rows its queues' outcomes are written to.
type execution struct {
	s     *Service
	plan  *Plan
	group string
	fo    *cluster.Fanout

	mu   sync.Mutex
	rows []store.AuditQueue
}

// set adds a note and the error, if any, to queue i's row.
func (x *execution) set(i int, note i18n.Message, err error) {
	x.mu.Lock()
	defer x.mu.Unlock()
	x.rows[i].Note = joinNote(x.rows[i].Note, note)
	if err != nil {
		x.rows[i].Error = i18n.TextOf(errorMessage(err))
	}
}

// unchanged leaves a queue already at its target alone: resetting it would only make
// its client drop what it has in flight.
func (x *execution) unchanged(i int) bool {
	if x.rows[i].Before != x.plan.Queues[i].Target {
		return false
	}
	x.set(i, i18n.M("resets.note.at_target"), nil)
	return true
}

// each asks queue i's broker, with the others at once.
func (x *execution) each(i int, op string, fn func(ctx context.Context)) {
	q := x.plan.Queues[i]
	x.fo.At(q.Queue.BrokerName, q.Addr, op, func(ctx context.Context, _ string) error {
		fn(ctx)
		return nil
	})
}

// update writes queue i's offset, the way a client commits it.
func (x *execution) update(ctx context.Context, i int, why i18n.Message) {
	q := x.plan.Queues[i]
	err := x.s.admin.UpdateConsumerOffset(ctx, q.Addr, x.group, q.Queue, q.Target)
	x.mu.Lock()
	x.rows[i].Method = string(MethodUpdateOffset)
	x.mu.Unlock()
	x.set(i, why, err)
}

// resetQueues asks the broker to reset each queue itself (MethodResetQueue).
func (x *execution) resetQueues(idx []int) {
	for _, i := range idx {
		x.each(i, "reset offset", func(ctx context.Context) {
			if x.unchanged(i) {
				return
			}
			q := x.plan.Queues[i]
			tbl, err := x.s.admin.ResetOffset(ctx, q.Addr, rocketmq.ResetQueueToOffset(q.Queue.Topic, x.group, q.Queue.QueueID, q.Target))
			var note i18n.Message
			if v, ok := tbl[q.Queue]; ok && v != q.Target {
				note = i18n.M("resets.note.broker_set", "Offset", v)
			}
			x.set(i, note, err)
		})
	}
}

// updateOffsets writes each queue's offset (MethodUpdateOffset).
func (x *execution) updateOffsets(idx []int) {
	for _, i := range idx {
		x.each(i, "update offset", func(ctx context.Context) {
			if !x.unchanged(i) {
				x.update(ctx, i, i18n.Message{})
			}
		})
	}
}

// resetByTimestamp asks the broker to reset each topic's queues to the plan's time, one
// request a topic (MethodResetTimestamp).
func (x *execution) resetByTimestamp(idx []int) {
	byTopic := map[string][]int{}
	for _, i := range idx {
		byTopic[x.plan.Queues[i].Queue.Topic] = append(byTopic[x.plan.Queues[i].Queue.Topic], i)
	}
	for _, topic := range sortedKeys(byTopic) {
		ti := byTopic[topic]
		x.each(ti[0], "reset by timestamp", func(ctx context.Context) {
			addr := x.plan.Queues[ti[0]].Addr
			tbl, err := x.s.admin.ResetOffset(ctx, addr, rocketmq.ResetByTimestamp(topic, x.group, resetTimestamp(x.plan.Request), true))
			if errors.Is(err, rocketmq.ErrConsumerNotOnline) {
				// The clients left between the preview and now: write the offsets, as
				// mqadmin does.
				for _, i := range ti {
					x.each(i, "update offset", func(ctx context.Context) {
						x.update(ctx, i, i18n.M("resets.note.written_directly"))
					})
				}
				return
			}
			for _, i := range ti {
				q := x.plan.Queues[i]
				var note i18n.Message
				if v, ok := tbl[q.Queue]; ok && v != q.Target {
					note = i18n.M("resets.note.broker_chose", "Offset", v)
				}
				x.set(i, note, err)
			}
		})
	}
}

// resetTimestamp is the timestamp a by-timestamp reset sends for the plan's mode: -1
// asks for the max offset, 0 finds the earliest message.
func resetTimestamp(r Request) int64 {
	switch r.Mode {
	case ModeLatest:
		return -1
	case ModeEarliest:
		return 0
	}
	return r.Timestamp.UnixMilli()
}

// joinNote is note a followed by b, separated as a list is ("a; b"); a when b is zero.
func joinNote(a i18n.Text, b i18n.Message) i18n.Text {
	switch {
	case b.ID == "":
		return a
	case len(a) == 0:
		return i18n.TextOf(b)
	}
	out := append(a[:len(a)-1:len(a)-1], i18n.M(i18n.ListSemicolon, "Text", a[len(a)-1]))
	return append(out, b)
}

// verify waits for the offsets to settle, then reads every queue's committed offset back
// into After and judges it. Queues not yet at their target are read again until
// VerifyWait has passed, since clients commit some resets asynchronously.
func (s *Service) verify(ctx context.Context, group string, online bool, rows []store.AuditQueue) {
	clock.Sleep(ctx, s.settle)
	deadline := time.Now().Add(s.verifyWait)
	var found []readOffset
	for {
		found = s.readBack(ctx, group, rows)
		settled := true
		for i, r := range rows {
			if len(r.Error) > 0 {
				continue // the broker refused: nothing to wait for
			}
			f := found[i]
			if !f.read {
				settled = false
				continue
			}
			r.After = &f.offset
			if ok, _, _ := judge(r, online, f.max); !ok {
				settled = false
			}
		}
		if settled || !time.Now().Before(deadline) {
			break
		}
		clock.Sleep(ctx, 500*time.Millisecond)
	}
	for i := range rows {
		f := found[i]
		if f.read {
			after := f.offset
			rows[i].After = &after
		}
		switch {
		case len(rows[i].Error) > 0:
		case !f.read:
			rows[i].Error = i18n.TextOf(i18n.M("resets.error.not_read_because", "Error", f.err))
		default:
			if ok, note, problem := judge(rows[i], online, f.max); !ok {
				rows[i].Error = i18n.TextOf(problem)
			} else {
				rows[i].Note = joinNote(rows[i].Note, note)
			}
		}
	}
}

type readOffset struct {
	read   bool
	offset int64
	max    int64
	err    i18n.Message
}

// readBack reads the committed offset of each row's queue: one GET_CONSUME_STATS per
// broker and topic, and QUERY_CONSUMER_OFFSET for a queue it leaves out.
func (s *Service) readBack(ctx context.Context, group string, rows []store.AuditQueue) []readOffset {
	out := make([]readOffset, len(rows))
	type key struct{ addr, topic string }
	parts := map[key][]int{}
	for i, r := range rows {
		k := key{r.BrokerAddr, r.Topic}
		parts[k] = append(parts[k], i)
	}
	keys := make([]key, 0, len(parts))
	for k := range parts {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return keys[i].addr+keys[i].topic < keys[j].addr+keys[j].topic })
	var mu sync.Mutex
	fo := s.cluster.Fanout(ctx)
	for _, k := range keys {
		fo.At(rows[parts[k][0]].BrokerName, k.addr, "read back", func(ctx context.Context, _ string) error {
			s.readBackPart(ctx, group, k.addr, k.topic, rows, parts[k], out, &mu)
			return nil
		})
	}
	fo.Wait()
	return out
}

// readBackPart reads the offsets of one broker's queues of one topic into out.
func (s *Service) readBackPart(ctx context.Context, group, addr, topic string, rows []store.AuditQueue, idx []int, out []readOffset, mu *sync.Mutex) {
	stats, serr := s.admin.ConsumeStats(ctx, addr, group, topic)
	for _, i := range idx {
		mq := rocketmq.MessageQueue{Topic: rows[i].Topic, BrokerName: rows[i].BrokerName, QueueID: rows[i].QueueID}
		r := readOffset{max: rows[i].MaxOffset}
		if serr == nil {
			if o, ok := stats.Offsets[mq]; ok {
				r = readOffset{read: true, offset: o.ConsumerOffset, max: o.BrokerOffset}
			}
		}
		if !r.read {
			off, err := s.admin.QueryConsumerOffset(ctx, addr, group, mq)
			switch {
			case err == nil:
				r.read, r.offset = true, off
			case serr != nil:
				r.err = errorMessage(serr)
			default:
				r.err = errorMessage(err)
			}
		}
		mu.Lock()
		out[i] = r
		mu.Unlock()
	}
}

// judge decides whether a queue's offset read back after the reset shows the reset
// worked. ok: it is at the target, or (group online) past it by what the group consumed
// since, up to the queue's end. A queue back at its old offset had an old offset written
// back by a client that commits asynchronously.
func judge(r store.AuditQueue, online bool, maxNow int64) (ok bool, note, problem i18n.Message) {
	if r.After == nil {
		return false, note, i18n.M("resets.error.not_read")
	}
	a := *r.After
	switch {
	case a == r.Target:
		return true, note, problem
	case a == r.Before:
		return false, note, i18n.M("resets.error.written_back", "At", a, "Target", r.Target)
	case online && a > r.Target && a <= maxNow:
		return true, i18n.M("resets.note.consumed", "N", a-r.Target), problem
	}
	return false, note, i18n.M("resets.error.off_target", "At", a, "Target", r.Target)
}

// outcome is the entry's status from its queues, and a summary of what went wrong.
func outcome(rows []store.AuditQueue) (store.AuditStatus, i18n.Text) {
	var bad []i18n.Message
	for _, r := range rows {
		if len(r.Error) > 0 {
			bad = append(bad, i18n.M("resets.outcome.queue", "Broker", r.BrokerName, "Queue", r.QueueID, "Topic", r.Topic, "Error", r.Error))
		}
	}
	switch {
	case len(bad) == 0:
		return store.AuditApplied, nil
	case len(bad) == len(rows):
		return store.AuditFailed, i18n.TextOf(i18n.M("resets.outcome.failed", "Queues", summarize(bad)))
	}
	return store.AuditPartial, i18n.TextOf(i18n.M("resets.outcome.partial", "Bad", len(bad), "Of", len(rows), "Queues", summarize(bad)))
}

// summarize names the first queues that went wrong, and counts the others.
func summarize(bad []i18n.Message) i18n.Text {
	const show = 5
	if len(bad) <= show {
		t := i18n.Series(i18n.ListSemicolon, bad...)
		t[len(t)-1] = i18n.M("resets.end", "Text", t[len(t)-1])
		return t
	}
	return append(i18n.Series(i18n.ListSemicolon, bad[:show+1]...)[:show], i18n.M("resets.outcome.more", "N", len(bad)-show))
}
