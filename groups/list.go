package groups

import (
	"cmp"
	"context"
	"errors"
	"maps"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"rmqconsole/rocketmq"
)

// Summary is one consumer group in the list.
type Summary struct {
	Group  string `json:"group"`
	System bool   `json:"system"`
	Online bool   `json:"online"`
	// Clients counts the online clients.
	Clients      int    `json:"clients"`
	ConsumeType  string `json:"consumeType"`
	MessageModel string `json:"messageModel"`
	// Topics are the topics the group subscribes to or has offsets for (retry topic aside).
	Topics []string `json:"topics"`
	// TotalLag sums the lag of the queues whose lag is known (the retry topic
	// included); nil when none is, with the reason in LagNote.
	TotalLag *int64 `json:"totalLag"`
	// LagNote says why TotalLag is unknown, or which queues it leaves out.
	LagNote    string  `json:"lagNote,omitempty"`
	ConsumeTPS float64 `json:"consumeTps"`
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
// from the cache unless refresh is set; concurrent callers share one computation.
func (s *Service) List(ctx context.Context, refresh bool) (*List, error) {
	c := &s.list
	c.mu.Lock()
	if !refresh && c.list != nil && s.opts.Now().Sub(c.list.CheckedAt) < s.opts.ListTTL {
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

// cachedList returns the last computed list, however old; nil if none.
func (s *Service) cachedList() *List {
	s.list.mu.Lock()
	defer s.list.mu.Unlock()
	return s.list.list
}

// readList asks every master for its subscription groups, then each group's stats and
// connections, at most Concurrency calls at a time.
func (s *Service) readList(ctx context.Context) (*List, error) {
	start := s.opts.Now()
	masters, err := s.Masters(ctx)
	if err != nil {
		return nil, err
	}
	l := &List{CheckedAt: start}
	tables := make([]*rocketmq.SubscriptionGroupTable, len(masters))
	errs := make([]error, len(masters))
	var wg sync.WaitGroup
	for i, b := range masters {
		wg.Go(func() { tables[i], errs[i] = s.admin.SubscriptionGroups(ctx, b.Addr) })
	}
	wg.Wait()
	// Which masters know each group: only they can hold its offsets.
	on := map[string][]Broker{}
	for i, b := range masters {
		if errs[i] != nil {
			l.Failures = append(l.Failures, BrokerFailure{Broker: b.Name, Addr: b.Addr, Error: "subscription groups: " + errs[i].Error()})
			continue
		}
		for g := range tables[i].Groups {
			on[g] = append(on[g], b)
		}
	}
	if len(l.Failures) == len(masters) {
		return nil, errors.New("no broker listed its consumer groups: " + l.Failures[0].String())
	}
	names := slices.Sorted(maps.Keys(on))
	l.Groups = make([]Summary, len(names))
	sem := make(semaphore, s.opts.Concurrency)
	for i, g := range names {
		wg.Go(func() { l.Groups[i] = s.summarise(ctx, sem, g, on[g]) })
	}
	wg.Wait()
	l.Took = s.opts.Now().Sub(start)
	return l, nil
}

// summarise reads one group: consume stats from each master that knows it, and the
// connections from the first that has the group online.
func (s *Service) summarise(ctx context.Context, sem semaphore, group string, brokers []Broker) Summary {
	sum := Summary{Group: group, System: rocketmq.IsSystemGroup(group), Topics: []string{}}
	call := func(f func()) bool {
		if err := sem.acquire(ctx); err != nil {
			return false
		}
		defer sem.release()
		f()
		return true
	}
	topics := map[string]bool{}
	for _, b := range brokers {
		var cc *rocketmq.ConsumerConnection
		var err error
		if !call(func() { cc, err = s.admin.ConsumerConnections(ctx, b.Addr, group) }) {
			err = ctx.Err()
		}
		if err != nil {
			if errors.Is(err, rocketmq.ErrConsumerNotOnline) || errors.Is(err, rocketmq.ErrGroupNotFound) {
				continue
			}
			sum.Failures = append(sum.Failures, BrokerFailure{Broker: b.Name, Addr: b.Addr, Error: "connections: " + err.Error()})
			continue
		}
		sum.Online = len(cc.Connections) > 0
		sum.Clients = len(cc.Connections)
		sum.ConsumeType = ConsumeTypeName(cc.ConsumeType)
		sum.MessageModel = cc.MessageModel
		for t := range cc.Subscriptions {
			if !rocketmq.IsRetryTopic(t) {
				topics[t] = true
			}
		}
		break
	}
	var total int64
	known, unknown := 0, 0
	for _, b := range brokers {
		var st *rocketmq.ConsumeStats
		var err error
		if !call(func() { st, err = s.admin.ConsumeStats(ctx, b.Addr, group, "") }) {
			err = ctx.Err()
		}
		if err != nil {
			if errors.Is(err, rocketmq.ErrGroupNotFound) || errors.Is(err, rocketmq.ErrConsumerNotOnline) {
				continue
			}
			sum.Failures = append(sum.Failures, BrokerFailure{Broker: b.Name, Addr: b.Addr, Error: "consume stats: " + err.Error()})
			continue
		}
		sum.ConsumeTPS += st.ConsumeTps
		for mq, o := range st.Offsets {
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
			sum.LagNote = "Leaves out queues whose lag is unknown; open the group to see which."
		}
	case len(sum.Failures) > 0:
		sum.LagNote = "Could not read " + sum.Failures[0].String()
	case sum.MessageModel == "BROADCASTING":
		sum.LagNote = "Broadcasting consumers keep their offsets on the clients."
	default:
		sum.LagNote = "No offsets are stored for this group yet."
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
var SortKeys = []string{"group", "clients", "lag", "tps", "last"}

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
	less := func(a, b Summary) int {
		switch q.Sort {
		case "clients":
			return cmp.Compare(a.Clients, b.Clients)
		case "tps":
			return cmp.Compare(a.ConsumeTPS, b.ConsumeTPS)
		case "last":
			return cmp.Compare(a.LastTimestamp, b.LastTimestamp)
		case "lag":
			return cmp.Compare(*a.TotalLag, *b.TotalLag)
		}
		return strings.Compare(a.Group, b.Group)
	}
	sort.SliceStable(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if q.Sort == "lag" && (a.TotalLag == nil) != (b.TotalLag == nil) {
			return a.TotalLag != nil
		}
		if q.Sort == "lag" && a.TotalLag == nil {
			return a.Group < b.Group
		}
		c := less(a, b)
		if c == 0 {
			return a.Group < b.Group
		}
		if q.Desc {
			return c > 0
		}
		return c < 0
	})
	return out
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
