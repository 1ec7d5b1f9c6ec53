package resets

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"

	"rmqconsole/cluster"
	"rmqconsole/fault"
	"rmqconsole/i18n"
	"rmqconsole/rocketmq"
)

// QueueState is one queue of a group as read from its broker.
type QueueState struct {
	Queue rocketmq.MessageQueue
	// Addr is the master that holds the queue.
	Addr string
	// Current is the group's committed offset: the next message it consumes (0 when it
	// never committed one).
	Current int64
	// Committed is false when the broker holds no offset for the group on this queue.
	Committed bool
	// Min and Max are the queue's offset range: the oldest message kept and the offset
	// the next message will get.
	Min, Max int64
}

// Lag is the messages not consumed yet.
func (q QueueState) Lag() int64 { return max(q.Max-q.Current, 0) }

// BrokerState is a broker master a group's queues live on.
type BrokerState struct {
	Name    string
	Addr    string
	Version rocketmq.BrokerVersion
	// ServerSideReset is true when the broker resets offsets itself, per queue, with the
	// group online or not (5.1+ with useServerSideResetOffset, the default from 5.2).
	ServerSideReset bool
}

// BrokerFailure is a broker that did not answer, or is gone from a topic's route; its
// queues are left out.
type BrokerFailure = cluster.BrokerFailure

// Snapshot is a group's offsets across the cluster at one moment.
type Snapshot struct {
	Group  string
	Topics []string
	// Online is true when at least one client of the group is connected; OnlineKnown is
	// false when no broker could say.
	Online      bool
	OnlineKnown bool
	Clients     []string
	// Pop is true when the group's clients consume with POP (gRPC clients through a
	// Proxy, remoting POP consumers): no client holds a queue, and messages already
	// popped stay with their checkpoints whatever the reset does.
	Pop      bool
	Brokers  []BrokerState
	Queues   []QueueState
	Failures []BrokerFailure
	// Refused are brokers whose queues are known from the route but cannot be reset:
	// their master did not answer or none is registered.
	Refused []RefusedBroker
}

// RefusedBroker is a broker whose queues a reset leaves alone because its master did not
// answer or none is registered. Offsets are reset only on a master: a slave takes its
// master's offsets, so a reset sent to it would be overwritten, and a slave refuses
// writes anyway. Its queues are never sent to a slave.
type RefusedBroker struct {
	Broker string
	// Master is the master's address, "" when none is registered.
	Master string
	Slaves []string
	// Queues are the broker's queues of the group's topics, sorted.
	Queues []rocketmq.MessageQueue
	// Err is why the master was not asked, when it was asked and did not answer.
	Err error
}

// Sentence says which queues are refused and why, for the preview and the audit entry.
func (r RefusedBroker) Sentence() i18n.Message {
	why := i18n.M("resets.refused.no_master", "Broker", r.Broker)
	switch {
	case r.Master == "":
	case r.Err == nil:
		why = i18n.M("resets.refused.no_answer", "Broker", r.Broker, "Master", r.Master)
	case cluster.Unanswered(r.Err):
		why = i18n.M("resets.refused.no_answer.because", "Broker", r.Broker, "Master", r.Master, "Error", errorMessage(r.Err))
	default:
		why = i18n.M("resets.refused.unreadable", "Broker", r.Broker, "Master", r.Master, "Error", errorMessage(r.Err))
	}
	var slave any = ""
	if len(r.Slaves) > 0 {
		slave = i18n.M("resets.refused.slave", "Slaves", strings.Join(r.Slaves, ", "))
	}
	return i18n.M("resets.refused", "Why", why, "Slave", slave, "Queues", queueList(r.Queues))
}

