package clustertest

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"rmqconsole/rocketmq"
)

// FailOn makes op (the method's name) on addr answer err; nil answers normally again.
func (f *Fake) FailOn(op, addr string, err error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err == nil {
		delete(f.failOn, op+"@"+addr)
		return
	}
	f.failOn[op+"@"+addr] = err
}

// TotalCalls counts every call made so far.
func (f *Fake) TotalCalls() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	n := 0
	for _, c := range f.calls {
		n += c
	}
	return n
}

// Writes counts the calls that changed offsets.
func (f *Fake) Writes() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.writes
}

// Offset is the group's committed offset on mq (0 when none).
func (f *Fake) Offset(group string, mq rocketmq.MessageQueue) int64 {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.groups[group].Offsets[mq]
}

// SetOffset commits the group's offset on mq, as a consumer does.
func (f *Fake) SetOffset(group string, mq rocketmq.MessageQueue, v int64) {
	f.mu.Lock()
	defer f.mu.Unlock()
	g := f.groups[group]
	if g.Offsets == nil {
		g.Offsets = map[rocketmq.MessageQueue]int64{}
	}
	g.Offsets[mq] = v
}

// SetClients puts the group's clients online (none: offline).
func (f *Fake) SetClients(group string, cs ...Client) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.groups[group].Clients = cs
}

// FailRunningInfo makes the client's running info answer err (nil: answer again).
func (f *Fake) FailRunningInfo(clientID string, err error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.runFail == nil {
		f.runFail = map[string]error{}
	}
	f.runFail[clientID] = err
}

