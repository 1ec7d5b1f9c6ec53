package groups

import (
	"maps"
	"slices"
	"time"

	"rmqconsole/rocketmq"
)

// Kinds of rebalance event.
const (
	KindJoined = "joined" // a client came online
	KindLeft   = "left"   // a client went away
	KindMoved  = "moved"  // a queue got a new owner
	// KindLocked: an orderly queue's lock went to a new holder (From is the previous
	// holder, "" for the first lock seen on a queue that appeared while watched).
	KindLocked = "locked"
)

// Event is one change in a watched group: a client joined or left, a queue moved from
// one client to another, or an orderly queue's lock changed hands.
type Event struct {
	At       time.Time `json:"at"`
	Kind     string    `json:"kind"`
	ClientID string    `json:"clientId"`
	// Topic, BrokerName and QueueID name the queue of a "moved" event; QueueID is nil for
	// client events.
	Topic      string `json:"topic"`
	BrokerName string `json:"brokerName"`
	QueueID    *int   `json:"queueId"`
	// From is the queue's previous owner ("" when it had none since the watch began);
	// To is the new one.
	From string `json:"from"`
	To   string `json:"to"`
	// UnownedMs is how long the queue had no owner before To took it, as seen at the
	// poll interval (0 when it moved between two polls).
	UnownedMs int64 `json:"unownedMs"`
	// DuplicatesAtRisk bounds, for a move, how many messages To may consume again: what
	// From had pulled past the broker's committed offset at its last report (see
	// DuplicatesNote). Absent when From never reported the queue.
	DuplicatesAtRisk *int64 `json:"duplicatesAtRisk,omitempty"`
	// UnlockedMs is, for a lock handover, how long no client held the queue's lock
	// (as seen at the poll interval).
	UnlockedMs int64 `json:"unlockedMs,omitempty"`
}

// Queue returns the moved queue (zero for client events).
func (e Event) Queue() rocketmq.MessageQueue {
	mq := rocketmq.MessageQueue{Topic: e.Topic, BrokerName: e.BrokerName}
	if e.QueueID != nil {
		mq.QueueID = *e.QueueID
	}
	return mq
}

// tracker turns successive snapshots of a group into rebalance events. The first
// snapshot that lists the clients is their baseline, and the first that also has every
// client's report of its queues is the queues' and locks' baseline: neither yields
// events, since what they show was so before the watch began.
type tracker struct {
	started bool
	// ownersStarted: the queues' owners and locks have had their baseline. A client
	// cannot report its queues for a few seconds after it starts (rocketmq-client-go),
	// so this can come several reads after started.
	ownersStarted bool
	clients       map[string]bool
	// leftAt is when each client that left was seen leaving.
	leftAt map[string]time.Time
	queues map[rocketmq.MessageQueue]*queueState
	locks  map[rocketmq.MessageQueue]*lockState
}

type queueState struct {
	owner        string    // "" while unowned
	lastOwner    string    // the owner before it became unowned
	unownedSince time.Time // when it was first seen unowned
	report       ownerReport
}

// ownerReport is the last thing a sole owner said about a queue: how far it had pulled,
// beside the offset the broker had committed for the group at the same read.
type ownerReport struct {
	owner     string
	pulledEnd int64
	committed int64
}

// duplicatesAtRisk bounds what a new owner may consume again after from let go.
func (st *queueState) duplicatesAtRisk(from string) *int64 {
	if from == "" || st.report.owner != from {
		return nil
	}
	n := max(st.report.pulledEnd-st.report.committed, 0)
	return &n
}

// lockState is the last lock holder the watcher saw on an orderly queue.
type lockState struct {
	holder   string
	since    time.Time // first seen locked by holder; zero when that was the baseline
	lastSeen time.Time // last seen locked by holder
	lockTs   int64     // holder's lastLockTimestamp at lastSeen
}

// leftKept bounds how long a departed client's leave time is remembered.
const leftKept = time.Hour

func newTracker() *tracker {
	return &tracker{clients: map[string]bool{}, leftAt: map[string]time.Time{},
		queues: map[rocketmq.MessageQueue]*queueState{}, locks: map[rocketmq.MessageQueue]*lockState{}}
}

