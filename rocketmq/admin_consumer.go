package rocketmq

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strconv"
	"strings"
)

func sortConnections(cs []Connection) {
	sort.Slice(cs, func(i, j int) bool { return cs[i].ClientID < cs[j].ClientID })
}

// markKind gives a *BrokerError with this code the meaning of sentinel;
// with remarks given, only when its remark contains one of them.
func markKind(err error, code ResponseCode, sentinel error, remarks ...string) {
	var be *BrokerError
	if !errors.As(err, &be) || be.Code != code || be.kind != nil {
		return
	}
	if len(remarks) == 0 || slices.ContainsFunc(remarks, func(r string) bool { return strings.Contains(be.Remark, r) }) {
		be.kind = sentinel
	}
}

// markClientNotOnline marks the broker's SYSTEM_ERROR for a relayed request
// whose client is not connected as ErrConsumerNotOnline.
func markClientNotOnline(err error) {
	markKind(err, CodeSystemError, ErrConsumerNotOnline, "not online", "Can't find specified client")
}

// SubscriptionData is one topic a consumer subscribes to.
type SubscriptionData struct {
	Topic string `json:"topic"`
	// SubString is the filter expression: "*", "TagA || TagB", or SQL92.
	SubString       string   `json:"subString"`
	ExpressionType  string   `json:"expressionType"` // TAG or SQL92
	TagsSet         []string `json:"tagsSet"`
	CodeSet         []int    `json:"codeSet"`
	SubVersion      int64    `json:"subVersion"`
	ClassFilterMode bool     `json:"classFilterMode"`
}

// ConsumerConnection is a consumer group as one broker sees it
// (GET_CONSUMER_CONNECTION_LIST).
type ConsumerConnection struct {
	// Connections are the group's clients, sorted by client id.
	Connections []Connection `json:"connectionSet"`
	// Subscriptions by topic (a push consumer also has %RETRY%<group>).
	Subscriptions    map[string]SubscriptionData `json:"subscriptionTable"`
	ConsumeType      string                      `json:"consumeType"`      // CONSUME_PASSIVELY (push), CONSUME_ACTIVELY (pull), CONSUME_POP
	MessageModel     string                      `json:"messageModel"`     // CLUSTERING or BROADCASTING
	ConsumeFromWhere string                      `json:"consumeFromWhere"` // e.g. CONSUME_FROM_LAST_OFFSET
	// ServerVersion is the MQVersion ordinal of the server that answered (its response
	// header). A 5.x Proxy reports its own version as the version of a gRPC client, so a
	// connection carrying the answering Proxy's version says nothing of the client.
	ServerVersion int `json:"-"`
}

// ConsumerConnections returns the clients and subscriptions of a consumer
// group on the broker at addr. A group with no client connected answers an
// error matching ErrConsumerNotOnline.
func (c *Client) ConsumerConnections(ctx context.Context, addr, group string) (*ConsumerConnection, error) {
	resp, err := c.call(ctx, addr, CodeGetConsumerConnectionList, map[string]string{"consumerGroup": group}, nil)
	if err != nil {
		return nil, fmt.Errorf("connections of consumer group %q on %s: %w", group, addr, err)
	}
	var cc ConsumerConnection
	if err := decodeBody(resp.Body, &cc); err != nil {
		return nil, fmt.Errorf("connections of consumer group %q on %s: %w", group, addr, err)
	}
	sortConnections(cc.Connections)
	cc.ServerVersion = resp.Version
	return &cc, nil
}

// PollingInfo returns how many long-polling POP requests of group for topic are parked
// on the broker at addr for queueID (POLLING_INFO, 5.x). gRPC consumers pop
// non-orderly topics through the Proxy with queue id -1, so -1 counts theirs.
func (c *Client) PollingInfo(ctx context.Context, addr, group, topic string, queueID int) (int, error) {
	resp, err := c.call(ctx, addr, CodePollingInfo, map[string]string{
		"consumerGroup": group, "topic": topic, "queueId": strconv.Itoa(queueID)}, nil)
	if err != nil {
		return 0, fmt.Errorf("polling info of group %q on %s: %w", group, addr, err)
	}
	n, err := strconv.Atoi(resp.ExtFields["pollingNum"])
	if err != nil {
		return 0, fmt.Errorf("polling info of group %q on %s: pollingNum %q: %w", group, addr, resp.ExtFields["pollingNum"], err)
	}
	return n, nil
}