// ConsumerRunningInfo answers what the client reports through the broker: its version,
// subscriptions, allocation strategy and the queues it holds.
func (f *Fake) ConsumerRunningInfo(ctx context.Context, addr, group, clientID string, _ bool) (*rocketmq.ConsumerRunningInfo, error) {
	if _, err := f.enter(ctx, "ConsumerRunningInfo", addr); err != nil {
		return nil, err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	g := f.groups[group]
	if g == nil {
		return nil, fmt.Errorf("running info of %s: %w", clientID, notOnline(addr))
	}
	for _, c := range g.clients() {
		if c.ID != clientID {
			continue
		}
		if c.Fail != nil {
			return nil, c.Fail
		}
		if err := f.runFail[clientID]; err != nil {
			return nil, err
		}
		info := &rocketmq.ConsumerRunningInfo{
			Properties: map[string]string{"PROP_CLIENT_VERSION": "v2.1.1", "PROP_CONSUME_TYPE": "CONSUME_PASSIVELY",
				"PROP_CONSUMEORDERLY": strconv.FormatBool(c.Orderly)},
			MQTable: map[rocketmq.MessageQueue]rocketmq.ProcessQueueInfo{},
		}
		if c.Strategy != "" {
			info.Properties["allocateMessageQueueStrategy"] = c.Strategy
		}
		for _, t := range c.topics(g) {
			info.Subscriptions = append(info.Subscriptions, rocketmq.SubscriptionData{Topic: t, SubString: "*", ExpressionType: "TAG"})
		}
		for _, mq := range c.Holds {
			info.MQTable[mq] = rocketmq.ProcessQueueInfo{}
		}
		return info, nil
	}
	return nil, fmt.Errorf("running info of %s: no such client", clientID)
}

func notOnline(addr string) error {
	return &rocketmq.BrokerError{Addr: addr, Code: rocketmq.CodeConsumerNotOnline, Remark: "the consumer group not online"}
}

func (f *Fake) maxLocked(mq rocketmq.MessageQueue) int64 { return int64(len(f.queues[mq])) }

// TopicStats answers the offset range of the topic's queues on the broker.
func (f *Fake) TopicStats(ctx context.Context, addr, topic string) (*rocketmq.TopicStats, error) {
	b, err := f.enter(ctx, "TopicStats", addr)
	if err != nil {
		return nil, err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	ts := &rocketmq.TopicStats{Offsets: map[rocketmq.MessageQueue]rocketmq.TopicOffset{}}
	for i := range f.topics[topic][b.name] {
		mq := rocketmq.MessageQueue{Topic: topic, BrokerName: b.name, QueueID: i}
		ts.Offsets[mq] = rocketmq.TopicOffset{MinOffset: 0, MaxOffset: f.maxLocked(mq)}
	}
	return ts, nil
}

// ConsumeStats answers the group's committed offsets on the broker's queues (of topic, or
// all), with each queue's max offset and the store time of the last consumed message.
func (f *Fake) ConsumeStats(ctx context.Context, addr, group, topic string) (*rocketmq.ConsumeStats, error) {
	b, err := f.enter(ctx, "ConsumeStats", addr)
	if err != nil {
		return nil, err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.statsLocked(b, f.groups[group], topic), nil
}

// BrokerConsumeStats answers every group's stats on the broker in one call, as
// GET_BROKER_CONSUME_STATS does: each group the broker lists, an empty table for a group
// without offsets there.
func (f *Fake) BrokerConsumeStats(ctx context.Context, addr string) (*rocketmq.BrokerConsumeStats, error) {
	b, err := f.enter(ctx, "BrokerConsumeStats", addr)
	if err != nil {
		return nil, err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	out := &rocketmq.BrokerConsumeStats{BrokerAddr: b.addr, Groups: map[string]*rocketmq.ConsumeStats{}}
	for name, g := range f.groups {
		out.Groups[name] = f.statsLocked(b, g, "")
		out.TotalDiff += out.Groups[name].TotalLag()
	}
	return out, nil
}

// ConsumeTimeSpan answers QUERY_CONSUME_TIME_SPAN: per queue of the topic on the broker,
// the store times of its first and last message, of the last consumed one, and how long
// the message at the group's offset has waited (delayTime, by the wall clock).
func (f *Fake) ConsumeTimeSpan(ctx context.Context, addr, topic, group string) ([]rocketmq.QueueTimeSpan, error) {
	b, err := f.enter(ctx, "ConsumeTimeSpan", addr)
	if err != nil {
		return nil, err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []rocketmq.QueueTimeSpan
	for i := range f.topics[topic][b.name] {
		mq := rocketmq.MessageQueue{Topic: topic, BrokerName: b.name, QueueID: i}
		msgs := f.queues[mq]
		sp := rocketmq.QueueTimeSpan{MessageQueue: mq}
		if len(msgs) > 0 {
			sp.MinTimeStamp, sp.MaxTimeStamp = msgs[0].StoreTimestamp, msgs[len(msgs)-1].StoreTimestamp
		}
		var off int64
		if g := f.groups[group]; g != nil {
			off = g.Offsets[mq]
		}
		if off > 0 && off <= int64(len(msgs)) {
			sp.ConsumeTimeStamp = msgs[off-1].StoreTimestamp
		}
		if off >= 0 && off < int64(len(msgs)) {
			sp.DelayTime = time.Now().UnixMilli() - msgs[off].StoreTimestamp
		}
		out = append(out, sp)
	}
	return out, nil
}

// ConsumerOffsets answers the broker's offset table (GET_ALL_CONSUMER_OFFSET): every
// group's committed offsets there.
func (f *Fake) ConsumerOffsets(ctx context.Context, addr string) (map[string]map[string]map[int]int64, error) {
	b, err := f.enter(ctx, "ConsumerOffsets", addr)
	if err != nil {
		return nil, err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	out := map[string]map[string]map[int]int64{}
	for name, g := range f.groups {
		for mq, off := range g.Offsets {
			if mq.BrokerName != b.name {
				continue
			}
			if out[name] == nil {
				out[name] = map[string]map[int]int64{}
			}
			if out[name][mq.Topic] == nil {
				out[name][mq.Topic] = map[int]int64{}
			}
			out[name][mq.Topic][mq.QueueID] = off
		}
	}
	return out, nil
}

func (f *Fake) statsLocked(b *broker, g *Group, topic string) *rocketmq.ConsumeStats {
	cs := &rocketmq.ConsumeStats{Offsets: map[rocketmq.MessageQueue]rocketmq.OffsetWrapper{}}
	if g == nil {
		return cs
	}
	for mq, off := range g.Offsets {
		if mq.BrokerName != b.name || (topic != "" && mq.Topic != topic) {
			continue
		}
		o := rocketmq.OffsetWrapper{BrokerOffset: f.maxLocked(mq), ConsumerOffset: off}
		if f.versionOf(b).AtLeast(rocketmq.VersionOrdinal5_1_0) {
			o.PullOffset = off // 5.1+ report how far the group pulled; here, no further than committed
		}
		if msgs := f.queues[mq]; off > 0 && off <= int64(len(msgs)) {
			o.LastTimestamp = msgs[off-1].StoreTimestamp
		}
		cs.Offsets[mq] = o
	}
	return cs
}

// BrokerConfig answers useServerSideResetOffset from 5.1 on.
func (f *Fake) BrokerConfig(ctx context.Context, addr string) (map[string]string, error) {
	b, err := f.enter(ctx, "BrokerConfig", addr)
	if err != nil {
		return nil, err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if !f.versionOf(b).AtLeast(rocketmq.VersionOrdinal5_1_0) {
		return map[string]string{}, nil
	}
	return map[string]string{"useServerSideResetOffset": fmt.Sprint(b.serverSide)}, nil
}

func (f *Fake) wrote(op string) {
	f.mu.Lock()
	f.writes++
	hook := f.OnWrite
	f.mu.Unlock()
	if hook != nil {
		hook(op)
	}
}

// ResetOffset answers INVOKE_BROKER_TO_RESET_OFFSET: a broker with server-side reset sets
// each queue itself (to the offset, or the timestamp's); an older one resets through the
// group's online clients, by timestamp, every queue of the topic (4.x: the message stored
// closest to it), and answers CONSUMER_NOT_ONLINE without clients.
func (f *Fake) ResetOffset(ctx context.Context, addr string, req rocketmq.ResetOffsetRequest) (map[rocketmq.MessageQueue]int64, error) {
	if f.Entered != nil {
		select {
		case f.Entered <- struct{}{}:
		default:
		}
	}
	if f.Block != nil {
		<-f.Block
	}
	b, err := f.enter(ctx, "ResetOffset", addr)
	if err != nil {
		return nil, err
	}
	f.wrote("ResetOffset")
	f.mu.Lock()
	g := f.groups[req.Group]
	out := map[rocketmq.MessageQueue]int64{}
	changed := map[rocketmq.MessageQueue]int64{}
	switch {
	case g == nil:
		f.mu.Unlock()
		return nil, fmt.Errorf("reset: %w", &rocketmq.BrokerError{Addr: addr, Code: rocketmq.CodeSubscriptionGroupNotExist})
	case b.serverSide:
		for i := range f.topics[req.Topic][b.name] {
			mq := rocketmq.MessageQueue{Topic: req.Topic, BrokerName: b.name, QueueID: i}
			if req.QueueID >= 0 && i != req.QueueID {
				continue
			}
			target := req.Offset
			if req.QueueID < 0 || req.Offset < 0 {
				target = f.maxLocked(mq)
				if req.Timestamp >= 0 {
					target = f.searchLocked(mq, req.Timestamp, rocketmq.BoundaryLower)
				}
			}
			changed[mq], out[mq] = g.Offsets[mq], target
			g.Offsets[mq] = target
		}
	case !g.online():
		f.mu.Unlock()
		return nil, fmt.Errorf("reset: %w", notOnline(addr))
	default:
		for i := range f.topics[req.Topic][b.name] {
			mq := rocketmq.MessageQueue{Topic: req.Topic, BrokerName: b.name, QueueID: i}
			target := f.maxLocked(mq)
			if req.Timestamp >= 0 {
				target = f.closestLocked(mq, req.Timestamp)
			}
			changed[mq], out[mq] = g.Offsets[mq], target
			g.Offsets[mq] = target
		}
	}
	hook := f.AfterReset
	f.mu.Unlock()
	if hook != nil {
		for mq, old := range changed {
			hook(mq, old)
		}
	}
	return out, nil
}

// UpdateConsumerOffset writes the group's offset, as mqadmin does for an offline group.
func (f *Fake) UpdateConsumerOffset(ctx context.Context, addr, group string, mq rocketmq.MessageQueue, offset int64) error {
	if _, err := f.enter(ctx, "UpdateConsumerOffset", addr); err != nil {
		return err
	}
	f.wrote("UpdateConsumerOffset")
	f.mu.Lock()
	g := f.groups[group]
	if g.Offsets == nil {
		g.Offsets = map[rocketmq.MessageQueue]int64{}
	}
	old := g.Offsets[mq]
	g.Offsets[mq] = offset
	hook := f.AfterReset
	f.mu.Unlock()
	if hook != nil {
		hook(mq, old)
	}
	return nil
}

// AddMessages stores n messages in each of the topic's queues on broker, one second apart
// from base (no body, no keys): enough for offsets and store times.
func (f *Fake) AddMessages(topic, broker string, queues, n int, base time.Time) {
	f.AddTopic(topic, queues, broker)
	for q := range queues {
		for i := range n {
			f.Put(topic, broker, q, NewMessage("", "", nil, "", base.Add(time.Duration(i)*time.Second)))
		}
	}
}

// AddGroupIfMissing adds g unless a group of its name exists.
func (f *Fake) AddGroupIfMissing(g *Group) {
	f.mu.Lock()
	_, ok := f.groups[g.Name]
	f.mu.Unlock()
	if !ok {
		f.AddGroup(g)
	}
}

// MaxOffset is the offset the queue's next message gets.
func (f *Fake) MaxOffset(mq rocketmq.MessageQueue) int64 {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.maxLocked(mq)
}