// queueList names queues by topic: "2 queues of topic T (0, 1) are", "1 queue of topic T (3) is".
func queueList(qs []rocketmq.MessageQueue) i18n.Message {
	byTopic := map[string][]string{}
	for _, q := range qs {
		byTopic[q.Topic] = append(byTopic[q.Topic], fmt.Sprint(q.QueueID))
	}
	var parts []i18n.Message
	for _, t := range sortedKeys(byTopic) {
		parts = append(parts, i18n.M("resets.queues.topic", "Topic", t, "IDs", strings.Join(byTopic[t], ", ")))
	}
	topics := make(i18n.Text, len(parts))
	for i, p := range parts {
		if i < len(parts)-1 {
			p = i18n.M("resets.queues.and", "Text", p)
		}
		topics[i] = p
	}
	if len(qs) == 1 {
		return i18n.M("resets.queues.one", "Topics", topics)
	}
	return i18n.M("resets.queues.many", "N", len(qs), "Topics", topics)
}

// Broker returns the state of the named broker.
func (s *Snapshot) Broker(name string) (BrokerState, bool) {
	for _, b := range s.Brokers {
		if b.Name == name {
			return b, true
		}
	}
	return BrokerState{}, false
}

// Queue returns the state of one queue.
func (s *Snapshot) Queue(mq rocketmq.MessageQueue) (QueueState, bool) {
	i := sort.Search(len(s.Queues), func(i int) bool { return !s.Queues[i].Queue.Less(mq) })
	if i < len(s.Queues) && s.Queues[i].Queue == mq {
		return s.Queues[i], true
	}
	return QueueState{}, false
}

// isGroupTopic reports whether a topic in a group's offsets is one an operator resets
// with "all of the group's topics": an application's topic, not its retry or dead-letter
// topic nor one of the brokers' own.
func isGroupTopic(topic string) bool { return !rocketmq.IsSystemTopic(topic) }

// The operations a snapshot's failures name. Reading a topic's queues names none: the
// broker's error already says which request failed, and the failure names the topic.
const (
	opConnections = "connections"
	opOffsets     = "consume stats"
	opQueues      = ""
	opRoute       = "route"
)

// Snapshot reads a group's offsets on every queue of topic ("" for every topic the group
// has offsets on or subscribes to). A broker that fails is named in Failures and its
// queues are left out; an unknown group or topic is a fault.Invalid on its field.
//
// Every broker is asked everything at once; a broker that does not answer is not asked
// again, so a frozen broker costs the preview one timeout.
func (s *Service) Snapshot(ctx context.Context, group, topic string) (*Snapshot, error) {
	if s.admin == nil {
		return nil, errNoCluster()
	}
	brokers, err := s.cluster.Brokers(ctx)
	if errors.Is(err, cluster.ErrNoBrokers) {
		return nil, fmt.Errorf("read consumer group %q: %w", group, err)
	}
	if err != nil {
		return nil, wrapf(err, "read consumer group %q", group)
	}
	if ci, err := s.cluster.Info(ctx); err == nil && topic != "" && namedAfterCluster(ci, topic) {
		return nil, internalTopicError(topic)
	}
	r := &snapshotRead{s: s, fo: s.cluster.Fanout(ctx), snap: &Snapshot{Group: group}, group: group,
		groupTopics: map[string]bool{}, clients: map[string]bool{}, used: map[string]cluster.Broker{}, refused: map[string]*RefusedBroker{}}
	r.askGroup(brokers)
	if !r.snap.Online {
		r.askProxies(ctx)
	}
	for c := range r.clients {
		r.snap.Clients = append(r.snap.Clients, c)
	}
	sort.Strings(r.snap.Clients)
	if err := r.groupExists(); err != nil {
		return nil, err
	}
	if err := r.route(topic); err != nil {
		return nil, err
	}
	r.readQueues()
	r.snap.Failures = preferGone(r.fo.Wait())
	r.sayRefused()
	return r.snap, nil
}

// snapshotRead is one Snapshot under way: what the brokers have answered so far.
type snapshotRead struct {
	s     *Service
	fo    *cluster.Fanout
	snap  *Snapshot
	group string

	mu          sync.Mutex
	groupTopics map[string]bool // the topics the group has offsets on or subscribes to
	clients     map[string]bool
	parts       []snapshotPart            // the queues to read, by topic and broker
	used        map[string]cluster.Broker // the brokers whose queues are read
	refused     map[string]*RefusedBroker
}

