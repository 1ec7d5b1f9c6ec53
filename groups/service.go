// Package groups answers what operators ask about consumer groups: which groups exist,
// how far behind each queue is, which client holds which queue, whether that is the
// assignment the group's allocation strategy should produce, and what changed (clients
// joining and leaving, queues moving): tick by tick while someone watches a group, and
// for the others through the lag collector's rebalance sweep.
//
// It talks to RocketMQ only through the Admin interface and keeps rebalance history
// through EventStore, so tests can put fakes behind both.
package groups

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"rmqconsole/cluster"
	"rmqconsole/fault"
	"rmqconsole/i18n"
	"rmqconsole/rocketmq"
)

// Admin is what the service asks the brokers; *rocketmq.Client implements it. Brokers
// and routes come from the cluster layer.
type Admin interface {
	cluster.Client
	ConsumerConnections(ctx context.Context, addr, group string) (*rocketmq.ConsumerConnection, error)
	ConsumeStats(ctx context.Context, addr, group, topic string) (*rocketmq.ConsumeStats, error)
	BrokerConsumeStats(ctx context.Context, addr string) (*rocketmq.BrokerConsumeStats, error)
	ConsumerOffsets(ctx context.Context, addr string) (map[string]map[string]map[int]int64, error)
	TopicStats(ctx context.Context, addr, topic string) (*rocketmq.TopicStats, error)
	ConsumeTimeSpan(ctx context.Context, addr, topic, group string) ([]rocketmq.QueueTimeSpan, error)
	ConsumerRunningInfo(ctx context.Context, addr, group, clientID string, jstack bool) (*rocketmq.ConsumerRunningInfo, error)
	PollingInfo(ctx context.Context, addr, group, topic string, queueID int) (int, error)
	BrokerVersion(ctx context.Context, addr string) (rocketmq.BrokerVersion, error)
}

// Defaults of Options.
const (
	DefaultConcurrency = 8
	DefaultListTTL     = 30 * time.Second
	// DefaultClientLookups is how many groups' clients one pass of the list reads.
	DefaultClientLookups = 500
	// DefaultBrokerStatsMaxGroups is the most groups a broker may have for the list to
	// ask it GET_BROKER_CONSUME_STATS, whose cost on the broker grows faster than its
	// groups (0.3 s for 1 000 groups, past 10 s for 9 000 on 5.3.3).
	DefaultBrokerStatsMaxGroups = 500
)

// Options tune a Service. Zero values take the defaults.
type Options struct {
	// Concurrency bounds the broker calls the group list makes at once, so a cluster
	// with thousands of groups is asked steadily rather than all at once.
	Concurrency int
	// ListTTL is how long a computed group list is served from the cache before a
	// request recomputes it. The list always says how old it is.
	ListTTL time.Duration
	// ListStale is how old a list may be and still be served while a fresh one is
	// computed (see Service.List); 4 × ListTTL when zero, at least ListTTL.
	ListStale time.Duration
	// ClientLookups bounds how many groups' online clients one pass of the list reads
	// (one connection list each); the rest show what an earlier pass saw.
	ClientLookups int
	// BrokerStatsMaxGroups: brokers with more groups are read from their offset table.
	BrokerStatsMaxGroups int
	// LagTimeLookups bounds the store-time reads (one per group, topic and broker with a
	// lagging queue whose store time is not remembered) of one pass of the list.
	LagTimeLookups int
	// MaxOffsetReads bounds the topics' max offsets one pass of the list reads from the
	// brokers read from their offset table, once each of their topics was read (see
	// maxOffsets); DefaultMaxOffsetReads when zero.
	MaxOffsetReads int
	Log            *slog.Logger
	// Now is the clock (tests).
	Now func() time.Time
	// Cluster is the console's view of the cluster, shared with the other services;
	// nil builds one over the Admin.
	Cluster *cluster.Cluster
}

// Service reads consumer groups from a cluster.
type Service struct {
	admin   Admin
	cluster *cluster.Cluster
	opts    Options

	list       listCache
	held       cluster.Held[heldGroups] // what each master held when it last answered the list
	modes      modeMemory
	storeTimes storeTimes
	maxOffsets maxOffsets // the max offsets of the brokers read from their offset table
	subs       subscribed // the topics each group's clients were seen subscribing to
}