// ConsumerIDs returns the client ids of a consumer group connected to the
// broker at addr (GET_CONSUMER_LIST_BY_GROUP), sorted: the cidAll that
// clients allocate queues over. A group with none answers an error matching
// ErrConsumerNotOnline.
func (c *Client) ConsumerIDs(ctx context.Context, addr, group string) ([]string, error) {
	resp, err := c.call(ctx, addr, CodeGetConsumerListByGroup, map[string]string{"consumerGroup": group}, nil)
	if err != nil {
		markKind(err, CodeSystemError, ErrConsumerNotOnline)
		return nil, fmt.Errorf("consumer ids of group %q on %s: %w", group, addr, err)
	}
	var body struct {
		ConsumerIDList []string `json:"consumerIdList"`
	}
	if err := decodeBody(resp.Body, &body); err != nil {
		return nil, fmt.Errorf("consumer ids of group %q on %s: %w", group, addr, err)
	}
	sort.Strings(body.ConsumerIDList)
	return body.ConsumerIDList, nil
}

// OffsetWrapper is one queue's progress in ConsumeStats.
type OffsetWrapper struct {
	// BrokerOffset is the queue's max offset.
	BrokerOffset int64 `json:"brokerOffset"`
	// ConsumerOffset is the group's committed offset (the next message it
	// will consume).
	ConsumerOffset int64 `json:"consumerOffset"`
	// PullOffset is how far the group has pulled (5.1+; else 0).
	PullOffset int64 `json:"pullOffset"`
	// LastTimestamp is the store time (epoch ms) of the last consumed
	// message, 0 when none.
	LastTimestamp int64 `json:"lastTimestamp"`
}

// Lag is BrokerOffset - ConsumerOffset: messages not yet consumed.
func (o OffsetWrapper) Lag() int64 { return o.BrokerOffset - o.ConsumerOffset }

// ConsumeStats is a consumer group's progress on one broker (GET_CONSUME_STATS).
type ConsumeStats struct {
	Offsets    map[MessageQueue]OffsetWrapper
	ConsumeTps float64
}

// TotalLag sums the lag of every queue.
func (s *ConsumeStats) TotalLag() int64 {
	var n int64
	for _, o := range s.Offsets {
		n += o.Lag()
	}
	return n
}

// ConsumeStats returns a consumer group's per-queue offsets on the broker
// at addr, for one topic or (topic "") for every topic the group has
// offsets for. Brokers answer for stored offsets even when no client is
// online.
func (c *Client) ConsumeStats(ctx context.Context, addr, group, topic string) (*ConsumeStats, error) {
	ext := map[string]string{"consumerGroup": group}
	if topic != "" {
		ext["topic"] = topic
	}
	resp, err := c.call(ctx, addr, CodeGetConsumeStats, ext, nil)
	if err != nil {
		c.invalidateOnError(topic, err)
		return nil, fmt.Errorf("consume stats of %q on %s: %w", group, addr, err)
	}
	var raw struct {
		OffsetTable map[string]OffsetWrapper `json:"offsetTable"`
		ConsumeTps  flexFloat                `json:"consumeTps"`
	}
	if err := decodeBody(resp.Body, &raw); err != nil {
		return nil, fmt.Errorf("consume stats of %q on %s: %w", group, addr, err)
	}
	offsets, err := queueKeyed(raw.OffsetTable)
	if err != nil {
		return nil, fmt.Errorf("consume stats of %q on %s: %w", group, addr, err)
	}
	return &ConsumeStats{Offsets: offsets, ConsumeTps: float64(raw.ConsumeTps)}, nil
}

// ProcessQueueInfo is a client's state for one queue it holds.
type ProcessQueueInfo struct {
	CommitOffset            int64 `json:"commitOffset"`
	CachedMsgMinOffset      int64 `json:"cachedMsgMinOffset"`
	CachedMsgMaxOffset      int64 `json:"cachedMsgMaxOffset"`
	CachedMsgCount          int64 `json:"cachedMsgCount"`
	CachedMsgSizeInMiB      int64 `json:"cachedMsgSizeInMiB"`
	TransactionMsgMinOffset int64 `json:"transactionMsgMinOffset"`
	TransactionMsgMaxOffset int64 `json:"transactionMsgMaxOffset"`
	TransactionMsgCount     int64 `json:"transactionMsgCount"`
	Locked                  bool  `json:"locked"`
	TryUnlockTimes          int64 `json:"tryUnlockTimes"`
	LastLockTimestamp       int64 `json:"lastLockTimestamp"`
	// Dropped: the client is giving the queue up (Java spells the field
	// "droped", Go clients "dropped"; both are read).
	Dropped              bool  `json:"dropped"`
	LastPullTimestamp    int64 `json:"lastPullTimestamp"`
	LastConsumeTimestamp int64 `json:"lastConsumeTimestamp"`
}

// UnmarshalJSON reads both spellings of the dropped flag.
func (p *ProcessQueueInfo) UnmarshalJSON(b []byte) error {
	type plain ProcessQueueInfo
	var aux struct {
		plain
		Droped bool `json:"droped"` // Java's spelling; plain reads "dropped"
	}
	if err := json.Unmarshal(b, &aux); err != nil {
		return err
	}
	*p = ProcessQueueInfo(aux.plain)
	p.Dropped = p.Dropped || aux.Droped
	return nil
}

