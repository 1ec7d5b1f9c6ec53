// Package cluster is the one place the console learns the shape of a RocketMQ cluster and
// asks its brokers: the brokers of each broker name (master and slaves) from the
// NameServers' cluster info, topic routes with a memory of the brokers that served a topic a
// moment ago, which address answers a read, a bounded fan-out over brokers that reports
// each broker that failed as a BrokerFailure, and RocketMQ's rules for names.
//
// The services (lookup, groups, resets, topics, brokers and its overview) ask it; none of
// them reads cluster info or routes itself. The arrows point one way: services -> cluster -> rocketmq.
package cluster

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"rmqconsole/i18n"
	"rmqconsole/rocketmq"
)

// Client is what the layer asks RocketMQ itself; *rocketmq.Client implements it, and
// clustertest.Fake in tests.
type Client interface {
	ClusterInfo(ctx context.Context) (*rocketmq.ClusterInfo, error)
	TopicRoute(ctx context.Context, topic string) (*rocketmq.TopicRoute, error)
	SubscriptionGroupNames(ctx context.Context, addr string) (rocketmq.GroupNames, error)
}

var _ Client = (*rocketmq.Client)(nil)

// Defaults of Options.
const (
	// DefaultInfoTTL bounds how often the broker list is read: a watcher ticking every
	// second must not cost a NameServer call a second.
	DefaultInfoTTL = 10 * time.Second
	// DefaultRemember is how long a broker that served a topic is remembered after it
	// left the topic's route, so answers can say it is missing.
	DefaultRemember = 10 * time.Minute
	// DefaultForgetGone is how long a broker gone from the NameServer's cluster info is
	// still named by every list: long enough to be seen the morning after a night's
	// crash, and bounded so that a broker removed for good is not named for ever.
	DefaultForgetGone = 24 * time.Hour
	// DefaultParallelism bounds the broker calls one fan-out has in flight: about what
	// one broker's admin thread pool serves at once.
	DefaultParallelism = 16
	// unansweredFor is how long a master that did not answer is read after its slaves.
	unansweredFor = 30 * time.Second
)

// Options tune a Cluster; the zero value is sensible.
type Options struct {
	// InfoTTL is how long the cluster info (the broker list) is reused. Routes are
	// cached by the RocketMQ client itself for a few seconds.
	InfoTTL time.Duration
	// Remember is how long a broker is remembered after it left a topic's route.
	Remember time.Duration
	// ForgetGone is how long a broker gone from the cluster info is named.
	ForgetGone time.Duration
	// Parallelism bounds the calls of one fan-out.
	Parallelism int
	// Now is the clock (tests).
	Now func() time.Time
	// Proxies are the remoting addresses of the cluster's RocketMQ 5 Proxies
	// (RMQC_PROXY), asked for the gRPC clients the brokers do not know.
	Proxies []string
}

// Cluster is one RocketMQ cluster as the console sees it. It is safe for concurrent use;
// one Cluster is shared by every service of a console, so what one page saw (a broker
// serving a topic) is known to the others.
type Cluster struct {
	ns   Client
	opts Options

	infoMu sync.Mutex
	info   *rocketmq.ClusterInfo
	infoAt time.Time

	seenMu sync.Mutex
	seen   map[string]map[string]sighting // topic -> broker name -> last seen in its route

	procsMu sync.Mutex
	procs   map[processKey]*processSeen // every broker process the cluster info listed

	answersMu sync.Mutex
	answers   map[string]*answerLog // address -> how it answered

	unansweredMu sync.Mutex
	unanswered   map[string]silence // address -> when it last did not answer

	consumersMu sync.Mutex
	consumers   map[string]SeenConsumers // group -> its clients when last listed

	proxyMu     sync.Mutex
	proxyFound  []string  // Proxies discovered from the heartbeat-sync group's connections
	proxyAt     time.Time // when they were last looked for
	proxySeenAt time.Time // the noted connection list they were found in
}

type silence struct {
	at     time.Time
	waited time.Duration // how long it was waited for
}

type sighting struct {
	addr string
	at   time.Time
}

