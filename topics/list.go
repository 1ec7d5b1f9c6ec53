package topics

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"rmqconsole/cluster"
	"rmqconsole/rocketmq"
)

// Summary is one topic in the list.
type Summary struct {
	Topic string `json:"topic"`
	// Type is normal, fifo, delay, transaction or mixed from the 5.x "message.type"
	// attribute; unknown on 4.x brokers, which keep no type.
	Type string `json:"type"`
	// ReadQueues and WriteQueues add up the topic's queues over its brokers.
	ReadQueues  int `json:"readQueues"`
	WriteQueues int `json:"writeQueues"`
	// Perm is the topic's permission (4 read, 2 write, 6 both) when every broker has
	// the same; -1 when they differ.
	Perm    int      `json:"perm"`
	Order   bool     `json:"order"`
	Brokers []string `json:"brokers"`
	System  bool     `json:"system"`
	// PutTPS is messages per second put to the topic, as 5.3.3+ brokers count it; nil
	// when no broker of the topic reports it (4.x, 5.3.2 and older) or none was read yet.
	PutTPS *float64 `json:"putTps"`
	// Messages is how many messages the topic stores: each queue's max − min offset.
	Messages int64 `json:"messages"`
	// StatsFrom counts the brokers whose figures are in PutTPS and Messages; when it is
	// below len(Brokers) the figures are partial.
	StatsFrom int `json:"statsFrom"`
	// The figures come from the collector's memory (FigureCollector), not from a call
	// made for the list. FiguresAt is when the oldest of them was last known true (read
	// from the broker, or confirmed unchanged since); nil when none was ever read, and
	// FiguresUnknown then says why (FiguresNotReadYet, FiguresBrokerFailed).
	FiguresAt      *time.Time `json:"figuresAt,omitempty"`
	FiguresUnknown string     `json:"figuresUnknown,omitempty"`
	// FiguresAgeSeconds is how old FiguresAt is when the list is answered.
	FiguresAgeSeconds *float64 `json:"figuresAgeSeconds,omitempty"`
	// UnknownOn are the brokers among Brokers that held the topic when they last
	// answered and could not be read now (they failed, or are gone from the cluster):
	// the queue counts include what they held then, the figures leave them out.
	UnknownOn []string `json:"unknownOn,omitempty"`
}

// List is every topic of the cluster with its figures, at CheckedAt.
type List struct {
	Topics    []Summary
	Failures  []BrokerFailure
	CheckedAt time.Time
	Took      time.Duration
	// System says whether system, retry and DLQ topics were read.
	System bool
}

// ListQuery filters and orders a List.
type ListQuery struct {
	// Filter keeps topics whose name contains it (any case).
	Filter string
	// Type keeps topics of one message type ("" keeps all).
	Type string
	// System keeps system, retry and dead-letter topics too.
	System bool
	// Sort is one of SortKeys ("" sorts by name); Desc reverses it.
	Sort string
	Desc bool
}

// SortKeys are the columns a list can be sorted by.
var SortKeys = []string{"topic", "type", "queues", "tps", "messages"}

// Types are the message types a list can be filtered by.
var Types = []string{TypeNormal, TypeFIFO, TypeDelay, TypeTransaction, TypeMixed, TypeUnknown}

const (
	opTopicConfigs = "topic configs"
	opTopicStats   = "topic stats"
)

// errSkipped is the failure of a call not made because its broker did not answer an
// earlier one of the same list: asking again would only wait for another timeout.
var errSkipped = errors.New("not asked: the broker did not answer an earlier call")

// List returns every topic with its figures; system, retry and DLQ topics only when
// withSystem is set. The topics are read from each broker's topic configs (one call per
// broker), reused for Options.ListTTL unless refresh is set; the figures come from the
// collector's memory at each call, with their age, and cost no call. A broker that
// fails is named in Failures and the others' topics are still listed.
func (s *Service) List(ctx context.Context, withSystem, refresh bool) (*List, error) {
	l, _, err := s.topicList(ctx, refresh)
	if err != nil {
		return nil, err
	}
	out := *l
	out.System = withSystem
	out.Topics = make([]Summary, 0, len(l.Topics))
	for _, t := range l.Topics {
		if withSystem || !t.System {
			out.Topics = append(out.Topics, t)
		}
	}
	s.figures.fill(out.Topics)
	return &out, nil
}

// topicList is every topic, system ones included, as the brokers' configs list them;
// read says the configs were asked for now rather than reused.
func (s *Service) topicList(ctx context.Context, refresh bool) (l *List, read bool, err error) {
	s.listMu.Lock()
	defer s.listMu.Unlock()
	if l := s.list; !refresh && l != nil && s.opts.Now().Sub(l.CheckedAt) < s.opts.ListTTL {
		return l, false, nil
	}
	l, err = s.readList(ctx)
	if err != nil {
		return nil, false, err
	}
	s.list = l
	return l, true, nil
}

// Viewing notes the topics a reader has on screen: the collector reads their figures
// before the others'.
func (s *Service) Viewing(topics []string) { s.figures.view(topics, s.opts.Now()) }

// brokerTopics is one broker's topic configs and whether it is 5.x.
type brokerTopics struct {
	configs *rocketmq.TopicConfigTable
	is5     bool
}

