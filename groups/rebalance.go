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
)

// Event is one change in a watched group: a client joined or left, or a queue moved
// from one client to another.
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
// snapshot is the baseline and yields none.
type tracker struct {
	started bool
	clients map[string]bool
	queues  map[rocketmq.MessageQueue]*queueState
}

type queueState struct {
	owner        string    // "" while unowned
	lastOwner    string    // the owner before it became unowned
	unownedSince time.Time // when it was first seen unowned
}

func newTracker() *tracker {
	return &tracker{clients: map[string]bool{}, queues: map[rocketmq.MessageQueue]*queueState{}}
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
				}
			}
			for _, c := range d.Clients {
				if !t.clients[c.ClientID] {
					events = append(events, Event{At: now, Kind: KindJoined, ClientID: c.ClientID})
				}
			}
		}
		t.clients = cur
	}
	if d.clientsKnown && d.ownersKnown {
		events = append(events, t.observeQueues(d, now)...)
	}
	t.started = t.started || d.clientsKnown
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
			// an assignment worth seeing, unless this is the baseline.
			st = &queueState{owner: owner}
			if owner == "" {
				st.unownedSince = now
			} else if t.started {
				qid := mq.QueueID
				events = append(events, Event{At: now, Kind: KindMoved, ClientID: owner, Topic: mq.Topic, BrokerName: mq.BrokerName,
					QueueID: &qid, To: owner})
			}
			t.queues[mq] = st
			continue
		}
		switch {
		case owner == st.owner:
		case owner == "":
			st.lastOwner, st.owner, st.unownedSince = st.owner, "", now
		case st.owner == "":
			qid := mq.QueueID
			events = append(events, Event{At: now, Kind: KindMoved, ClientID: owner, Topic: mq.Topic, BrokerName: mq.BrokerName,
				QueueID: &qid, From: st.lastOwner, To: owner, UnownedMs: now.Sub(st.unownedSince).Milliseconds()})
			st.owner = owner
		default:
			qid := mq.QueueID
			events = append(events, Event{At: now, Kind: KindMoved, ClientID: owner, Topic: mq.Topic, BrokerName: mq.BrokerName,
				QueueID: &qid, From: st.owner, To: owner})
			st.lastOwner, st.owner = st.owner, owner
		}
	}
	for mq := range t.queues {
		if !present[mq] {
			delete(t.queues, mq)
		}
	}
	return events
}
