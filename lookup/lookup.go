// Package lookup finds messages: by topic and store-time range (the newest 2000 across
// every queue), by message key (the brokers' index, at most 64), and by message id (an
// offsetMsgId read straight from the broker that stored it, or a client-made unique key
// found in the index). It also tells, for one message, whether each group subscribed to its
// topic has consumed it.
//
// Every query fans out over the topic's brokers and queues with bounded parallelism. A
// broker that fails or times out does not fail the query: the answer carries what the
// others returned and names the broker and its error.
package lookup

import (
	"context"
	"errors"
	"sync"
	"time"

	"rmqconsole/rocketmq"
)

// The caps of the three queries, as the RocketMQ consoles have always had them.
const (
	// RangeLimit is the most messages a time-range query returns.
	RangeLimit = 2000
	// KeyLimit is the most messages a key query returns (the broker's own cap on one
	// QUERY_MESSAGE answer).
	KeyLimit = rocketmq.MaxKeyQueryNum
)

// Admin is what lookup needs from RocketMQ; *rocketmq.Client implements it. Unit tests
// use fakes.
type Admin interface {
	ClusterInfo(ctx context.Context) (*rocketmq.ClusterInfo, error)
	TopicList(ctx context.Context) ([]string, error)
	TopicRoute(ctx context.Context, topic string) (*rocketmq.TopicRoute, error)
	TopicConfigs(ctx context.Context, addr string) (*rocketmq.TopicConfigTable, error)
	BrokerVersion(ctx context.Context, addr string) (rocketmq.BrokerVersion, error)
	SearchOffset(ctx context.Context, addr string, mq rocketmq.MessageQueue, t time.Time, boundary rocketmq.BoundaryType) (int64, error)
	Pull(ctx context.Context, addr string, mq rocketmq.MessageQueue, offset int64, maxNums int) (*rocketmq.PullResult, error)
	QueryMessageByKey(ctx context.Context, addr, topic, key string, maxNum int, begin, end time.Time) (*rocketmq.QueryResult, error)
	QueryMessageByUniqueKey(ctx context.Context, addr, topic, uniqKey string, begin, end time.Time) (*rocketmq.QueryResult, error)
	ViewMessageAt(ctx context.Context, addr string, commitLogOffset int64, topic string) (*rocketmq.Message, error)
	TopicConsumerGroups(ctx context.Context, addr, topic string) ([]string, error)
	ConsumerConnections(ctx context.Context, addr, group string) (*rocketmq.ConsumerConnection, error)
	QueryConsumerOffset(ctx context.Context, addr, group string, mq rocketmq.MessageQueue) (int64, error)
}

var _ Admin = (*rocketmq.Client)(nil)

// Options tune a Service; the zero value is sensible.
type Options struct {
	// Parallelism bounds the broker requests one query has in flight. Default 16, about
	// what one broker's pull thread pool serves at once.
	Parallelism int
	// MaxScan bounds how many messages a range query with a tag filter reads before it
	// gives up looking further back for matches. Default 100 000.
	MaxScan int64
	// ClusterInfoTTL is how long the broker list (used to map an offsetMsgId's store host
	// to its broker) is reused. Default 10 s.
	ClusterInfoTTL time.Duration
	// Now is the clock; tests set it.
	Now func() time.Time
}

// Service runs the lookups. It is safe for concurrent use.
type Service struct {
	admin       Admin
	parallelism int
	maxScan     int64
	ciTTL       time.Duration
	now         func() time.Time

	ciMu      sync.Mutex
	ci        *rocketmq.ClusterInfo
	ciExpires time.Time
}

// New returns a Service over a.
func New(a Admin, opts Options) *Service {
	s := &Service{admin: a, parallelism: opts.Parallelism, maxScan: opts.MaxScan, ciTTL: opts.ClusterInfoTTL, now: opts.Now}
	if s.maxScan <= 0 {
		s.maxScan = 100_000
	}
	if s.parallelism <= 0 {
		s.parallelism = 16
	}
	if s.ciTTL <= 0 {
		s.ciTTL = 10 * time.Second
	}
	if s.now == nil {
		s.now = time.Now
	}
	return s
}