// PopProcessQueueInfo is a 5.x POP consumer's state for one queue.
type PopProcessQueueInfo struct {
	WaitAckCount     int   `json:"waitAckCount"`
	Dropped          bool  `json:"droped"`
	LastPopTimestamp int64 `json:"lastPopTimestamp"`
}

// ConsumeStatus is a client's consumption rates for one topic.
type ConsumeStatus struct {
	PullRT            float64 `json:"pullRT"`
	PullTPS           float64 `json:"pullTPS"`
	ConsumeRT         float64 `json:"consumeRT"`
	ConsumeOKTPS      float64 `json:"consumeOKTPS"`
	ConsumeFailedTPS  float64 `json:"consumeFailedTPS"`
	ConsumeFailedMsgs int64   `json:"consumeFailedMsgs"`
}

// UnmarshalJSON reads the rates leniently (fastjson writes NaN as null).
func (s *ConsumeStatus) UnmarshalJSON(b []byte) error {
	var aux struct {
		PullRT            flexFloat `json:"pullRT"`
		PullTPS           flexFloat `json:"pullTPS"`
		ConsumeRT         flexFloat `json:"consumeRT"`
		ConsumeOKTPS      flexFloat `json:"consumeOKTPS"`
		ConsumeFailedTPS  flexFloat `json:"consumeFailedTPS"`
		ConsumeFailedMsgs flexFloat `json:"consumeFailedMsgs"`
	}
	if err := json.Unmarshal(b, &aux); err != nil {
		return err
	}
	*s = ConsumeStatus{
		PullRT: float64(aux.PullRT), PullTPS: float64(aux.PullTPS), ConsumeRT: float64(aux.ConsumeRT),
		ConsumeOKTPS: float64(aux.ConsumeOKTPS), ConsumeFailedTPS: float64(aux.ConsumeFailedTPS),
		ConsumeFailedMsgs: int64(aux.ConsumeFailedMsgs),
	}
	return nil
}

// ConsumerRunningInfo is what one client reports about itself
// (GET_CONSUMER_RUNNING_INFO, relayed by the broker to the client).
type ConsumerRunningInfo struct {
	// Properties are the client's settings and facts: PROP_CONSUME_TYPE,
	// PROP_CLIENT_VERSION, PROP_CONSUMER_START_TIMESTAMP, messageModel,
	// allocateMessageQueueStrategy (Java only), ...
	Properties    map[string]string
	Subscriptions []SubscriptionData
	// MQTable holds the queues this client holds right now: the real
	// assignment after rebalancing.
	MQTable    map[MessageQueue]ProcessQueueInfo
	MQPopTable map[MessageQueue]PopProcessQueueInfo // 5.x POP consumers
	// StatusTable holds consumption rates by topic.
	StatusTable      map[string]ConsumeStatus
	UserConsumerInfo map[string]string // 5.x
	Jstack           string
}

// Queues returns the queues in MQTable, in Java's MessageQueue order.
func (r *ConsumerRunningInfo) Queues() []MessageQueue {
	out := make([]MessageQueue, 0, len(r.MQTable))
	for mq := range r.MQTable {
		out = append(out, mq)
	}
	SortMessageQueues(out)
	return out
}

// ConsumeType returns PROP_CONSUME_TYPE (CONSUME_PASSIVELY for push).
func (r *ConsumerRunningInfo) ConsumeType() string { return r.Properties["PROP_CONSUME_TYPE"] }

// ClientVersion returns PROP_CLIENT_VERSION (e.g. V5_3_3, v2.1.1 for Go).
func (r *ConsumerRunningInfo) ClientVersion() string { return r.Properties["PROP_CLIENT_VERSION"] }

// ConsumerRunningInfo asks one client of a consumer group, through the
// broker at addr it is connected to, for its running info: which queues it
// holds, its properties and rates. jstack asks for a thread dump too. A
// client that is not connected answers an error matching
// ErrConsumerNotOnline.
func (c *Client) ConsumerRunningInfo(ctx context.Context, addr, group, clientID string, jstack bool) (*ConsumerRunningInfo, error) {
	resp, err := c.call(ctx, addr, CodeGetConsumerRunningInfo, map[string]string{
		"consumerGroup": group,
		"clientId":      clientID,
		"jstackEnable":  btoa(jstack),
	}, nil)
	if err != nil {
		markClientNotOnline(err)
		return nil, &RunningInfoError{ClientID: clientID, Group: group, Addr: addr, Err: err}
	}
	if len(resp.Body) == 0 {
		// rocketmq-client-go answers SUCCESS without a body when it cannot
		// encode its info (e.g. a NaN rate); the reason is in the remark.
		return nil, &RunningInfoError{ClientID: clientID, Group: group, Addr: addr, Remark: resp.Remark}
	}
	info, err := decodeConsumerRunningInfo(resp.Body)
	if err != nil {
		return nil, &RunningInfoError{ClientID: clientID, Group: group, Addr: addr, Err: err}
	}
	return info, nil
}

