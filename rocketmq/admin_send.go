package rocketmq

import (
	"context"
	"crypto/rand"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"maps"
	"net"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"time"
)

// Names of properties the broker sets on a message it moves to a retry or dead-letter
// topic (MessageConst), which the console reads to tell where a message came from.
const (
	// PropertyRetryTopic is the topic a retried message was first sent to; it stays
	// on the message in the retry topic and in the dead-letter topic.
	PropertyRetryTopic = "RETRY_TOPIC"
	// PropertyRealTopic and PropertyRealQueueID are where a delayed message goes once
	// its delay is over (a retry passes through SCHEDULE_TOPIC_XXXX with these set).
	PropertyRealTopic   = "REAL_TOPIC"
	PropertyRealQueueID = "REAL_QID"
	// PropertyOriginMessageID is the msgId of the message that failed.
	PropertyOriginMessageID = "ORIGIN_MESSAGE_ID"
	// PropertyDLQOriginTopic and PropertyDLQOriginMessageID are what 5.x sets on a
	// message that a POP consumer's retries moved to the dead-letter topic.
	PropertyDLQOriginTopic     = "DLQ_ORIGIN_TOPIC"
	PropertyDLQOriginMessageID = "DLQ_ORIGIN_MESSAGE_ID"
)

// defaultTopic is the template topic a broker may create an unknown topic from
// (TopicValidator.AUTO_CREATE_TOPIC_KEY_TOPIC); every producer sends its name.
const defaultTopic = "TBW102"

// OutgoingMessage is a message to send: the topic, the body as it is to be stored, the
// producer's user flag and the properties (KEYS, TAGS, UNIQ_KEY and the user's own).
type OutgoingMessage struct {
	Topic      string
	Body       []byte
	Flag       int
	Properties map[string]string
}

// SendStatus is how a broker stored a sent message.
type SendStatus int

// Send statuses (SendStatus). Every one but SendOK still stored the message: the
// broker only could not flush it to disk or to its slave within its timeout.
const (
	SendOK SendStatus = iota
	SendFlushDiskTimeout
	SendFlushSlaveTimeout
	SendSlaveNotAvailable
)

func (s SendStatus) String() string {
	switch s {
	case SendOK:
		return "SEND_OK"
	case SendFlushDiskTimeout:
		return "FLUSH_DISK_TIMEOUT"
	case SendFlushSlaveTimeout:
		return "FLUSH_SLAVE_TIMEOUT"
	case SendSlaveNotAvailable:
		return "SLAVE_NOT_AVAILABLE"
	}
	return "SendStatus(" + strconv.Itoa(int(s)) + ")"
}

// Response codes of SEND_MESSAGE that still mean stored.
const (
	codeFlushDiskTimeout  ResponseCode = 10
	codeSlaveNotAvailable ResponseCode = 11
	codeFlushSlaveTimeout ResponseCode = 12
)

// SendResult is a broker's answer to a sent message.
type SendResult struct {
	Status SendStatus
	// MsgID is the message's unique key (UNIQ_KEY), as clients show it.
	MsgID string
	// OffsetMsgID is the broker-made id: store host and commit-log offset.
	OffsetMsgID string
	Queue       MessageQueue
	QueueOffset int64
}

// SendMessage sends m to one queue of a master (SEND_MESSAGE_V2, the short-keyed
// header every client sends) as producerGroup, and answers where it was stored. The
// message is sent as it is given: the caller sets UNIQ_KEY (NewUniqueKey) and every
// other property. The body is sent uncompressed, with sysFlag 0 (a normal message).
func (c *Client) SendMessage(ctx context.Context, addr string, mq MessageQueue, producerGroup string, m OutgoingMessage) (*SendResult, error) {
	ext, err := sendHeader(mq, producerGroup, m, time.Now())
	if err != nil {
		return nil, fmt.Errorf("send to %s: %w", mq, err)
	}
	resp, err := c.invoke(ctx, addr, CodeSendMessageV2, ext, m.Body)
	if err != nil {
		c.invalidateOnError(mq.Topic, err)
		return nil, fmt.Errorf("send to %s on %s: %w", mq, addr, err)
	}
	res := &SendResult{MsgID: m.Properties[PropertyUniqueKey], Queue: mq}
	switch ResponseCode(resp.Code) {
	case CodeSuccess:
		res.Status = SendOK
	case codeFlushDiskTimeout:
		res.Status = SendFlushDiskTimeout
	case codeFlushSlaveTimeout:
		res.Status = SendFlushSlaveTimeout
	case codeSlaveNotAvailable:
		res.Status = SendSlaveNotAvailable
	default:
		err := c.answerError(addr, resp)
		c.invalidateOnError(mq.Topic, err)
		return nil, fmt.Errorf("send to %s: %w", mq, err)
	}
	res.OffsetMsgID = resp.ExtFields["msgId"]
	if q, err := strconv.Atoi(resp.ExtFields["queueId"]); err == nil {
		res.Queue.QueueID = q
	}
	res.QueueOffset, _ = strconv.ParseInt(resp.ExtFields["queueOffset"], 10, 64)
	return res, nil
}

