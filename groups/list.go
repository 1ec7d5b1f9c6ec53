package groups

import (
	"cmp"
	"context"
	"errors"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"

	"rmqconsole/cluster"
	"rmqconsole/i18n"
	"rmqconsole/rocketmq"
)

// Summary is one consumer group in the list.
type Summary struct {
	Group  string `json:"group"`
	System bool   `json:"system"`
	Online bool   `json:"online"`
	// Clients counts the online clients.
	Clients int `json:"clients"`
	// ClientsUnknown: the group's clients have not been listed yet (the list reads a
	// bounded number of groups' clients per pass); Online and Clients say nothing then.
	ClientsUnknown bool `json:"clientsUnknown,omitempty"`
	// ClientsCheckedAt is when the clients were listed; lists reuse what an earlier
	// pass saw.
	ClientsCheckedAt *time.Time `json:"clientsCheckedAt,omitempty"`
	ConsumeType      string     `json:"consumeType"`
	MessageModel     string     `json:"messageModel"`
	// ConsumeMode is orderly, concurrent or mixed (see Detail.ConsumeMode); "" when
	// offline or no client said.
	ConsumeMode string `json:"consumeMode,omitempty"`
	// Topics are the topics the group subscribes to or has offsets for (retry topic aside).
	Topics []string `json:"topics"`
	// TotalLag sums the lag of the queues whose lag is known (the retry topic
	// included); nil when none is, with the reason in LagNote.
	TotalLag *int64 `json:"totalLag"`
	// LagNote says why TotalLag is unknown, or which queues it leaves out.
	LagNote i18n.Text `json:"lagNote,omitempty"`
	// MaxOffsetsAt: TotalLag counts max offsets kept from an earlier pass (a broker
	// read from its offset table, see maxOffsets), the oldest read at this time; messages
	// stored since are not counted. Nil when every max offset was read in this pass.
	MaxOffsetsAt *time.Time `json:"maxOffsetsAt,omitempty"`
	ConsumeTPS   float64    `json:"consumeTps"`
	// MaxLagTimeMs is the group's time behind: the age of its oldest unconsumed message
	// over its queues (0 when caught up); nil when unknown, with the reason (or what it
	// leaves out) in MaxLagTimeNote.
	MaxLagTimeMs   *int64    `json:"maxLagTimeMs"`
	MaxLagTimeNote i18n.Text `json:"maxLagTimeNote,omitempty"`
	// LastTimestamp is the store time (epoch ms) of the newest consumed message, 0 if none.
	LastTimestamp int64           `json:"lastTimestamp"`
	Failures      []BrokerFailure `json:"failures,omitempty"`
	// Queues holds per-queue lag for the metrics.
	Queues []QueueLag `json:"-"`
}

// List is every consumer group of the cluster at CheckedAt.
type List struct {
	Groups    []Summary `json:"groups"`
	CheckedAt time.Time `json:"checkedAt"`
	// Took is how long reading the list took.
	Took time.Duration `json:"-"`
	// Failures name brokers whose group list could not be read.
	Failures []BrokerFailure `json:"failures,omitempty"`
	// Needs5x says, on a cluster whose brokers all run 4.x, that gRPC clients, the
	// Proxy and POP need RocketMQ 5.x; "" on 5.x.
	Needs5x i18n.Text `json:"needs5x,omitempty"`
}

// listCache holds the last list and the computation in flight, so concurrent requests
// and the metrics collector share one pass over the cluster.
type listCache struct {
	mu      sync.Mutex
	list    *List
	running chan struct{} // closed when the computation in flight ends
	err     error
}

// listDeadline bounds one pass over every group; it runs detached from the request that
// started it, since others may be waiting on it.
const listDeadline = 2 * time.Minute