// snapshotPart is a topic's queues on one broker.
type snapshotPart struct {
	topic  string
	broker cluster.Broker
	queues []rocketmq.MessageQueue
}

// askGroup asks every broker for the group's clients and the topics it has offsets on.
func (r *snapshotRead) askGroup(brokers []cluster.Broker) {
	var onlineAnswers int
	for _, b := range brokers {
		r.fo.Go(b, opConnections, func(ctx context.Context, addr string) error {
			cc, err := r.s.admin.ConsumerConnections(ctx, addr, r.group)
			r.mu.Lock()
			defer r.mu.Unlock()
			switch {
			case err == nil:
				onlineAnswers++
				r.snap.Online = true
				r.addClients(cc)
			case errors.Is(err, rocketmq.ErrConsumerNotOnline):
				onlineAnswers++
			case cluster.Unanswered(err):
				return err // its queues are not read either
			}
			return nil
		})
		// Asked with a topic too: a topic the group does not consume is refused.
		r.fo.Go(b, opOffsets, func(ctx context.Context, addr string) error {
			stats, err := r.s.admin.ConsumeStats(ctx, addr, r.group, "")
			if errors.Is(err, rocketmq.ErrGroupNotFound) {
				return nil
			}
			if err != nil {
				return err
			}
			r.mu.Lock()
			defer r.mu.Unlock()
			for mq := range stats.Offsets {
				if isGroupTopic(mq.Topic) {
					r.groupTopics[mq.Topic] = true
				}
			}
			return nil
		})
	}
	r.fo.Wait()
	r.snap.OnlineKnown = onlineAnswers > 0
}

// addClients notes a group's connections and the topics they subscribe to.
func (r *snapshotRead) addClients(cc *rocketmq.ConsumerConnection) {
	for _, c := range cc.Connections {
		r.clients[c.ClientID] = true
	}
	for t := range cc.Subscriptions {
		if isGroupTopic(t) {
			r.groupTopics[t] = true
		}
	}
}

// askProxies looks for the group's clients on the Proxies: a cluster-mode Proxy keeps
// its gRPC clients from the brokers.
func (r *snapshotRead) askProxies(ctx context.Context) {
	proxied, failures := r.s.cluster.ProxyConsumers(ctx, r.s.admin, r.group)
	r.snap.Failures = append(r.snap.Failures, failures...)
	for _, pc := range proxied {
		r.snap.Online, r.snap.OnlineKnown = true, true
		r.snap.Pop = r.snap.Pop || cluster.SeenConsumers{Conns: pc.Conns, Proxy: pc.Proxy}.ConsumesByPop()
		r.addClients(pc.Conns)
	}
}

// groupExists refuses a group that no broker knows: nothing online, no offsets, no
// subscription group configured.
func (r *snapshotRead) groupExists() error {
	if r.snap.Online || len(r.groupTopics) > 0 {
		return nil
	}
	known, err := r.fo.GroupConfigured(r.group)
	if err != nil {
		return err
	}
	if !known {
		return fault.InvalidField("group", "resets.input.no_such_group", "Group", strconv.Quote(r.group))
	}
	return nil
}

// route finds each topic's queues on each of its brokers: the topic asked for, or every
// topic the group consumes.
func (r *snapshotRead) route(topic string) error {
	r.snap.Topics = sortedKeys(r.groupTopics)
	if topic != "" {
		r.snap.Topics = []string{topic}
	}
	for _, t := range r.snap.Topics {
		// A broker that served the topic a moment ago and is gone now (killed) is a
		// failure: its queues cannot be reset, and the preview must say so rather than
		// look complete.
		route, err := r.fo.Route(t, opRoute)
		if err != nil {
			if errors.Is(err, rocketmq.ErrTopicNotFound) {
				if topic != "" {
					return fault.InvalidField("topic", "resets.input.no_such_topic", "Topic", strconv.Quote(t))
				}
				// A topic deleted since the group consumed it: nothing to reset there.
				continue
			}
			r.fo.Fail(BrokerFailure{Broker: "NameServer", Topic: t, Op: opRoute, Err: err})
			continue
		}
		r.addRoute(t, route)
	}
	// The topic exists; a group that consumes nothing yet may be reset on it, before its
	// consumers start, but otherwise only what the group consumes (or its retry topic).
	if topic != "" && len(r.groupTopics) > 0 && !r.groupTopics[topic] && topic != rocketmq.RetryTopic(r.group) {
		return fault.InvalidField("topic", "resets.input.not_consumed", "Group", strconv.Quote(r.group), "Topic", strconv.Quote(topic),
			"Topics", strings.Join(sortedKeys(r.groupTopics), ", "))
	}
	return nil
}

