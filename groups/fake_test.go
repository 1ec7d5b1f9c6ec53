package groups

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"rmqconsole/rocketmq"
)

// fakeAdmin is a scripted cluster for unit tests: brokers, topics, one consumer group's
// connections, stats and running infos, and failures to inject. Real RocketMQ behaviour
// is checked by the integration tests; this only drives the service's own logic.
type fakeAdmin struct {
	mu       sync.Mutex
	brokers  map[string]string // name -> master addr
	routes   map[string][]rocketmq.QueueData
	groups   map[string][]string // broker addr -> group names (subscription configs)
	conns    map[string]*rocketmq.ConsumerConnection
	stats    map[string]map[string]*rocketmq.ConsumeStats // group -> addr -> stats
	running  map[string]*rocketmq.ConsumerRunningInfo     // client id -> info
	failStat map[string]error                             // addr -> error for ConsumeStats
	failConn map[string]error
	failRun  map[string]error // client id -> error
	delay    time.Duration

	calls, inflight, maxInflight atomic.Int64
}

func newFakeAdmin() *fakeAdmin {
	return &fakeAdmin{
		brokers:  map[string]string{"broker-a": "10.0.0.1:10911"},
		routes:   map[string][]rocketmq.QueueData{},
		groups:   map[string][]string{},
		conns:    map[string]*rocketmq.ConsumerConnection{},
		stats:    map[string]map[string]*rocketmq.ConsumeStats{},
		running:  map[string]*rocketmq.ConsumerRunningInfo{},
		failStat: map[string]error{},
		failConn: map[string]error{},
		failRun:  map[string]error{},
	}
}

func (f *fakeAdmin) enter() func() {
	f.calls.Add(1)
	n := f.inflight.Add(1)
	for {
		m := f.maxInflight.Load()
		if n <= m || f.maxInflight.CompareAndSwap(m, n) {
			break
		}
	}
	if f.delay > 0 {
		time.Sleep(f.delay)
	}
	return func() { f.inflight.Add(-1) }
}

func (f *fakeAdmin) ClusterInfo(context.Context) (*rocketmq.ClusterInfo, error) {
	defer f.enter()()
	f.mu.Lock()
	defer f.mu.Unlock()
	ci := &rocketmq.ClusterInfo{Brokers: map[string]rocketmq.BrokerData{}, Clusters: map[string][]string{}}
	for name, addr := range f.brokers {
		ci.Brokers[name] = rocketmq.BrokerData{Cluster: "c", BrokerName: name, Addrs: map[int64]string{0: addr}}
		ci.Clusters["c"] = append(ci.Clusters["c"], name)
	}
	return ci, nil
}

func (f *fakeAdmin) TopicRoute(_ context.Context, topic string) (*rocketmq.TopicRoute, error) {
	defer f.enter()()
	f.mu.Lock()
	defer f.mu.Unlock()
	qds, ok := f.routes[topic]
	if !ok {
		return nil, fmt.Errorf("route of %s: %w", topic, rocketmq.ErrTopicNotFound)
	}
	r := &rocketmq.TopicRoute{Topic: topic, QueueDatas: qds}
	for name, addr := range f.brokers {
		r.BrokerDatas = append(r.BrokerDatas, rocketmq.BrokerData{BrokerName: name, Addrs: map[int64]string{0: addr}})
	}
	return r, nil
}

func (f *fakeAdmin) SubscriptionGroups(_ context.Context, addr string) (*rocketmq.SubscriptionGroupTable, error) {
	defer f.enter()()
	f.mu.Lock()
	defer f.mu.Unlock()
	t := &rocketmq.SubscriptionGroupTable{Groups: map[string]rocketmq.SubscriptionGroupConfig{}}
	for _, g := range f.groups[addr] {
		t.Groups[g] = rocketmq.SubscriptionGroupConfig{GroupName: g}
	}
	return t, nil
}

func (f *fakeAdmin) ConsumerConnections(_ context.Context, addr, group string) (*rocketmq.ConsumerConnection, error) {
	defer f.enter()()
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.failConn[addr]; err != nil {
		return nil, err
	}
	cc := f.conns[group]
	if cc == nil || len(cc.Connections) == 0 {
		return nil, &rocketmq.BrokerError{Addr: addr, Code: 206, Remark: "the consumer group not online"}
	}
	return cc, nil
}

