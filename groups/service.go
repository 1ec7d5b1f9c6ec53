// Package groups answers what operators ask about consumer groups: which groups exist,
// how far behind each queue is, which client holds which queue, whether that is the
// assignment the group's allocation strategy should produce, and — while someone watches a
// group — what changed, tick by tick (clients joining and leaving, queues moving).
//
// It talks to RocketMQ only through the Admin interface and keeps rebalance history
// through EventStore, so tests can put fakes behind both.
package groups

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"rmqconsole/rocketmq"
)

// Admin is what the service needs from RocketMQ; *rocketmq.Client implements it.
type Admin interface {
	ClusterInfo(ctx context.Context) (*rocketmq.ClusterInfo, error)
	TopicRoute(ctx context.Context, topic string) (*rocketmq.TopicRoute, error)
	SubscriptionGroups(ctx context.Context, addr string) (*rocketmq.SubscriptionGroupTable, error)
	ConsumerConnections(ctx context.Context, addr, group string) (*rocketmq.ConsumerConnection, error)
	ConsumeStats(ctx context.Context, addr, group, topic string) (*rocketmq.ConsumeStats, error)
	ConsumerRunningInfo(ctx context.Context, addr, group, clientID string, jstack bool) (*rocketmq.ConsumerRunningInfo, error)
}

// Defaults of Options.
const (
	DefaultConcurrency = 8
	DefaultListTTL     = 30 * time.Second
	// mastersTTL bounds how often a watcher asks the NameServer for the brokers: a tick
	// a second must not cost a NameServer call a second.
	mastersTTL = 10 * time.Second
)

// Options tune a Service. Zero values take the defaults.
type Options struct {
	// Concurrency bounds the broker calls the group list makes at once, so a cluster
	// with thousands of groups is asked steadily rather than all at once.
	Concurrency int
	// ListTTL is how long a computed group list is served from the cache before a
	// request recomputes it. The list always says how old it is.
	ListTTL time.Duration
	Log     *slog.Logger
	// Now is the clock (tests).
	Now func() time.Time
}

// Service reads consumer groups from a cluster.
type Service struct {
	admin Admin
	opts  Options

	mastersMu sync.Mutex
	masters   []Broker
	mastersAt time.Time

	list listCache
}

// Broker is one broker group's master, the broker every group question goes to.
type Broker struct {
	Name string `json:"brokerName"`
	Addr string `json:"addr"`
}

// NewService returns a Service over admin.
func NewService(admin Admin, opts Options) *Service {
	if opts.Concurrency <= 0 {
		opts.Concurrency = DefaultConcurrency
	}
	if opts.ListTTL <= 0 {
		opts.ListTTL = DefaultListTTL
	}
	if opts.Log == nil {
		opts.Log = slog.New(slog.DiscardHandler)
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	return &Service{admin: admin, opts: opts}
}

// Masters returns the master of every broker group in the cluster, sorted by name
// (BrokerNames is), from a short cache.
func (s *Service) Masters(ctx context.Context) ([]Broker, error) {
	s.mastersMu.Lock()
	if s.masters != nil && s.opts.Now().Sub(s.mastersAt) < mastersTTL {
		m := s.masters
		s.mastersMu.Unlock()
		return m, nil
	}
	s.mastersMu.Unlock()
	info, err := s.admin.ClusterInfo(ctx)
	if err != nil {
		return nil, fmt.Errorf("list brokers: %w", err)
	}
	var out []Broker
	for _, name := range info.BrokerNames() {
		if addr, ok := info.Brokers[name].MasterAddr(); ok {
			out = append(out, Broker{Name: name, Addr: addr})
		}
	}
	if len(out) == 0 {
		return nil, ErrNoBrokers
	}
	s.mastersMu.Lock()
	s.masters, s.mastersAt = out, s.opts.Now()
	s.mastersMu.Unlock()
	return out, nil
}

// ErrNoBrokers means the NameServer knows no broker, so there is nothing to ask.
var ErrNoBrokers = errors.New("no broker is registered with the NameServer; check that the brokers' namesrvAddr names it")

// ErrGroupNotFound means no broker knows the group: no subscription config, no client
// online, no stored offsets. Errors of type *NotFoundError match it.
var ErrGroupNotFound = errors.New("consumer group not found")

// NotFoundError names the group no broker knows; its text is a sentence for the user.
type NotFoundError struct{ Group string }

func (e *NotFoundError) Error() string {
	return fmt.Sprintf("Consumer group %s is not known to any broker: no subscription config, no stored offsets, no client online. Check the name, or pick the group from the list of consumer groups.", e.Group)
}

// Is makes errors.Is(err, ErrGroupNotFound) hold.
func (e *NotFoundError) Is(target error) bool { return target == ErrGroupNotFound }

// ConsumeTypeName turns the broker's consume type into the word operators use.
func ConsumeTypeName(t string) string {
	switch t {
	case "CONSUME_PASSIVELY":
		return "push"
	case "CONSUME_ACTIVELY":
		return "pull"
	case "CONSUME_POP":
		return "pop"
	}
	return t
}

// BrokerFailure names a broker that did not answer and why; pages show it next to what
// the other brokers answered.
type BrokerFailure struct {
	Broker string `json:"broker"`
	Addr   string `json:"addr,omitempty"`
	Error  string `json:"error"`
}

func (f BrokerFailure) String() string {
	if f.Addr != "" {
		return fmt.Sprintf("%s (%s): %s", f.Broker, f.Addr, f.Error)
	}
	return f.Broker + ": " + f.Error
}

// semaphore bounds concurrent broker calls.
type semaphore chan struct{}

func (s semaphore) acquire(ctx context.Context) error {
	select {
	case s <- struct{}{}:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (s semaphore) release() { <-s }
