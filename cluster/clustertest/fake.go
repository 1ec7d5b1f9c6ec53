// Package clustertest provides the one fake RocketMQ cluster of the unit and handler tests,
// at the level the services ask it: the NameServer calls cluster.Cluster makes and the
// broker calls of lookup, groups and resets. Brokers (masters and slaves) hold messages in
// queues; consumer groups have offsets, clients and subscriptions; every call is counted;
// and a broker can be made to fail, answer slowly, or not answer at all.
//
// It answers like the brokers described in docs/rocketmq-protocol-notes.md; the decoding of
// real brokers' replies is checked on captured replies in package rocketmq, and the
// services' integration tests run against a real broker.
package clustertest

import (
	"context"
	"fmt"
	"math"
	"net/netip"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"rmqconsole/rocketmq"
)

// Fake is an in-memory cluster. Add brokers, messages and groups before use; it is safe
// for concurrent calls afterwards.
type Fake struct {
	mu      sync.Mutex
	brokers []*broker
	queues  map[rocketmq.MessageQueue][]*rocketmq.Message
	topics  map[string]map[string]int // topic -> broker -> queue count
	groups  map[string]*Group

	// Fail, when set, is asked before every call; a non-nil error is returned instead
	// of an answer. op is the Admin method name, broker the broker's name ("" for
	// NameServer calls).
	Fail func(op, broker string) error
	// Version is what BrokerVersion answers (default 5.3.3).
	Version rocketmq.BrokerVersion
	// CallTimeout bounds each call to a slow or silent broker, as the RocketMQ client's
	// per-call timeout does (RMQC_TIMEOUT); 0 leaves only the caller's context.
	CallTimeout time.Duration

	calls       map[string]int
	brokerCalls int
	down        map[string]bool // addresses that refuse connections
	// timedOut are brokers a call timed out on; askedAgain counts the calls to them
	// that started afterwards.
	timedOut    map[string]bool
	askedAgain  map[string]int
	failOn      map[string]error // "op@addr" -> its answer
	writes      int
	inFlight    int
	peak        int
	runFail     map[string]error // client id -> its running info's answer
	perBroker   map[string]int   // broker name -> calls to it
	nameServers []string
	runtime     map[string]map[string]string // address -> runtime info

	// OnWrite runs before each call that changes an offset (tests check the audit entry
	// exists by then); AfterReset after an offset changed, with the old one (tests play
	// clients that write an old offset back).
	OnWrite    func(op string)
	AfterReset func(mq rocketmq.MessageQueue, old int64)
	// Block, when set, holds every ResetOffset until it is closed; Entered is signalled
	// when one starts.
	Block   chan struct{}
	Entered chan struct{}
}

type broker struct {
	name, addr string
	slaves     []string
	nextPhys   int64
	// version overrides Fake.Version; serverSide is useServerSideResetOffset.
	version    *rocketmq.BrokerVersion
	serverSide bool
	// delay is how long every call to the broker takes; silent brokers never answer.
	delay  time.Duration
	silent bool
}

// Group is a consumer group as the fake's brokers know it.
type Group struct {
	Name         string
	Topics       []string
	Online       bool
	MessageModel string // "CLUSTERING" unless set
	Subscription string // "*" unless set
	// Clients are the online clients (one made-up client when Online is set without
	// them).
	Clients []Client
	// Offsets are the committed offsets per queue; a queue missing has none. Change
	// them through SetOffset once calls are under way.
	Offsets map[rocketmq.MessageQueue]int64
	// OffsetErr, when set, is what reading the group's offset answers.
	OffsetErr error
}

func (g *Group) online() bool { return g.Online || len(g.Clients) > 0 }

// Client is one online client of a group.
type Client struct {
	ID string
	// Topics are its subscriptions; the group's Topics when nil.
	Topics []string
	// Holds are the queues its running info lists (its share of the rebalance).
	Holds []rocketmq.MessageQueue
	// Strategy is the allocation strategy it reports ("" reports none, as Go clients).
	Strategy string
	// Fail, when set, is what asking for its running info answers.
	Fail error
	// Orderly: its listener is MessageListenerOrderly (PROP_CONSUMEORDERLY "true").
	Orderly bool
}

