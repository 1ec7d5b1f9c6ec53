package resets

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"

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

// FinishError is a reset that was applied but whose outcome could not be written to
// the audit log: the entry stays pending and is marked interrupted at the next start.
type FinishError struct {
	Entry *store.AuditEntry
	Err   error
}

func (e *FinishError) Error() string {
	return fmt.Sprintf("The reset was applied, but its outcome could not be written to the audit log (%v). Audit entry %d stays pending and is marked interrupted, with the offsets found, at the next start (or, on a shared database, by another console once this one stops).", e.Err, e.Entry.ID)
}

// Is makes errors.Is(err, ErrAuditUnavailable) hold.
func (e *FinishError) Is(target error) bool { return target == ErrAuditUnavailable }

// Unwrap returns the store's error.
func (e *FinishError) Unwrap() error { return e.Err }

// Apply applies a previewed plan: it writes the audit entry as pending (and changes
// nothing when that fails), checks the preview still holds (see the package
// documentation), asks each broker, reads every queue's offset back and finishes the
// entry as applied, partial or failed. A refusal (no confirmation, an expired or stale
// preview, another reset of the group in flight) is recorded and answered as
// InputErrors or a *ConflictError.
//
// Once the pending entry is written the reset runs to its end even if ctx is cancelled
// (the person who asked left): a half-applied reset must still be verified and recorded.
func (s *Service) Apply(ctx context.Context, c Confirmation) (*store.AuditEntry, error) {
	ctx = context.WithoutCancel(ctx)
	req := c.Request
	var errs InputErrors
	if c.PlanID == "" {
		errs.say("planId", "resets.input.no_plan")
	}
	if !c.Confirmed {
		errs.say("confirm", "resets.input.confirm")
	}
	if len(errs) > 0 {
		return nil, errs // a form mistake: nothing was attempted, so nothing is audited
	}
	if s.admin == nil {
		return nil, ErrNoCluster
	}

	plan, expired, err := s.previews.take(c.PlanID, s.now())
	if err != nil {
		return nil, fmt.Errorf("read preview %s to apply it (nothing was changed): %w", c.PlanID, err)
	}
	var say i18n.Message
	switch {
	case plan == nil:
		say = i18n.M("resets.conflict.unknown_preview")
	case expired:
		say = i18n.M("resets.conflict.expired", "TTL", s.previewTTL.String())
	case !plan.Request.sameAs(req):
		say = i18n.M("resets.conflict.differs")
	}
	if reason := say.String(); say.ID != "" {
		fresh, err := s.plan(ctx, req)
		if err != nil {
			return nil, err
		}
		s.previews.put(fresh)
		rec := s.recordRefusal(ctx, refusalOf(c.Who, req, fresh.Topics, reason, nil))
		return nil, &ConflictError{Message: reason, Say: say, Fresh: fresh, EntryID: entryID(rec)}
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
		StartedAt: s.now(), Actor: who.Actor, ActorAddr: who.Addr, Cluster: s.cluster, Group: req.Group,
		Topics: plan.Topics, Mode: string(req.Mode), Params: mustJSON(req.Params()), Reason: req.Reason,
		Plan: plan.auditPlan(), Status: store.AuditPending,
	}
	// 1. The audit entry, before anything else reaches a broker.
	if err := s.audit.Begin(ctx, entry); err != nil {
		var busy *store.AuditBusyError
		if errors.As(err, &busy) {
			say := i18n.M("resets.conflict.busy", "Group", req.Group, "ID", busy.Holder.ID, "Actor", busy.Holder.Actor,
				"At", busy.Holder.StartedAt.UTC().Format("2006-01-02 15:04:05 UTC"))
			msg := say.String()
			rec := s.recordRefusal(ctx, refusalOf(who, req, plan.Topics, msg, plan))
			return nil, &ConflictError{Message: msg, Say: say, EntryID: entryID(rec)}
		}
		s.log.Error("reset not applied: audit log not writable", "group", req.Group, "actor", who.Actor, "err", err)
		if !errors.Is(err, store.ErrUnavailable) {
			// Not the disk or the server: the console's own failure, said as such.
			return nil, fmt.Errorf("write the pending audit entry of the reset (nothing was changed): %w", err)
		}
		return nil, &AuditUnavailableError{Err: err}
	}
	s.log.Info("reset started", "audit_id", entry.ID, "group", req.Group, "actor", who.Actor, "action", plan.Action())
	if s.afterPending != nil {
		s.afterPending(ctx, entry)
	}
	finish := func() (*store.AuditEntry, error) {
		if err := s.audit.Finish(ctx, entry); err != nil {
			s.log.Error("reset outcome not recorded", "audit_id", entry.ID, "group", req.Group, "status", entry.Status, "err", err)
			return entry, &FinishError{Entry: entry, Err: err}
		}
		s.log.Info("reset finished", "audit_id", entry.ID, "group", req.Group, "status", entry.Status)
		return entry, nil
	}

	// 2. The preview must still describe the group.
	snap, err := s.Snapshot(ctx, req.Group, req.Topic)
	if err != nil {
		entry.Status = store.AuditFailed
		entry.Error = "Could not read the offsets again before applying, so nothing was changed: " + err.Error()
		return finish()
	}
	if reasons := staleReasons(plan, snap, s.now(), s.previewTTL); len(reasons) > 0 {
		msg := "Offsets moved since the preview, so nothing was changed: " + strings.Join(reasons, "; ") + ". Check the fresh preview, then apply it."
		entry.Status = store.AuditRefused
		entry.Error = "Refused at apply: " + msg
		entry.Result = observed(plan, snap)
		fresh, ferr := s.planFrom(ctx, req, snap)
		if ferr == nil {
			s.previews.put(fresh)
		}
		if _, err := finish(); err != nil {
			return nil, err
		}
		return nil, &ConflictError{Message: msg, Reasons: reasons, Fresh: fresh, EntryID: entry.ID}
	}

	// 3. Ask the brokers, then 4. read every offset back.
	rows := s.execute(ctx, plan, snap)
	s.verify(ctx, req.Group, snap.Online, rows)
	entry.Result = rows
	entry.Status, entry.Error = outcome(rows)
	return finish()
}

