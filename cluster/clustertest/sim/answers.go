package sim

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"rmqconsole/cluster/clustertest"
	"rmqconsole/rocketmq"
)

// The answers of the NameServer and of each broker, one method per request, in the order
// of clustertest.Answers.

// systemTopic is a topic a 5.3.3 broker creates for itself; {cluster} and {broker} stand
// for its cluster's and its own name.
type systemTopic struct {
	name   string
	queues int
	perm   int
}

var systemTopics = []systemTopic{
	{"SCHEDULE_TOPIC_XXXX", 18, 6}, {"SELF_TEST_TOPIC", 1, 6}, {"rmq_sys_wheel_timer", 1, 6}, {"{cluster}", 16, 7},
	{"{cluster}_REPLY_TOPIC", 1, 6}, {"rmq_sys_REVIVE_LOG_{cluster}", 8, 6}, {"RMQ_SYS_TRANS_HALF_TOPIC", 1, 6},
	{"rmq_sys_SYNC_BROKER_MEMBER_{broker}", 1, 1}, {"{broker}", 1, 7}, {"RMQ_SYS_TRANS_OP_HALF_TOPIC", 1, 6},
	{"TBW102", 8, 7}, {"BenchmarkTest", 1024, 6}, {"OFFSET_MOVED_EVENT", 1, 6},
}

// systemGroups are the subscription groups a 5.3.3 broker creates for itself.
var systemGroups = []string{"SELF_TEST_C_GROUP", "CID_ONSAPI_OWNER", "CID_ONSAPI_PERMISSION", "CID_RMQ_SYS_TRANS",
	"TOOLS_CONSUMER", "CID_ONS-HTTP-PROXY", "FILTERSRV_CONSUMER", "CID_ONSAPI_PULL"}

func (c *Cluster) systemTopicName(t systemTopic, b int) string {
	return strings.NewReplacer("{cluster}", ClusterName(c.clusterOfBroker(b)), "{broker}", BrokerName(b)).Replace(t.name)
}

// ---- NameServer ----------------------------------------------------------------------------

// ClusterInfo lists every broker by cluster.
func (c *Cluster) ClusterInfo(context.Context) (*rocketmq.ClusterInfo, error) {
	ci := &rocketmq.ClusterInfo{Brokers: map[string]rocketmq.BrokerData{}, Clusters: map[string][]string{}}
	for b, addr := range c.addrs {
		cl := ClusterName(c.clusterOfBroker(b))
		ci.Brokers[BrokerName(b)] = rocketmq.BrokerData{Cluster: cl, BrokerName: BrokerName(b), Addrs: map[int64]string{0: addr}}
		ci.Clusters[cl] = append(ci.Clusters[cl], BrokerName(b))
	}
	return ci, nil
}

// TopicList names every topic the brokers registered: theirs, the system topics and the
// retry topics of online groups.
func (c *Cluster) TopicList(context.Context) ([]string, error) {
	var out []string
	for i := range c.shape.Topics + 1 {
		out = append(out, c.TopicName(i))
	}
	seen := map[string]bool{}
	for b := range c.shape.Brokers {
		for _, t := range systemTopics {
			if n := c.systemTopicName(t, b); !seen[n] {
				seen[n] = true
				out = append(out, n)
			}
		}
	}
	for j := range c.shape.Groups {
		if c.online(j) {
			out = append(out, rocketmq.RetryTopic(c.GroupName(j)))
		}
	}
	return out, nil
}

