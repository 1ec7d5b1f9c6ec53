package groups

import (
	"cmp"
	"context"
	"slices"
	"sync"
	"time"

	"rmqconsole/cluster"
)

// DefaultRebalanceCalls is how many broker calls one sweep makes at most: at the
// collector's default 30 s, 10 calls a second.
const DefaultRebalanceCalls = 300

// RebalanceSweep finds the rebalances of groups nobody watches. After each collection
// of the group list it reads the clients and their queues of as many groups as its call
// budget allows — one running info per client each, and a connection list only for a
// group the list did not just list the clients of — and feeds
// them to the RebalanceLog the live watchers feed too. Groups whose state changed in the
// list (a different number of clients, queues come or gone) go first, then groups never
// read, then the one read longest ago, so every online group is read in turn. Groups
// being watched are left to their watcher, which reads them every poll.
type RebalanceSweep struct {
	svc      *Service
	log      *RebalanceLog
	calls    int
	watching func(group string) bool

	mu   sync.Mutex
	last SweepStats
	// listed are the groups of the previous list; nil before the first.
	listed map[string]bool
}

// SweepStats says what one sweep did.
type SweepStats struct {
	// Candidates are the groups that could be read (online, or online when last read);
	// Read those read; Calls the broker calls made.
	Candidates, Read, Calls int
}

// NewRebalanceSweep returns a sweep making at most calls broker calls each time
// (0: DefaultRebalanceCalls); watching says which groups a live watcher reads (nil: none).
func NewRebalanceSweep(svc *Service, log *RebalanceLog, calls int, watching func(group string) bool) *RebalanceSweep {
	if calls <= 0 {
		calls = DefaultRebalanceCalls
	}
	if watching == nil {
		watching = func(string) bool { return false }
	}
	return &RebalanceSweep{svc: svc, log: log, calls: calls, watching: watching}
}

// Calls is the sweep's budget of broker calls.
func (s *RebalanceSweep) Calls() int { return s.calls }

// Last says what the latest sweep did.
func (s *RebalanceSweep) Last() SweepStats {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.last
}

// sweepCandidate is a group the sweep may read.
type sweepCandidate struct {
	i       int
	changed bool // the list shows a change since the group was last read, or it is new
	seen    bool
	online  bool
	at      time.Time
	cost    int
	infos   int // the running infos counted in cost: the clients the group is known to have
}

// Sweep is the collector's hook (LagCollector.Then): it reads the groups of l the budget
// allows and records their rebalances.
func (s *RebalanceSweep) Sweep(ctx context.Context, l *List) {
	listed := make(map[string]bool, len(l.Groups))
	for _, g := range l.Groups {
		listed[g.Group] = true
	}
	s.log.forget(func(g string) bool { return listed[g] || s.watching(g) })
	s.mu.Lock()
	prev := s.listed
	s.listed = listed
	s.mu.Unlock()
	if prev != nil {
		for _, g := range l.Groups {
			if _, tracked := s.log.lookup(g.Group); !prev[g.Group] && !tracked {
				// New to the cluster since the last list: it had no client then, so its
				// first clients joined and the queues they hold are assignments.
				s.log.missing(g.Group)
			}
		}
	}
	cands := s.candidates(l)
	stats := SweepStats{Candidates: len(cands)}
	var chosen []sweepCandidate
	for _, c := range cands {
		if stats.Calls > 0 && stats.Calls+c.cost > s.calls {
			continue // a cheaper group further down may still fit
		}
		stats.Calls += c.cost
		chosen = append(chosen, c)
	}
	// A group whose clients the list did not know may turn out to have more than counted:
	// its further running infos come out of what the budget has left, or it waits.
	var slackMu sync.Mutex
	slack := s.calls - stats.Calls
	allow := func(c sweepCandidate, clients int) bool {
		slackMu.Lock()
		defer slackMu.Unlock()
		if more := clients - c.infos; more > 0 {
			if more > slack {
				return false
			}
			slack -= more
		}
		return true
	}
	// The groups are read a few at a time, each read's calls in parallel.
	calls := make([]int, len(chosen))
	read := make([]bool, len(chosen))
	var wg sync.WaitGroup
	sem := make(chan struct{}, s.svc.opts.Concurrency)
	for k, c := range chosen {
		sem <- struct{}{}
		wg.Go(func() {
			defer func() { <-sem }()
			d, n := s.svc.readOwners(ctx, l.Groups[c.i], l.CheckedAt, func(clients int) bool { return allow(c, clients) })
			calls[k] = n
			if d != nil {
				read[k] = true
				s.log.observe(ctx, d)
				s.log.listedQueues(d.Group, len(l.Groups[c.i].Queues))
			}
		})
	}
	wg.Wait()
	stats.Calls = 0
	for k, n := range calls {
		stats.Calls += n
		if read[k] {
			stats.Read++
		}
	}
	s.mu.Lock()
	s.last = stats
	s.mu.Unlock()
}

