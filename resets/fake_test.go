package resets

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"sync"
	"time"

	"rmqconsole/rocketmq"
)

// fakeCluster is a small in-memory RocketMQ for unit tests: brokers with versions,
// topics with stored messages (their store times), one consumer group's committed
// offsets and online clients. It answers like the brokers described in
// rocketmq-protocol.md and counts every call. Integration tests use the real broker.
type fakeCluster struct {
	mu      sync.Mutex
	brokers map[string]*fakeBroker // by name
	// times[mq] are the store times (ms) of the queue's messages, from offset min.
	times   map[rocketmq.MessageQueue][]int64
	mins    map[rocketmq.MessageQueue]int64
	offsets map[rocketmq.MessageQueue]int64 // the group's committed offsets
	group   string
	groupOK bool // a subscription group exists
	clients []string
	// subs are the topics online clients subscribe to.
	subs []string

	calls  map[string]int
	writes int
	// fail makes a method fail on a broker address: "ResetOffset@127.0.0.1:2".
	fail map[string]error
	// onWrite runs before each offset-changing call (tests check the audit entry exists).
	onWrite func(method string)
	// afterReset runs after a reset or update changed an offset (tests simulate clients).
	afterReset func(mq rocketmq.MessageQueue, old int64)
	// block, when set, makes ResetOffset wait until it is closed.
	block chan struct{}
	// entered is signalled when ResetOffset starts.
	entered chan struct{}
}

type fakeBroker struct {
	name, addr string
	version    rocketmq.BrokerVersion
	serverSide bool
}

func v5() rocketmq.BrokerVersion {
	return rocketmq.BrokerVersion{Ordinal: rocketmq.VersionOrdinal5_3_3, Name: "V5_3_3"}
}
func v4() rocketmq.BrokerVersion {
	return rocketmq.BrokerVersion{Ordinal: rocketmq.VersionOrdinal4_9_8, Name: "V4_9_8"}
}

func newFake(group string) *fakeCluster {
	return &fakeCluster{
		brokers: map[string]*fakeBroker{}, times: map[rocketmq.MessageQueue][]int64{},
		mins: map[rocketmq.MessageQueue]int64{}, offsets: map[rocketmq.MessageQueue]int64{},
		group: group, groupOK: true, calls: map[string]int{}, fail: map[string]error{},
	}
}

func (f *fakeCluster) addBroker(name, addr string, v rocketmq.BrokerVersion) {
	f.brokers[name] = &fakeBroker{name: name, addr: addr, version: v, serverSide: v.AtLeast(rocketmq.VersionOrdinal5_2_0)}
}

// addTopic gives topic n queues on broker, each with msgs messages stored one second
// apart from base, and the group committed at offset consumed.
func (f *fakeCluster) addTopic(topic, broker string, n, msgs int, base time.Time, consumed int64) {
	for i := 0; i < n; i++ {
		mq := rocketmq.MessageQueue{Topic: topic, BrokerName: broker, QueueID: i}
		ts := make([]int64, msgs)
		for j := range ts {
			ts[j] = base.Add(time.Duration(j) * time.Second).UnixMilli()
		}
		f.times[mq] = ts
		f.offsets[mq] = consumed
	}
}

func (f *fakeCluster) count(method, addr string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls[method]++
	return f.fail[method+"@"+addr]
}

func (f *fakeCluster) totalCalls() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	n := 0
	for _, c := range f.calls {
		n += c
	}
	return n
}

func (f *fakeCluster) writeCalls() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.writes
}

func (f *fakeCluster) offset(mq rocketmq.MessageQueue) int64 {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.offsets[mq]
}

func (f *fakeCluster) setOffset(mq rocketmq.MessageQueue, v int64) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.offsets[mq] = v
}

func (f *fakeCluster) maxOf(mq rocketmq.MessageQueue) int64 {
	return f.mins[mq] + int64(len(f.times[mq]))
}

func (f *fakeCluster) brokerAt(addr string) *fakeBroker {
	for _, b := range f.brokers {
		if b.addr == addr {
			return b
		}
	}
	return nil
}

func notOnline(addr string) error {
	return &rocketmq.BrokerError{Addr: addr, Code: rocketmq.CodeConsumerNotOnline, Remark: "Consumer not online"}
}

func (f *fakeCluster) ClusterInfo(ctx context.Context) (*rocketmq.ClusterInfo, error) {
	if err := f.count("ClusterInfo", ""); err != nil {
		return nil, err
	}
	ci := &rocketmq.ClusterInfo{Brokers: map[string]rocketmq.BrokerData{}, Clusters: map[string][]string{}}
	for _, b := range f.brokers {
		ci.Brokers[b.name] = rocketmq.BrokerData{Cluster: "c", BrokerName: b.name, Addrs: map[int64]string{0: b.addr}}
		ci.Clusters["c"] = append(ci.Clusters["c"], b.name)
	}
	return ci, nil
}

