package rocketmq

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"
)

// ToolsConsumerGroup is the group admin pulls use. Brokers create it at
// start, exempt it from pull restrictions, and a pull under it never touches
// a real group's offsets or pending resets.
const ToolsConsumerGroup = "TOOLS_CONSUMER"

// pull request system flags (PullSysFlag).
const (
	pullFlagSuspend      = 0x2
	pullFlagSubscription = 0x4
)

// MaxPullHold bounds how long PullHeld asks a broker to hold a pull: what RocketMQ's
// own consumers ask (brokerSuspendMaxTimeMillis).
const MaxPullHold = 15 * time.Second

// PullStatus is the outcome of one pull.
type PullStatus int

const (
	// PullFound: messages were returned.
	PullFound PullStatus = iota
	// PullNoNewMsg: nothing at this offset yet (the offset is the queue's
	// max offset, or the queue is empty).
	PullNoNewMsg
	// PullNoMatchedMsg: messages exist but none matched the filter; go on at
	// NextBeginOffset.
	PullNoMatchedMsg
	// PullOffsetIllegal: the offset is outside [min, max]; NextBeginOffset
	// says where the queue's data is.
	PullOffsetIllegal
)

func (s PullStatus) String() string {
	switch s {
	case PullFound:
		return "FOUND"
	case PullNoNewMsg:
		return "NO_NEW_MSG"
	case PullNoMatchedMsg:
		return "NO_MATCHED_MSG"
	case PullOffsetIllegal:
		return "OFFSET_ILLEGAL"
	}
	return fmt.Sprintf("PullStatus(%d)", int(s))
}

// PullResult is the answer to one PULL_MESSAGE.
type PullResult struct {
	Status          PullStatus
	NextBeginOffset int64
	MinOffset       int64
	MaxOffset       int64
	// SuggestWhichBrokerID is the broker id the master suggests reading
	// from next (a slave when the data is cold).
	SuggestWhichBrokerID int64
	// Messages are the messages found (Status PullFound), in queue order.
	Messages []*Message
	// ViaConsumeQueue says the broker refused the pull (a 5.x slave without
	// slaveReadEnable) and the messages were read through its consume queue
	// and commit log instead (QUERY_CONSUME_QUEUE, VIEW_MESSAGE_BY_ID).
	ViaConsumeQueue bool
}

// Pull reads up to maxNums messages of one queue from offset, as the
// TOOLS_CONSUMER group, without committing any offset and without long
// polling. Brokers cap one pull at 32 messages (8 when read from disk) and
// 256 KiB. Send it to the master at the main port, not the VIP port.
func (c *Client) Pull(ctx context.Context, addr string, mq MessageQueue, offset int64, maxNums int) (*PullResult, error) {
	return c.pull(ctx, addr, mq, offset, maxNums, 0)
}

// PullHeld is Pull with broker long polling: when nothing is stored at offset yet, the
// broker holds the request until a message arrives in the queue or hold has passed
// (at most MaxPullHold), and answers then (PullNoNewMsg when nothing came). The call
// waits hold longer than the client's timeout. A live tail reads this way, so a new
// message reaches it as soon as the broker has stored it, without polling in a loop.
func (c *Client) PullHeld(ctx context.Context, addr string, mq MessageQueue, offset int64, maxNums int, hold time.Duration) (*PullResult, error) {
	return c.pull(ctx, addr, mq, offset, maxNums, min(max(hold, 0), MaxPullHold))
}

func (c *Client) pull(ctx context.Context, addr string, mq MessageQueue, offset int64, maxNums int, hold time.Duration) (*PullResult, error) {
	if maxNums <= 0 {
		maxNums = 32
	}
	ext := pullHeader(mq, offset, maxNums)
	if hold > 0 {
		ext["sysFlag"] = itoa(pullFlagSubscription | pullFlagSuspend)
		ext["suspendTimeoutMillis"] = i64toa(hold.Milliseconds())
	}
	resp, err := c.invokeHeld(ctx, addr, CodePullMessage, ext, nil, hold)
	if err != nil {
		c.invalidateOnError(mq.Topic, err)
		return nil, fmt.Errorf("pull %s from offset %d on %s: %w", mq, offset, addr, err)
	}
	if pullRejected(resp) {
		return c.readConsumeQueue(ctx, addr, mq, offset, maxNums)
	}
	r := &PullResult{
		NextBeginOffset:      headerInt64Or(resp, "nextBeginOffset", offset),
		MinOffset:            headerInt64Or(resp, "minOffset", 0),
		MaxOffset:            headerInt64Or(resp, "maxOffset", 0),
		SuggestWhichBrokerID: headerInt64Or(resp, "suggestWhichBrokerId", 0),
	}
	switch ResponseCode(resp.Code) {
	case CodeSuccess:
		r.Status = PullFound
	case CodePullNotFound:
		r.Status = PullNoNewMsg
		return r, nil
	case CodePullRetryImmediately:
		r.Status = PullNoMatchedMsg
		return r, nil
	case CodePullOffsetMoved:
		r.Status = PullOffsetIllegal
		return r, nil
	default:
		err := c.answerError(addr, resp)
		c.invalidateOnError(mq.Topic, err)
		return nil, fmt.Errorf("pull %s from offset %d on %s: %w", mq, offset, addr, err)
	}
	msgs, err := DecodeMessages(resp.Body)
	if err != nil {
		return nil, fmt.Errorf("pull %s from offset %d on %s: %w", mq, offset, addr, err)
	}
	// 5.x static topics: stored offsets are physical; the delta makes them logical.
	if delta := headerInt64Or(resp, "offsetDelta", 0); delta != 0 {
		for _, m := range msgs {
			m.QueueOffset += delta
		}
	}
	r.Messages = msgs
	return r, nil
}

