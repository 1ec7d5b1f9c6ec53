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
	"sync"
	"time"

	"rmqconsole/cluster"
	"rmqconsole/fault"
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
	BrokerRuntimeInfo(ctx context.Context, addr string) (*rocketmq.BrokerRuntimeInfo, error)
}

var _ Admin = (*rocketmq.Client)(nil)

// Defaults of Options.
const (
	// DefaultListTTL is how long a topic list is reused: it costs one
	// GET_ALL_TOPIC_CONFIG per broker (its figures come from memory).
	DefaultListTTL = 10 * time.Second
	// DefaultConcurrency bounds the calls in flight of one list or collector round.
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
	// sender sends messages: the Admin when it can (a *rocketmq.Client), else nil.
	sender  Sender
	cluster *cluster.Cluster
	opts    Options

	listMu sync.Mutex // held while a list is computed, so concurrent cold requests compute it once
	list   *List
	held   cluster.Held[brokerTopics] // each broker's topics when it last answered the list
	// figures are every topic's figures, kept by the FigureCollector.
	figures *figures
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
	sender, _ := admin.(Sender)
	return &Service{admin: admin, changer: ch, sender: sender, cluster: c, opts: opts, figures: newFigures()}
}

// BrokerFailure names a broker that did not answer and why.
type BrokerFailure = cluster.BrokerFailure

// The API codes of the service's refusals, finer than their fault codes.
const (
	// ReasonNotFound: no NameServer routes the topic (NotFound).
	ReasonNotFound = "topic_not_found"
	// ReasonExists: a create names a topic that exists (Conflict).
	ReasonExists = "topic_exists"
)

// NotFound is the refusal of a topic no NameServer routes.
func NotFound(topic string) *fault.Error {
	return fault.New(fault.NotFound, "topics.notfound", "Topic", topic).Because(ReasonNotFound)
}

// Exists is the refusal to create a topic that exists already: the create would change
// it. Nothing was changed.
func Exists(topic string) *fault.Error {
	return fault.New(fault.Conflict, "topics.exists", "Topic", topic).Because(ReasonExists)
}

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