// TopicRoute is where a topic lives: its cluster's brokers.
func (c *Cluster) TopicRoute(_ context.Context, topic string) (*rocketmq.TopicRoute, error) {
	r := &rocketmq.TopicRoute{Topic: topic}
	add := func(b, queues, perm int) {
		r.QueueDatas = append(r.QueueDatas, rocketmq.QueueData{BrokerName: BrokerName(b), ReadQueueNums: queues, WriteQueueNums: queues, Perm: perm})
		r.BrokerDatas = append(r.BrokerDatas, rocketmq.BrokerData{Cluster: ClusterName(c.clusterOfBroker(b)), BrokerName: BrokerName(b),
			Addrs: map[int64]string{0: c.addrs[b]}})
	}
	if i, ok := c.topicIndex(topic); ok {
		for _, b := range c.brokersOfCluster(c.clusterOfTopic(i)) {
			add(b, c.shape.QueuesPerBroker, 6)
		}
		return r, nil
	}
	if g, ok := strings.CutPrefix(topic, rocketmq.RetryTopicPrefix); ok {
		if j, ok := c.groupIndex(g); ok && c.online(j) {
			for b := range c.shape.Brokers {
				if c.groupOn(j, b) {
					add(b, 1, 6)
				}
			}
			return r, nil
		}
	}
	for b := range c.shape.Brokers {
		for _, t := range systemTopics {
			if c.systemTopicName(t, b) == topic {
				add(b, t.queues, t.perm)
			}
		}
	}
	if len(r.QueueDatas) == 0 {
		return nil, &rocketmq.BrokerError{Code: rocketmq.CodeTopicNotExist, Remark: "No topic route info in name server for the topic: " + topic}
	}
	return r, nil
}

// ---- a broker and its topics ---------------------------------------------------------------

// BrokerVersion: every simulated broker runs 5.3.3.
func (c *Cluster) BrokerVersion(_ context.Context, addr string) (rocketmq.BrokerVersion, error) {
	if _, err := c.brokerAt(addr); err != nil {
		return rocketmq.BrokerVersion{}, err
	}
	return rocketmq.BrokerVersion{Ordinal: rocketmq.VersionOrdinal5_3_3, Name: "V5_3_3"}, nil
}

// runtimeKeys are the keys of a 5.3.3 broker's runtime table besides those computed.
var runtimeKeys = []string{"EndTransactionQueueSize", "EndTransactionThreadPoolQueueCapacity", "ackThreadPoolQueueCapacity",
	"ackThreadPoolQueueHeadWaitTimeMills", "ackThreadPoolQueueSize", "brokerActive", "commitLogDirCapacity", "commitLogMinOffset",
	"consumeQueueDiskRatio", "dispatchBehindBytes", "dispatchMaxBuffer", "getFoundTps", "getMessageEntireTimeMax", "getMissTps",
	"getTotalTps", "litePullThreadPoolQueueCapacity", "litePullThreadPoolQueueHeadWaitTimeMills", "litePullThreadPoolQueueSize",
	"msgGetTotalTodayMorning", "msgGetTotalYesterdayMorning", "msgPutTotalTodayMorning", "msgPutTotalYesterdayMorning",
	"pageCacheLockTimeMills", "pullThreadPoolQueueCapacity", "pullThreadPoolQueueHeadWaitTimeMills", "pullThreadPoolQueueSize",
	"putLatency99", "putLatency999", "putMessageAverageSize", "putMessageDistributeTime", "putMessageEntireTimeMax",
	"putMessageFailedTimes", "putMessageSizeTotal", "putMessageTimesTotal", "queryThreadPoolQueueCapacity",
	"queryThreadPoolQueueHeadWaitTimeMills", "queryThreadPoolQueueSize", "remainHowManyDataToFlush",
	"remainTransientStoreBufferNumbs", "sendThreadPoolQueueCapacity", "sendThreadPoolQueueHeadWaitTimeMills",
	"sendThreadPoolQueueSize", "startAcceptSendRequestTimeStamp", "timerCongestNum", "timerDequeueTps", "timerEnqueueTps",
	"timerOffsetBehind", "timerReadBehind"}