// RunningInfoError is a client's running info that could not be read through the broker
// at Addr: Err is the broker's, the client's or the decoder's own error, or nil when the
// client answered without its info, giving Remark as the reason. Its fields let the
// console say the sentence around Err in the reader's language.
type RunningInfoError struct {
	ClientID, Group, Addr string
	Err                   error
	Remark                string
}

func (e *RunningInfoError) Error() string {
	if e.Err == nil {
		return fmt.Sprintf("running info of client %q of group %q via %s: the client sent no running info (%q)", e.ClientID, e.Group, e.Addr, e.Remark)
	}
	return fmt.Sprintf("running info of client %q of group %q via %s: %v", e.ClientID, e.Group, e.Addr, e.Err)
}

func (e *RunningInfoError) Unwrap() error { return e.Err }

func decodeConsumerRunningInfo(body []byte) (*ConsumerRunningInfo, error) {
	var raw struct {
		Properties       map[string]flexString          `json:"properties"`
		SubscriptionSet  []SubscriptionData             `json:"subscriptionSet"`
		MQTable          map[string]ProcessQueueInfo    `json:"mqTable"`
		MQPopTable       map[string]PopProcessQueueInfo `json:"mqPopTable"`
		StatusTable      map[string]ConsumeStatus       `json:"statusTable"`
		UserConsumerInfo map[string]flexString          `json:"userConsumerInfo"`
		Jstack           string                         `json:"jstack"`
	}
	if err := decodeBody(body, &raw); err != nil {
		return nil, err
	}
	info := &ConsumerRunningInfo{
		Properties:       flexMap(raw.Properties),
		Subscriptions:    raw.SubscriptionSet,
		StatusTable:      raw.StatusTable,
		UserConsumerInfo: flexMap(raw.UserConsumerInfo),
		Jstack:           raw.Jstack,
	}
	var err error
	if info.MQTable, err = queueKeyed(raw.MQTable); err != nil {
		return nil, err
	}
	if info.MQPopTable, err = queueKeyed(raw.MQPopTable); err != nil {
		return nil, err
	}
	return info, nil
}

func flexMap(in map[string]flexString) map[string]string {
	if in == nil {
		return nil
	}
	out := make(map[string]string, len(in))
	for k, v := range in {
		out[k] = string(v)
	}
	return out
}

// QueryConsumerOffset returns the group's committed offset for a queue. A
// queue the group has never committed gives an error matching
// ErrNoConsumerOffset (brokers answer 0 instead while the queue still starts
// at offset 0).
func (c *Client) QueryConsumerOffset(ctx context.Context, addr, group string, mq MessageQueue) (int64, error) {
	ext := queueHeader(mq)
	ext["consumerGroup"] = group
	v, err := c.queueOffsetCall(ctx, addr, CodeQueryConsumerOffset, ext, mq, "offset")
	if err != nil {
		markKind(err, CodeQueryNotFound, ErrNoConsumerOffset)
		return 0, fmt.Errorf("consumer offset of %q for %s on %s: %w", group, mq, addr, err)
	}
	return v, nil
}

// UpdateConsumerOffset commits an offset for the group and queue on the
// broker at addr (the master). Online clients of the group overwrite it
// with their own commits within seconds, so use ResetOffset for a group
// that is online. 5.3+ brokers refuse unknown groups (ErrGroupNotFound) and
// topics (ErrTopicNotFound); 5.1+ brokers silently ignore the update while
// a server-side reset of the queue is pending.
func (c *Client) UpdateConsumerOffset(ctx context.Context, addr, group string, mq MessageQueue, offset int64) error {
	ext := queueHeader(mq)
	ext["consumerGroup"] = group
	ext["commitOffset"] = i64toa(offset)
	if _, err := c.call(ctx, addr, CodeUpdateConsumerOffset, ext, nil); err != nil {
		c.invalidateOnError(mq.Topic, err)
		return fmt.Errorf("update consumer offset of %q for %s to %d on %s: %w", group, mq, offset, addr, err)
	}
	return nil
}

