package groups

import (
	"context"
	"log/slog"
	"slices"
	"sync"
	"time"

	"rmqconsole/store"
)

// RebalanceLog keeps one tracker per group and records what it sees once, whoever read
// the group: a live watcher every poll while someone looks at the group page, the lag
// collector's rotation (RebalanceSweep) otherwise. Both feed the same tracker, so a
// rebalance seen by both is stored by whichever saw it first and never twice.
type RebalanceLog struct {
	store EventStore
	log   *slog.Logger

	mu     sync.Mutex
	groups map[string]*groupTrack
}

// groupTrack is one group's tracker with what the sweep needs to choose groups.
type groupTrack struct {
	mu sync.Mutex
	t  *tracker
	// at is when the group was last observed (its read's CheckedAt); older reads are
	// dropped, so a slow read cannot undo a newer one.
	at time.Time
	// clients counted at that observation, for the sweep's choice and cost.
	clients int
	// queues is the number of queues the group list showed at the sweep's last read.
	queues int
	// stored counts the times events were recorded, so a watcher knows when another
	// observer recorded some and reloads the timeline.
	stored uint64
	// split is what each client subscribed to at the last read that heard from every
	// client, when they did not all subscribe alike; nil otherwise.
	split *SubscriptionSplit
}

// ClientSubscriptions is what one client of a group subscribes to.
type ClientSubscriptions struct {
	ClientID      string         `json:"clientId"`
	Subscriptions []Subscription `json:"subscriptions"`
}

// SubscriptionSplit is a group whose clients do not all subscribe alike (topics or
// expressions), as read At from each client's running info.
type SubscriptionSplit struct {
	At      time.Time
	Clients []ClientSubscriptions
}

// SubscriptionSplit returns how the group's clients subscribed at the last read by a
// watcher or the sweep, when they did not all subscribe alike; false when they did, or
// when that read did not hear from every client (a client that did not report could
// subscribe either way).
func (r *RebalanceLog) SubscriptionSplit(group string) (SubscriptionSplit, bool) {
	g, ok := r.lookup(group)
	if !ok {
		return SubscriptionSplit{}, false
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.split == nil {
		return SubscriptionSplit{}, false
	}
	return *g.split, true
}

// NewRebalanceLog returns a log storing events in st (nil keeps none).
func NewRebalanceLog(st EventStore, log *slog.Logger) *RebalanceLog {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &RebalanceLog{store: st, log: log, groups: map[string]*groupTrack{}}
}

func (r *RebalanceLog) track(group string) *groupTrack {
	r.mu.Lock()
	defer r.mu.Unlock()
	g := r.groups[group]
	if g == nil {
		g = &groupTrack{t: newTracker()}
		r.groups[group] = g
	}
	return g
}

// lookup returns the group's track without making one.
func (r *RebalanceLog) lookup(group string) (*groupTrack, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	g, ok := r.groups[group]
	return g, ok
}

// observation is what the sweep knows of a group it may read.
type observation struct {
	at      time.Time
	clients int
	queues  int
}

func (r *RebalanceLog) last(group string) (observation, bool) {
	g, ok := r.lookup(group)
	if !ok {
		return observation{}, false
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	return observation{at: g.at, clients: g.clients, queues: g.queues}, !g.at.IsZero()
}

// forget drops the trackers of groups keep does not keep (gone from the cluster).
func (r *RebalanceLog) forget(keep func(group string) bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for g := range r.groups {
		if !keep(g) {
			delete(r.groups, g)
		}
	}
}

// missing tells the group's tracker that no broker knows the group: the first client to
// come joins, and the queues it takes are assignments.
func (r *RebalanceLog) missing(group string) {
	g := r.track(group)
	g.mu.Lock()
	defer g.mu.Unlock()
	g.t.started, g.t.ownersStarted = true, true
}

// observe diffs d against the group's last observation and stores the events it finds;
// it returns them, oldest first. A read older than the last observation is dropped.
func (r *RebalanceLog) observe(ctx context.Context, d *Detail) []Event {
	g := r.track(d.Group)
	g.mu.Lock()
	defer g.mu.Unlock()
	if d.CheckedAt.Before(g.at) {
		return nil
	}
	events := g.t.observe(d)
	if d.clientsKnown {
		g.at, g.clients = d.CheckedAt, len(d.Clients)
	}
	g.split = nil
	if d.clientsKnown && d.ownersKnown && d.SubscriptionsDiffer {
		sp := &SubscriptionSplit{At: d.CheckedAt, Clients: make([]ClientSubscriptions, len(d.Clients))}
		for i, c := range d.Clients {
			sp.Clients[i] = ClientSubscriptions{ClientID: c.ClientID, Subscriptions: slices.Clone(c.Subscriptions)}
		}
		g.split = sp
	}
	if len(events) == 0 {
		return nil
	}
	g.stored++
	if r.store != nil {
		ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		defer cancel()
		if err := r.store.AddRebalanceEvents(ctx, EventsToStore(d.Group, events)); err != nil {
			r.log.Error("store rebalance events", "group", d.Group, "err", err)
		}
	}
	return events
}

// listedQueues notes how many queues the group list showed the group with when the sweep
// read it, the count the next list is compared with.
func (r *RebalanceLog) listedQueues(group string, n int) {
	g := r.track(group)
	g.mu.Lock()
	defer g.mu.Unlock()
	g.queues = n
}

// storedCount is how many times events of group were recorded.
func (r *RebalanceLog) storedCount(group string) uint64 {
	g, ok := r.lookup(group)
	if !ok {
		return 0
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.stored
}

// RebalanceDaysStore sums stored moves per UTC day; *store.Store implements it. A live
// watcher whose store has it sends the page's daily sums again when events are recorded,
// so they agree with the timeline.
type RebalanceDaysStore interface {
	RebalanceDays(ctx context.Context, group string, since time.Time) ([]store.RebalanceDay, error)
}

// CostDays is how many UTC days of rebalance cost the group page and the history API sum.
const CostDays = 14

// CostSince is the start of the first UTC day the cost sums cover.
func CostSince(now time.Time) time.Time {
	y, m, d := now.UTC().Date()
	return time.Date(y, m, d, 0, 0, 0, 0, time.UTC).AddDate(0, 0, -(CostDays - 1))
}