func (f *fakeAdmin) ConsumeStats(_ context.Context, addr, group, _ string) (*rocketmq.ConsumeStats, error) {
	defer f.enter()()
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.failStat[addr]; err != nil {
		return nil, err
	}
	if s := f.stats[group][addr]; s != nil {
		return s, nil
	}
	return &rocketmq.ConsumeStats{Offsets: map[rocketmq.MessageQueue]rocketmq.OffsetWrapper{}}, nil
}

func (f *fakeAdmin) ConsumerRunningInfo(_ context.Context, _, _, clientID string, _ bool) (*rocketmq.ConsumerRunningInfo, error) {
	defer f.enter()()
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.failRun[clientID]; err != nil {
		return nil, err
	}
	info := f.running[clientID]
	if info == nil {
		return nil, errors.New("no such client")
	}
	return info, nil
}

// setTopic gives topic n readable queues on broker-a.
func (f *fakeAdmin) setTopic(topic string, brokerQueues map[string]int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	var qds []rocketmq.QueueData
	for b, n := range brokerQueues {
		qds = append(qds, rocketmq.QueueData{BrokerName: b, ReadQueueNums: n, WriteQueueNums: n, Perm: 6})
	}
	f.routes[topic] = qds
}

// setClients puts clients online in group, each subscribing to topics and holding the
// queues given (by topic/queue id on broker-a).
func (f *fakeAdmin) setClients(group string, clients map[string]clientSpec) {
	f.mu.Lock()
	defer f.mu.Unlock()
	cc := &rocketmq.ConsumerConnection{ConsumeType: "CONSUME_PASSIVELY", MessageModel: "CLUSTERING",
		Subscriptions: map[string]rocketmq.SubscriptionData{}}
	for id, spec := range clients {
		cc.Connections = append(cc.Connections, rocketmq.Connection{ClientID: id, ClientAddr: "10.0.0.9:1", Language: "GO", Version: 317})
		info := &rocketmq.ConsumerRunningInfo{Properties: map[string]string{"PROP_CLIENT_VERSION": "v2.1.1", "PROP_CONSUME_TYPE": "CONSUME_PASSIVELY"},
			MQTable: map[rocketmq.MessageQueue]rocketmq.ProcessQueueInfo{}}
		if spec.strategy != "" {
			info.Properties["allocateMessageQueueStrategy"] = spec.strategy
		}
		for _, t := range spec.topics {
			info.Subscriptions = append(info.Subscriptions, rocketmq.SubscriptionData{Topic: t, SubString: "*", ExpressionType: "TAG"})
			cc.Subscriptions[t] = rocketmq.SubscriptionData{Topic: t, SubString: "*"}
		}
		for _, mq := range spec.holds {
			info.MQTable[mq] = rocketmq.ProcessQueueInfo{}
		}
		f.running[id] = info
	}
	rocketmqSortConnections(cc.Connections)
	f.conns[group] = cc
}

type clientSpec struct {
	topics   []string
	holds    []rocketmq.MessageQueue
	strategy string
}

func rocketmqSortConnections(cs []rocketmq.Connection) {
	for i := range cs {
		for j := i + 1; j < len(cs); j++ {
			if cs[j].ClientID < cs[i].ClientID {
				cs[i], cs[j] = cs[j], cs[i]
			}
		}
	}
}

// setOffsets stores offsets for group on the broker's master: broker max and committed
// per queue id of topic.
func (f *fakeAdmin) setOffsets(group, broker, topic string, offsets map[int][2]int64) {
	f.mu.Lock()
	defer f.mu.Unlock()
	addr := f.brokers[broker]
	if f.stats[group] == nil {
		f.stats[group] = map[string]*rocketmq.ConsumeStats{}
	}
	st := f.stats[group][addr]
	if st == nil {
		st = &rocketmq.ConsumeStats{Offsets: map[rocketmq.MessageQueue]rocketmq.OffsetWrapper{}}
		f.stats[group][addr] = st
	}
	for qid, o := range offsets {
		st.Offsets[rocketmq.MessageQueue{Topic: topic, BrokerName: broker, QueueID: qid}] =
			rocketmq.OffsetWrapper{BrokerOffset: o[0], ConsumerOffset: o[1], LastTimestamp: 1_700_000_000_000 + int64(qid)}
	}
}

func mq(topic, broker string, id int) rocketmq.MessageQueue {
	return rocketmq.MessageQueue{Topic: topic, BrokerName: broker, QueueID: id}
}

func queues(topic, broker string, ids ...int) []rocketmq.MessageQueue {
	var out []rocketmq.MessageQueue
	for _, id := range ids {
		out = append(out, mq(topic, broker, id))
	}
	return out
}