// staleReasons applies the re-preview rule of the package documentation.
func staleReasons(plan *Plan, snap *Snapshot, now time.Time, ttl time.Duration) []string {
	var r []string
	if age := now.Sub(plan.At); age > ttl {
		r = append(r, fmt.Sprintf("the preview is %s old", age.Round(time.Second)))
	}
	for _, b := range plan.Brokers {
		fb, ok := snap.Broker(b.Name)
		switch {
		case !ok:
			r = append(r, fmt.Sprintf("broker %s no longer answers or serves the group's topics", b.Name))
		case fb.Addr != b.Addr:
			r = append(r, fmt.Sprintf("broker %s moved from %s to %s", b.Name, b.Addr, fb.Addr))
		case methodFor(fb, snap, plan.Request) != b.Method:
			r = append(r, fmt.Sprintf("broker %s would now be asked differently (the group came online or went offline, or the broker changed)", b.Name))
		}
	}
	for _, q := range plan.Queues {
		f, ok := snap.Queue(q.Queue)
		name := fmt.Sprintf("queue %s/%d of %s", q.Queue.BrokerName, q.Queue.QueueID, q.Queue.Topic)
		switch {
		case !ok:
			r = append(r, name+" could not be read")
		case f.Current < q.Current:
			r = append(r, fmt.Sprintf("%s moved back from %d to %d (another reset?)", name, q.Current, f.Current))
		case f.Current != q.Current && plan.OnlineKnown && !plan.Online && !snap.Online:
			r = append(r, fmt.Sprintf("%s moved from %d to %d while no client was online", name, q.Current, f.Current))
		case f.Current > f.Max:
			r = append(r, fmt.Sprintf("%s is at %d, past the queue's end %d", name, f.Current, f.Max))
		case q.Target < f.Min || q.Target > f.Max:
			r = append(r, fmt.Sprintf("%s's target %d is no longer within its offsets %d to %d", name, q.Target, f.Min, f.Max))
		}
	}
	return r
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
			rows[i].Note = "not applied; offset read at apply time"
		}
	}
	return rows
}