// BrokerRuntimeInfo answers the broker's version, rates and disk use; its put rate is the
// sum of its topics'.
func (c *Cluster) BrokerRuntimeInfo(_ context.Context, addr string) (*rocketmq.BrokerRuntimeInfo, error) {
	b, err := c.brokerAt(addr)
	if err != nil {
		return nil, err
	}
	var put float64
	for i := range c.shape.Topics + 1 {
		if c.topicOn(i, b) {
			put += c.rate(i) * float64(c.shape.QueuesPerBroker)
		}
	}
	now := c.now()
	tps := fmt.Sprintf("%g %g %g", put, put, put)
	t := map[string]string{
		"brokerVersionDesc": "V5_3_3", "brokerVersion": strconv.Itoa(rocketmq.VersionOrdinal5_3_3),
		"putTps": tps, "getTransferredTps": tps, "commitLogDiskRatio": "0.17",
		"commitLogDiskRatio_/data/store/commitlog": "0.17", "bootTimestamp": strconv.FormatInt(c.born.UnixMilli(), 10),
		"earliestMessageTimeStamp": strconv.FormatInt(c.born.UnixMilli(), 10),
		"commitLogMaxOffset":       strconv.FormatInt(int64(put*now.Sub(c.born).Seconds())*300, 10),
		"msgPutTotalTodayNow":      strconv.FormatInt(int64(put*86400), 10), "msgGetTotalTodayNow": strconv.FormatInt(int64(put*86400), 10),
		"runtime": "[ 7 days, 0 hours, 0 minutes, 0 seconds ]",
	}
	for _, k := range runtimeKeys {
		t[k] = "0"
	}
	return &rocketmq.BrokerRuntimeInfo{Table: t}, nil
}

// BrokerConfig answers the settings the console reads, among others.
func (c *Cluster) BrokerConfig(_ context.Context, addr string) (map[string]string, error) {
	b, err := c.brokerAt(addr)
	if err != nil {
		return nil, err
	}
	return map[string]string{
		"brokerName": BrokerName(b), "brokerClusterName": ClusterName(c.clusterOfBroker(b)), "brokerId": "0",
		"brokerIP1": "127.0.0.1", "listenPort": addr[len(addr)-5:], "brokerRole": "ASYNC_MASTER", "flushDiskType": "ASYNC_FLUSH",
		"useServerSideResetOffset": "true", "traceTopicEnable": "false", "msgTraceTopicName": "RMQ_SYS_TRACE_TOPIC",
		"autoCreateTopicEnable": "false", "autoCreateSubscriptionGroup": "true", "enablePropertyFilter": "false",
		"fileReservedTime": "72", "maxMessageSize": "4194304", "namesrvAddr": "127.0.0.1:9876",
	}, nil
}

// TopicConfigs lists the broker's topics: its cluster's, the hot one on the first
// cluster, its system topics and the retry topics of its online groups.
func (c *Cluster) TopicConfigs(_ context.Context, addr string) (*rocketmq.TopicConfigTable, error) {
	b, err := c.brokerAt(addr)
	if err != nil {
		return nil, err
	}
	t := &rocketmq.TopicConfigTable{DataVersion: rocketmq.DataVersion{Timestamp: c.born.UnixMilli(), Counter: 1},
		Topics: map[string]rocketmq.TopicConfig{}}
	add := func(name string, queues, perm int) {
		t.Topics[name] = rocketmq.TopicConfig{TopicName: name, ReadQueueNums: queues, WriteQueueNums: queues, Perm: perm,
			TopicFilterType: "SINGLE_TAG", Attributes: map[string]string{}}
	}
	for _, st := range systemTopics {
		add(c.systemTopicName(st, b), st.queues, st.perm)
	}
	for i := range c.shape.Topics + 1 {
		if c.topicOn(i, b) {
			add(c.TopicName(i), c.shape.QueuesPerBroker, 6)
		}
	}
	// A 5.x broker keeps the type a topic was created with as an attribute; the first
	// topic carries one, as topics created through the console do.
	if c.topicOn(0, b) {
		t.Topics[c.TopicName(0)].Attributes["message.type"] = "NORMAL"
	}
	c.eachGroupOn(b, func(j int) {
		if c.online(j) {
			add(rocketmq.RetryTopic(c.GroupName(j)), 1, 6)
		}
	})
	return t, nil
}