// addRoute plans the reading of topic t's queues on each of its brokers with a master.
func (r *snapshotRead) addRoute(t string, route *cluster.Route) {
	byBroker := map[string][]rocketmq.MessageQueue{}
	for _, mq := range route.ReadQueues() {
		byBroker[mq.BrokerName] = append(byBroker[mq.BrokerName], mq)
	}
	for _, name := range sortedKeys(byBroker) {
		b, _ := route.Broker(name)
		if b.Master == "" {
			r.fo.Fail(BrokerFailure{Broker: name, Topic: t, Op: opQueues, Err: errors.New("no master is registered for this broker")})
			r.refuse(b, byBroker[name])
			continue
		}
		r.used[name] = b
		r.parts = append(r.parts, snapshotPart{topic: t, broker: b, queues: byBroker[name]})
	}
}

// refuse leaves a broker's queues out of the snapshot, to be named in Refused.
func (r *snapshotRead) refuse(b cluster.Broker, qs []rocketmq.MessageQueue) {
	rb := r.refused[b.Name]
	if rb == nil {
		rb = &RefusedBroker{Broker: b.Name, Master: b.Master, Slaves: b.Slaves}
		r.refused[b.Name] = rb
	}
	rb.Queues = append(rb.Queues, qs...)
}

// readQueues asks for the queues' offsets and each broker's version and reset support,
// all at once; the caller waits for the answers.
func (r *snapshotRead) readQueues() {
	for _, p := range r.parts {
		r.fo.GoTopic(p.broker, p.topic, opQueues, func(ctx context.Context, addr string) error {
			if r.fo.NotAnswering(p.broker.Name) {
				return errNotAnswering
			}
			queues, err := r.s.readQueues(ctx, r.group, p.topic, addr, p.queues)
			if err != nil {
				return err
			}
			r.mu.Lock()
			r.snap.Queues = append(r.snap.Queues, queues...)
			r.mu.Unlock()
			return nil
		})
	}
	names := sortedKeys(r.used)
	r.snap.Brokers = make([]BrokerState, len(names))
	for i, name := range names {
		b := r.used[name]
		r.snap.Brokers[i] = BrokerState{Name: name, Addr: b.Master}
		r.fo.Go(b, "version", func(ctx context.Context, addr string) error {
			if r.fo.NotAnswering(name) {
				return nil // its queues are left out; the version does not matter
			}
			st := &r.snap.Brokers[i]
			st.Version, _ = r.s.admin.BrokerVersion(ctx, addr)
			st.ServerSideReset = r.s.serverSideReset(ctx, addr, st.Version)
			return nil
		})
	}
}

// sayRefused names, once the answers are in, the queues of every broker that failed,
// each with why, and puts the queues read in order.
func (r *snapshotRead) sayRefused() {
	for _, p := range r.parts {
		if r.fo.Failed(p.broker.Name) {
			r.refuse(p.broker, p.queues)
		}
	}
	for _, name := range sortedKeys(r.refused) {
		rb := r.refused[name]
		for _, f := range r.snap.Failures {
			if f.Broker == name && rb.Master != "" && !errors.Is(f.Err, errNotAnswering) {
				rb.Err = f.Err
				break
			}
		}
		slices.SortFunc(rb.Queues, func(a, b rocketmq.MessageQueue) int {
			if a.Less(b) {
				return -1
			}
			if b.Less(a) {
				return 1
			}
			return 0
		})
		r.snap.Refused = append(r.snap.Refused, *rb)
	}
	sort.Slice(r.snap.Queues, func(i, j int) bool { return r.snap.Queues[i].Queue.Less(r.snap.Queues[j].Queue) })
}

