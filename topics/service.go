// Package topics answers what operators ask about topics: which exist, of what message
// type, with how many queues on which brokers, how much they hold and how fast they
// grow; for one topic its route, each queue's offsets, the consumer groups that consume
// it with their lag, and the producers connected to its brokers. It also creates,
// updates and deletes topics, each change written to the audit log first.
//
// It asks brokers through the cluster layer (fan-out, failures that name the broker)
// and the Admin interface, so tests can put a fake behind it.
package topics

import (
	"context"
	"errors"
	"sync"
	"time"

	"rmqconsole/cluster"
	"rmqconsole/i18n"
	"rmqconsole/rocketmq"
)

// Admin is what the service asks RocketMQ; *rocketmq.Client implements it.
type Admin interface {
	cluster.Client
	TopicConfigs(ctx context.Context, addr string) (*rocketmq.TopicConfigTable, error)
	TopicStats(ctx context.Context, addr, topic string) (*rocketmq.TopicStats, error)
	TopicConsumerGroups(ctx context.Context, addr, topic string) ([]string, error)
	ConsumeStats(ctx context.Context, addr, group, topic string) (*rocketmq.ConsumeStats, error)
	ConsumerConnections(ctx context.Context, addr, group string) (*rocketmq.ConsumerConnection, error)
	ProducerInfos(ctx context.Context, addr string) (map[string][]rocketmq.ProducerInfo, error)
	ProducerConnections(ctx context.Context, addr, producerGroup string) ([]rocketmq.Connection, error)
	BrokerVersion(ctx context.Context, addr string) (rocketmq.BrokerVersion, error)
}

var _ Admin = (*rocketmq.Client)(nil)

// Defaults of Options.
const (
	// DefaultListTTL is how long a computed topic list is reused: it costs one
	// GET_TOPIC_STATS_INFO per topic and broker.
	DefaultListTTL = 10 * time.Second
	// DefaultConcurrency bounds the stats calls of one list, so a cluster with thousands
	// of topics is asked steadily rather than all at once.
	DefaultConcurrency = 16
)

// Options tune a Service; zero values take the defaults.
type Options struct {
	ListTTL     time.Duration
	Concurrency int
	// Cluster is the console's view of the cluster, shared with the other services;
	// nil builds one over the Admin.
	Cluster *cluster.Cluster
	// Now is the clock (tests).
	Now func() time.Time
	// Audit records every change (create, update, delete) before it is made; without
	// it the service changes nothing.
	Audit Auditor
	// NameServers is the NameServer list the audit entries name as their cluster.
	NameServers string
	// Changer makes the changes; nil takes the Admin when it can (a *rocketmq.Client).
	Changer Changer
}

// Service reads (and changes) a cluster's topics.
type Service struct {
	admin   Admin
	changer Changer
	cluster *cluster.Cluster
	opts    Options

	listMu sync.Mutex // held while a list is computed, so concurrent cold requests compute it once
	list   *List
	held   cluster.Held[brokerTopics] // each broker's topics when it last answered the list
}

// New returns a Service over admin.
func New(admin Admin, opts Options) *Service {
	if opts.ListTTL <= 0 {
		opts.ListTTL = DefaultListTTL
	}
	if opts.Concurrency <= 0 {
		opts.Concurrency = DefaultConcurrency
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	c := opts.Cluster
	if c == nil {
		c = cluster.New(admin, cluster.Options{Now: opts.Now})
	}
	ch := opts.Changer
	if ch == nil {
		ch, _ = admin.(Changer)
	}
	return &Service{admin: admin, changer: ch, cluster: c, opts: opts}
}

// BrokerFailure names a broker that did not answer and why.
type BrokerFailure = cluster.BrokerFailure

// ErrTopicNotFound means the NameServers have no route for the topic; *NotFoundError
// matches it.
var ErrTopicNotFound = errors.New("topic not found")

// NotFoundError names the topic no NameServer knows; its text is a sentence for the user.
type NotFoundError struct{ Topic string }

func (e *NotFoundError) Error() string { return e.Text().String() }

// Text is the error as a catalogue sentence, for the handler to say in the request's
// language.
func (e *NotFoundError) Text() i18n.Message { return i18n.M("topics.notfound", "Topic", e.Topic) }

// Is makes errors.Is(err, ErrTopicNotFound) hold.
func (e *NotFoundError) Is(target error) bool { return target == ErrTopicNotFound }

// Message types, as the list and the API name them. 5.x keeps a topic's type in its
// "message.type" attribute (none means NORMAL); 4.x keeps no type at all.
const (
	TypeNormal      = "normal"
	TypeFIFO        = "fifo"
	TypeDelay       = "delay"
	TypeTransaction = "transaction"
	TypeMixed       = "mixed"
	TypeUnknown     = "unknown"
)

// messageType is the type of tc on a broker of version v.
func messageType(tc rocketmq.TopicConfig, is5 bool) string {
	switch t := tc.MessageType(); t {
	case "":
		if is5 {
			return TypeNormal
		}
		return TypeUnknown
	case "NORMAL":
		return TypeNormal
	case "FIFO":
		return TypeFIFO
	case "DELAY":
		return TypeDelay
	case "TRANSACTION":
		return TypeTransaction
	case "MIXED":
		return TypeMixed
	default:
		return TypeUnknown
	}
}

// PermString is a topic permission as mqadmin and operators write it: "RW", "R-", "-W"
// or "--".
func PermString(perm int) string {
	r, w := "-", "-"
	if perm&rocketmq.PermRead != 0 {
		r = "R"
	}
	if perm&rocketmq.PermWrite != 0 {
		w = "W"
	}
	return r + w
}