// TopicStats answers the offset range of the topic's queues on the broker and its put
// rate; a topic the broker does not have is TOPIC_NOT_EXIST.
func (c *Cluster) TopicStats(_ context.Context, addr, topic string) (*rocketmq.TopicStats, error) {
	b, err := c.brokerAt(addr)
	if err != nil {
		return nil, err
	}
	st := &rocketmq.TopicStats{Offsets: map[rocketmq.MessageQueue]rocketmq.TopicOffset{}, HasPutTps: true}
	now := c.now()
	if i, ok := c.topicIndex(topic); ok && c.topicOn(i, b) {
		last := c.maxOffset(i, now)
		for q := range c.shape.QueuesPerBroker {
			st.Offsets[c.queue(i, b, q)] = rocketmq.TopicOffset{MaxOffset: last, LastUpdateTimestamp: c.storeTime(i, last-1)}
		}
		st.PutTps = c.rate(i) * float64(c.shape.QueuesPerBroker)
		return st, nil
	}
	// Retry and system topics hold nothing here.
	tc, _ := c.TopicConfigs(context.Background(), addr)
	cfg, ok := tc.Topics[topic]
	if !ok {
		return nil, &rocketmq.BrokerError{Addr: addr, Code: rocketmq.CodeTopicNotExist, Remark: "topic[" + topic + "] not exist"}
	}
	for q := range cfg.ReadQueueNums {
		st.Offsets[rocketmq.MessageQueue{Topic: topic, BrokerName: BrokerName(b), QueueID: q}] = rocketmq.TopicOffset{}
	}
	return st, nil
}

// userQueue resolves a queue of an application topic on the broker at addr.
func (c *Cluster) userQueue(addr string, mq rocketmq.MessageQueue) (i, b int, ok bool) {
	b, err := c.brokerAt(addr)
	if err != nil {
		return 0, 0, false
	}
	i, ok = c.topicIndex(mq.Topic)
	return i, b, ok && c.topicOn(i, b) && mq.QueueID >= 0 && mq.QueueID < c.shape.QueuesPerBroker
}

// SearchOffset answers the first offset stored at or after t (LOWER, 5.x), or the last at
// or before it (UPPER).
func (c *Cluster) SearchOffset(_ context.Context, addr string, mq rocketmq.MessageQueue, t time.Time, boundary rocketmq.BoundaryType) (int64, error) {
	i, _, ok := c.userQueue(addr, mq)
	if !ok {
		return 0, nil
	}
	last := c.maxOffset(i, c.now())
	x := t.Sub(c.born).Seconds() * c.rate(i)
	off := int64(math.Ceil(x))
	if boundary == rocketmq.BoundaryUpper {
		off = int64(math.Floor(x))
	}
	return min(max(off, 0), last), nil
}

// Pull answers up to 32 messages from offset.
func (c *Cluster) Pull(_ context.Context, addr string, mq rocketmq.MessageQueue, offset int64, maxNums int) (*rocketmq.PullResult, error) {
	i, b, ok := c.userQueue(addr, mq)
	r := &rocketmq.PullResult{}
	if !ok {
		r.Status = rocketmq.PullNoNewMsg
		return r, nil
	}
	r.MaxOffset = c.maxOffset(i, c.now())
	switch {
	case offset == r.MaxOffset:
		r.Status, r.NextBeginOffset = rocketmq.PullNoNewMsg, offset
		return r, nil
	case offset < 0 || offset > r.MaxOffset:
		r.Status, r.NextBeginOffset = rocketmq.PullOffsetIllegal, r.MaxOffset
		return r, nil
	}
	end := min(offset+int64(min(max(maxNums, 1), 32)), r.MaxOffset)
	for o := offset; o < end; o++ {
		r.Messages = append(r.Messages, c.message(i, b, mq.QueueID, o))
	}
	r.Status, r.NextBeginOffset = rocketmq.PullFound, end
	return r, nil
}

// ViewMessageAt reads the message a commit-log offset names.
func (c *Cluster) ViewMessageAt(_ context.Context, addr string, clo int64, _ string) (*rocketmq.Message, error) {
	b, err := c.brokerAt(addr)
	if err != nil {
		return nil, err
	}
	i, q, o := splitCommitLogOffset(clo)
	if i < 0 || i > c.hot() || !c.topicOn(i, b) || q >= c.shape.QueuesPerBroker || o >= c.maxOffset(i, c.now()) {
		return nil, fmt.Errorf("message at commit-log offset %d on %s: %w", clo, addr, rocketmq.ErrMessageNotFound)
	}
	return c.message(i, b, q, o), nil
}