func (f *fakeCluster) TopicRoute(ctx context.Context, topic string) (*rocketmq.TopicRoute, error) {
	if err := f.count("TopicRoute", ""); err != nil {
		return nil, err
	}
	r := &rocketmq.TopicRoute{Topic: topic}
	perBroker := map[string]int{}
	for mq := range f.times {
		if mq.Topic == topic {
			perBroker[mq.BrokerName]++
		}
	}
	if len(perBroker) == 0 {
		return nil, fmt.Errorf("route of topic %q: %w", topic, &rocketmq.BrokerError{Addr: "ns", Code: rocketmq.CodeTopicNotExist})
	}
	for name, n := range perBroker {
		b := f.brokers[name]
		r.QueueDatas = append(r.QueueDatas, rocketmq.QueueData{BrokerName: name, ReadQueueNums: n, WriteQueueNums: n, Perm: 6})
		r.BrokerDatas = append(r.BrokerDatas, rocketmq.BrokerData{BrokerName: name, Addrs: map[int64]string{0: b.addr}})
	}
	sort.Slice(r.QueueDatas, func(i, j int) bool { return r.QueueDatas[i].BrokerName < r.QueueDatas[j].BrokerName })
	return r, nil
}

func (f *fakeCluster) SubscriptionGroups(ctx context.Context, addr string) (*rocketmq.SubscriptionGroupTable, error) {
	if err := f.count("SubscriptionGroups", addr); err != nil {
		return nil, err
	}
	t := &rocketmq.SubscriptionGroupTable{Groups: map[string]rocketmq.SubscriptionGroupConfig{}}
	if f.groupOK {
		t.Groups[f.group] = rocketmq.SubscriptionGroupConfig{GroupName: f.group}
	}
	return t, nil
}