// execute asks each broker to move the plan's queues and returns one row per queue with
// the error, if any. Brokers are asked in parallel.
func (s *Service) execute(ctx context.Context, plan *Plan, snap *Snapshot) []store.AuditQueue {
	rows := plan.auditPlan().Queues
	byBroker := map[string][]int{}
	for i, q := range plan.Queues {
		if f, ok := snap.Queue(q.Queue); ok {
			rows[i].Before, rows[i].MinOffset, rows[i].MaxOffset = f.Current, f.Min, f.Max
		}
		byBroker[q.Queue.BrokerName] = append(byBroker[q.Queue.BrokerName], i)
	}
	group := plan.Request.Group
	var mu sync.Mutex
	set := func(i int, note string, err error) {
		mu.Lock()
		defer mu.Unlock()
		if note != "" {
			rows[i].Note = joinNote(rows[i].Note, note)
		}
		if err != nil {
			rows[i].Error = err.Error()
		}
	}
	// A queue already at its target is left alone: resetting it would only make its
	// client drop what it has in flight.
	unchanged := func(i int) bool {
		if rows[i].Before != plan.Queues[i].Target {
			return false
		}
		set(i, "already at its target; nothing was sent", nil)
		return true
	}
	update := func(ctx context.Context, i int, why string) {
		q := plan.Queues[i]
		err := s.admin.UpdateConsumerOffset(ctx, q.Addr, group, q.Queue, q.Target)
		mu.Lock()
		rows[i].Method = string(MethodUpdateOffset)
		mu.Unlock()
		set(i, why, err)
	}
	// Every queue (every topic, for a reset by timestamp) at once; a row records its own
	// outcome, so the fan-out's failures are not used.
	fo := s.brokers.Fanout(ctx)
	each := func(i int, op string, fn func(ctx context.Context)) {
		q := plan.Queues[i]
		fo.At(q.Queue.BrokerName, q.Addr, op, func(ctx context.Context, _ string) error {
			fn(ctx)
			return nil
		})
	}
	for _, broker := range sortedKeys(byBroker) {
		idx := byBroker[broker]
		switch plan.method(broker) {
		case MethodResetQueue:
			for _, i := range idx {
				each(i, "reset offset", func(ctx context.Context) {
					if unchanged(i) {
						return
					}
					q := plan.Queues[i]
					tbl, err := s.admin.ResetOffset(ctx, q.Addr, rocketmq.ResetQueueToOffset(q.Queue.Topic, group, q.Queue.QueueID, q.Target))
					note := ""
					if v, ok := tbl[q.Queue]; ok && v != q.Target {
						note = fmt.Sprintf("the broker set offset %d", v)
					}
					set(i, note, err)
				})
			}
		case MethodUpdateOffset:
			for _, i := range idx {
				each(i, "update offset", func(ctx context.Context) {
					if !unchanged(i) {
						update(ctx, i, "")
					}
				})
			}
		case MethodResetTimestamp:
			byTopic := map[string][]int{}
			for _, i := range idx {
				byTopic[plan.Queues[i].Queue.Topic] = append(byTopic[plan.Queues[i].Queue.Topic], i)
			}
			for _, topic := range sortedKeys(byTopic) {
				ti := byTopic[topic]
				each(ti[0], "reset by timestamp", func(ctx context.Context) {
					addr := plan.Queues[ti[0]].Addr
					tbl, err := s.admin.ResetOffset(ctx, addr, rocketmq.ResetByTimestamp(topic, group, resetTimestamp(plan.Request), true))
					if errors.Is(err, rocketmq.ErrConsumerNotOnline) {
						// The clients left between the preview and now: write the offsets, as
						// mqadmin does.
						for _, i := range ti {
							each(i, "update offset", func(ctx context.Context) {
								update(ctx, i, "no client was online at the broker (CONSUMER_NOT_ONLINE), so the offset was written directly")
							})
						}
						return
					}
					for _, i := range ti {
						q := plan.Queues[i]
						note := ""
						if v, ok := tbl[q.Queue]; ok && v != q.Target {
							note = fmt.Sprintf("the broker chose offset %d for the timestamp", v)
						}
						set(i, note, err)
					}
				})
			}
		default:
			for _, i := range idx {
				set(i, "", fmt.Errorf("no way to reset broker %s was planned", broker))
			}
		}
	}
	fo.Wait()
	return rows
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

func joinNote(a, b string) string {
	if a == "" {
		return b
	}
	return a + "; " + b
}

// verify waits for the offsets to settle, then reads every queue's committed offset back
// into After and judges it. Queues not yet at their target are read again until
// VerifyWait has passed, since clients commit some resets asynchronously.
func (s *Service) verify(ctx context.Context, group string, online bool, rows []store.AuditQueue) {
	sleepCtx(ctx, s.settle)
	deadline := time.Now().Add(s.verifyWait)
	var found []readOffset
	for {
		found = s.readBack(ctx, group, rows)
		settled := true
		for i, r := range rows {
			if r.Error != "" {
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
		sleepCtx(ctx, 500*time.Millisecond)
	}
	for i := range rows {
		f := found[i]
		if f.read {
			after := f.offset
			rows[i].After = &after
		}
		switch {
		case rows[i].Error != "":
		case !f.read:
			rows[i].Error = "the offset could not be read back: " + f.err
		default:
			if ok, note, problem := judge(rows[i], online, f.max); !ok {
				rows[i].Error = problem
			} else if note != "" {
				rows[i].Note = joinNote(rows[i].Note, note)
			}
		}
	}
}

type readOffset struct {
	read   bool
	offset int64
	max    int64
	err    string
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
	fo := s.brokers.Fanout(ctx)
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
				r.err = serr.Error()
			default:
				r.err = err.Error()
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
func judge(r store.AuditQueue, online bool, maxNow int64) (ok bool, note, problem string) {
	if r.After == nil {
		return false, "", "the offset could not be read back"
	}
	a := *r.After
	switch {
	case a == r.Target:
		return true, "", ""
	case a == r.Before:
		return false, "", fmt.Sprintf("the committed offset is back at %d, where it was before the reset, not the target %d: a client wrote its old offset back (it commits asynchronously). Stop the group's clients and reset again", a, r.Target)
	case online && a > r.Target && a <= maxNow:
		return true, fmt.Sprintf("the group consumed %d message(s) since the reset", a-r.Target), ""
	}
	return false, "", fmt.Sprintf("the committed offset is %d, not the target %d", a, r.Target)
}

// outcome is the entry's status from its queues, and a summary of what went wrong.
func outcome(rows []store.AuditQueue) (store.AuditStatus, string) {
	var bad []string
	for _, r := range rows {
		if r.Error != "" {
			bad = append(bad, fmt.Sprintf("%s/%d of %s: %s", r.BrokerName, r.QueueID, r.Topic, r.Error))
		}
	}
	switch {
	case len(bad) == 0:
		return store.AuditApplied, ""
	case len(bad) == len(rows):
		return store.AuditFailed, fmt.Sprintf("No queue reached its target. %s", summarize(bad))
	}
	return store.AuditPartial, fmt.Sprintf("%d of %d queues did not reach their target. %s", len(bad), len(rows), summarize(bad))
}

func summarize(bad []string) string {
	const show = 5
	if len(bad) <= show {
		return strings.Join(bad, "; ") + "."
	}
	return strings.Join(bad[:show], "; ") + fmt.Sprintf("; and %d more (see the queues).", len(bad)-show)
}

func sleepCtx(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	}
}