// observe diffs d against the previous snapshot. Parts that d could not read (no broker
// listed the clients, a client did not report its queues) are left as they were rather
// than reported as changes: a broker hiccup must not look like a rebalance.
func (t *tracker) observe(d *Detail) []Event {
	now := d.CheckedAt
	var events []Event
	if d.clientsKnown {
		cur := map[string]bool{}
		for _, c := range d.Clients {
			cur[c.ClientID] = true
		}
		if t.started {
			for _, id := range slices.Sorted(maps.Keys(t.clients)) {
				if !cur[id] {
					events = append(events, Event{At: now, Kind: KindLeft, ClientID: id})
					t.leftAt[id] = now
				}
			}
			for _, c := range d.Clients {
				if !t.clients[c.ClientID] {
					events = append(events, Event{At: now, Kind: KindJoined, ClientID: c.ClientID})
				}
				delete(t.leftAt, c.ClientID)
			}
		}
		t.clients = cur
		for id, at := range t.leftAt {
			if now.Sub(at) > leftKept {
				delete(t.leftAt, id)
			}
		}
	}
	if d.clientsKnown && d.ownersKnown {
		events = append(events, t.observeQueues(d, now)...)
		if !d.locksUnread { // a read without locks leaves them as last seen
			events = append(events, t.observeLocks(d, now)...)
		}
		t.ownersStarted = true
	}
	t.started = t.started || d.clientsKnown
	return events
}

// observeLocks follows each orderly queue's lock holder: a new holder is a handover
// event, and a queue whose holder left is shown as still locked by it (the broker keeps
// the lock until it expires), so the warnings can say the queue is blocked.
func (t *tracker) observeLocks(d *Detail, now time.Time) []Event {
	var events []Event
	cloned := false
	present := map[rocketmq.MessageQueue]bool{}
	for i := range d.Queues {
		q := &d.Queues[i]
		if q.Lock == nil {
			continue
		}
		if !cloned { // d's rows may be shared with its reader; annotate a copy
			d.Queues = slices.Clone(d.Queues)
			q, cloned = &d.Queues[i], true
		}
		mq := q.Queue()
		present[mq] = true
		l := *q.Lock
		ls := t.locks[mq]
		switch {
		case l.Locked:
			if ls == nil || ls.holder != l.Holder {
				if t.ownersStarted {
					qid := mq.QueueID
					e := Event{At: now, Kind: KindLocked, ClientID: l.Holder, Topic: mq.Topic, BrokerName: mq.BrokerName, QueueID: &qid, To: l.Holder}
					if ls != nil {
						e.From, e.UnlockedMs = ls.holder, now.Sub(ls.lastSeen).Milliseconds()
					}
					events = append(events, e)
				}
				ls = &lockState{holder: l.Holder}
				if t.ownersStarted {
					ls.since = now
				}
				t.locks[mq] = ls
			}
			ls.lastSeen, ls.lockTs = now, l.LastLockTimestamp
			if !ls.since.IsZero() {
				l.LockedSince = ls.since.UnixMilli()
			}
		case ls != nil && !t.clients[ls.holder]:
			// The holder is gone without unlocking: the broker still holds its lock.
			l.Holder, l.LastLockTimestamp, l.HolderOnline = ls.holder, ls.lockTs, false
			if at, ok := t.leftAt[ls.holder]; ok {
				l.HolderLeftAt = at.UnixMilli()
			}
		}
		q.Lock = &l
	}
	for mq := range t.locks {
		if !present[mq] {
			delete(t.locks, mq)
		}
	}
	if cloned {
		d.lockWarnings()
	}
	return events
}