func (g *Group) clients() []Client {
	if len(g.Clients) == 0 && g.Online {
		return []Client{{ID: "10.0.0.7@1"}}
	}
	return g.Clients
}

func (c Client) topics(g *Group) []string {
	if c.Topics != nil {
		return c.Topics
	}
	return g.Topics
}

// New returns an empty fake cluster.
func New() *Fake {
	return &Fake{
		queues:   map[rocketmq.MessageQueue][]*rocketmq.Message{},
		topics:   map[string]map[string]int{},
		groups:   map[string]*Group{},
		calls:    map[string]int{},
		down:     map[string]bool{},
		timedOut: map[string]bool{}, askedAgain: map[string]int{}, failOn: map[string]error{},
		Version: rocketmq.BrokerVersion{Ordinal: rocketmq.VersionOrdinal5_3_3, Name: "V5_3_3"},
	}
}

// AddBroker adds a broker master at addr ("127.0.0.1:10911"), of Version.
func (f *Fake) AddBroker(name, addr string) {
	f.brokers = append(f.brokers, &broker{name: name, addr: addr, serverSide: f.Version.AtLeast(rocketmq.VersionOrdinal5_2_0)})
}

// SetVersion makes the named broker run v; from 5.2 it resets offsets itself
// (useServerSideResetOffset), as its default configuration does.
func (f *Fake) SetVersion(name string, v rocketmq.BrokerVersion) {
	f.mu.Lock()
	defer f.mu.Unlock()
	b := f.broker(name)
	b.version, b.serverSide = &v, v.AtLeast(rocketmq.VersionOrdinal5_2_0)
}

// SetServerSideReset sets the named broker's useServerSideResetOffset (5.1+).
func (f *Fake) SetServerSideReset(name string, on bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.broker(name).serverSide = on
}

func (f *Fake) versionOf(b *broker) rocketmq.BrokerVersion {
	if b.version != nil {
		return *b.version
	}
	return f.Version
}

// AddSlave adds a slave at addr to the named broker; reads the master does not answer go
// to it.
func (f *Fake) AddSlave(name, addr string) {
	b := f.broker(name)
	b.slaves = append(b.slaves, addr)
}

// RemoveMaster takes the named broker's master away (killed), leaving its slaves
// registered, as the NameServer does when only the master's connection closes.
func (f *Fake) RemoveMaster(name string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.broker(name).addr = ""
}

// RemoveBroker takes the broker out of the cluster info and every route, as the
// NameServer does when a broker is killed; its messages stay (it may come back).
func (f *Fake) RemoveBroker(name string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.brokers = slices.DeleteFunc(f.brokers, func(b *broker) bool { return b.name == name })
}

// Slow makes every call to the named broker take d before it answers (or its context
// ends).
func (f *Fake) Slow(name string, d time.Duration) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.broker(name).delay = d
}

// SlowAll makes every broker (those added so far) take d per call.
func (f *Fake) SlowAll(d time.Duration) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, b := range f.brokers {
		b.delay = d
	}
}

// Silent makes the named broker accept calls and never answer, like a frozen process
// (SIGSTOP): each call ends only when its context does.
func (f *Fake) Silent(name string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.broker(name).silent = true
}

// Down makes addr refuse connections, like a killed process.
func (f *Fake) Down(addr string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.down[addr] = true
}

// AddTopic creates topic with n queues on each named broker.
func (f *Fake) AddTopic(topic string, n int, brokers ...string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.topics[topic] == nil {
		f.topics[topic] = map[string]int{}
	}
	for _, b := range brokers {
		f.topics[topic][b] = n
	}
}