// pullHeader is the PULL_MESSAGE header of a read of mq from offset as
// TOOLS_CONSUMER: every tag, no commit, no long polling.
func pullHeader(mq MessageQueue, offset int64, maxNums int) map[string]string {
	return map[string]string{
		"consumerGroup":        ToolsConsumerGroup,
		"topic":                mq.Topic,
		"queueId":              itoa(mq.QueueID),
		"queueOffset":          i64toa(offset),
		"maxMsgNums":           itoa(maxNums),
		"sysFlag":              itoa(pullFlagSubscription),
		"commitOffset":         "0",
		"suspendTimeoutMillis": "0",
		"subscription":         "*",
		"subVersion":           "0",
		"expressionType":       "TAG",
		"bname":                mq.BrokerName,
	}
}

// PullRange reads the queue's messages with offsets in [from, to), at most
// limit of them (0 = no limit), pulling 32 at a time. It returns them in
// offset order, and the offset to continue from: to when the range was read
// completely, earlier when limit was reached or the queue ended before to.
// A from below the queue's min offset starts at the min offset.
func (c *Client) PullRange(ctx context.Context, addr string, mq MessageQueue, from, to int64, limit int) ([]*Message, int64, error) {
	var out []*Message
	offset := from
	for offset < to && (limit <= 0 || len(out) < limit) {
		n := 32
		if left := to - offset; left < int64(n) {
			n = int(left)
		}
		r, err := c.Pull(ctx, addr, mq, offset, n)
		if err != nil {
			return out, offset, err
		}
		switch r.Status {
		case PullNoNewMsg:
			return out, offset, nil
		case PullOffsetIllegal:
			if r.NextBeginOffset <= offset {
				return out, offset, nil // beyond the end: nothing more to read
			}
			offset = r.NextBeginOffset
			continue
		case PullNoMatchedMsg:
			if r.NextBeginOffset <= offset {
				return out, offset, nil
			}
			offset = r.NextBeginOffset
			continue
		}
		for _, m := range r.Messages {
			if m.QueueOffset < offset || m.QueueOffset >= to {
				continue
			}
			if limit > 0 && len(out) >= limit {
				return out, m.QueueOffset, nil
			}
			out = append(out, m)
		}
		if r.NextBeginOffset <= offset {
			return out, offset, nil // no progress: do not spin
		}
		offset = r.NextBeginOffset
	}
	if offset > to {
		offset = to
	}
	return out, offset, nil
}

// QueryResult is the answer to one QUERY_MESSAGE.
type QueryResult struct {
	// Messages matched the key, after the client-side filtering brokers
	// expect (the index is a hash table, so collisions are possible).
	Messages []*Message
	// IndexLastUpdateTimestamp is the store time of the newest indexed
	// message: messages newer than this cannot be found yet.
	IndexLastUpdateTimestamp int64
	IndexLastUpdatePhyOffset int64
}

// MaxKeyQueryNum is the most messages one QUERY_MESSAGE returns (the
// broker's maxMsgsNumBatch).
const MaxKeyQueryNum = 64

func queryWindow(begin, end time.Time) (string, string) {
	b, e := int64(0), int64(math.MaxInt64)
	if !begin.IsZero() {
		b = begin.UnixMilli()
	}
	if !end.IsZero() {
		e = end.UnixMilli()
	}
	return i64toa(b), i64toa(e)
}

func (c *Client) queryMessage(ctx context.Context, addr, topic, key string, maxNum int, begin, end time.Time, unique bool) (*QueryResult, error) {
	b, e := queryWindow(begin, end)
	ext := map[string]string{
		"topic":             topic,
		"key":               key,
		"maxNum":            itoa(maxNum),
		"beginTimestamp":    b,
		"endTimestamp":      e,
		"_UNIQUE_KEY_QUERY": btoa(unique),
	}
	resp, err := c.invoke(ctx, addr, CodeQueryMessage, ext, nil)
	if err != nil {
		c.invalidateOnError(topic, err)
		return nil, err
	}
	r := &QueryResult{
		IndexLastUpdateTimestamp: headerInt64Or(resp, "indexLastUpdateTimestamp", 0),
		IndexLastUpdatePhyOffset: headerInt64Or(resp, "indexLastUpdatePhyoffset", 0),
	}
	switch ResponseCode(resp.Code) {
	case CodeSuccess:
	case CodeQueryNotFound:
		return r, nil
	default:
		err := c.answerError(addr, resp)
		c.invalidateOnError(topic, err)
		return nil, err
	}
	msgs, err := DecodeMessages(resp.Body)
	if err != nil {
		return nil, err
	}
	for _, m := range msgs {
		if m.Topic != topic {
			continue
		}
		if unique && m.UniqueKey() != key {
			continue
		}
		if !unique && !slices.Contains(m.Keys(), key) {
			continue
		}
		r.Messages = append(r.Messages, m)
	}
	return r, nil
}