// candidates are the groups that may have rebalanced, in the order they are read.
func (s *RebalanceSweep) candidates(l *List) []sweepCandidate {
	var out []sweepCandidate
	for i, g := range l.Groups {
		if g.System || s.watching(g.Group) {
			continue
		}
		last, seen := s.log.last(g.Group)
		// Online now, or when last read (to see its clients leave), or not listed yet.
		if !g.Online && !(seen && last.clients > 0) && !(g.ClientsUnknown && !seen) {
			continue
		}
		// One running info per client, and one connection list unless the list just read it.
		infos, cost := max(g.Clients, last.clients), 0
		if g.ClientsCheckedAt == nil || g.ClientsCheckedAt.Before(l.CheckedAt) {
			cost++
		}
		c := sweepCandidate{i: i, seen: seen, online: g.Online, at: last.at, cost: cost + infos, infos: infos}
		if _, tracked := s.log.lookup(g.Group); tracked && !seen {
			c.changed = true // new to the cluster (see Sweep)
		}
		if seen {
			clientsNews := g.ClientsCheckedAt != nil && g.ClientsCheckedAt.After(last.at) && g.Clients != last.clients
			c.changed = clientsNews || len(g.Queues) != last.queues
		}
		out = append(out, c)
	}
	slices.SortStableFunc(out, func(a, b sweepCandidate) int {
		switch {
		case a.changed != b.changed:
			if a.changed {
				return -1
			}
			return 1
		case a.seen != b.seen:
			if !a.seen {
				return -1
			}
			return 1
		case !a.seen && a.online != b.online:
			if a.online {
				return -1
			}
			return 1
		}
		return a.at.Compare(b.at)
	})
	return out
}

// readOwners reads which clients the group has and which queues each holds: the
// connection list the collector's list noted at or after since (else one connection list
// on a master that holds the group's queues), then every client's running info through
// that master, when allow lets it ask that many clients. The queues and their offsets are
// the list's (read already). It returns nil when the clients could not be listed or
// asked, and the calls made.
func (s *Service) readOwners(ctx context.Context, sum Summary, since time.Time, allow func(clients int) bool) (*Detail, int) {
	brokers, err := s.cluster.Brokers(ctx)
	if err != nil || len(brokers) == 0 {
		return nil, 0
	}
	b := brokers[0]
	for _, q := range sum.Queues {
		if i := slices.IndexFunc(brokers, func(b cluster.Broker) bool { return b.Name == q.BrokerName }); i >= 0 {
			b = brokers[i]
			break
		}
	}
	d := &Detail{Group: sum.Group, CheckedAt: s.opts.Now(), Clients: []Client{}, Queues: slices.Clone(sum.Queues), locksUnread: true}
	calls := 0
	seen, ok := s.cluster.Consumers(sum.Group)
	if !ok || seen.At.Before(since) {
		err = errNotAsked
		fo := s.cluster.Fanout(ctx)
		fo.Go(b, "connections", func(ctx context.Context, addr string) error {
			err = s.listClients(ctx, addr, sum.Group)
			return err
		})
		fo.Wait()
		calls++
		if err != nil {
			return nil, calls
		}
		seen, _ = s.cluster.Consumers(sum.Group)
	}
	d.clientsKnown = true
	if seen.Conns != nil {
		via := b.Master
		if seen.Proxy != "" {
			via = "" // known to a Proxy only: no broker reaches its clients
		}
		for _, cn := range seen.Conns.Connections {
			d.Clients = append(d.Clients, Client{ClientID: cn.ClientID, ClientAddr: cn.ClientAddr, via: via})
		}
	}
	if seen.Proxy == "" && !allow(len(d.Clients)) {
		return nil, calls
	}
	slices.SortFunc(d.Clients, func(a, b Client) int { return cmp.Compare(a.ClientID, b.ClientID) })
	d.Online = len(d.Clients) > 0
	infos := s.runningInfos(ctx, d)
	if seen.Proxy == "" {
		calls += len(d.Clients)
	}
	d.applyOwners(infos)
	// The running infos carry each client's subscriptions and, for an orderly group, its
	// locks too: whether they agree, and who holds each lock, cost nothing more.
	for i, info := range infos {
		if info != nil {
			d.Clients[i].applySubscriptions(info)
			d.Clients[i].ConsumeMode = clientConsumeMode(info)
			var ts []string
			for _, sd := range info.Subscriptions {
				ts = append(ts, sd.Topic)
			}
			s.subs.note(sum.Group, ts, d.CheckedAt)
		}
	}
	d.checkSubscriptions()
	if d.ConsumeMode = groupConsumeMode(d.Clients); d.ConsumeMode != "" {
		d.applyLocks(infos)
		d.locksUnread = false
		s.modes.remember(sum.Group, d.ConsumeMode, d.CheckedAt)
	}
	return d, calls
}