// ResetOffsetRequest asks a broker to move a group's offsets
// (INVOKE_BROKER_TO_RESET_OFFSET). Build it with ResetByTimestamp or
// ResetQueueToOffset: the zero value of QueueID means queue 0.
type ResetOffsetRequest struct {
	Topic string
	Group string
	// Timestamp (epoch ms) picks, per queue, the offset of the first
	// message stored at or after it; -1 means the max offset (skip the
	// backlog).
	Timestamp int64
	// Force lets 4.x (client-side) resets move offsets forward as well as
	// back. 5.2+ brokers ignore it and always move.
	Force bool
	// QueueID limits the reset to one queue, AllQueues for every queue.
	// Only brokers from 5.1 on honour it.
	QueueID int
	// Offset is the exact target for QueueID, or NoOffset to go by
	// Timestamp. Only brokers from 5.1 on honour it.
	Offset int64
}

// Values of ResetOffsetRequest fields that mean "not set".
const (
	AllQueues = -1
	NoOffset  = -1
)

// ResetByTimestamp resets every queue of the topic to the first message
// stored at or after timestampMs (-1: to the end).
func ResetByTimestamp(topic, group string, timestampMs int64, force bool) ResetOffsetRequest {
	return ResetOffsetRequest{Topic: topic, Group: group, Timestamp: timestampMs, Force: force, QueueID: AllQueues, Offset: NoOffset}
}

// ResetQueueToOffset resets one queue to an exact offset (5.1+ brokers).
func ResetQueueToOffset(topic, group string, queueID int, offset int64) ResetOffsetRequest {
	return ResetOffsetRequest{Topic: topic, Group: group, Timestamp: -1, Force: true, QueueID: queueID, Offset: offset}
}

// ResetOffset asks the broker at addr (a master of the topic) to reset the
// group's offsets, and returns the offsets it set per queue.
//
// 4.x and 5.0 brokers (and 5.1 with useServerSideResetOffset off) reset
// through the group's online clients and answer an error matching
// ErrConsumerNotOnline when none is connected; nothing changes then (fall
// back to UpdateConsumerOffset per queue). 5.2+ brokers reset on the server
// and work with the group offline, but need the subscription group to exist
// (ErrGroupNotFound). A one-queue request is refused for brokers older than
// 5.1, which would reset every queue instead.
func (c *Client) ResetOffset(ctx context.Context, addr string, req ResetOffsetRequest) (map[MessageQueue]int64, error) {
	fail := func(err error) (map[MessageQueue]int64, error) {
		return nil, fmt.Errorf("reset offsets of %q on topic %q on %s: %w", req.Group, req.Topic, addr, err)
	}
	if req.QueueID >= 0 {
		v, err := c.BrokerVersion(ctx, addr)
		if err != nil {
			return fail(err)
		}
		if !v.AtLeast(VersionOrdinal5_1_0) {
			return fail(fmt.Errorf("%w: broker %s runs %s, which resets every queue of the topic rather than queue %d; update the offset with UpdateConsumerOffset instead", ErrNotSupported, addr, v, req.QueueID))
		}
	}
	ext := map[string]string{
		"topic":     req.Topic,
		"group":     req.Group,
		"timestamp": i64toa(req.Timestamp),
		"isForce":   btoa(req.Force),
		"queueId":   itoa(req.QueueID),
		"offset":    i64toa(req.Offset),
	}
	resp, err := c.call(ctx, addr, CodeInvokeBrokerToResetOffset, ext, nil)
	if err != nil {
		// 4.9.x says "no topic in this broker" with SYSTEM_ERROR; 5.x uses 17.
		markKind(err, CodeSystemError, ErrTopicNotFound, "no topic in this broker")
		c.invalidateOnError(req.Topic, err)
		return fail(err)
	}
	out := map[MessageQueue]int64{}
	if len(resp.Body) == 0 {
		return out, nil
	}
	var raw struct {
		OffsetTable map[string]int64 `json:"offsetTable"`
	}
	if err := decodeBody(resp.Body, &raw); err != nil {
		return fail(err)
	}
	if out, err = queueKeyed(raw.OffsetTable); err != nil {
		return fail(err)
	}
	return out, nil
}

// SimpleSubscriptionData is a 5.2+ subscription group's declared
// subscription.
type SimpleSubscriptionData struct {
	Topic          string `json:"topic"`
	ExpressionType string `json:"expressionType"`
	Expression     string `json:"expression"`
	Version        int64  `json:"version"`
}

