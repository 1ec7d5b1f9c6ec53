package rocketmq

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"
)

// DataVersion versions a broker's configuration tables.
type DataVersion struct {
	Timestamp    int64 `json:"timestamp"`
	Counter      int64 `json:"counter"`
	StateVersion int64 `json:"stateVersion,omitempty"` // 5.x
}

// TopicConfig is a topic's configuration on one broker.
type TopicConfig struct {
	TopicName       string            `json:"topicName"`
	ReadQueueNums   int               `json:"readQueueNums"`
	WriteQueueNums  int               `json:"writeQueueNums"`
	Perm            int               `json:"perm"`
	TopicFilterType string            `json:"topicFilterType"`
	TopicSysFlag    int               `json:"topicSysFlag"`
	Order           bool              `json:"order"`
	Attributes      map[string]string `json:"attributes,omitempty"` // 5.x, e.g. "+message.type": "NORMAL"
}

// TopicConfigTable is every topic configured on a broker (GET_ALL_TOPIC_CONFIG).
type TopicConfigTable struct {
	DataVersion DataVersion            `json:"dataVersion"`
	Topics      map[string]TopicConfig `json:"topicConfigTable"`
}

// TopicConfigs returns the configuration of every topic on the broker at addr. The
// table is shared with the other callers that read the same answer: it must not be
// changed.
func (c *Client) TopicConfigs(ctx context.Context, addr string) (*TopicConfigTable, error) {
	resp, err := c.call(ctx, addr, CodeGetAllTopicConfig, nil, nil)
	if err != nil {
		return nil, fmt.Errorf("topic configs on %s: %w", addr, err)
	}
	// A broker's table of thousands of topics is the same answer read after read, and
	// decoding it is most of a topic list's time.
	t, err := c.topicConfigs.decode(addr, resp.Body, decodeAs[TopicConfigTable])
	if err != nil {
		return nil, fmt.Errorf("topic configs on %s: %w", addr, err)
	}
	return t, nil
}

// TopicOffset is one queue's offset range (GET_TOPIC_STATS_INFO).
type TopicOffset struct {
	// MinOffset is the smallest offset still stored.
	MinOffset int64 `json:"minOffset"`
	// MaxOffset is the offset the next message will get; the last stored
	// message is at MaxOffset-1.
	MaxOffset int64 `json:"maxOffset"`
	// LastUpdateTimestamp is the store time (epoch ms) of the last message,
	// 0 when the queue is empty.
	LastUpdateTimestamp int64 `json:"lastUpdateTimestamp"`
}

// TopicStats is a topic's queues on one broker.
type TopicStats struct {
	Offsets map[MessageQueue]TopicOffset
	// PutTps is the topic's put rate; only 5.3.3+ brokers report it.
	PutTps float64
	// HasPutTps is set when the broker reported PutTps.
	HasPutTps bool
}

// TopicStats returns the offset range of each of the topic's queues on the
// broker at addr. A broker that does not host the topic answers an error
// matching ErrTopicNotFound.
func (c *Client) TopicStats(ctx context.Context, addr, topic string) (*TopicStats, error) {
	resp, err := c.call(ctx, addr, CodeGetTopicStatsInfo, map[string]string{"topic": topic}, nil)
	if err != nil {
		c.invalidateOnError(topic, err)
		return nil, fmt.Errorf("stats of topic %q on %s: %w", topic, addr, err)
	}
	var raw struct {
		OffsetTable map[string]TopicOffset `json:"offsetTable"`
		TopicPutTps *flexFloat             `json:"topicPutTps"`
	}
	if err := decodeBody(resp.Body, &raw); err != nil {
		return nil, fmt.Errorf("stats of topic %q on %s: %w", topic, addr, err)
	}
	offsets, err := queueKeyed(raw.OffsetTable)
	if err != nil {
		return nil, fmt.Errorf("stats of topic %q on %s: %w", topic, addr, err)
	}
	st := &TopicStats{Offsets: offsets}
	if raw.TopicPutTps != nil {
		st.PutTps, st.HasPutTps = float64(*raw.TopicPutTps), true
	}
	return st, nil
}

// queueHeader is the header every queue-scoped request carries. bname is
// harmless to brokers that predate it.
func queueHeader(mq MessageQueue) map[string]string {
	return map[string]string{
		"topic":   mq.Topic,
		"queueId": itoa(mq.QueueID),
		"bname":   mq.BrokerName,
	}
}

func (c *Client) queueOffsetCall(ctx context.Context, addr string, code RequestCode, ext map[string]string, mq MessageQueue, field string) (int64, error) {
	resp, err := c.call(ctx, addr, code, ext, nil)
	if err != nil {
		c.invalidateOnError(mq.Topic, err)
		return 0, err
	}
	return headerInt64(resp, field)
}

// MaxOffset returns the queue's max offset: the offset the next message
// will get (the last stored message is at MaxOffset-1).
func (c *Client) MaxOffset(ctx context.Context, addr string, mq MessageQueue) (int64, error) {
	v, err := c.queueOffsetCall(ctx, addr, CodeGetMaxOffset, queueHeader(mq), mq, "offset")
	if err != nil {
		return 0, fmt.Errorf("max offset of %s on %s: %w", mq, addr, err)
	}
	return v, nil
}

// MinOffset returns the queue's smallest stored offset.
func (c *Client) MinOffset(ctx context.Context, addr string, mq MessageQueue) (int64, error) {
	v, err := c.queueOffsetCall(ctx, addr, CodeGetMinOffset, queueHeader(mq), mq, "offset")
	if err != nil {
		return 0, fmt.Errorf("min offset of %s on %s: %w", mq, addr, err)
	}
	return v, nil
}