// NewService returns a Service over admin.
func NewService(admin Admin, opts Options) *Service {
	if opts.Concurrency <= 0 {
		opts.Concurrency = DefaultConcurrency
	}
	if opts.ListTTL <= 0 {
		opts.ListTTL = DefaultListTTL
	}
	if opts.ListStale <= 0 {
		opts.ListStale = 4 * opts.ListTTL
	}
	opts.ListStale = max(opts.ListStale, opts.ListTTL)
	if opts.ClientLookups <= 0 {
		opts.ClientLookups = DefaultClientLookups
	}
	if opts.LagTimeLookups <= 0 {
		opts.LagTimeLookups = DefaultLagTimeLookups
	}
	if opts.MaxOffsetReads <= 0 {
		opts.MaxOffsetReads = DefaultMaxOffsetReads
	}
	if opts.BrokerStatsMaxGroups <= 0 {
		opts.BrokerStatsMaxGroups = DefaultBrokerStatsMaxGroups
	}
	if opts.Log == nil {
		opts.Log = slog.New(slog.DiscardHandler)
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	c := opts.Cluster
	if c == nil {
		c = cluster.New(admin, cluster.Options{Now: opts.Now})
	}
	return &Service{admin: admin, cluster: c, opts: opts}
}

// NotFound is the error of a group no broker knows: no subscription config, no client
// online, no stored offsets (fault.NotFound, reason group_not_found).
func NotFound(group string) error {
	return fault.New(fault.NotFound, "group.error.notFound", "Group", group).Because("group_not_found")
}

// clusterUnavailable is err, from reading the NameServers' cluster info, as the fault a
// page says (Unavailable): the cluster layer's words for what each NameServer did, not
// the chain of Go errors around them. Its reason is the code the API has always answered
// for it (broker_timeout, else broker_error). A cluster without brokers, a request given
// up, or a fault already said are returned as they are.
func clusterUnavailable(err error) error {
	if err == nil || fault.As(err) != nil || errors.Is(err, cluster.ErrNoBrokers) || errors.Is(err, context.Canceled) {
		return err
	}
	causes := nameServerCauses(err)
	ms := make([]i18n.Message, len(causes))
	for i, c := range causes {
		ms[i] = errMessage(c)
	}
	reason := "broker_error"
	if errors.As(err, new(*rocketmq.TimeoutError)) {
		reason = "broker_timeout"
	}
	return fault.Wrap(err, fault.Unavailable, "groups.error.nameServers", "Errors", oneByOne(ms)).Because(reason)
}

// oneByOne says ms as one list: "a and b", "a；b".
func oneByOne(ms []i18n.Message) i18n.Text {
	var t i18n.Text
	for i, m := range ms {
		if i > 0 {
			m = i18n.M("group.note.also", "Error", m)
		}
		t = t.And(m)
	}
	return t
}

// nameServerCauses are the errors inside err of the NameServers asked: the members of
// the join the client made of them, or the one error of a server, or err itself.
func nameServerCauses(err error) []error {
	for e := err; e != nil; e = errors.Unwrap(e) {
		switch u := e.(type) {
		case interface{ Unwrap() []error }:
			return u.Unwrap()
		case *rocketmq.ConnError, *rocketmq.TimeoutError, *rocketmq.BrokerError:
			return []error{u}
		}
	}
	return []error{err}
}

// errMessage is err as a sentence of a result: the cluster layer's words for a
// connection that failed or an answer that did not come, any other error as it says
// itself (a broker's or client's own words).
func errMessage(err error) i18n.Message {
	if m, ok := cluster.ErrorMessage(err).(i18n.Message); ok {
		return m
	}
	return i18n.Plain(err.Error())
}

// ConsumeTypeName turns the broker's consume type into the word operators use.
func ConsumeTypeName(t string) string {
	switch t {
	case "CONSUME_PASSIVELY":
		return "push"
	case "CONSUME_ACTIVELY":
		return "pull"
	case "CONSUME_POP":
		return ConsumeTypePop
	}
	return t
}

// ConsumeTypeLabel is how pages write a consume type: push, pull, POP, gRPC push.
func ConsumeTypeLabel(t string) string {
	switch t {
	case ConsumeTypePop:
		return "POP"
	case ConsumeTypeGRPCPush:
		return "gRPC push"
	}
	return t
}

// BrokerFailure names a broker that did not answer and why; pages show it next to what
// the other brokers answered.
type BrokerFailure = cluster.BrokerFailure