// preferGone drops the other failures of a broker that is gone from a route: they are
// what asking a killed broker answers (the broker list is cached a few seconds longer
// than the route), and "gone from the route" says why.
func preferGone(fs []BrokerFailure) []BrokerFailure {
	gone := map[string]bool{}
	for _, f := range fs {
		if f.Gone() {
			gone[f.Broker] = true
		}
	}
	return slices.DeleteFunc(fs, func(f BrokerFailure) bool { return gone[f.Broker] && !f.Gone() })
}

// namedAfterCluster reports whether topic is one the brokers create for their cluster's
// name or their own.
func namedAfterCluster(ci *rocketmq.ClusterInfo, topic string) bool {
	_, isBroker := ci.Brokers[topic]
	_, isCluster := ci.Clusters[topic]
	return isBroker || isCluster
}

// errNotAnswering is why a broker's queues were not read: it did not answer an earlier
// request of the same preview.
var errNotAnswering = errors.New("not asked: the broker did not answer an earlier request of this preview")

// serverSideReset reports whether the broker resets a group's offsets itself, online or
// not: from 5.1 when useServerSideResetOffset is on (the default from 5.2). Older brokers
// are not asked.
func (s *Service) serverSideReset(ctx context.Context, addr string, v rocketmq.BrokerVersion) bool {
	if !v.AtLeast(rocketmq.VersionOrdinal5_1_0) {
		return false
	}
	cfg, err := s.admin.BrokerConfig(ctx, addr)
	if err != nil {
		return v.AtLeast(rocketmq.VersionOrdinal5_2_0)
	}
	return cfg["useServerSideResetOffset"] == "true"
}

// readQueues reads one topic's queues on one broker: the committed offsets (one
// GET_CONSUME_STATS) and the offset ranges (one GET_TOPIC_STATS_INFO).
func (s *Service) readQueues(ctx context.Context, group, topic, addr string, queues []rocketmq.MessageQueue) ([]QueueState, error) {
	var stats *rocketmq.TopicStats
	var consumed *rocketmq.ConsumeStats
	var statsErr, consumedErr error
	var wg sync.WaitGroup
	wg.Go(func() { stats, statsErr = s.admin.TopicStats(ctx, addr, topic) })
	wg.Go(func() { consumed, consumedErr = s.admin.ConsumeStats(ctx, addr, group, topic) })
	wg.Wait()
	if statsErr != nil {
		return nil, statsErr
	}
	if consumedErr != nil && !errors.Is(consumedErr, rocketmq.ErrGroupNotFound) {
		return nil, consumedErr
	}
	out := make([]QueueState, len(queues))
	errs := make([]error, len(queues))
	for i, mq := range queues {
		q := QueueState{Queue: mq, Addr: addr}
		if r, ok := stats.Offsets[mq]; ok {
			q.Min, q.Max = r.MinOffset, r.MaxOffset
		}
		if consumed != nil {
			if o, ok := consumed.Offsets[mq]; ok {
				q.Current, q.Committed = o.ConsumerOffset, true
				q.Max = max(q.Max, o.BrokerOffset)
			}
		}
		out[i] = q
		if !q.Committed {
			// An online group that does not subscribe to the topic is left out of
			// GET_CONSUME_STATS; ask for the queue itself.
			wg.Go(func() {
				off, err := s.admin.QueryConsumerOffset(ctx, addr, group, mq)
				switch {
				case err == nil:
					out[i].Current, out[i].Committed = off, true
				case !errors.Is(err, rocketmq.ErrNoConsumerOffset):
					errs[i] = err
				}
			})
		}
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return out, nil
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func mustJSON(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		b, _ = json.Marshal(map[string]string{"unencodable": fmt.Sprint(v)})
	}
	return b
}