// Put stores m in a queue: it fills in topic, queue id, queue offset, commit-log offset,
// store host and store size, and returns m.
func (f *Fake) Put(topic, brokerName string, queueID int, m *rocketmq.Message) *rocketmq.Message {
	b := f.broker(brokerName)
	mq := rocketmq.MessageQueue{Topic: topic, BrokerName: brokerName, QueueID: queueID}
	// Locked: a live tail's readers may pull while a test stores.
	f.mu.Lock()
	defer f.mu.Unlock()
	m.Topic, m.QueueID = topic, queueID
	m.QueueOffset = int64(len(f.queues[mq]))
	m.CommitLogOffset = b.nextPhys
	m.StoreHost = netip.MustParseAddrPort(b.addr)
	if !m.BornHost.IsValid() {
		m.BornHost = netip.MustParseAddrPort("10.0.0.9:40000")
	}
	if m.BornTimestamp == 0 {
		m.BornTimestamp = m.StoreTimestamp - 3
	}
	if m.StoreSize == 0 {
		m.StoreSize = 100 + len(m.Body)
	}
	b.nextPhys += int64(m.StoreSize)
	f.queues[mq] = append(f.queues[mq], m)
	return m
}

// NewMessage builds a message with a body, tag, keys and store time; UNIQ_KEY is set
// from uniq when not empty.
func NewMessage(body, tag string, keys []string, uniq string, stored time.Time) *rocketmq.Message {
	props := map[string]string{}
	if tag != "" {
		props[rocketmq.PropertyTags] = tag
	}
	if len(keys) > 0 {
		props[rocketmq.PropertyKeys] = strings.Join(keys, " ")
	}
	if uniq != "" {
		props[rocketmq.PropertyUniqueKey] = uniq
	}
	return &rocketmq.Message{Body: []byte(body), Properties: props, StoreTimestamp: stored.UnixMilli(), StoredBodySize: len(body)}
}

// AddGroup registers a consumer group.
func (f *Fake) AddGroup(g *Group) {
	if g.MessageModel == "" {
		g.MessageModel = "CLUSTERING"
	}
	if g.Subscription == "" {
		g.Subscription = "*"
	}
	f.groups[g.Name] = g
}

// Calls returns how many times each Admin method was called.
func (f *Fake) Calls() map[string]int {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := map[string]int{}
	for k, v := range f.calls {
		out[k] = v
	}
	return out
}

// AskedAgain counts the calls to the named broker that started after one of its calls
// had timed out. An operation that asks independent questions at once, and does not ask a
// broker that failed again, keeps it at 0: its caller waits for one timeout, not several.
func (f *Fake) AskedAgain(name string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.askedAgain[name]
}

// CallsTo counts the calls to the named broker (master and slaves).
func (f *Fake) CallsTo(name string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.perBroker[name]
}

// PeakInFlight is the most calls that were in flight at once (a slow broker makes calls
// overlap).
func (f *Fake) PeakInFlight() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.peak
}

// BrokerCalls returns how many calls went to brokers (NameServer calls not counted).
func (f *Fake) BrokerCalls() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.brokerCalls
}

func (f *Fake) broker(name string) *broker {
	for _, b := range f.brokers {
		if b.name == name {
			return b
		}
	}
	panic("clustertest: no broker " + name)
}

func (f *Fake) brokerAt(addr string) (*broker, error) {
	if !f.down[addr] {
		for _, b := range f.brokers {
			if b.addr == addr || slices.Contains(b.slaves, addr) {
				return b, nil
			}
		}
	}
	return nil, &rocketmq.ConnError{Addr: addr, Err: fmt.Errorf("connection refused")}
}