// ---- consumer groups -------------------------------------------------------------------------

// SubscriptionGroups lists the broker's groups: its system groups and the groups of its
// topics, each with a 5.3.3 broker's defaults.
func (c *Cluster) SubscriptionGroups(_ context.Context, addr string) (*rocketmq.SubscriptionGroupTable, error) {
	b, err := c.brokerAt(addr)
	if err != nil {
		return nil, err
	}
	t := &rocketmq.SubscriptionGroupTable{DataVersion: rocketmq.DataVersion{Timestamp: c.born.UnixMilli(), Counter: 1},
		Groups: map[string]rocketmq.SubscriptionGroupConfig{}}
	for _, g := range systemGroups {
		t.Groups[g] = clustertest.DefaultGroupConfig(g)
	}
	c.eachGroupOn(b, func(j int) { t.Groups[c.GroupName(j)] = clustertest.DefaultGroupConfig(c.GroupName(j)) })
	return t, nil
}

// groupStats is group j's consume stats on broker b: every queue of its topics there (of
// topic alone when set), its retry queue when online.
func (c *Cluster) groupStats(j, b int, topic string, now time.Time) *rocketmq.ConsumeStats {
	cs := &rocketmq.ConsumeStats{Offsets: map[rocketmq.MessageQueue]rocketmq.OffsetWrapper{}}
	for _, i := range c.topicsOf(j) {
		if !c.topicOn(i, b) || (topic != "" && topic != c.TopicName(i)) {
			continue
		}
		last := c.maxOffset(i, now)
		for q := range c.shape.QueuesPerBroker {
			off := c.consumerOffset(j, i, b, q, now)
			o := rocketmq.OffsetWrapper{BrokerOffset: last, ConsumerOffset: off, PullOffset: off}
			if off > 0 {
				o.LastTimestamp = c.storeTime(i, off-1)
			}
			cs.Offsets[c.queue(i, b, q)] = o
			if c.online(j) {
				cs.ConsumeTps += c.rate(i)
			}
		}
	}
	retry := rocketmq.RetryTopic(c.GroupName(j))
	if c.online(j) && (topic == "" || topic == retry) {
		cs.Offsets[rocketmq.MessageQueue{Topic: retry, BrokerName: BrokerName(b)}] = rocketmq.OffsetWrapper{}
	}
	return cs
}

// BrokerConsumeStats answers every group of the broker in one answer.
func (c *Cluster) BrokerConsumeStats(_ context.Context, addr string) (*rocketmq.BrokerConsumeStats, error) {
	b, err := c.brokerAt(addr)
	if err != nil {
		return nil, err
	}
	now := c.now()
	out := &rocketmq.BrokerConsumeStats{BrokerAddr: addr, Groups: map[string]*rocketmq.ConsumeStats{}}
	for _, g := range systemGroups {
		out.Groups[g] = &rocketmq.ConsumeStats{Offsets: map[rocketmq.MessageQueue]rocketmq.OffsetWrapper{}}
	}
	c.eachGroupOn(b, func(j int) {
		cs := c.groupStats(j, b, "", now)
		out.Groups[c.GroupName(j)] = cs
		out.TotalDiff += cs.TotalLag()
	})
	return out, nil
}

// ConsumeStats answers one group's offsets on the broker.
func (c *Cluster) ConsumeStats(_ context.Context, addr, group, topic string) (*rocketmq.ConsumeStats, error) {
	b, err := c.brokerAt(addr)
	if err != nil {
		return nil, err
	}
	j, ok := c.groupIndex(group)
	if !ok || !c.groupOn(j, b) {
		return &rocketmq.ConsumeStats{Offsets: map[rocketmq.MessageQueue]rocketmq.OffsetWrapper{}}, nil
	}
	return c.groupStats(j, b, topic, c.now()), nil
}