// SubscriptionGroupConfig is a consumer group's configuration on a broker.
type SubscriptionGroupConfig struct {
	GroupName                      string `json:"groupName"`
	ConsumeEnable                  bool   `json:"consumeEnable"`
	ConsumeFromMinEnable           bool   `json:"consumeFromMinEnable"`
	ConsumeBroadcastEnable         bool   `json:"consumeBroadcastEnable"`
	RetryQueueNums                 int    `json:"retryQueueNums"`
	RetryMaxTimes                  int    `json:"retryMaxTimes"`
	BrokerID                       int64  `json:"brokerId"`
	WhichBrokerWhenConsumeSlowly   int64  `json:"whichBrokerWhenConsumeSlowly"`
	NotifyConsumerIdsChangedEnable bool   `json:"notifyConsumerIdsChangedEnable"`
	// 5.x fields; zero on 4.x brokers.
	ConsumeMessageOrderly bool                     `json:"consumeMessageOrderly"`
	GroupSysFlag          int                      `json:"groupSysFlag"`
	ConsumeTimeoutMinute  int                      `json:"consumeTimeoutMinute"`
	GroupRetryPolicy      json.RawMessage          `json:"groupRetryPolicy,omitempty"`
	SubscriptionDataSet   []SimpleSubscriptionData `json:"subscriptionDataSet,omitempty"`
	Attributes            map[string]string        `json:"attributes,omitempty"`
}

// SubscriptionGroupTable is every subscription group on a broker
// (GET_ALL_SUBSCRIPTIONGROUP_CONFIG).
type SubscriptionGroupTable struct {
	DataVersion DataVersion                        `json:"dataVersion"`
	Groups      map[string]SubscriptionGroupConfig `json:"subscriptionGroupTable"`
	// ForbiddenTable (5.x): group → topic → forbidden permission bits.
	ForbiddenTable map[string]map[string]int `json:"forbiddenTable,omitempty"`
}

// SubscriptionGroups returns every subscription group configured on the
// broker at addr, system groups included.
func (c *Client) SubscriptionGroups(ctx context.Context, addr string) (*SubscriptionGroupTable, error) {
	resp, err := c.call(ctx, addr, CodeGetAllSubscriptionGroup, nil, nil)
	if err != nil {
		return nil, fmt.Errorf("subscription groups on %s: %w", addr, err)
	}
	var t SubscriptionGroupTable
	if err := decodeBody(resp.Body, &t); err != nil {
		return nil, fmt.Errorf("subscription groups on %s: %w", addr, err)
	}
	return &t, nil
}

// GroupNames is a set of consumer group names.
type GroupNames map[string]struct{}

// SubscriptionGroupNames returns the names of every subscription group configured on
// the broker at addr (GET_ALL_SUBSCRIPTIONGROUP_CONFIG), system groups included: what a
// list of every group needs of the table. A broker's table of thousands of groups is
// the same answer read after read, so an answer identical to the last one is answered
// with the names read from that one, shared with every caller: they must not be changed.
// Read in one pass over the answer, names only, they cost a tenth of the decoded
// table's memory.
func (c *Client) SubscriptionGroupNames(ctx context.Context, addr string) (GroupNames, error) {
	resp, err := c.call(ctx, addr, CodeGetAllSubscriptionGroup, nil, nil)
	if err != nil {
		return nil, fmt.Errorf("subscription groups on %s: %w", addr, err)
	}
	names, err := c.groupNames.decode(addr, resp.Body, parseGroupNames)
	if err != nil {
		return nil, fmt.Errorf("subscription groups on %s: %w", addr, err)
	}
	return *names, nil
}

// parseGroupNames reads the keys of a subscription group table, and takes the generic
// path for a body the one-pass reader does not expect.
func parseGroupNames(body []byte) (*GroupNames, error) {
	names := GroupNames{}
	s := &jsonScan{b: body}
	err := s.object(func(key string) error {
		if key != "subscriptionGroupTable" {
			return s.skip()
		}
		return s.object(func(group string) error {
			names[group] = struct{}{}
			return s.skip()
		})
	})
	if s.ws(); err == nil && s.i == len(s.b) {
		return &names, nil
	}
	var t SubscriptionGroupTable
	if err := decodeBody(body, &t); err != nil {
		return nil, err
	}
	names = make(GroupNames, len(t.Groups))
	for g := range t.Groups {
		names[g] = struct{}{}
	}
	return &names, nil
}

// TopicConsumerGroups returns the groups that consume a topic on the broker
// at addr (QUERY_TOPIC_CONSUME_BY_WHO): groups online for it and groups with
// offsets stored for it, sorted. On 5.3.3 brokers an online group that has
// not committed an offset yet is missing (the broker names the topic in its
// place, which is dropped here).
func (c *Client) TopicConsumerGroups(ctx context.Context, addr, topic string) ([]string, error) {
	resp, err := c.call(ctx, addr, CodeQueryTopicConsumeByWho, map[string]string{"topic": topic}, nil)
	if err != nil {
		c.invalidateOnError(topic, err)
		return nil, fmt.Errorf("groups consuming topic %q on %s: %w", topic, addr, err)
	}
	var gl struct {
		GroupList []string `json:"groupList"`
	}
	if err := decodeBody(resp.Body, &gl); err != nil {
		return nil, fmt.Errorf("groups consuming topic %q on %s: %w", topic, addr, err)
	}
	// 5.3.3 brokers list the topic's own name for each online group that
	// subscribes to it (and the group itself only once it has committed
	// offsets); a group named like the topic is not a plausible reading.
	groups := gl.GroupList[:0]
	for _, g := range gl.GroupList {
		if g != topic {
			groups = append(groups, g)
		}
	}
	sort.Strings(groups)
	return groups, nil
}