// enter counts a call and applies failure injection.
func (f *Fake) enter(ctx context.Context, op, addr string) (*broker, error) {
	f.mu.Lock()
	f.inFlight++
	f.peak = max(f.peak, f.inFlight)
	f.mu.Unlock()
	defer func() {
		f.mu.Lock()
		f.inFlight--
		f.mu.Unlock()
	}()
	f.mu.Lock()
	f.calls[op]++
	var b *broker
	var err error
	if addr != "" {
		f.brokerCalls++
		b, err = f.brokerAt(addr)
	}
	fail := f.Fail
	failOn := f.failOn[op+"@"+addr]
	f.mu.Unlock()
	if err != nil {
		return nil, err
	}
	if failOn != nil {
		return nil, failOn
	}
	name := ""
	var delay time.Duration
	silent := false
	if b != nil {
		name = b.name
		f.mu.Lock()
		delay, silent = b.delay, b.silent && addr == b.addr
		f.mu.Unlock()
	}
	if b != nil {
		f.mu.Lock()
		if f.perBroker == nil {
			f.perBroker = map[string]int{}
		}
		f.perBroker[name]++
		if f.timedOut[name] {
			f.askedAgain[name]++
		}
		f.mu.Unlock()
	}
	if silent || delay > 0 {
		if err := f.wait(ctx, name, addr, delay, silent); err != nil {
			return nil, err
		}
	}
	if fail != nil {
		if err := fail(op, name); err != nil {
			return nil, err
		}
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return b, nil
}

func (b *broker) data() rocketmq.BrokerData {
	addrs := map[int64]string{}
	if b.addr != "" {
		addrs[0] = b.addr
	}
	for i, s := range b.slaves {
		addrs[int64(i+1)] = s
	}
	return rocketmq.BrokerData{Cluster: "DefaultCluster", BrokerName: b.name, Addrs: addrs}
}

// SubscriptionGroupNames answers the names of SubscriptionGroups (counted as it).
func (f *Fake) SubscriptionGroupNames(ctx context.Context, addr string) (rocketmq.GroupNames, error) {
	t, err := f.SubscriptionGroups(ctx, addr)
	if err != nil {
		return nil, err
	}
	names := make(rocketmq.GroupNames, len(t.Groups))
	for g := range t.Groups {
		names[g] = struct{}{}
	}
	return names, nil
}

// SubscriptionGroups answers every group added to the fake as configured on every broker.
func (f *Fake) SubscriptionGroups(ctx context.Context, addr string) (*rocketmq.SubscriptionGroupTable, error) {
	if _, err := f.enter(ctx, "SubscriptionGroups", addr); err != nil {
		return nil, err
	}
	t := &rocketmq.SubscriptionGroupTable{Groups: map[string]rocketmq.SubscriptionGroupConfig{}}
	for name := range f.groups {
		t.Groups[name] = DefaultGroupConfig(name)
	}
	return t, nil
}

// DefaultGroupConfig is a subscription group as a 5.3.3 broker creates it with its
// defaults (a consumer's first heartbeat, or mqadmin updateSubGroup without options).
func DefaultGroupConfig(name string) rocketmq.SubscriptionGroupConfig {
	return rocketmq.SubscriptionGroupConfig{GroupName: name, ConsumeEnable: true, ConsumeFromMinEnable: true, ConsumeBroadcastEnable: true,
		RetryQueueNums: 1, RetryMaxTimes: 16, WhichBrokerWhenConsumeSlowly: 1, NotifyConsumerIdsChangedEnable: true, ConsumeTimeoutMinute: 15}
}

// wait is a slow or silent broker's answer time, bounded by the context and CallTimeout.
func (f *Fake) wait(ctx context.Context, name, addr string, delay time.Duration, silent bool) error {
	var answer <-chan time.Time
	if !silent {
		t := time.NewTimer(delay)
		defer t.Stop()
		answer = t.C
	}
	var bound <-chan time.Time
	if f.CallTimeout > 0 {
		t := time.NewTimer(f.CallTimeout)
		defer t.Stop()
		bound = t.C
	}
	start := time.Now()
	select {
	case <-answer:
		return nil
	case <-bound:
	case <-ctx.Done():
	}
	f.mu.Lock()
	f.timedOut[name] = true
	f.mu.Unlock()
	return &rocketmq.TimeoutError{Addr: addr, Elapsed: time.Since(start)}
}

// ClusterInfo answers as a broker does.
func (f *Fake) ClusterInfo(ctx context.Context) (*rocketmq.ClusterInfo, error) {
	if _, err := f.enter(ctx, "ClusterInfo", ""); err != nil {
		return nil, err
	}
	ci := &rocketmq.ClusterInfo{Brokers: map[string]rocketmq.BrokerData{}, Clusters: map[string][]string{}}
	for _, b := range f.brokers {
		ci.Brokers[b.name] = b.data()
		ci.Clusters["DefaultCluster"] = append(ci.Clusters["DefaultCluster"], b.name)
	}
	return ci, nil
}

// TopicList answers as a broker does.
func (f *Fake) TopicList(ctx context.Context) ([]string, error) {
	if _, err := f.enter(ctx, "TopicList", ""); err != nil {
		return nil, err
	}
	var out []string
	for t := range f.topics {
		out = append(out, t)
	}
	sort.Strings(out)
	return out, nil
}

// TopicRoute answers as a broker does.
func (f *Fake) TopicRoute(ctx context.Context, topic string) (*rocketmq.TopicRoute, error) {
	if _, err := f.enter(ctx, "TopicRoute", ""); err != nil {
		return nil, err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	on, ok := f.topics[topic]
	if !ok {
		return nil, fmt.Errorf("route of topic %q: %w", topic, &rocketmq.BrokerError{Addr: "namesrv", Code: rocketmq.CodeTopicNotExist, Remark: "No topic route info in name server for the topic: " + topic})
	}
	r := &rocketmq.TopicRoute{Topic: topic}
	for _, b := range f.brokers {
		n, ok := on[b.name]
		if !ok {
			continue
		}
		r.QueueDatas = append(r.QueueDatas, rocketmq.QueueData{BrokerName: b.name, ReadQueueNums: n, WriteQueueNums: n, Perm: 6})
		r.BrokerDatas = append(r.BrokerDatas, b.data())
	}
	return r, nil
}

// TopicConfigs answers as a broker does.
func (f *Fake) TopicConfigs(ctx context.Context, addr string) (*rocketmq.TopicConfigTable, error) {
	b, err := f.enter(ctx, "TopicConfigs", addr)
	if err != nil {
		return nil, err
	}
	t := &rocketmq.TopicConfigTable{Topics: map[string]rocketmq.TopicConfig{}}
	for topic, on := range f.topics {
		if n, ok := on[b.name]; ok {
			t.Topics[topic] = rocketmq.TopicConfig{TopicName: topic, ReadQueueNums: n, WriteQueueNums: n, Perm: 6}
		}
	}
	return t, nil
}

// BrokerVersion answers as a broker does.
func (f *Fake) BrokerVersion(ctx context.Context, addr string) (rocketmq.BrokerVersion, error) {
	if _, err := f.enter(ctx, "BrokerVersion", addr); err != nil {
		return rocketmq.BrokerVersion{}, err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	b, _ := f.brokerAt(addr)
	return f.versionOf(b), nil
}

// SearchOffset answers as a broker does: from 5.x with LOWER semantics, the first offset
// stored at or after t (the max offset when all are older); a 4.x broker answers the
// message stored closest to t whatever the boundary; a 5.5 broker answers one past the
// max offset for a time after the last message, so a window up to now holds one message
// more than the queue (seen on 5.5.1: 2308 for 2300 messages in 8 queues).
func (f *Fake) SearchOffset(ctx context.Context, addr string, mq rocketmq.MessageQueue, t time.Time, boundary rocketmq.BoundaryType) (int64, error) {
	b, err := f.enter(ctx, "SearchOffset", addr)
	if err != nil {
		return 0, err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	v := f.versionOf(b)
	if !v.Is5() {
		return f.closestLocked(mq, t.UnixMilli()), nil
	}
	off := f.searchLocked(mq, t.UnixMilli(), boundary)
	if v.AtLeast(rocketmq.VersionOrdinal5_5_0) && boundary == rocketmq.BoundaryLower && off == int64(len(f.queues[mq])) {
		off++
	}
	return off, nil
}

func (f *Fake) searchLocked(mq rocketmq.MessageQueue, ms int64, boundary rocketmq.BoundaryType) int64 {
	msgs := f.queues[mq]
	i := sort.Search(len(msgs), func(i int) bool { return msgs[i].StoreTimestamp >= ms })
	if boundary == rocketmq.BoundaryUpper {
		j := sort.Search(len(msgs), func(i int) bool { return msgs[i].StoreTimestamp > ms })
		return int64(max(j-1, 0))
	}
	return int64(i)
}

// closestLocked is 4.x SEARCH_OFFSET: the message stored closest to ms, ties to the
// older one; the last message when every one is older.
func (f *Fake) closestLocked(mq rocketmq.MessageQueue, ms int64) int64 {
	msgs := f.queues[mq]
	best := 0
	for i, m := range msgs {
		if abs(m.StoreTimestamp-ms) < abs(msgs[best].StoreTimestamp-ms) {
			best = i
		}
	}
	return int64(best)
}

func abs(v int64) int64 {
	if v < 0 {
		return -v
	}
	return v
}

// Pull answers as a broker does, 32 messages at most.
func (f *Fake) Pull(ctx context.Context, addr string, mq rocketmq.MessageQueue, offset int64, maxNums int) (*rocketmq.PullResult, error) {
	if _, err := f.enter(ctx, "Pull", addr); err != nil {
		return nil, err
	}
	f.mu.Lock()
	msgs := f.queues[mq]
	f.mu.Unlock()
	n := int64(len(msgs))
	r := &rocketmq.PullResult{MinOffset: 0, MaxOffset: n}
	switch {
	case offset == n:
		r.Status, r.NextBeginOffset = rocketmq.PullNoNewMsg, n
		return r, nil
	case offset < 0 || offset > n:
		r.Status, r.NextBeginOffset = rocketmq.PullOffsetIllegal, n
		return r, nil
	}
	end := min(offset+int64(min(maxNums, 32)), n)
	r.Status, r.NextBeginOffset = rocketmq.PullFound, end
	r.Messages = slices.Clone(msgs[offset:end])
	return r, nil
}

// PullHeld is Pull: the fake holds no pull, it answers at once.
func (f *Fake) PullHeld(ctx context.Context, addr string, mq rocketmq.MessageQueue, offset int64, maxNums int, _ time.Duration) (*rocketmq.PullResult, error) {
	return f.Pull(ctx, addr, mq, offset, maxNums)
}

// QueryMessageByKey answers as a broker does: the newest maxNum messages with the key.
func (f *Fake) QueryMessageByKey(ctx context.Context, addr, topic, key string, maxNum int, begin, end time.Time) (*rocketmq.QueryResult, error) {
	b, err := f.enter(ctx, "QueryMessageByKey", addr)
	if err != nil {
		return nil, err
	}
	return f.query(b, topic, begin, end, maxNum, func(m *rocketmq.Message) bool { return slices.Contains(m.Keys(), key) }), nil
}

// QueryMessageByUniqueKey answers as a broker does.
func (f *Fake) QueryMessageByUniqueKey(ctx context.Context, addr, topic, uniqKey string, begin, end time.Time) (*rocketmq.QueryResult, error) {
	b, err := f.enter(ctx, "QueryMessageByUniqueKey", addr)
	if err != nil {
		return nil, err
	}
	return f.query(b, topic, begin, end, 32, func(m *rocketmq.Message) bool { return m.UniqueKey() == uniqKey }), nil
}

// query answers like a broker's index: an entry keeps its store time as whole seconds
// after the index file's first timestamp (here the broker's oldest message), so the
// time compared with [begin, end] can be up to a second before the real store time.
func (f *Fake) query(b *broker, topic string, begin, end time.Time, maxNum int, match func(*rocketmq.Message) bool) *rocketmq.QueryResult {
	fileBegin := int64(math.MaxInt64)
	for mq, msgs := range f.queues {
		if mq.BrokerName != b.name {
			continue
		}
		for _, m := range msgs {
			fileBegin = min(fileBegin, m.StoreTimestamp)
		}
	}
	var all []*rocketmq.Message
	for mq, msgs := range f.queues {
		if mq.Topic != topic || mq.BrokerName != b.name {
			continue
		}
		for _, m := range msgs {
			indexed := fileBegin + (m.StoreTimestamp-fileBegin)/1000*1000
			if !match(m) || (!begin.IsZero() && indexed < begin.UnixMilli()) || (!end.IsZero() && indexed > end.UnixMilli()) {
				continue
			}
			all = append(all, m)
		}
	}
	sort.Slice(all, func(i, j int) bool { return all[i].StoreTimestamp > all[j].StoreTimestamp })
	if len(all) > maxNum {
		all = all[:maxNum]
	}
	return &rocketmq.QueryResult{Messages: all}
}

// ViewMessageAt answers as a broker does.
func (f *Fake) ViewMessageAt(ctx context.Context, addr string, commitLogOffset int64, topic string) (*rocketmq.Message, error) {
	b, err := f.enter(ctx, "ViewMessageAt", addr)
	if err != nil {
		return nil, err
	}
	for mq, msgs := range f.queues {
		if mq.BrokerName != b.name {
			continue
		}
		for _, m := range msgs {
			if m.CommitLogOffset == commitLogOffset {
				return m, nil
			}
		}
	}
	return nil, fmt.Errorf("message at commit-log offset %d on %s: %w", commitLogOffset, addr, rocketmq.ErrMessageNotFound)
}

// TopicConsumerGroups answers as a broker does.
func (f *Fake) TopicConsumerGroups(ctx context.Context, addr, topic string) ([]string, error) {
	if _, err := f.enter(ctx, "TopicConsumerGroups", addr); err != nil {
		return nil, err
	}
	var out []string
	for name, g := range f.groups {
		if slices.Contains(g.Topics, topic) {
			out = append(out, name)
		}
	}
	sort.Strings(out)
	return out, nil
}

// PollingInfo answers as a broker with no parked POP request does.
func (f *Fake) PollingInfo(ctx context.Context, addr, group, topic string, queueID int) (int, error) {
	if _, err := f.enter(ctx, "PollingInfo", addr); err != nil {
		return 0, err
	}
	return 0, nil
}

// ConsumerConnections answers as a broker does.
func (f *Fake) ConsumerConnections(ctx context.Context, addr, group string) (*rocketmq.ConsumerConnection, error) {
	if _, err := f.enter(ctx, "ConsumerConnections", addr); err != nil {
		return nil, err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	g := f.groups[group]
	if g == nil || !g.online() {
		return nil, fmt.Errorf("connections of consumer group %q on %s: %w", group, addr, notOnline(addr))
	}
	cc := &rocketmq.ConsumerConnection{
		Subscriptions: map[string]rocketmq.SubscriptionData{},
		MessageModel:  g.MessageModel, ConsumeType: "CONSUME_PASSIVELY", ConsumeFromWhere: "CONSUME_FROM_LAST_OFFSET",
	}
	for _, c := range g.clients() {
		cc.Connections = append(cc.Connections, rocketmq.Connection{ClientID: c.ID, ClientAddr: "10.0.0.9:1", Language: "GO", Version: 317})
		for _, t := range c.topics(g) {
			cc.Subscriptions[t] = subscription(t, g.Subscription)
		}
	}
	slices.SortFunc(cc.Connections, func(a, b rocketmq.Connection) int { return strings.Compare(a.ClientID, b.ClientID) })
	return cc, nil
}

// subscription is a tag subscription as a client's heartbeat registers it.
func subscription(topic, expr string) rocketmq.SubscriptionData {
	return rocketmq.SubscriptionData{Topic: topic, SubString: expr, ExpressionType: "TAG", SubVersion: 1_795_966_500_000}
}

// QueryConsumerOffset answers as a broker does.
func (f *Fake) QueryConsumerOffset(ctx context.Context, addr, group string, mq rocketmq.MessageQueue) (int64, error) {
	if _, err := f.enter(ctx, "QueryConsumerOffset", addr); err != nil {
		return 0, err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	g := f.groups[group]
	if g != nil && g.OffsetErr != nil {
		return 0, fmt.Errorf("consumer offset of %q for %s on %s: %w", group, mq, addr, g.OffsetErr)
	}
	if g != nil {
		if off, ok := g.Offsets[mq]; ok {
			return off, nil
		}
	}
	return 0, fmt.Errorf("consumer offset of %q for %s on %s: %w", group, mq, addr, rocketmq.ErrNoConsumerOffset)
}