// List returns every consumer group with its lag. A list younger than ListTTL is served
// from the cache unless refresh is set; concurrent callers share one computation. A list
// older than ListTTL but younger than ListStale is served too, at once, while a fresh
// one is computed for the next caller: a pass over a cluster of 50 000 groups takes
// seconds, and the list says how old it is.
func (s *Service) List(ctx context.Context, refresh bool) (*List, error) {
	c := &s.list
	c.mu.Lock()
	var age time.Duration
	if c.list != nil {
		age = s.opts.Now().Sub(c.list.CheckedAt)
	}
	if !refresh && c.list != nil && age < s.opts.ListTTL {
		l := c.list
		c.mu.Unlock()
		return l, nil
	}
	done := c.running
	if done == nil {
		done = make(chan struct{})
		c.running = done
		go s.computeList(done)
	}
	if !refresh && c.list != nil && age < s.opts.ListStale {
		l := c.list
		c.mu.Unlock()
		return l, nil
	}
	c.mu.Unlock()
	select {
	case <-done:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.list == nil {
		return nil, c.err
	}
	// After a failed refresh the older list is served; its age says how stale it is.
	return c.list, nil
}

func (s *Service) computeList(done chan struct{}) {
	ctx, cancel := context.WithTimeout(context.Background(), listDeadline)
	defer cancel()
	l, err := s.readList(ctx)
	c := &s.list
	c.mu.Lock()
	c.err = err
	if err == nil {
		c.list = l
	} else {
		s.opts.Log.Warn("read consumer group list", "err", err)
	}
	c.running = nil
	c.mu.Unlock()
	close(done)
}

// readList asks every master for its subscription groups and every group's offsets in a
// few requests (brokerGroups), so the cost in broker calls does not grow with the number
// of groups. Online clients come from one connection list per group, so they are read
// for at most Options.ClientLookups groups per pass (those never seen first, then those
// seen longest ago) and remembered in the cluster between passes.
func (s *Service) readList(ctx context.Context) (*List, error) {
	start := s.opts.Now()
	if err := s.cluster.Refresh(ctx); err != nil {
		return nil, clusterUnavailable(err)
	}
	brokers, err := s.cluster.Brokers(ctx)
	if err != nil {
		return nil, clusterUnavailable(err)
	}
	l := &List{CheckedAt: start}
	if ms := s.cluster.Needs5Messages(s.cluster.Release4(ctx, s.admin)); len(ms) > 0 {
		l.Needs5x = i18n.TextOf(ms...)
	}
	fo := s.cluster.Fanout(ctx).Limit(s.opts.Concurrency)
	masters := make(map[string]string, len(brokers)) // master address → broker name
	for _, b := range brokers {
		masters[b.Master] = b.Name
	}
	// The max offsets one pass reads are shared out between the brokers.
	maxOffsetReads := max(1, s.opts.MaxOffsetReads/len(brokers))
	reads := cluster.Each(fo, brokers, "subscription groups", func(ctx context.Context, addr string) (*brokerRead, error) {
		return s.brokerGroups(ctx, masters[addr], addr, maxOffsetReads)
	})
	l.Failures = fo.Wait()
	// Which masters know each group: only they can hold its offsets.
	on := map[string][]int{}
	for i := range brokers {
		if reads[i] == nil {
			continue
		}
		for g := range reads[i].groups {
			on[g] = append(on[g], i)
		}
	}
	if len(on) == 0 && len(l.Failures) >= len(brokers) {
		// No broker listed its groups: the first failure says which broker did what, in
		// the cluster layer's words, and is answered as a broker failure.
		return nil, l.Failures[0]
	}
	s.noteHeld(brokers, reads, start)
	// A broker gone from the cluster is named like one that did not answer; what either
	// held when it last answered shows, its lag unknown.
	l.Failures = append(l.Failures, s.cluster.Missing("")...)
	cluster.SortFailures(l.Failures)
	unread := s.unreadHeld(brokers, reads, l.Failures, start)
	names := heldNames(on, unread)
	perGroup := make([][]groupStats, len(names))
	for i, g := range names {
		for _, bi := range on[g] {
			r, b := reads[bi], brokers[bi]
			gs := groupStats{broker: b, limited: r.limited, uncounted: r.uncounted[g], maxOffsetsAt: r.maxOffsetsAt[g]}
			if r.statsErr != nil {
				gs.fail = &BrokerFailure{Broker: b.Name, Addr: b.Master, Op: "consume stats", Err: r.statsErr}
				if held, at, ok := s.held.Last(b.Name, start); ok {
					gs.held, gs.heldAt = held[g], at
				}
			} else {
				gs.stats = r.stats[g] // nil: nothing stored there for the group
			}
			perGroup[i] = append(perGroup[i], gs)
		}
		for _, u := range unread {
			if qs, ok := u.groups[g]; ok {
				perGroup[i] = append(perGroup[i], groupStats{broker: u.broker, fail: &u.fail, held: qs, heldAt: u.at})
			}
		}
	}
	s.lookUpClients(ctx, names, on, brokers, perGroup)
	l.Groups = make([]Summary, len(names))
	for i, g := range names {
		seen, ok := s.cluster.Consumers(g)
		var cl *cluster.SeenConsumers
		if ok {
			cl = &seen
		}
		l.Groups[i] = summarise(g, perGroup[i], cl, s.opts.BrokerStatsMaxGroups)
	}
	// Time behind and consume modes are independent reads per group: one fan-out makes
	// both, so the pass waits for the slower of them, not for one after the other.
	fo = s.cluster.Fanout(ctx).Limit(s.opts.Concurrency)
	s.listLagTimes(fo, brokers, l.Groups)
	s.listModes(fo, names, on, brokers, l.Groups)
	fo.Wait() // a failed store-time read is said on each queue it left unknown
	for i := range l.Groups {
		l.Groups[i].MaxLagTimeMs, l.Groups[i].MaxLagTimeNote = maxLagTime(l.Groups[i].Queues)
	}
	l.Took = s.opts.Now().Sub(start)
	return l, nil
}

// KeptMaxOffsets counts the groups of l whose lag counts max offsets kept from an
// earlier pass (Summary.MaxOffsetsAt), and the oldest of those.
func KeptMaxOffsets(l *List) (n int, oldest time.Time) {
	for _, g := range l.Groups {
		if g.MaxOffsetsAt == nil {
			continue
		}
		n++
		if oldest.IsZero() || g.MaxOffsetsAt.Before(oldest) {
			oldest = *g.MaxOffsetsAt
		}
	}
	return n, oldest
}

// listLagTimes fills the queues' time behind from remembered store times and starts in
// fo at most LagTimeLookups store-time reads, the most lagging first, for the rest.
func (s *Service) listLagTimes(fo *cluster.Fanout, brokers []cluster.Broker, sums []Summary) {
	named := byName(brokers)
	now := s.opts.Now()
	var reads []*lagTimeRead
	for i := range sums {
		reads = append(reads, s.lagTimeNeeds(sums[i].Group, sums[i].Queues, named, now)...)
	}
	s.readLagTimes(fo, reads, s.opts.LagTimeLookups, now)
}

// brokerRead is what one master said of all its groups.
type brokerRead struct {
	groups rocketmq.GroupNames // its subscription groups (shared: not to be changed)
	// stats are the groups' consume stats by group; statsErr why they could not be read.
	stats    map[string]*rocketmq.ConsumeStats
	statsErr error
	// limited: read from the offset table (the broker has too many groups for
	// GET_BROKER_CONSUME_STATS), so rates, last consumed times and retry topics are missing.
	limited bool
	// uncounted are, by group, the subscribed topics the stats left out that could not
	// be read, with why (see subscribed.go).
	uncounted map[string]map[string]error
	// maxOffsetsAt: read from the offset table, when the oldest max offsets each group's
	// lag counts were read, for the groups that count some kept from an earlier pass.
	maxOffsetsAt map[string]time.Time
}

// brokerGroups reads one master's subscription groups, then every group's offsets:
//   - up to BrokerStatsMaxGroups groups, with GET_BROKER_CONSUME_STATS: every group's
//     consume stats in one answer;
//   - beyond, from the broker's offset table (GET_ALL_CONSUMER_OFFSET) and one
//     GET_TOPIC_STATS_INFO per topic for the max offsets. The broker's time to build the
//     consume stats of all groups grows faster than its groups: 0.3 s for 1 000 groups,
//     past 10 s for 9 000 on 5.3.3 (see the protocol notes), while its offset table is
//     one copy (0.03 s for 9 000 groups).
func (s *Service) brokerGroups(ctx context.Context, broker, addr string, maxOffsetReads int) (*brokerRead, error) {
	names, err := s.admin.SubscriptionGroupNames(ctx, addr)
	if err != nil {
		return nil, err
	}
	r := &brokerRead{groups: names}
	if len(names) <= s.opts.BrokerStatsMaxGroups {
		all, err := s.admin.BrokerConsumeStats(ctx, addr)
		if err != nil {
			r.statsErr = err
			return r, nil
		}
		r.stats = all.Groups
		r.uncounted = s.addSkipped(ctx, broker, addr, r)
		return r, nil
	}
	r.limited = true
	r.statsErr = s.offsetTableStats(ctx, broker, addr, maxOffsetReads, r)
	return r, nil
}

// addSkipped adds the queues of subscribed topics the broker's consume stats left out
// (see subscribed.go): one offset-table read and one topic-stats read per such topic,
// only on a broker that left some out.
func (s *Service) addSkipped(ctx context.Context, broker, addr string, r *brokerRead) map[string]map[string]error {
	now := s.opts.Now()
	need := map[string][]string{}
	for g := range r.groups {
		subs := s.subs.topics(g, now)
		if seen, ok := s.cluster.Consumers(g); ok && seen.Conns != nil {
			for t := range seen.Conns.Subscriptions {
				subs[t] = true
			}
		}
		if len(subs) == 0 {
			continue
		}
		if miss := leftOut(subs, r.stats[g]); len(miss) > 0 {
			need[g] = miss
		}
	}
	if len(need) == 0 {
		return nil
	}
	if r.stats == nil {
		r.stats = map[string]*rocketmq.ConsumeStats{}
	}
	return s.skippedStats(ctx, broker, addr, need, r.stats)
}

// offsetTableStats builds consume stats from the broker's offset table and the max
// offsets of its topics, retry topics left out (a group has one each: asking each would
// be one request per group again). The max offsets are read for at most budget topics
// (all of them on the broker's first read) and kept (see maxOffsets); r.maxOffsetsAt
// says, by group, when the oldest of those its lag counts were read.
func (s *Service) offsetTableStats(ctx context.Context, broker, addr string, budget int, r *brokerRead) error {
	offs, err := s.admin.ConsumerOffsets(ctx, addr)
	if err != nil {
		return err
	}
	pass := s.opts.Now()
	names := s.maxOffsets.toRead(broker, offs, budget)
	read := make(map[string]keptMax, len(names))
	var mu sync.Mutex
	fo := s.cluster.Fanout(ctx).Limit(s.opts.Concurrency)
	for _, t := range names {
		fo.At(addr, addr, "topic stats", func(ctx context.Context, addr string) error {
			at := s.opts.Now()
			ts, err := s.admin.TopicStats(ctx, addr, t)
			k := keptMax{at: at, gone: true}
			switch {
			case errors.Is(err, rocketmq.ErrTopicNotFound): // deleted; its offsets linger
			case err != nil:
				return err
			default:
				k = keep(ts, at)
			}
			mu.Lock()
			read[t] = k
			mu.Unlock()
			return nil
		})
	}
	// One failure per operation is kept: the first, which the broker's stats fail with.
	fs := fo.Wait()
	s.maxOffsets.note(broker, read)
	if len(fs) > 0 {
		return fs[0].Err
	}
	r.stats, r.maxOffsetsAt = s.maxOffsets.consumeStats(broker, offs, pass)
	return nil
}

// groupStats is what one master's broker-wide consume stats said about a group.
type groupStats struct {
	broker cluster.Broker
	stats  *rocketmq.ConsumeStats // nil: the broker holds nothing for the group
	// fail names why the broker's stats could not be read (it failed, or is gone from
	// the cluster); held are the group's queues there when it last answered, at heldAt.
	fail    *BrokerFailure
	held    []rocketmq.MessageQueue
	heldAt  time.Time
	limited bool // see brokerRead.limited
	// maxOffsetsAt: when the oldest max offsets the lag counts were read, if before this
	// pass (see brokerRead.maxOffsetsAt).
	maxOffsetsAt time.Time
	// uncounted: subscribed topics whose lag could not be read there, with why.
	uncounted map[string]error
}

// heldGroups is what one master held when it last answered the list: each consumer
// group it knew, with the queues it had offsets of.
type heldGroups map[string][]rocketmq.MessageQueue

// noteHeld remembers what each master that answered in full holds, for the passes in
// which it does not answer.
func (s *Service) noteHeld(brokers []cluster.Broker, reads []*brokerRead, at time.Time) {
	for i, r := range reads {
		if r == nil || r.statsErr != nil {
			continue
		}
		h := make(heldGroups, len(r.groups))
		for g := range r.groups {
			var qs []rocketmq.MessageQueue
			if st := r.stats[g]; st != nil {
				qs = slices.SortedFunc(maps.Keys(st.Offsets), compareQueues)
			}
			h[g] = qs
		}
		s.held.Note(brokers[i].Name, h, at)
	}
}

// unreadBroker is a master whose groups could not be listed in this pass (it did not
// answer, or is gone from the cluster), with what it held when it last answered.
type unreadBroker struct {
	broker cluster.Broker
	fail   BrokerFailure
	groups heldGroups
	at     time.Time
}

// unreadHeld are the masters named in fails whose groups this pass could not list and
// that answered an earlier one.
func (s *Service) unreadHeld(brokers []cluster.Broker, reads []*brokerRead, fails []BrokerFailure, now time.Time) []unreadBroker {
	var out []unreadBroker
	for _, f := range fails {
		i := slices.IndexFunc(brokers, func(b cluster.Broker) bool { return b.Name == f.Broker })
		if (i >= 0 && reads[i] != nil) || slices.ContainsFunc(out, func(u unreadBroker) bool { return u.broker.Name == f.Broker }) {
			continue
		}
		held, at, ok := s.held.Last(f.Broker, now)
		if !ok {
			continue
		}
		b := cluster.Broker{Name: f.Broker, Master: f.Addr}
		if i >= 0 {
			b = brokers[i]
		}
		out = append(out, unreadBroker{broker: b, fail: f, groups: held, at: at})
	}
	return out
}

// heldNames are the groups some master listed, and those an unread master held, sorted.
func heldNames(on map[string][]int, unread []unreadBroker) []string {
	set := maps.Clone(on)
	for _, u := range unread {
		for g := range u.groups {
			if _, ok := set[g]; !ok {
				set[g] = nil
			}
		}
	}
	return slices.Sorted(maps.Keys(set))
}

// lookUpClients reads the connection list of at most ClientLookups groups, on one master
// that knows each (clients heartbeat to every broker of the cluster they use), and notes
// the answers in the cluster. With more groups than that, groups never seen come first,
// the busiest (consuming, then lagging) before the rest, then those seen longest ago, and
// a group seen within ListTTL is not asked again.
func (s *Service) lookUpClients(ctx context.Context, names []string, on map[string][]int, brokers []cluster.Broker, perGroup [][]groupStats) {
	now := s.opts.Now()
	all := len(names) <= s.opts.ClientLookups
	type cand struct {
		i    int
		seen bool
		at   time.Time
		busy int // 2 consuming, 1 lagging, 0 neither
	}
	var cands []cand
	for i, g := range names {
		seen, ok := s.cluster.Consumers(g)
		if len(on[g]) == 0 || (!all && ok && now.Sub(seen.At) < s.opts.ListTTL) {
			continue // no master that answered knows it, or it was seen a moment ago
		}
		c := cand{i: i, seen: ok, at: seen.At}
		for _, gs := range perGroup[i] {
			if gs.stats == nil {
				continue
			}
			if gs.stats.ConsumeTps > 0 {
				c.busy = 2
			} else if gs.stats.TotalLag() > 0 {
				c.busy = max(c.busy, 1)
			}
		}
		cands = append(cands, c)
	}
	slices.SortStableFunc(cands, func(a, b cand) int {
		if a.seen != b.seen {
			if a.seen {
				return 1
			}
			return -1
		}
		if !a.seen {
			return cmp.Compare(b.busy, a.busy)
		}
		return a.at.Compare(b.at)
	})
	cands = cands[:min(len(cands), s.opts.ClientLookups)]
	fo := s.cluster.Fanout(ctx).Limit(s.opts.Concurrency)
	for _, c := range cands {
		g := names[c.i]
		b := brokers[on[g][0]]
		fo.Go(b, "connections", func(ctx context.Context, addr string) error {
			if fo.NotAnswering(b.Name) {
				return errSilent
			}
			return s.listClients(ctx, addr, g)
		})
	}
	fo.Wait()
}

// listClients reads group's connection list on the broker at addr and notes it in the
// cluster; a failure is returned, and the group keeps what was seen before.
func (s *Service) listClients(ctx context.Context, addr, group string) error {
	conns, err := s.admin.ConsumerConnections(ctx, addr, group)
	switch {
	case notThere(err):
		// No broker knows a client: a cluster-mode Proxy may (gRPC clients).
		if _, ok := s.cluster.SeenThroughProxies(ctx, s.admin, group, s.opts.Now()); ok {
			return nil
		}
		s.cluster.NoteConsumers(group, nil, s.opts.Now())
	case err == nil:
		s.cluster.NoteConsumers(group, conns, s.opts.Now())
		s.subs.noteConns(group, conns, s.opts.Now())
	default:
		return err
	}
	return nil
}

// errSilent is the answer of a call left out because its broker did not answer an earlier
// call of the same pass.
var errSilent = errors.New("not asked: the broker did not answer an earlier request of this list")

// summarise builds one group's row from every master's consume stats and the clients last
// seen (nil: never listed, so whether it is online is unknown).
func summarise(group string, stats []groupStats, seen *cluster.SeenConsumers, maxGroups int) Summary {
	sum := Summary{Group: group, System: rocketmq.IsSystemGroup(group), Topics: []string{}}
	topics := map[string]bool{}
	if seen == nil {
		sum.ClientsUnknown = true
	} else {
		at := seen.At
		sum.ClientsCheckedAt = &at
		if cc := seen.Conns; cc != nil {
			sum.Online = len(cc.Connections) > 0
			sum.Clients = len(cc.Connections)
			sum.ConsumeType = consumeTypeOf(cc, seen.Proxy != "")
			sum.MessageModel = cc.MessageModel
			for t := range cc.Subscriptions {
				if !rocketmq.IsRetryTopic(t) {
					topics[t] = true
				}
			}
		}
	}
	var total int64
	known, unknown := 0, 0
	var limited []string
	var maxOffsetsAt time.Time
	uncounted := map[string]error{}
	for _, a := range stats {
		if a.limited {
			limited = append(limited, a.broker.Name)
		}
		if !a.maxOffsetsAt.IsZero() && (maxOffsetsAt.IsZero() || a.maxOffsetsAt.Before(maxOffsetsAt)) {
			maxOffsetsAt = a.maxOffsetsAt
		}
		maps.Copy(uncounted, a.uncounted)
		if a.fail != nil {
			sum.Failures = append(sum.Failures, *a.fail)
			// Its queues when it last answered: unknown now, not absent.
			for _, mq := range a.held {
				sum.Queues = append(sum.Queues, QueueLag{Topic: mq.Topic, BrokerName: mq.BrokerName, QueueID: mq.QueueID,
					Retry: rocketmq.IsRetryTopic(mq.Topic), LagUnknown: i18n.TextOf(i18n.M("group.note.heldQueue", "Broker", a.broker.Name,
						"At", a.heldAt.UTC().Format("2006-01-02 15:04:05 UTC")))})
				if !rocketmq.IsRetryTopic(mq.Topic) {
					topics[mq.Topic] = true
				}
				unknown++
			}
			continue
		}
		if a.stats == nil {
			continue
		}
		sum.ConsumeTPS += a.stats.ConsumeTps
		for mq, o := range a.stats.Offsets {
			q := queueFromOffsets(mq, o, sum.MessageModel)
			sum.Queues = append(sum.Queues, q)
			if !q.Retry {
				topics[mq.Topic] = true
			}
			sum.LastTimestamp = max(sum.LastTimestamp, q.LastTimestamp)
			if q.Lag == nil {
				unknown++
				continue
			}
			known++
			total += *q.Lag
		}
	}
	sortQueues(sum.Queues)
	sum.Topics = slices.Sorted(maps.Keys(topics))
	if sum.Topics == nil {
		sum.Topics = []string{}
	}
	switch {
	case known > 0:
		sum.TotalLag = &total
		if unknown > 0 || len(sum.Failures) > 0 {
			sum.LagNote = i18n.TextOf(i18n.M("group.note.listLeavesOut"))
		}
	case len(sum.Failures) > 0:
		sum.LagNote = i18n.TextOf(i18n.M("group.note.couldNotRead", "Failure", sum.Failures[0].Message()))
	case sum.MessageModel == "BROADCASTING":
		sum.LagNote = i18n.TextOf(i18n.M("group.note.broadcasting"))
	default:
		sum.LagNote = i18n.TextOf(i18n.M("group.note.noOffsets"))
	}
	if len(uncounted) > 0 {
		ts := slices.Sorted(maps.Keys(uncounted))
		sum.LagNote = sum.LagNote.And(i18n.M("group.note.uncountedTopics", "Topics", strings.Join(ts, ", "), "Error", errMessage(uncounted[ts[0]])))
	}
	if len(limited) > 0 {
		sum.LagNote = sum.LagNote.And(i18n.M("group.note.offsetTable", "Brokers", strings.Join(limited, ", "), "Max", maxGroups))
	}
	if !maxOffsetsAt.IsZero() && sum.TotalLag != nil {
		sum.MaxOffsetsAt = &maxOffsetsAt
		sum.LagNote = sum.LagNote.And(i18n.M("group.note.maxOffsetsAt", "At", maxOffsetsAt.UTC().Format("2006-01-02 15:04:05 UTC")))
	}
	return sum
}

// ListQuery filters and orders the list.
type ListQuery struct {
	// Filter keeps groups whose name or a topic contains it (case-insensitive).
	Filter string
	// System includes RocketMQ's own groups.
	System bool
	// Sort is one of SortKeys; "" sorts by name.
	Sort string
	Desc bool
}

// SortKeys are the columns the list sorts by.
var SortKeys = []string{"group", "clients", "lag", "behind", "tps", "last"}

// Select returns the groups q keeps, in q's order. Unknown lags sort after known ones
// whichever the direction, so "most behind first" never starts with unknowns.
func Select(l *List, q ListQuery) []Summary {
	f := strings.ToLower(strings.TrimSpace(q.Filter))
	out := make([]Summary, 0, len(l.Groups))
	for _, g := range l.Groups {
		if g.System && !q.System {
			continue
		}
		if f != "" && !matches(g, f) {
			continue
		}
		out = append(out, g)
	}
	slices.SortFunc(out, Order(q))
	return out
}

// Order is the list's order for q as a comparison: q's column, then the name, so no two
// groups tie and a page's cursor can say where the next page starts. Unknown lags sort
// after known ones whichever the direction.
func Order(q ListQuery) func(a, b Summary) int {
	return func(a, b Summary) int {
		if c, ok := unknownLast(q, a, b); ok {
			return c
		}
		var c int
		switch q.Sort {
		case "", "group":
			c = strings.Compare(a.Group, b.Group)
		case "clients":
			c = cmp.Compare(a.Clients, b.Clients)
		case "tps":
			c = cmp.Compare(a.ConsumeTPS, b.ConsumeTPS)
		case "last":
			c = cmp.Compare(a.LastTimestamp, b.LastTimestamp)
		case "lag":
			c = cmp.Compare(*a.TotalLag, *b.TotalLag)
		case "behind":
			c = cmp.Compare(*a.MaxLagTimeMs, *b.MaxLagTimeMs)
		}
		if q.Desc {
			c = -c
		}
		if c == 0 {
			return strings.Compare(a.Group, b.Group)
		}
		return c
	}
}

// unknownLast orders a known lag (or time behind) before an unknown one; two unknowns
// compare by name. ok is false when the sort key is known on both sides.
func unknownLast(q ListQuery, a, b Summary) (int, bool) {
	var x, y *int64
	switch q.Sort {
	case "lag":
		x, y = a.TotalLag, b.TotalLag
	case "behind":
		x, y = a.MaxLagTimeMs, b.MaxLagTimeMs
	default:
		return 0, false
	}
	switch {
	case x != nil && y != nil:
		return 0, false
	case x != nil:
		return -1, true
	case y != nil:
		return 1, true
	}
	return strings.Compare(a.Group, b.Group), true
}

func matches(g Summary, f string) bool {
	if strings.Contains(strings.ToLower(g.Group), f) {
		return true
	}
	for _, t := range g.Topics {
		if strings.Contains(strings.ToLower(t), f) {
			return true
		}
	}
	return false
}
