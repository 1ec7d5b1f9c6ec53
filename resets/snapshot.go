package resets

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"sync"

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

// BrokerFailure is a broker that did not answer; its queues are left out.
type BrokerFailure struct {
	Broker string `json:"brokerName"`
	Addr   string `json:"addr"`
	Topic  string `json:"topic,omitempty"`
	Error  string `json:"error"`
}

func (f BrokerFailure) String() string {
	s := f.Broker
	if f.Addr != "" {
		s += " (" + f.Addr + ")"
	}
	if f.Topic != "" {
		s += " for topic " + f.Topic
	}
	return s + ": " + f.Error
}

// Snapshot is a group's offsets across the cluster at one moment.
type Snapshot struct {
	Group  string
	Topics []string
	// Online is true when at least one client of the group is connected; OnlineKnown is
	// false when no broker could say.
	Online      bool
	OnlineKnown bool
	Clients     []string
	Brokers     []BrokerState
	Queues      []QueueState
	Failures    []BrokerFailure
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

// master is a broker group's name and master address.
type master struct{ name, addr string }

// isGroupTopic reports whether a topic in a group's offsets is one an operator resets:
// not its retry or dead-letter topic.
func isGroupTopic(topic string) bool {
	return !rocketmq.IsRetryTopic(topic) && !rocketmq.IsDLQTopic(topic)
}

// parallel runs fn for each item with at most limit at once.
func parallel[T any](items []T, limit int, fn func(T)) {
	sem := make(chan struct{}, limit)
	var wg sync.WaitGroup
	for _, it := range items {
		sem <- struct{}{}
		wg.Go(func() {
			defer func() { <-sem }()
			fn(it)
		})
	}
	wg.Wait()
}

// Snapshot reads a group's offsets on every queue of topic ("" for every topic the group
// has offsets on or subscribes to). A broker that fails is named in Failures and its
// queues are left out; an unknown group or topic is an InputErrors.
func (s *Service) Snapshot(ctx context.Context, group, topic string) (*Snapshot, error) {
	if s.admin == nil {
		return nil, ErrNoCluster
	}
	ci, err := s.admin.ClusterInfo(ctx)
	if err != nil {
		return nil, wrapf(err, "read consumer group %q", group)
	}
	var masters []master
	for _, name := range ci.BrokerNames() {
		if addr, ok := ci.Brokers[name].MasterAddr(); ok {
			masters = append(masters, master{name, addr})
		}
	}
	if len(masters) == 0 {
		return nil, fmt.Errorf("read consumer group %q: no broker is registered with the NameServers", group)
	}

	snap := &Snapshot{Group: group}
	var mu sync.Mutex
	groupTopics := map[string]bool{}
	clients := map[string]bool{}
	var onlineAnswers int
	parallel(masters, 8, func(m master) {
		cc, cerr := s.admin.ConsumerConnections(ctx, m.addr, group)
		var stats *rocketmq.ConsumeStats
		var serr error
		if topic == "" {
			stats, serr = s.admin.ConsumeStats(ctx, m.addr, group, "")
		}
		mu.Lock()
		defer mu.Unlock()
		switch {
		case cerr == nil:
			onlineAnswers++
			snap.Online = true
			for _, c := range cc.Connections {
				clients[c.ClientID] = true
			}
			for t := range cc.Subscriptions {
				if isGroupTopic(t) && topic == "" {
					groupTopics[t] = true
				}
			}
		case errors.Is(cerr, rocketmq.ErrConsumerNotOnline):
			onlineAnswers++
		}
		if serr != nil {
			if !errors.Is(serr, rocketmq.ErrGroupNotFound) {
				snap.Failures = append(snap.Failures, BrokerFailure{Broker: m.name, Addr: m.addr, Error: serr.Error()})
			}
			return
		}
		if stats != nil {
			for mq := range stats.Offsets {
				if isGroupTopic(mq.Topic) {
					groupTopics[mq.Topic] = true
				}
			}
		}
	})
	snap.OnlineKnown = onlineAnswers > 0
	for c := range clients {
		snap.Clients = append(snap.Clients, c)
	}
	sort.Strings(snap.Clients)

	if !snap.Online && len(groupTopics) == 0 {
		known, err := s.groupConfigured(ctx, group, masters)
		if err != nil {
			return nil, err
		}
		if !known {
			return nil, InputErrors{{Field: "group", Message: fmt.Sprintf(
				"Consumer group %q does not exist on this cluster: no broker knows it and no client of it is online. Check the name, or pick the group from the groups list.", group)}}
		}
	}

	if topic != "" {
		snap.Topics = []string{topic}
	} else {
		for t := range groupTopics {
			snap.Topics = append(snap.Topics, t)
		}
		sort.Strings(snap.Topics)
	}

	// Each topic's queues on each of its brokers.
	type part struct {
		topic, broker, addr string
		queues              []rocketmq.MessageQueue
	}
	var parts []part
	brokerAddrs := map[string]string{}
	for _, t := range snap.Topics {
		route, err := s.admin.TopicRoute(ctx, t)
		if err != nil {
			if errors.Is(err, rocketmq.ErrTopicNotFound) {
				if topic != "" {
					return nil, InputErrors{{Field: "topic", Message: fmt.Sprintf(
						"Topic %q does not exist on this cluster. Check the name, or reset all of the group's topics.", t)}}
				}
				// A topic deleted since the group consumed it: nothing to reset there.
				continue
			}
			snap.Failures = append(snap.Failures, BrokerFailure{Broker: "NameServer", Topic: t, Error: err.Error()})
			continue
		}
		byBroker := map[string][]rocketmq.MessageQueue{}
		for _, mq := range route.ReadQueues() {
			byBroker[mq.BrokerName] = append(byBroker[mq.BrokerName], mq)
		}
		for _, b := range sortedKeys(byBroker) {
			addr, ok := route.MasterAddr(b)
			if !ok {
				snap.Failures = append(snap.Failures, BrokerFailure{Broker: b, Topic: t, Error: "no master is registered for this broker"})
				continue
			}
			brokerAddrs[b] = addr
			parts = append(parts, part{topic: t, broker: b, addr: addr, queues: byBroker[b]})
		}
	}

	parallel(parts, 8, func(p part) {
		queues, err := s.readQueues(ctx, group, p.topic, p.addr, p.queues)
		mu.Lock()
		defer mu.Unlock()
		if err != nil {
			snap.Failures = append(snap.Failures, BrokerFailure{Broker: p.broker, Addr: p.addr, Topic: p.topic, Error: err.Error()})
			return
		}
		snap.Queues = append(snap.Queues, queues...)
	})
	sort.Slice(snap.Queues, func(i, j int) bool { return snap.Queues[i].Queue.Less(snap.Queues[j].Queue) })

	names := sortedKeys(brokerAddrs)
	brokers := make([]*BrokerState, len(names))
	for i, name := range names {
		brokers[i] = &BrokerState{Name: name, Addr: brokerAddrs[name]}
	}
	parallel(brokers, 8, func(b *BrokerState) {
		b.Version, _ = s.admin.BrokerVersion(ctx, b.Addr)
		b.ServerSideReset = s.serverSideReset(ctx, b.Addr, b.Version)
	})
	snap.Brokers = make([]BrokerState, 0, len(brokers))
	for _, b := range brokers {
		snap.Brokers = append(snap.Brokers, *b)
	}
	sortFailures(snap.Failures)
	return snap, nil
}

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
	stats, err := s.admin.TopicStats(ctx, addr, topic)
	if err != nil {
		return nil, err
	}
	consumed, err := s.admin.ConsumeStats(ctx, addr, group, topic)
	if err != nil && !errors.Is(err, rocketmq.ErrGroupNotFound) {
		return nil, err
	}
	out := make([]QueueState, 0, len(queues))
	for _, mq := range queues {
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
		if !q.Committed {
			// An online group that does not subscribe to the topic is left out of
			// GET_CONSUME_STATS; ask for the queue itself.
			off, err := s.admin.QueryConsumerOffset(ctx, addr, group, mq)
			switch {
			case err == nil:
				q.Current, q.Committed = off, true
			case errors.Is(err, rocketmq.ErrNoConsumerOffset):
			default:
				return nil, err
			}
		}
		out = append(out, q)
	}
	return out, nil
}

// groupConfigured asks the masters whether they have a subscription group of that name
// (brokers create one when a consumer first connects, or mqadmin updateSubGroup does).
func (s *Service) groupConfigured(ctx context.Context, group string, masters []master) (bool, error) {
	var mu sync.Mutex
	found, answered := false, 0
	var errs []error
	parallel(masters, 8, func(m master) {
		t, err := s.admin.SubscriptionGroups(ctx, m.addr)
		mu.Lock()
		defer mu.Unlock()
		if err != nil {
			errs = append(errs, err)
			return
		}
		answered++
		if _, ok := t.Groups[group]; ok {
			found = true
		}
	})
	if answered == 0 && len(errs) > 0 {
		return false, wrapf(errors.Join(errs...), "look up consumer group %q", group)
	}
	return found, nil
}

func sortFailures(f []BrokerFailure) {
	sort.Slice(f, func(i, j int) bool {
		if f[i].Broker != f[j].Broker {
			return f[i].Broker < f[j].Broker
		}
		return f[i].Topic < f[j].Topic
	})
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