// BoundaryType chooses which offset SearchOffset returns when several
// messages are near the timestamp. Only 5.x brokers honour it.
type BoundaryType string

const (
	// BoundaryLower: the first offset whose store time is >= the timestamp
	// (the max offset when every message is older).
	BoundaryLower BoundaryType = "LOWER"
	// BoundaryUpper: the last offset whose store time is <= the timestamp.
	BoundaryUpper BoundaryType = "UPPER"
)

// SearchOffset returns the queue offset for a store time
// (SEARCH_OFFSET_BY_TIMESTAMP). 5.x brokers answer by boundary; 4.x brokers
// ignore the boundary and return the offset whose store time is closest,
// and 0 when nothing is found.
func (c *Client) SearchOffset(ctx context.Context, addr string, mq MessageQueue, t time.Time, boundary BoundaryType) (int64, error) {
	ext := queueHeader(mq)
	ext["timestamp"] = i64toa(t.UnixMilli())
	if boundary != "" {
		ext["boundaryType"] = string(boundary)
	}
	v, err := c.queueOffsetCall(ctx, addr, CodeSearchOffsetByTimestamp, ext, mq, "offset")
	if err != nil {
		return 0, fmt.Errorf("offset of %s at %s on %s: %w", mq, t.Format(time.RFC3339Nano), addr, err)
	}
	return v, nil
}

// EarliestStoreTime returns the store time of the queue's earliest message,
// or the zero time when the queue is empty.
func (c *Client) EarliestStoreTime(ctx context.Context, addr string, mq MessageQueue) (time.Time, error) {
	v, err := c.queueOffsetCall(ctx, addr, CodeGetEarliestMsgStoreTime, queueHeader(mq), mq, "timestamp")
	if err != nil {
		return time.Time{}, fmt.Errorf("earliest store time of %s on %s: %w", mq, addr, err)
	}
	if v <= 0 {
		return time.Time{}, nil
	}
	return time.UnixMilli(v), nil
}

// CreateTopic creates the topic on the broker at addr, or updates it there when it
// exists (UPDATE_AND_CREATE_TOPIC): its queue counts, permission, order flag and, on 5.x,
// attributes ("+message.type" = "FIFO"). The broker registers the change with the
// NameServers itself.
func (c *Client) CreateTopic(ctx context.Context, addr string, tc TopicConfig) error {
	filter := tc.TopicFilterType
	if filter == "" {
		filter = "SINGLE_TAG"
	}
	ext := map[string]string{
		"topic":           tc.TopicName,
		"defaultTopic":    "TBW102",
		"readQueueNums":   strconv.Itoa(tc.ReadQueueNums),
		"writeQueueNums":  strconv.Itoa(tc.WriteQueueNums),
		"perm":            strconv.Itoa(tc.Perm),
		"topicFilterType": filter,
		"topicSysFlag":    strconv.Itoa(tc.TopicSysFlag),
		"order":           strconv.FormatBool(tc.Order),
	}
	if len(tc.Attributes) > 0 {
		ext["attributes"] = FormatAttributes(tc.Attributes)
	}
	if _, err := c.call(ctx, addr, CodeUpdateAndCreateTopic, ext, nil); err != nil {
		return fmt.Errorf("create or update topic %q on %s: %w", tc.TopicName, addr, err)
	}
	c.InvalidateRoute(tc.TopicName)
	return nil
}

// FormatAttributes writes attributes as the broker parses them: "+k=v,+k2=v2", keys
// sorted. Keys already carry their "+" (as GET_ALL_TOPIC_CONFIG answers them) or get one.
func FormatAttributes(attrs map[string]string) string {
	keys := make([]string, 0, len(attrs))
	for k := range attrs {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, 0, len(keys))
	for _, k := range keys {
		name := k
		if !strings.HasPrefix(name, "+") && !strings.HasPrefix(name, "-") {
			name = "+" + name
		}
		parts = append(parts, name+"="+attrs[k])
	}
	return strings.Join(parts, ",")
}

// DeleteTopicInBroker deletes the topic's configuration and its consume queues on the
// broker at addr (DELETE_TOPIC_IN_BROKER). The NameServers keep its route until
// DeleteTopicInNameServers.
func (c *Client) DeleteTopicInBroker(ctx context.Context, addr, topic string) error {
	if _, err := c.call(ctx, addr, CodeDeleteTopicInBroker, map[string]string{"topic": topic}, nil); err != nil {
		return fmt.Errorf("delete topic %q on %s: %w", topic, addr, err)
	}
	c.InvalidateRoute(topic)
	return nil
}

// DeleteTopicInNameServers removes the topic's route from every NameServer
// (DELETE_TOPIC_IN_NAMESRV): each keeps its own copy, so each is asked. It returns the
// errors of those that failed, joined.
func (c *Client) DeleteTopicInNameServers(ctx context.Context, topic string) error {
	var errs []error
	for _, ns := range c.nameServers {
		if _, err := c.call(ctx, ns, CodeDeleteTopicInNameSrv, map[string]string{"topic": topic}, nil); err != nil {
			errs = append(errs, fmt.Errorf("delete route of topic %q on NameServer %s: %w", topic, ns, err))
		}
	}
	c.InvalidateRoute(topic)
	return errors.Join(errs...)
}

// MessageType returns the topic's 5.x message type attribute (NORMAL, FIFO, DELAY,
// TRANSACTION, MIXED), "" when the broker keeps none (4.x, or a 5.x topic created
// without it, which 5.x treats as NORMAL). 5.3.3 stores the key as "message.type";
// the attribute syntax writes it "+message.type".
func (tc TopicConfig) MessageType() string {
	if v, ok := tc.Attributes["message.type"]; ok {
		return v
	}
	return tc.Attributes["+message.type"]
}