// ConsumerOffsets answers the broker's offset table.
func (c *Cluster) ConsumerOffsets(_ context.Context, addr string) (map[string]map[string]map[int]int64, error) {
	b, err := c.brokerAt(addr)
	if err != nil {
		return nil, err
	}
	now := c.now()
	out := map[string]map[string]map[int]int64{}
	c.eachGroupOn(b, func(j int) {
		byTopic := map[string]map[int]int64{}
		for mq, o := range c.groupStats(j, b, "", now).Offsets {
			if byTopic[mq.Topic] == nil {
				byTopic[mq.Topic] = map[int]int64{}
			}
			byTopic[mq.Topic][mq.QueueID] = o.ConsumerOffset
		}
		out[c.GroupName(j)] = byTopic
	})
	return out, nil
}

// QueryConsumerOffset answers a group's committed offset on one queue; on a queue it
// never committed an offset for, 0, as a broker does while the queue still starts at 0.
func (c *Cluster) QueryConsumerOffset(_ context.Context, addr, group string, mq rocketmq.MessageQueue) (int64, error) {
	i, b, ok := c.userQueue(addr, mq)
	if !ok {
		return 0, fmt.Errorf("consumer offset of %q for %s on %s: %w", group, mq, addr, rocketmq.ErrNoConsumerOffset)
	}
	j, isGroup := c.groupIndex(group)
	if !isGroup || (c.ownTopic(j) != i && (!c.hotGroup(j) || i != c.hot())) {
		return 0, nil
	}
	return c.consumerOffset(j, i, b, mq.QueueID, c.now()), nil
}

// TopicConsumerGroups answers the groups with offsets for the topic on the broker.
func (c *Cluster) TopicConsumerGroups(_ context.Context, addr, topic string) ([]string, error) {
	b, err := c.brokerAt(addr)
	if err != nil {
		return nil, err
	}
	out := []string{}
	if i, ok := c.topicIndex(topic); ok && c.topicOn(i, b) {
		for _, j := range c.consumers(i) {
			out = append(out, c.GroupName(j))
		}
	}
	return out, nil
}

// ConsumeTimeSpan answers, per queue of the topic on the broker, its first and last store
// times, the store time of the last message the group consumed and how long the next one
// has waited.
func (c *Cluster) ConsumeTimeSpan(_ context.Context, addr, topic, group string) ([]rocketmq.QueueTimeSpan, error) {
	b, err := c.brokerAt(addr)
	if err != nil {
		return nil, err
	}
	i, ok := c.topicIndex(topic)
	if !ok || !c.topicOn(i, b) {
		return nil, &rocketmq.BrokerError{Addr: addr, Code: rocketmq.CodeTopicNotExist, Remark: "topic[" + topic + "] not exist"}
	}
	j, isGroup := c.groupIndex(group)
	now := c.now()
	last := c.maxOffset(i, now)
	var out []rocketmq.QueueTimeSpan
	for q := range c.shape.QueuesPerBroker {
		sp := rocketmq.QueueTimeSpan{MessageQueue: c.queue(i, b, q), MinTimeStamp: c.storeTime(i, 0), MaxTimeStamp: c.storeTime(i, last-1)}
		if isGroup {
			off := c.consumerOffset(j, i, b, q, now)
			if off > 0 {
				sp.ConsumeTimeStamp = c.storeTime(i, off-1)
			}
			if off < last {
				sp.DelayTime = now.UnixMilli() - c.storeTime(i, off)
			}
		}
		out = append(out, sp)
	}
	return out, nil
}

// ConsumerConnections answers the group's clients; they heartbeat to every broker of
// their topics.
func (c *Cluster) ConsumerConnections(_ context.Context, addr, group string) (*rocketmq.ConsumerConnection, error) {
	b, err := c.brokerAt(addr)
	if err != nil {
		return nil, err
	}
	j, ok := c.groupIndex(group)
	if !ok || !c.online(j) || !c.groupOn(j, b) {
		return nil, &rocketmq.BrokerError{Addr: addr, Code: rocketmq.CodeConsumerNotOnline, Remark: "the consumer group[" + group + "] not online"}
	}
	cc := &rocketmq.ConsumerConnection{Subscriptions: map[string]rocketmq.SubscriptionData{},
		ConsumeType: "CONSUME_PASSIVELY", MessageModel: "CLUSTERING", ConsumeFromWhere: "CONSUME_FROM_LAST_OFFSET"}
	for k, id := range c.clientIDs(j) {
		cc.Connections = append(cc.Connections, rocketmq.Connection{ClientID: id, ClientAddr: fmt.Sprintf("10.0.%d.%d:%d", j>>8&255, j&255, 40000+k),
			Language: "GO", Version: 317})
	}
	for _, t := range append(c.topicNames(j), rocketmq.RetryTopic(group)) {
		cc.Subscriptions[t] = subscription(t, c.born)
	}
	return cc, nil
}