func (s *Service) readList(ctx context.Context) (*List, error) {
	start := s.opts.Now()
	if err := s.cluster.Refresh(ctx); err != nil {
		return nil, fmt.Errorf("list topics: %w", err)
	}
	ci, err := s.cluster.Info(ctx)
	if err != nil {
		return nil, fmt.Errorf("list topics: %w", err)
	}
	brokers, err := s.cluster.Brokers(ctx)
	if err != nil {
		return nil, err
	}
	f := s.cluster.Fanout(ctx).Limit(s.opts.Concurrency)
	tables := cluster.EachRead(f, brokers, opTopicConfigs, func(ctx context.Context, addr string) (brokerTopics, error) {
		t, err := s.admin.TopicConfigs(ctx, addr)
		if err != nil {
			return brokerTopics{}, err
		}
		v, _ := s.admin.BrokerVersion(ctx, addr) // known from the call just made
		return brokerTopics{configs: t, is5: v.Is5()}, nil
	})
	byName := map[string]*Summary{}
	var order []string
	add := func(broker string, bt brokerTopics, unknown bool) {
		for _, name := range slices.Sorted(maps.Keys(bt.configs.Topics)) {
			tc := bt.configs.Topics[name]
			system := ci.IsSystemTopic(name)
			sm := byName[name]
			if sm == nil {
				sm = &Summary{Topic: name, System: system, Perm: tc.Perm, Type: messageType(tc, bt.is5)}
				byName[name] = sm
				order = append(order, name)
			} else {
				if sm.Perm != tc.Perm {
					sm.Perm = -1
				}
				if t := messageType(tc, bt.is5); sm.Type != t && t != TypeUnknown {
					if sm.Type == TypeUnknown {
						sm.Type = t
					} else {
						sm.Type = TypeMixed
					}
				}
			}
			sm.ReadQueues += tc.ReadQueueNums
			sm.WriteQueues += tc.WriteQueueNums
			sm.Order = sm.Order || tc.Order
			sm.Brokers = append(sm.Brokers, broker)
			if unknown {
				sm.UnknownOn = append(sm.UnknownOn, broker)
			}
		}
	}
	for i, bt := range tables {
		if bt.configs != nil {
			s.held.Note(brokers[i].Name, bt, start)
			add(brokers[i].Name, bt, false)
		}
	}
	// A broker that did not answer, or is gone from the cluster, is named; the topics it
	// held when it last answered still show, their figures there unknown.
	missing := s.cluster.Missing("")
	for _, fl := range missing {
		f.Fail(fl)
	}
	for i, bt := range tables {
		if bt.configs == nil {
			if held, _, ok := s.held.Last(brokers[i].Name, start); ok {
				add(brokers[i].Name, held, true)
			}
		}
	}
	for _, fl := range missing {
		if held, _, ok := s.held.Last(fl.Broker, start); ok {
			add(fl.Broker, held, true)
		}
	}
	l := &List{Topics: make([]Summary, 0, len(order)), System: true}
	for _, n := range order {
		sm := byName[n]
		slices.Sort(sm.Brokers)
		l.Topics = append(l.Topics, *sm)
	}
	slices.SortFunc(l.Topics, func(a, b Summary) int { return strings.Compare(a.Topic, b.Topic) })
	l.Failures = f.Wait()
	l.CheckedAt = s.opts.Now()
	l.Took = l.CheckedAt.Sub(start)
	return l, nil
}

// Select filters and orders a list's topics for q. Topics of the same value keep
// their name order.
func Select(l *List, q ListQuery) []Summary {
	filter := strings.ToLower(q.Filter)
	out := make([]Summary, 0, len(l.Topics))
	for _, t := range l.Topics {
		if (!q.System && t.System) || (q.Type != "" && t.Type != q.Type) ||
			(filter != "" && !strings.Contains(strings.ToLower(t.Topic), filter)) {
			continue
		}
		out = append(out, t)
	}
	slices.SortFunc(out, Order(q))
	return out
}

// Order is the list's order for q as a comparison: q's column, then the name, so no two
// topics tie and a page's cursor can say where the next page starts.
func Order(q ListQuery) func(a, b Summary) int {
	return func(a, b Summary) int {
		var c int
		switch q.Sort {
		case "type":
			c = strings.Compare(a.Type, b.Type)
		case "queues":
			c = cmp.Compare(a.WriteQueues+a.ReadQueues, b.WriteQueues+b.ReadQueues)
		case "tps":
			c = cmp.Compare(tps(a), tps(b))
		case "messages":
			c = cmp.Compare(stored(a), stored(b))
		default:
			c = strings.Compare(a.Topic, b.Topic)
		}
		if q.Desc {
			c = -c
		}
		if c == 0 {
			return strings.Compare(a.Topic, b.Topic)
		}
		return c
	}
}

// stored is the sort key of the stored messages: -1 when no figure is known, so topics
// without figures sort apart from empty ones.
func stored(s Summary) int64 {
	if s.StatsFrom == 0 {
		return -1
	}
	return s.Messages
}

func tps(s Summary) float64 {
	if s.PutTPS == nil {
		return -1
	}
	return *s.PutTPS
}