// ConsumeMessageDirectlyResult is a client's report on consuming one
// message on request.
type ConsumeMessageDirectlyResult struct {
	Order      bool
	AutoCommit bool
	// ConsumeResult is CR_SUCCESS, CR_LATER, CR_ROLLBACK, CR_COMMIT,
	// CR_THROW_EXCEPTION or CR_RETURN_NULL.
	ConsumeResult  string
	Remark         string
	SpentTimeMills int64
}

var cmResults = []string{"CR_SUCCESS", "CR_LATER", "CR_ROLLBACK", "CR_COMMIT", "CR_THROW_EXCEPTION", "CR_RETURN_NULL"}

// ConsumeMessageDirectly asks one client of a group to consume the message
// with this offsetMsgId now (resend to one consumer). Send it to the broker
// that stores the message (the offsetMsgId's store host); the broker reads
// the message and relays it to the client. topic is optional (5.x).
func (c *Client) ConsumeMessageDirectly(ctx context.Context, addr, group, clientID, offsetMsgID, topic string) (*ConsumeMessageDirectlyResult, error) {
	ext := map[string]string{
		"consumerGroup": group,
		"clientId":      clientID,
		"msgId":         offsetMsgID,
	}
	if topic != "" {
		ext["topic"] = topic
	}
	resp, err := c.call(ctx, addr, CodeConsumeMessageDirectly, ext, nil)
	if err != nil {
		markClientNotOnline(err)
		return nil, fmt.Errorf("consume message %s directly by client %q of group %q via %s: %w", offsetMsgID, clientID, group, addr, err)
	}
	var raw struct {
		Order          bool       `json:"order"`
		AutoCommit     bool       `json:"autoCommit"`
		ConsumeResult  flexString `json:"consumeResult"`
		Remark         string     `json:"remark"`
		SpentTimeMills int64      `json:"spentTimeMills"`
	}
	if err := decodeBody(resp.Body, &raw); err != nil {
		return nil, fmt.Errorf("consume message %s directly by client %q of group %q via %s: %w", offsetMsgID, clientID, group, addr, err)
	}
	res := &ConsumeMessageDirectlyResult{Order: raw.Order, AutoCommit: raw.AutoCommit, ConsumeResult: string(raw.ConsumeResult), Remark: raw.Remark, SpentTimeMills: raw.SpentTimeMills}
	for i, name := range cmResults { // Go clients send the ordinal
		if res.ConsumeResult == itoa(i) {
			res.ConsumeResult = name
		}
	}
	return res, nil
}

// QueueTimeSpan is one queue's time span for a group (QUERY_CONSUME_TIME_SPAN).
type QueueTimeSpan struct {
	MessageQueue MessageQueue `json:"messageQueue"`
	// MinTimeStamp and MaxTimeStamp are the store times (epoch ms) of the
	// queue's first and last message.
	MinTimeStamp int64 `json:"minTimeStamp"`
	MaxTimeStamp int64 `json:"maxTimeStamp"`
	// ConsumeTimeStamp is the store time of the last consumed message.
	ConsumeTimeStamp int64 `json:"consumeTimeStamp"`
	// DelayTime is how long (ms) the next unconsumed message has waited.
	DelayTime int64 `json:"delayTime"`
}

// ConsumeTimeSpan returns, per queue of the topic on the broker at addr,
// the stored time span and how far the group has consumed in time.
func (c *Client) ConsumeTimeSpan(ctx context.Context, addr, topic, group string) ([]QueueTimeSpan, error) {
	resp, err := c.call(ctx, addr, CodeQueryConsumeTimeSpan, map[string]string{"topic": topic, "group": group}, nil)
	if err != nil {
		c.invalidateOnError(topic, err)
		return nil, fmt.Errorf("consume time span of %q on topic %q on %s: %w", group, topic, addr, err)
	}
	var body struct {
		Set []QueueTimeSpan `json:"consumeTimeSpanSet"`
	}
	if err := decodeBody(resp.Body, &body); err != nil {
		return nil, fmt.Errorf("consume time span of %q on topic %q on %s: %w", group, topic, addr, err)
	}
	sort.Slice(body.Set, func(i, j int) bool { return body.Set[i].MessageQueue.Less(body.Set[j].MessageQueue) })
	return body.Set, nil
}