// QueryMessageByKey finds the topic's messages with this key (property
// KEYS) in the broker's index, stored between begin and end (zero times
// mean unbounded), at most maxNum (capped at MaxKeyQueryNum). The index is
// built asynchronously, so a message just sent may not be found yet. Ask
// every broker of the topic's route and merge.
func (c *Client) QueryMessageByKey(ctx context.Context, addr, topic, key string, maxNum int, begin, end time.Time) (*QueryResult, error) {
	if maxNum <= 0 || maxNum > MaxKeyQueryNum {
		maxNum = MaxKeyQueryNum
	}
	r, err := c.queryMessage(ctx, addr, topic, key, maxNum, begin, end, false)
	if err != nil {
		return nil, fmt.Errorf("query key %q of topic %q on %s: %w", key, topic, addr, err)
	}
	return r, nil
}

// QueryMessageByUniqueKey finds the topic's messages whose client-made id
// (UNIQ_KEY, what producers report as msgId) is uniqKey. More than one
// stored copy can match (a producer retry, a message sent back for retry).
func (c *Client) QueryMessageByUniqueKey(ctx context.Context, addr, topic, uniqKey string, begin, end time.Time) (*QueryResult, error) {
	// The broker replaces maxNum by its defaultQueryMaxNum (32) for unique
	// key queries; the value sent only has to be valid.
	r, err := c.queryMessage(ctx, addr, topic, uniqKey, 32, begin, end, true)
	if err != nil {
		return nil, fmt.Errorf("query unique key %q of topic %q on %s: %w", uniqKey, topic, addr, err)
	}
	if up := strings.ToUpper(uniqKey); len(r.Messages) == 0 && up != uniqKey {
		// The index is case-sensitive. Java producers write ids in upper
		// case (Go producers partly in lower case), so a pasted id typed in
		// lower case is worth one more try.
		if r2, err := c.queryMessage(ctx, addr, topic, up, 32, begin, end, true); err == nil && len(r2.Messages) > 0 {
			return r2, nil
		}
	}
	return r, nil
}

// ViewMessage reads the message an offsetMsgId names, from the broker that
// stored it (the id holds its address and the commit-log offset). topic is
// optional; 5.x brokers use it for authorization.
func (c *Client) ViewMessage(ctx context.Context, offsetMsgID, topic string) (*Message, error) {
	id, err := ParseOffsetMsgID(offsetMsgID)
	if err != nil {
		return nil, fmt.Errorf("view message %q: %w", offsetMsgID, err)
	}
	m, err := c.ViewMessageAt(ctx, id.StoreHost.String(), id.CommitLogOffset, topic)
	if err != nil {
		return nil, fmt.Errorf("view message %q: %w", offsetMsgID, err)
	}
	return m, nil
}

// ViewMessageAt reads the message at a commit-log offset of the broker at
// addr (VIEW_MESSAGE_BY_ID). An offset where no message starts (past the log, or
// inside a message) gives an error matching ErrMessageNotFound.
func (c *Client) ViewMessageAt(ctx context.Context, addr string, commitLogOffset int64, topic string) (*Message, error) {
	ext := map[string]string{"offset": i64toa(commitLogOffset)}
	if topic != "" {
		ext["topic"] = topic
	}
	resp, err := c.call(ctx, addr, CodeViewMessageByID, ext, nil)
	if err != nil {
		var be *BrokerError
		if errors.As(err, &be) && be.Code == CodeSystemError {
			be.kind = ErrMessageNotFound
		}
		return nil, fmt.Errorf("message at commit-log offset %d on %s: %w", commitLogOffset, addr, err)
	}
	msgs, err := DecodeMessages(resp.Body)
	if err != nil {
		// The broker answers whatever bytes lie at the offset: inside a message (a made-up
		// or mistyped offsetMsgId) they are no message, which is not found, not a failure.
		return nil, fmt.Errorf("message at commit-log offset %d on %s: %w (%v)", commitLogOffset, addr, ErrMessageNotFound, err)
	}
	if len(msgs) == 0 {
		return nil, fmt.Errorf("message at commit-log offset %d on %s: %w", commitLogOffset, addr, ErrMessageNotFound)
	}
	return msgs[0], nil
}