// New returns a Cluster over ns.
func New(ns Client, opts Options) *Cluster {
	if opts.InfoTTL <= 0 {
		opts.InfoTTL = DefaultInfoTTL
	}
	if opts.Remember <= 0 {
		opts.Remember = DefaultRemember
	}
	if opts.ForgetGone <= 0 {
		opts.ForgetGone = DefaultForgetGone
	}
	if opts.Parallelism <= 0 {
		opts.Parallelism = DefaultParallelism
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	return &Cluster{ns: ns, opts: opts, seen: map[string]map[string]sighting{}, unanswered: map[string]silence{}, consumers: map[string]SeenConsumers{},
		procs: map[processKey]*processSeen{}, answers: map[string]*answerLog{}}
}

// Broker is one broker name: a master (broker id 0) and its slaves.
type Broker struct {
	Name    string
	Cluster string
	// Master is the master's address, "" when none is registered (it is down, and a
	// slave may still answer reads).
	Master string
	// Slaves are the slaves' addresses by broker id.
	Slaves []string
}

// Addrs are the broker's addresses, master first.
func (b Broker) Addrs() []string {
	if b.Master == "" {
		return slices.Clone(b.Slaves)
	}
	return append([]string{b.Master}, b.Slaves...)
}

// Has reports whether addr is one of the broker's addresses.
func (b Broker) Has(addr string) bool { return slices.Contains(b.Addrs(), addr) }

func brokerOf(bd rocketmq.BrokerData, cluster string) Broker {
	b := Broker{Name: bd.BrokerName, Cluster: cluster}
	if b.Cluster == "" {
		b.Cluster = bd.Cluster
	}
	// Only broker id 0 is the master: rocketmq.BrokerData.MasterAddr lets the smallest id
	// stand in (as clients do for sending), which would send a reset to a slave.
	b.Master = bd.Addrs[0]
	ids := make([]int64, 0, len(bd.Addrs))
	for id := range bd.Addrs {
		if id != 0 && bd.Addrs[id] != "" {
			ids = append(ids, id)
		}
	}
	slices.Sort(ids)
	for _, id := range ids {
		b.Slaves = append(b.Slaves, bd.Addrs[id])
	}
	return b
}

// ErrNoBrokers means the NameServer knows no broker, so there is nothing to ask.
var ErrNoBrokers = errors.New("no broker is registered with the NameServer; check that the brokers' namesrvAddr names it")

// Info returns the NameServers' cluster info, reused for InfoTTL. The answer must not
// be modified.
func (c *Cluster) Info(ctx context.Context) (*rocketmq.ClusterInfo, error) {
	c.infoMu.Lock()
	if c.info != nil && c.opts.Now().Sub(c.infoAt) < c.opts.InfoTTL {
		ci := c.info
		c.infoMu.Unlock()
		return ci, nil
	}
	c.infoMu.Unlock()
	return c.readInfo(ctx)
}

// Refresh reads the cluster info now, whatever its age: a list that asks every broker
// anyway costs one NameServer call more, and names a broker that left a moment ago. When
// no NameServer answers, the info read within InfoTTL stands; the error is returned only
// when there is none.
func (c *Cluster) Refresh(ctx context.Context) error {
	_, err := c.readInfo(ctx)
	if err == nil {
		return nil
	}
	c.infoMu.Lock()
	defer c.infoMu.Unlock()
	if c.info != nil && c.opts.Now().Sub(c.infoAt) < c.opts.InfoTTL {
		return nil
	}
	return err
}

// ReadInfo reads the cluster info now, whatever its age, and keeps it: for the overview,
// which says that no NameServer gave it rather than show what one said a moment ago.
func (c *Cluster) ReadInfo(ctx context.Context) (*rocketmq.ClusterInfo, error) {
	return c.readInfo(ctx)
}

func (c *Cluster) readInfo(ctx context.Context) (*rocketmq.ClusterInfo, error) {
	ci, err := c.ns.ClusterInfo(ctx)
	if err != nil {
		return nil, err
	}
	now := c.opts.Now()
	c.infoMu.Lock()
	c.info, c.infoAt = ci, now
	c.infoMu.Unlock()
	c.noteInfo(ci, now)
	return ci, nil
}

// Brokers returns every broker name of the cluster, sorted by name. A cluster without
// any broker is ErrNoBrokers.
func (c *Cluster) Brokers(ctx context.Context) ([]Broker, error) {
	ci, err := c.Info(ctx)
	if err != nil {
		return nil, fmt.Errorf("list brokers: %w", err)
	}
	out := brokersOf(ci)
	if len(out) == 0 {
		return nil, ErrNoBrokers
	}
	return out, nil
}

func brokersOf(ci *rocketmq.ClusterInfo) []Broker {
	clusterOf := map[string]string{}
	for cl, names := range ci.Clusters {
		for _, n := range names {
			clusterOf[n] = cl
		}
	}
	out := make([]Broker, 0, len(ci.Brokers))
	for _, name := range ci.BrokerNames() {
		out = append(out, brokerOf(ci.Brokers[name], clusterOf[name]))
	}
	return out
}

// BrokerAt returns the broker with a member (master or slave) at addr. Only addresses
// found this way may be dialled when the address came from user input (an offsetMsgId).
func (c *Cluster) BrokerAt(ctx context.Context, addr string) (Broker, bool, error) {
	bs, err := c.Brokers(ctx)
	if err != nil {
		return Broker{}, false, err
	}
	for _, b := range bs {
		if b.Has(addr) {
			return b, true, nil
		}
	}
	return Broker{}, false, nil
}

// ErrTopicNotFound is a topic the NameServers have no route for; it matches
// rocketmq.ErrTopicNotFound too.
var ErrTopicNotFound = rocketmq.ErrTopicNotFound

// Route is a topic's route: its queues, the brokers serving them, and the brokers that
// served it a moment ago and are missing from the route now.
type Route struct {
	Topic string
	// Brokers serve the topic's queues, sorted by name.
	Brokers []Broker
	// Gone are brokers seen in the topic's route within Options.Remember that are
	// missing now: stopped or killed, the NameServer dropped them. Their queues are not
	// in the route, so an answer without them is incomplete.
	Gone []GoneBroker
	raw  *rocketmq.TopicRoute
}

// GoneBroker is a broker that served a topic a moment ago and is not in its route now
// (Route.Gone), or one the cluster info listed and does not any more (Cluster.Gone).
type GoneBroker struct {
	Name string
	Addr string
	// SeenAt is when it was last seen in the route or the cluster info.
	SeenAt time.Time
	// Since is when the cluster info first did not list it; zero for a route's.
	Since time.Time
}

// ErrBrokerGone is the error of a GoneBroker's failure.
var ErrBrokerGone = errors.New("broker left the route")

// Failure is the broker's absence as a failure of op, for answers that name it: from
// topic's route, or (topic "") from the cluster info.
func (g GoneBroker) Failure(topic, op string) BrokerFailure {
	return BrokerFailure{Broker: g.Name, Addr: g.Addr, Topic: topic, Op: op, Err: goneError{g, topic}}
}

type goneError struct {
	g     GoneBroker
	topic string
}

func (e goneError) Error() string {
	if e.topic == "" {
		return goneSentence(e.g)
	}
	return fmt.Sprintf("served topic %s at %s and is no longer in its route: the NameServer dropped it (stopped, killed or cut off), so its queues are missing",
		e.topic, e.g.SeenAt.UTC().Format("15:04:05 UTC"))
}

// Say is the sentence in the catalogues' words.
func (e goneError) Say() i18n.Message {
	if e.topic == "" {
		return i18n.M("cluster.gone.cluster", "SeenAt", stamp(e.g.SeenAt), "Since", stamp(e.g.Since))
	}
	return i18n.M("cluster.gone.route", "Topic", e.topic, "At", e.g.SeenAt.UTC().Format("15:04:05 UTC"))
}

func (e goneError) Is(target error) bool { return target == ErrBrokerGone }

// ReadQueues are the topic's readable queues, sorted.
func (r *Route) ReadQueues() []rocketmq.MessageQueue { return r.raw.ReadQueues() }

// Broker returns the named broker of the route.
func (r *Route) Broker(name string) (Broker, bool) {
	for _, b := range r.Brokers {
		if b.Name == name {
			return b, true
		}
	}
	return Broker{}, false
}

// Raw is the NameServer's route as it came; it must not be modified.
func (r *Route) Raw() *rocketmq.TopicRoute { return r.raw }

// Route returns the topic's route. A topic the NameServers do not know matches
// ErrTopicNotFound. Each route read is remembered, so a broker that served the topic a
// moment ago and is missing now is listed in Gone.
func (c *Cluster) Route(ctx context.Context, topic string) (*Route, error) {
	raw, err := c.ns.TopicRoute(ctx, topic)
	if err != nil {
		return nil, err
	}
	r := &Route{Topic: topic, raw: raw}
	for _, bd := range raw.BrokerDatas {
		r.Brokers = append(r.Brokers, brokerOf(bd, ""))
	}
	slices.SortFunc(r.Brokers, func(a, b Broker) int { return compareStrings(a.Name, b.Name) })
	r.Gone = c.remember(topic, r.Brokers)
	return r, nil
}

// remember records the brokers now serving topic and returns those seen recently that
// are missing.
func (c *Cluster) remember(topic string, brokers []Broker) []GoneBroker {
	now := c.opts.Now()
	c.seenMu.Lock()
	defer c.seenMu.Unlock()
	seen := c.seen[topic]
	if seen == nil {
		seen = map[string]sighting{}
		c.seen[topic] = seen
	}
	present := map[string]bool{}
	for _, b := range brokers {
		present[b.Name] = true
		addr := b.Master
		if addr == "" && len(b.Slaves) > 0 {
			addr = b.Slaves[0]
		}
		seen[b.Name] = sighting{addr: addr, at: now}
	}
	var gone []GoneBroker
	for name, s := range seen {
		switch {
		case present[name]:
		case now.Sub(s.at) > c.opts.Remember:
			delete(seen, name)
		default:
			gone = append(gone, GoneBroker{Name: name, Addr: s.addr, SeenAt: s.at})
		}
	}
	slices.SortFunc(gone, func(a, b GoneBroker) int { return compareStrings(a.Name, b.Name) })
	return gone
}

// GroupConfigured reports whether some master has a subscription group of that name
// (brokers create one when a consumer first connects, or mqadmin updateSubGroup does),
// asking every master at once. It is an error only when no master answered.
func (c *Cluster) GroupConfigured(ctx context.Context, group string) (bool, error) {
	return c.Fanout(ctx).GroupConfigured(group)
}

// GroupConfigured is Cluster.GroupConfigured within an operation's fan-out: a broker that
// did not answer earlier in it is not asked again, and counts as not answering.
func (f *Fanout) GroupConfigured(group string) (bool, error) {
	brokers, err := f.c.Brokers(f.ctx)
	if err != nil {
		return false, err
	}
	ask := slices.DeleteFunc(slices.Clone(brokers), func(b Broker) bool { return f.NotAnswering(b.Name) })
	found := Each(f, ask, "subscription groups", func(ctx context.Context, addr string) (bool, error) {
		names, err := f.c.ns.SubscriptionGroupNames(ctx, addr)
		if err != nil {
			return false, err
		}
		_, ok := names[group]
		return ok, nil
	})
	if slices.Contains(found, true) {
		return true, nil
	}
	// Not found is an answer only when some broker answered.
	var errs []error
	failed := map[string]bool{}
	for _, fl := range f.Failures() {
		if !failed[fl.Broker] && slices.ContainsFunc(brokers, func(b Broker) bool { return b.Name == fl.Broker }) {
			failed[fl.Broker] = true
			errs = append(errs, fl)
		}
	}
	if len(failed) >= len(brokers) {
		return false, fmt.Errorf("look up consumer group %q: %w", group, errors.Join(errs...))
	}
	return false, nil
}

// noteUnanswered remembers that addr did not answer, so reads go to a slave first for a
// while instead of waiting for the same timeout again.
func (c *Cluster) noteUnanswered(addr string, waited time.Duration) {
	c.unansweredMu.Lock()
	c.unanswered[addr] = silence{at: c.opts.Now(), waited: waited}
	c.unansweredMu.Unlock()
}

func (c *Cluster) recentlyUnanswered(addr string) bool {
	c.unansweredMu.Lock()
	defer c.unansweredMu.Unlock()
	s, ok := c.unanswered[addr]
	if ok && c.opts.Now().Sub(s.at) > unansweredFor {
		delete(c.unanswered, addr)
		return false
	}
	return ok
}

// lastUnanswered is when addr last did not answer, and how long it was waited for.
func (c *Cluster) lastUnanswered(addr string) (time.Time, time.Duration) {
	c.unansweredMu.Lock()
	defer c.unansweredMu.Unlock()
	s := c.unanswered[addr]
	return s.at, s.waited
}

// ReadOrder is the order addresses of b are tried for a read a slave can answer: the
// master first, then its slaves; a master that did not answer a moment ago goes last.
func (c *Cluster) ReadOrder(b Broker) []string {
	addrs := b.Addrs()
	if b.Master != "" && len(addrs) > 1 && c.recentlyUnanswered(b.Master) {
		addrs = append(addrs[1:], b.Master)
	}
	return addrs
}

func compareStrings(a, b string) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}
