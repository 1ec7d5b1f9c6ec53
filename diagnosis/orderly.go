package diagnosis

import (
	"cmp"
	"context"
	"maps"
	"slices"
	"sync"
	"time"

	"rmqconsole/groups"
	"rmqconsole/i18n"
)

// DefaultLockLookups is how many orderly groups one read reads the locks of at most:
// each is one running info per client of the group (and a connection list when the
// group list's is older than the read). Only orderly groups with messages waiting in a
// queue whose committed offset stood still since the read before are read, and the
// groups found blocked at the read before go first, so that a finding goes as soon as
// its cause does.
const DefaultLockLookups = 8

// OrderlyLocks reads the locks of an orderly group listed in a read of the group list:
// the queues with messages waiting that nobody can consume, with their locks.
type OrderlyLocks interface {
	BlockedQueues(ctx context.Context, g groups.Summary, since time.Time) ([]groups.BlockedQueue, error)
}

// lockCandidates are the orderly groups of l that may be blocked: those with messages
// waiting in queues whose committed offset did not move since the read before (an
// orderly queue whose holder is gone consumes nothing), the ones blocked at the read
// before first, then the most waiting; the read reads the locks of the first
// LockLookups. It must run before assess replaces e.offsets.
func (e *Engine) lockCandidates(l *groups.List) []groups.Summary {
	if e.opts.Locks == nil {
		return nil
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	type cand struct {
		i       int
		blocked bool
		waiting int64
	}
	var cs []cand
	for i, g := range l.Groups {
		if g.System || !g.Online || (g.ConsumeMode != groups.ModeOrderly && g.ConsumeMode != groups.ModeMixed) {
			continue
		}
		_, blocked := e.blocked[g.Group]
		was, seen := e.offsets[g.Group]
		var waiting int64
		for _, q := range g.Queues {
			if q.Retry || q.Lag == nil || *q.Lag <= 0 || q.ConsumerOffset == nil || !seen {
				continue
			}
			if off, ok := was.Queues[q.Queue()]; ok && off[1] == *q.ConsumerOffset {
				waiting += *q.Lag
			}
		}
		if waiting > 0 { // a queue that moves or drained is not blocked, whatever it was
			cs = append(cs, cand{i, blocked, waiting})
		}
	}
	slices.SortStableFunc(cs, func(a, b cand) int {
		if a.blocked != b.blocked {
			if a.blocked {
				return -1
			}
			return 1
		}
		return cmp.Compare(b.waiting, a.waiting)
	})
	out := make([]groups.Summary, 0, len(cs))
	for _, c := range cs {
		out = append(out, l.Groups[c.i])
	}
	return out
}

// orderlyBlocked reads the locks of the candidates and finds the orderly groups with a
// queue nobody can consume while messages wait in it: its lock holder left without
// unlocking (killed, or its heartbeat lost), so the broker keeps the lock for it until
// it expires, or the holder stopped renewing it. Warning, not critical: nothing is lost,
// and the broker lets the lock go within its expiry (60 s after the last renewal), after
// which another client of the group locks the queue at its next rebalance; a group all
// of whose queues stay blocked is also consumerStuck, which is critical. A group blocked
// before and not read now (beyond LockLookups, or its read failed) keeps its finding
// while messages still wait in a queue that does not move; one whose queues moved or
// drained loses it unread.
func (e *Engine) orderlyBlocked(ctx context.Context, l *groups.List, cands []groups.Summary, unread *unreads) []Finding {
	if e.opts.Locks == nil {
		return nil
	}
	type answer struct {
		blocked []groups.BlockedQueue
		err     error
	}
	read := cands[:min(len(cands), e.opts.LockLookups)]
	answers := make([]answer, len(read))
	var wg sync.WaitGroup
	for i, g := range read {
		wg.Go(func() { answers[i].blocked, answers[i].err = e.opts.Locks.BlockedQueues(ctx, g, l.CheckedAt) })
	}
	wg.Wait()
	e.mu.Lock()
	defer e.mu.Unlock()
	next := make(map[string]Finding, len(e.blocked))
	for _, g := range cands { // still candidates: a finding not read again stays
		if f, ok := e.blocked[g.Group]; ok {
			next[g.Group] = f
		}
	}
	for i, g := range read {
		a := answers[i]
		switch {
		case a.err != nil:
			unread.add(UnreadLocks, g.Group, a.err)
		case len(a.blocked) == 0:
			delete(next, g.Group)
		default:
			next[g.Group] = blockedFinding(g.Group, a.blocked, l.CheckedAt)
		}
	}
	e.blocked = next
	out := make([]Finding, 0, len(next))
	for _, f := range next {
		out = append(out, f)
	}
	return out
}

// blockedFinding is the finding about a group's blocked queues: each queue's warning as
// the group page says it (its holder, since when it left, when its lock expires).
func blockedFinding(group string, qs []groups.BlockedQueue, at time.Time) Finding {
	var waiting int64
	var each i18n.Text
	topics := map[string]bool{}
	since := at
	for i, q := range qs {
		waiting += q.Lag
		topics[q.Topic] = true
		if i < maxNamedQueues {
			each = append(each, q.Lock.Warning...)
		}
		if left := time.UnixMilli(q.Lock.HolderLeftAt); q.Lock.HolderLeftAt > 0 && left.Before(since) {
			since = left
		}
	}
	if len(qs) > maxNamedQueues {
		each = append(each, i18n.M("diagnosis.evidence.orderlyBlocked.more", "More", len(qs)-maxNamedQueues))
	}
	ev := i18n.M("diagnosis.evidence.orderlyBlocked", "Count", i18n.Count(len(qs)), "Waiting", waiting, "Each", each)
	return Finding{Kind: KindOrderlyBlocked, Severity: Warning, Subject: group, Group: group, Evidence: ev,
		Topics: slices.Sorted(maps.Keys(topics)), Since: since, Action: groupURL(group), ActionKind: "group"}
}