func (f *fakeCluster) ConsumerConnections(ctx context.Context, addr, group string) (*rocketmq.ConsumerConnection, error) {
	if err := f.count("ConsumerConnections", addr); err != nil {
		return nil, err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if group != f.group || len(f.clients) == 0 {
		return nil, fmt.Errorf("connections: %w", notOnline(addr))
	}
	cc := &rocketmq.ConsumerConnection{Subscriptions: map[string]rocketmq.SubscriptionData{}}
	for _, c := range f.clients {
		cc.Connections = append(cc.Connections, rocketmq.Connection{ClientID: c})
	}
	for _, t := range f.subs {
		cc.Subscriptions[t] = rocketmq.SubscriptionData{Topic: t, SubString: "*"}
	}
	return cc, nil
}

func (f *fakeCluster) ConsumeStats(ctx context.Context, addr, group, topic string) (*rocketmq.ConsumeStats, error) {
	if err := f.count("ConsumeStats", addr); err != nil {
		return nil, err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	cs := &rocketmq.ConsumeStats{Offsets: map[rocketmq.MessageQueue]rocketmq.OffsetWrapper{}}
	b := f.brokerAt(addr)
	if group != f.group || b == nil {
		return cs, nil
	}
	for mq, off := range f.offsets {
		if mq.BrokerName == b.name && (topic == "" || mq.Topic == topic) {
			cs.Offsets[mq] = rocketmq.OffsetWrapper{BrokerOffset: f.maxOf(mq), ConsumerOffset: off}
		}
	}
	return cs, nil
}

func (f *fakeCluster) TopicStats(ctx context.Context, addr, topic string) (*rocketmq.TopicStats, error) {
	if err := f.count("TopicStats", addr); err != nil {
		return nil, err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	ts := &rocketmq.TopicStats{Offsets: map[rocketmq.MessageQueue]rocketmq.TopicOffset{}}
	b := f.brokerAt(addr)
	for mq := range f.times {
		if b != nil && mq.BrokerName == b.name && mq.Topic == topic {
			ts.Offsets[mq] = rocketmq.TopicOffset{MinOffset: f.mins[mq], MaxOffset: f.maxOf(mq)}
		}
	}
	return ts, nil
}

func (f *fakeCluster) QueryConsumerOffset(ctx context.Context, addr, group string, mq rocketmq.MessageQueue) (int64, error) {
	if err := f.count("QueryConsumerOffset", addr); err != nil {
		return 0, err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	off, ok := f.offsets[mq]
	if !ok || group != f.group {
		return 0, fmt.Errorf("offset: %w", rocketmq.ErrNoConsumerOffset)
	}
	return off, nil
}

// searchLocked is 5.x SEARCH_OFFSET LOWER: the first offset stored at or after ts.
func (f *fakeCluster) searchLocked(mq rocketmq.MessageQueue, ts int64) int64 {
	for i, t := range f.times[mq] {
		if t >= ts {
			return f.mins[mq] + int64(i)
		}
	}
	return f.maxOf(mq)
}

func (f *fakeCluster) SearchOffset(ctx context.Context, addr string, mq rocketmq.MessageQueue, t time.Time, _ rocketmq.BoundaryType) (int64, error) {
	if err := f.count("SearchOffset", addr); err != nil {
		return 0, err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if b := f.brokerAt(addr); b != nil && !b.version.Is5() {
		return f.closestLocked(mq, t.UnixMilli()), nil
	}
	return f.searchLocked(mq, t.UnixMilli()), nil
}

// closestLocked is 4.x SEARCH_OFFSET: the message stored closest to ts, ties to the
// older one; the last message when every one is older.
func (f *fakeCluster) closestLocked(mq rocketmq.MessageQueue, ts int64) int64 {
	times := f.times[mq]
	best := 0
	for i, t := range times {
		if abs(t-ts) < abs(times[best]-ts) {
			best = i
		}
	}
	return f.mins[mq] + int64(best)
}

func abs(v int64) int64 {
	if v < 0 {
		return -v
	}
	return v
}

func (f *fakeCluster) Pull(ctx context.Context, addr string, mq rocketmq.MessageQueue, offset int64, maxNums int) (*rocketmq.PullResult, error) {
	if err := f.count("Pull", addr); err != nil {
		return nil, err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	res := &rocketmq.PullResult{Status: rocketmq.PullFound, MinOffset: f.mins[mq], MaxOffset: f.maxOf(mq), NextBeginOffset: offset}
	for i := offset - f.mins[mq]; i >= 0 && i < int64(len(f.times[mq])) && len(res.Messages) < maxNums; i++ {
		res.Messages = append(res.Messages, &rocketmq.Message{Topic: mq.Topic, QueueID: mq.QueueID, QueueOffset: f.mins[mq] + i, StoreTimestamp: f.times[mq][i]})
		res.NextBeginOffset = f.mins[mq] + i + 1
	}
	return res, nil
}

func (f *fakeCluster) BrokerVersion(ctx context.Context, addr string) (rocketmq.BrokerVersion, error) {
	if err := f.count("BrokerVersion", addr); err != nil {
		return rocketmq.BrokerVersion{}, err
	}
	if b := f.brokerAt(addr); b != nil {
		return b.version, nil
	}
	return rocketmq.BrokerVersion{}, errors.New("no broker")
}

func (f *fakeCluster) BrokerConfig(ctx context.Context, addr string) (map[string]string, error) {
	if err := f.count("BrokerConfig", addr); err != nil {
		return nil, err
	}
	b := f.brokerAt(addr)
	if b == nil {
		return nil, errors.New("no broker")
	}
	if !b.version.AtLeast(rocketmq.VersionOrdinal5_1_0) {
		return map[string]string{}, nil
	}
	return map[string]string{"useServerSideResetOffset": fmt.Sprint(b.serverSide)}, nil
}

func (f *fakeCluster) wrote(method string) {
	f.mu.Lock()
	f.writes++
	hook := f.onWrite
	f.mu.Unlock()
	if hook != nil {
		hook(method)
	}
}

func (f *fakeCluster) ResetOffset(ctx context.Context, addr string, req rocketmq.ResetOffsetRequest) (map[rocketmq.MessageQueue]int64, error) {
	if f.entered != nil {
		select {
		case f.entered <- struct{}{}:
		default:
		}
	}
	if f.block != nil {
		<-f.block
	}
	if err := f.count("ResetOffset", addr); err != nil {
		return nil, err
	}
	f.wrote("ResetOffset")
	b := f.brokerAt(addr)
	f.mu.Lock()
	out := map[rocketmq.MessageQueue]int64{}
	changed := map[rocketmq.MessageQueue]int64{}
	switch {
	case b.serverSide:
		for mq := range f.times {
			if mq.Topic != req.Topic || mq.BrokerName != b.name || (req.QueueID >= 0 && mq.QueueID != req.QueueID) {
				continue
			}
			target := req.Offset
			if req.QueueID < 0 || req.Offset < 0 {
				target = f.maxOf(mq)
				if req.Timestamp >= 0 {
					target = f.searchLocked(mq, req.Timestamp)
				}
			}
			changed[mq] = f.offsets[mq]
			f.offsets[mq], out[mq] = target, target
		}
	case len(f.clients) == 0:
		f.mu.Unlock()
		return nil, fmt.Errorf("reset: %w", notOnline(addr))
	default:
		// 4.x: every queue of the topic on this broker, by timestamp, through the clients.
		for mq := range f.times {
			if mq.Topic != req.Topic || mq.BrokerName != b.name {
				continue
			}
			target := f.maxOf(mq)
			if req.Timestamp >= 0 {
				target = f.closestLocked(mq, req.Timestamp)
			}
			changed[mq] = f.offsets[mq]
			f.offsets[mq], out[mq] = target, target
		}
	}
	hook := f.afterReset
	f.mu.Unlock()
	if hook != nil {
		for mq, old := range changed {
			hook(mq, old)
		}
	}
	return out, nil
}

func (f *fakeCluster) UpdateConsumerOffset(ctx context.Context, addr, group string, mq rocketmq.MessageQueue, offset int64) error {
	if err := f.count("UpdateConsumerOffset", addr); err != nil {
		return err
	}
	f.wrote("UpdateConsumerOffset")
	f.mu.Lock()
	old := f.offsets[mq]
	f.offsets[mq] = offset
	hook := f.afterReset
	f.mu.Unlock()
	if hook != nil {
		hook(mq, old)
	}
	return nil
}