func (t *tracker) observeQueues(d *Detail, now time.Time) []Event {
	var events []Event
	present := map[rocketmq.MessageQueue]bool{}
	for _, q := range d.Queues {
		mq := q.Queue()
		present[mq] = true
		owner := q.Owner
		if len(q.Owners) > 1 {
			continue // held twice: mid-rebalance; judge once it settles
		}
		st := t.queues[mq]
		if st == nil {
			// A queue new to the group (a topic just subscribed to): its first owner is
			// an assignment worth seeing, unless this is the owners' baseline.
			st = &queueState{owner: owner}
			if owner == "" {
				st.unownedSince = now
			} else if t.ownersStarted {
				qid := mq.QueueID
				events = append(events, Event{At: now, Kind: KindMoved, ClientID: owner, Topic: mq.Topic, BrokerName: mq.BrokerName,
					QueueID: &qid, To: owner})
			}
			t.queues[mq] = st
			st.remember(q)
			continue
		}
		switch {
		case owner == st.owner:
		case owner == "":
			st.lastOwner, st.owner, st.unownedSince = st.owner, "", now
		case st.owner == "":
			qid := mq.QueueID
			events = append(events, Event{At: now, Kind: KindMoved, ClientID: owner, Topic: mq.Topic, BrokerName: mq.BrokerName,
				QueueID: &qid, From: st.lastOwner, To: owner, UnownedMs: now.Sub(st.unownedSince).Milliseconds(),
				DuplicatesAtRisk: st.duplicatesAtRisk(st.lastOwner)})
			st.owner = owner
		default:
			qid := mq.QueueID
			events = append(events, Event{At: now, Kind: KindMoved, ClientID: owner, Topic: mq.Topic, BrokerName: mq.BrokerName,
				QueueID: &qid, From: st.owner, To: owner, DuplicatesAtRisk: st.duplicatesAtRisk(st.owner)})
			st.lastOwner, st.owner = st.owner, owner
		}
		st.remember(q)
	}
	for mq := range t.queues {
		if !present[mq] {
			delete(t.queues, mq)
		}
	}
	return events
}

// remember keeps a sole owner's report of the queue for the next move's bound.
func (st *queueState) remember(q QueueLag) {
	if q.Owner == "" || len(q.Owners) > 1 || q.ConsumerOffset == nil || q.pulledEnd == 0 {
		return
	}
	st.report = ownerReport{owner: q.Owner, pulledEnd: q.pulledEnd, committed: *q.ConsumerOffset}
}

// RebalanceGap separates rebalances: events less than this apart belong to one. Clients
// rebalance every 20 s, so the moves one join or leave causes come within it.
const RebalanceGap = 30 * time.Second

// Rebalance sums one burst of events: what a rebalance cost.
type Rebalance struct {
	Start         time.Time `json:"start"`
	End           time.Time `json:"end"`
	Moves         int       `json:"moves"`
	LockHandovers int       `json:"lockHandovers"`
	// DuplicatesAtRisk sums the moves' bounds (see DuplicatesNote); UnknownMoves counts
	// moves without one (their previous owner never reported).
	DuplicatesAtRisk int64 `json:"duplicatesAtRisk"`
	UnknownMoves     int   `json:"unknownMoves"`
	// MaxUnownedMs is the longest any of its queues went without an owner.
	MaxUnownedMs int64 `json:"maxUnownedMs"`
}

// Rebalances groups events (newest first, as stored and shown) into rebalances, newest
// first. Bursts without a move or lock handover (a client that joined and holds nothing
// yet) are left out.
func Rebalances(events []Event) []Rebalance {
	var out []Rebalance
	var cur *Rebalance
	for _, e := range events {
		if cur == nil || cur.Start.Sub(e.At) > RebalanceGap {
			if cur != nil && cur.Moves+cur.LockHandovers > 0 {
				out = append(out, *cur)
			}
			cur = &Rebalance{End: e.At}
		}
		cur.Start = e.At
		switch e.Kind {
		case KindMoved:
			cur.Moves++
			cur.MaxUnownedMs = max(cur.MaxUnownedMs, e.UnownedMs)
			if e.DuplicatesAtRisk == nil {
				cur.UnknownMoves++
			} else {
				cur.DuplicatesAtRisk += *e.DuplicatesAtRisk
			}
		case KindLocked:
			cur.LockHandovers++
		}
	}
	if cur != nil && cur.Moves+cur.LockHandovers > 0 {
		out = append(out, *cur)
	}
	return out
}