// BrokerConsumeStats is every consumer group's progress on one broker
// (GET_BROKER_CONSUME_STATS): the same per-queue offsets as ConsumeStats, for
// all groups in one answer.
type BrokerConsumeStats struct {
	// BrokerAddr is the address the broker reports for itself.
	BrokerAddr string
	// Groups holds, per subscription group of the broker, its stats merged
	// over every topic it has committed offsets for (its retry topic
	// included). A group configured on the broker but without any committed
	// offset has an empty Offsets map.
	Groups map[string]*ConsumeStats
	// TotalDiff is the broker's sum of every group's lag.
	TotalDiff int64
}

// BrokerConsumeStats returns every subscription group's per-queue offsets on
// the broker at addr in one request, instead of one GET_CONSUME_STATS per
// group. Unlike ConsumeStats it covers only topics where the group has
// committed an offset, counts queues up to the topic's write queue number,
// and does not check the group's subscriptions on 4.x (see the protocol notes).
func (c *Client) BrokerConsumeStats(ctx context.Context, addr string) (*BrokerConsumeStats, error) {
	resp, err := c.call(ctx, addr, CodeGetBrokerConsumeStats, map[string]string{"isOrder": "false"}, nil)
	if err != nil {
		return nil, fmt.Errorf("consume stats of every group on %s: %w", addr, err)
	}
	return decodeBrokerConsumeStats(resp.Body)
}

func decodeBrokerConsumeStats(body []byte) (*BrokerConsumeStats, error) {
	type rawStats struct {
		OffsetTable map[string]OffsetWrapper `json:"offsetTable"`
		ConsumeTps  flexFloat                `json:"consumeTps"`
	}
	var raw struct {
		BrokerAddr       string                  `json:"brokerAddr"`
		TotalDiff        int64                   `json:"totalDiff"`
		ConsumeStatsList []map[string][]rawStats `json:"consumeStatsList"`
	}
	if err := decodeBody(body, &raw); err != nil {
		return nil, fmt.Errorf("consume stats of every group: %w", err)
	}
	out := &BrokerConsumeStats{BrokerAddr: raw.BrokerAddr, TotalDiff: raw.TotalDiff, Groups: map[string]*ConsumeStats{}}
	for _, byGroup := range raw.ConsumeStatsList {
		for group, list := range byGroup {
			cs := out.Groups[group]
			if cs == nil {
				cs = &ConsumeStats{Offsets: map[MessageQueue]OffsetWrapper{}}
				out.Groups[group] = cs
			}
			for _, st := range list {
				offsets, err := queueKeyed(st.OffsetTable)
				if err != nil {
					return nil, fmt.Errorf("consume stats of group %q: %w", group, err)
				}
				maps.Copy(cs.Offsets, offsets)
				cs.ConsumeTps += float64(st.ConsumeTps)
			}
		}
	}
	return out, nil
}

// ConsumerOffsets returns every committed offset on the broker at addr
// (GET_ALL_CONSUMER_OFFSET, the table slaves copy): group → topic → queue id →
// offset. It is the broker's offset table as it stands, so it is cheap for the
// broker however many groups it has, but it says nothing of max offsets, store
// times or rates, and it keeps offsets of topics a group no longer subscribes to.
func (c *Client) ConsumerOffsets(ctx context.Context, addr string) (map[string]map[string]map[int]int64, error) {
	resp, err := c.call(ctx, addr, CodeGetAllConsumerOffset, nil, nil)
	if err != nil {
		return nil, fmt.Errorf("consumer offsets on %s: %w", addr, err)
	}
	out, err := parseOffsetTable(resp.Body)
	if err != nil {
		out, err = decodeOffsetTable(resp.Body)
	}
	if err != nil {
		return nil, fmt.Errorf("consumer offsets on %s: %w", addr, err)
	}
	return out, nil
}

// decodeOffsetTable is the generic path of parseOffsetTable: normalized, then decoded.
func decodeOffsetTable(body []byte) (map[string]map[string]map[int]int64, error) {
	var raw struct {
		OffsetTable map[string]map[string]int64 `json:"offsetTable"`
	}
	if err := decodeBody(body, &raw); err != nil {
		return nil, err
	}
	out := map[string]map[string]map[int]int64{}
	for key, queues := range raw.OffsetTable {
		// Keys are topic@group; neither name may contain '@'.
		topic, group, ok := strings.Cut(key, "@")
		if !ok {
			return nil, fmt.Errorf("key %q is not topic@group", key)
		}
		byTopic := out[group]
		if byTopic == nil {
			byTopic = map[string]map[int]int64{}
			out[group] = byTopic
		}
		qs := make(map[int]int64, len(queues))
		for id, off := range queues {
			n, err := strconv.Atoi(id)
			if err != nil {
				return nil, fmt.Errorf("queue id %q of %s: %w", id, key, err)
			}
			qs[n] = off
		}
		byTopic[topic] = qs
	}
	return out, nil
}