func (c *Cluster) topicNames(j int) []string {
	var out []string
	for _, i := range c.topicsOf(j) {
		out = append(out, c.TopicName(i))
	}
	return out
}

func subscription(topic string, born time.Time) rocketmq.SubscriptionData {
	return rocketmq.SubscriptionData{Topic: topic, SubString: "*", ExpressionType: "TAG", TagsSet: []string{}, CodeSet: []int{},
		SubVersion: born.UnixNano()}
}

// ConsumerRunningInfo answers what a client reports: the queues it holds by the default
// (average) allocation over the group's clients, its subscriptions and rates.
func (c *Cluster) ConsumerRunningInfo(_ context.Context, addr, group, clientID string, _ bool) (*rocketmq.ConsumerRunningInfo, error) {
	b, err := c.brokerAt(addr)
	if err != nil {
		return nil, err
	}
	j, ok := c.groupIndex(group)
	ids := c.clientIDs(j)
	if !ok || !c.groupOn(j, b) || !slices.Contains(ids, clientID) {
		return nil, &rocketmq.BrokerError{Addr: addr, Code: rocketmq.CodeConsumerNotOnline, Remark: "the consumer group[" + group + "] not online"}
	}
	now := c.now()
	info := &rocketmq.ConsumerRunningInfo{
		Properties: map[string]string{"PROP_CLIENT_VERSION": "v2.1.1", "PROP_CONSUMEORDERLY": "false", "PROP_CONSUME_TYPE": "CONSUME_PASSIVELY",
			"PROP_CONSUMER_START_TIMESTAMP": strconv.FormatInt(c.born.UnixMilli(), 10), "PROP_NAMESERVER_ADDR": "127.0.0.1:9876;",
			"PROP_THREADPOOL_CORE_SIZE": "-1"},
		MQTable:     map[rocketmq.MessageQueue]rocketmq.ProcessQueueInfo{},
		StatusTable: map[string]rocketmq.ConsumeStatus{},
	}
	for _, i := range append(c.topicsOf(j), -1) {
		var queues []rocketmq.MessageQueue
		topic := rocketmq.RetryTopic(group)
		if i >= 0 {
			topic = c.TopicName(i)
		}
		for bb := range c.shape.Brokers {
			switch {
			case i < 0 && c.groupOn(j, bb):
				queues = append(queues, rocketmq.MessageQueue{Topic: topic, BrokerName: BrokerName(bb)})
			case i >= 0 && c.topicOn(i, bb):
				for q := range c.shape.QueuesPerBroker {
					queues = append(queues, c.queue(i, bb, q))
				}
			}
		}
		for _, mq := range rocketmq.AllocateAveragely(queues, ids, clientID) {
			p := rocketmq.ProcessQueueInfo{LastPullTimestamp: now.UnixMilli(), LastConsumeTimestamp: now.UnixMilli()}
			if i >= 0 {
				bb, _ := brokerIndex(mq.BrokerName)
				p.CommitOffset = c.consumerOffset(j, i, bb, mq.QueueID, now)
			}
			info.MQTable[mq] = p
		}
		info.Subscriptions = append(info.Subscriptions, subscription(topic, c.born))
		info.StatusTable[topic] = rocketmq.ConsumeStatus{}
	}
	return info, nil
}

// PollingInfo: the simulated clients are push consumers; no POP request is ever parked.
func (c *Cluster) PollingInfo(_ context.Context, addr, _, _ string, _ int) (int, error) {
	_, err := c.brokerAt(addr)
	return 0, err
}
