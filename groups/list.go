package groups

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"rmqconsole/cluster"
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
	// ConsumeMode is orderly, concurrent or mixed (see Detail.ConsumeMode); "" when
	// offline or no client said.
	ConsumeMode string `json:"consumeMode,omitempty"`
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

// readList asks every master for its subscription groups, then each group's connections
// and consume stats on each master that knows it: every call at once, at most
// Concurrency in flight. A broker that did not answer one call is not asked again in
// the same pass (each of its groups names it), so a frozen broker costs the list one
// timeout, not one per group.
func (s *Service) readList(ctx context.Context) (*List, error) {
	start := s.opts.Now()
	brokers, err := s.cluster.Brokers(ctx)
	if err != nil {
		return nil, err
	}
	l := &List{CheckedAt: start}
	fo := s.cluster.Fanout(ctx).Limit(s.opts.Concurrency)
	tables := cluster.Each(fo, brokers, "subscription groups", func(ctx context.Context, addr string) (*rocketmq.SubscriptionGroupTable, error) {
		return s.admin.SubscriptionGroups(ctx, addr)
	})
	l.Failures = fo.Wait()
	// Which masters know each group: only they can hold its offsets.
	on := map[string][]cluster.Broker{}
	for i, b := range brokers {
		if tables[i] == nil {
			continue
		}
		for g := range tables[i].Groups {
			on[g] = append(on[g], b)
		}
	}
	if len(l.Failures) >= len(brokers) {
		return nil, fmt.Errorf("no broker listed its consumer groups: %w", l.Failures[0])
	}
	names := slices.Sorted(maps.Keys(on))
	answers := make([][]brokerAnswer, len(names))
	for i, g := range names {
		answers[i] = make([]brokerAnswer, len(on[g]))
		for j, b := range on[g] {
			a := &answers[i][j]
			a.broker = b
			s.askGroup(fo, a, g, true)
		}
	}
	fo.Wait()
	l.Groups = make([]Summary, len(names))
	for i, g := range names {
		l.Groups[i] = summarise(g, answers[i])
	}
	s.listModes(fo, names, answers, l.Groups)
	l.Took = s.opts.Now().Sub(start)
	return l, nil
}

// errNotAsked is the answer of a call the fan-out never made (no master registered, the
// operation's deadline passed first); the fan-out names the broker's failure.
var errNotAsked = errors.New("not asked")

// askGroup asks one broker for the group's connections and consume stats, both at once,
// into a. In a pass over many groups (skipSilent), a broker that did not answer an
// earlier call is not asked: its failure is what that call got.
func (s *Service) askGroup(fo *cluster.Fanout, a *brokerAnswer, group string, skipSilent bool) {
	a.connErr, a.statsErr = errNotAsked, errNotAsked
	ask := func(op string, errp *error, call func(ctx context.Context, addr string) error) {
		fo.Go(a.broker, op, func(ctx context.Context, addr string) error {
			if skipSilent && fo.NotAnswering(a.broker.Name) {
				*errp = errSilent
				return errSilent
			}
			return call(ctx, addr)
		})
	}
	ask("connections", &a.connErr, func(ctx context.Context, addr string) error {
		a.conns, a.connErr = s.admin.ConsumerConnections(ctx, addr, group)
		if notThere(a.connErr) {
			return nil
		}
		return a.connErr
	})
	ask("consume stats", &a.statsErr, func(ctx context.Context, addr string) error {
		a.stats, a.statsErr = s.admin.ConsumeStats(ctx, addr, group, "")
		if notThere(a.statsErr) {
			return nil
		}
		return a.statsErr
	})
}

// errSilent is the answer of a call left out because its broker did not answer an earlier
// call of the same pass.
var errSilent = errors.New("not asked: the broker did not answer an earlier request of this list")

// notThere reports whether a broker's error only says it holds nothing for the group.
func notThere(err error) bool {
	return errors.Is(err, rocketmq.ErrConsumerNotOnline) || errors.Is(err, rocketmq.ErrGroupNotFound)
}

// failed reports whether a call's error is a failure worth naming (not "nothing here").
func failed(err error) bool { return err != nil && !notThere(err) }

// summarise builds one group's row from what each master that knows it answered: the
// connections of the first that has the group online, the consume stats of every one.
func summarise(group string, answers []brokerAnswer) Summary {
	sum := Summary{Group: group, System: rocketmq.IsSystemGroup(group), Topics: []string{}}
	topics := map[string]bool{}
	for _, a := range answers {
		if failed(a.connErr) {
			sum.Failures = append(sum.Failures, BrokerFailure{Broker: a.broker.Name, Addr: a.broker.Master, Op: "connections", Err: a.connErr})
			continue
		}
		if a.connErr != nil || sum.Online {
			continue
		}
		cc := a.conns
		sum.Online = len(cc.Connections) > 0
		sum.Clients = len(cc.Connections)
		sum.ConsumeType = ConsumeTypeName(cc.ConsumeType)
		sum.MessageModel = cc.MessageModel
		for t := range cc.Subscriptions {
			if !rocketmq.IsRetryTopic(t) {
				topics[t] = true
			}
		}
	}
	var total int64
	known, unknown := 0, 0
	for _, a := range answers {
		if failed(a.statsErr) {
			sum.Failures = append(sum.Failures, BrokerFailure{Broker: a.broker.Name, Addr: a.broker.Master, Op: "consume stats", Err: a.statsErr})
			continue
		}
		if a.statsErr != nil {
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