// sendHeader is SendMessageRequestHeaderV2: the fields of SendMessageRequestHeader
// under one-letter keys, in its order.
func sendHeader(mq MessageQueue, producerGroup string, m OutgoingMessage, born time.Time) (map[string]string, error) {
	if m.Topic != mq.Topic {
		return nil, fmt.Errorf("message of topic %q sent to a queue of %q", m.Topic, mq.Topic)
	}
	props, err := EncodeProperties(m.Properties)
	if err != nil {
		return nil, err
	}
	return map[string]string{
		"a": producerGroup,
		"b": m.Topic,
		"c": defaultTopic,
		"d": "4", // defaultTopicQueueNums
		"e": strconv.Itoa(mq.QueueID),
		"f": "0", // sysFlag: not compressed, not transactional
		"g": strconv.FormatInt(born.UnixMilli(), 10),
		"h": strconv.Itoa(m.Flag),
		"i": props,
		"j": "0", // reconsumeTimes: a new message
		"k": "false",
		"m": "false", // batch
		"n": mq.BrokerName,
	}, nil
}

// EncodeProperties writes properties as the broker stores them (MessageDecoder's
// messageProperties2String): name \x01 value \x02, in name order here so the same
// properties are always the same bytes. A name or value holding a separator, and an
// empty name or value (the broker would drop it), is refused.
func EncodeProperties(p map[string]string) (string, error) {
	var b strings.Builder
	for _, k := range slices.Sorted(maps.Keys(p)) {
		v := p[k]
		if k == "" || v == "" {
			return "", fmt.Errorf("property %q has an empty name or value, which the broker drops", k)
		}
		if strings.ContainsAny(k, "\x01\x02") || strings.ContainsAny(v, "\x01\x02") {
			return "", fmt.Errorf("property %q holds a property separator (\\x01 or \\x02)", k)
		}
		b.WriteString(k)
		b.WriteByte(nameValueSeparator)
		b.WriteString(v)
		b.WriteByte(propertySeparator)
	}
	return b.String(), nil
}

// WriteQueues returns the queues a producer may send to: writeQueueNums per broker
// whose queues have write permission and whose master (broker id 0) is in the route,
// sorted.
func (r *TopicRoute) WriteQueues() []MessageQueue {
	var out []MessageQueue
	for _, qd := range r.QueueDatas {
		if qd.Perm&PermWrite == 0 {
			continue
		}
		if b, ok := r.Broker(qd.BrokerName); !ok || b.Addrs[0] == "" {
			continue
		}
		for i := 0; i < qd.WriteQueueNums; i++ {
			out = append(out, MessageQueue{Topic: r.Topic, BrokerName: qd.BrokerName, QueueID: i})
		}
	}
	SortMessageQueues(out)
	return out
}

// uniqueKeyPrefix is this process's part of the unique keys it makes: IPv4 address,
// pid and a random word in place of Java's class-loader hash (it tells two consoles on
// one host apart), as MessageClientIDSetter lays them out.
var (
	uniqueKeyPrefix  = makeUniqueKeyPrefix()
	uniqueKeyCounter atomic.Uint32
)

func makeUniqueKeyPrefix() []byte {
	b := make([]byte, 10)
	copy(b, localIPv4())
	binary.BigEndian.PutUint16(b[4:], uint16(os.Getpid()))
	_, _ = rand.Read(b[6:10])
	return b
}

func localIPv4() net.IP {
	addrs, err := net.InterfaceAddrs()
	if err == nil {
		for _, a := range addrs {
			if n, ok := a.(*net.IPNet); ok && !n.IP.IsLoopback() && n.IP.To4() != nil {
				return n.IP.To4()
			}
		}
	}
	return net.IPv4(127, 0, 0, 1).To4()
}

// NewUniqueKey makes a client message id (UNIQ_KEY) in the remoting clients' layout:
// 32 upper-case hex characters that ParseUniqueKey reads back (IP, pid, time since the
// start of the month in the local zone, counter).
func NewUniqueKey() string { return newUniqueKeyAt(time.Now()) }

func newUniqueKeyAt(now time.Time) string {
	b := make([]byte, 16)
	copy(b, uniqueKeyPrefix)
	y, mo, _ := now.Date()
	start := time.Date(y, mo, 1, 0, 0, 0, 0, now.Location())
	binary.BigEndian.PutUint32(b[10:], uint32(now.Sub(start).Milliseconds()))
	binary.BigEndian.PutUint16(b[14:], uint16(uniqueKeyCounter.Add(1)))
	return strings.ToUpper(hex.EncodeToString(b))
}