// Message is one stored message and the broker group that holds it (the stored record
// does not name it).
type Message struct {
	BrokerName string
	*rocketmq.Message
}

// BrokerFailure names a broker that did not answer a part of a query, and why.
type BrokerFailure struct {
	Broker string // broker name, or its address when the name is unknown
	Err    error
}

func (f BrokerFailure) Error() string { return f.Broker + ": " + f.Err.Error() }

// Result is the answer to a range or key query.
type Result struct {
	// Messages are newest first (by store time), at most Limit.
	Messages []Message
	// Limit is the cap that applied.
	Limit int
	// Truncated reports that more messages matched than Messages holds.
	Truncated bool
	// Total is how many messages matched: exact, or a lower bound when TotalIsLowerBound.
	Total int64
	// TotalIsLowerBound says Total is "at least": the query stopped once it knew the
	// cap was exceeded (a tag filter), or a broker's index answer was capped (key query).
	TotalIsLowerBound bool
	// InRange is how many messages the time range holds on the brokers that answered,
	// before any tag filter (range query only). It bounds Total from above.
	InRange int64
	// Scanned is how many messages a tag-filtered range query read. When ScanLimited is
	// set it stopped at Options.MaxScan, having read back to store time ScannedBackTo:
	// older matches may exist.
	Scanned       int64
	ScanLimited   bool
	ScannedBackTo time.Time
	// CappedBrokers are brokers whose key-index answer hit the per-broker cap, so the
	// result may miss older matches (key query only).
	CappedBrokers []string
	// Failures are brokers that failed; Messages holds what the others returned.
	Failures []BrokerFailure
}

// failures collects broker failures from concurrent tasks, one per broker.
type failures struct {
	mu   sync.Mutex
	seen map[string]bool
	list []BrokerFailure
}

func (f *failures) add(broker string, err error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.seen == nil {
		f.seen = map[string]bool{}
	}
	if f.seen[broker] {
		return
	}
	f.seen[broker] = true
	f.list = append(f.list, BrokerFailure{Broker: broker, Err: err})
}

func (f *failures) failed(broker string) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.seen[broker]
}

func (f *failures) all() []BrokerFailure {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]BrokerFailure(nil), f.list...)
}

// brokerAddr is one broker group of a route and its master's address.
type brokerAddr struct {
	name, addr string
}

// route returns the topic's route and its brokers' masters. A topic the NameServer does
// not know is an *InputError on the topic field; a broker group without an address is
// added to fails.
func (s *Service) route(ctx context.Context, topic string, fails *failures) (*rocketmq.TopicRoute, []brokerAddr, error) {
	r, err := s.admin.TopicRoute(ctx, topic)
	if errors.Is(err, rocketmq.ErrTopicNotFound) {
		return nil, nil, errUnknownTopic(topic)
	}
	if err != nil {
		return nil, nil, err
	}
	var brokers []brokerAddr
	for _, b := range r.BrokerDatas {
		addr, ok := b.MasterAddr()
		if !ok {
			fails.add(b.BrokerName, errors.New("the NameServer lists no address for this broker group"))
			continue
		}
		brokers = append(brokers, brokerAddr{name: b.BrokerName, addr: addr})
	}
	return r, brokers, nil
}

// clusterInfo returns the cluster's brokers, reused for a few seconds.
func (s *Service) clusterInfo(ctx context.Context) (*rocketmq.ClusterInfo, error) {
	s.ciMu.Lock()
	if s.ci != nil && s.now().Before(s.ciExpires) {
		ci := s.ci
		s.ciMu.Unlock()
		return ci, nil
	}
	s.ciMu.Unlock()
	ci, err := s.admin.ClusterInfo(ctx)
	if err != nil {
		return nil, err
	}
	s.ciMu.Lock()
	s.ci, s.ciExpires = ci, s.now().Add(s.ciTTL)
	s.ciMu.Unlock()
	return ci, nil
}
