package topics

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"rmqconsole/cluster"
	"rmqconsole/fault"
	"rmqconsole/i18n"
	"rmqconsole/rocketmq"
	"rmqconsole/store"
)

// Sender is what sending a message asks RocketMQ beyond reading; *rocketmq.Client
// implements it.
type Sender interface {
	SendMessage(ctx context.Context, addr string, mq rocketmq.MessageQueue, producerGroup string, m rocketmq.OutgoingMessage) (*rocketmq.SendResult, error)
	BrokerConfig(ctx context.Context, addr string) (map[string]string, error)
}

var _ Sender = (*rocketmq.Client)(nil)

// ModeSend is the audit mode of a message sent from the console.
const ModeSend = "message-send"

// SendProducerGroup is the producer group the console sends as; brokers list it among
// the topic's producers while a send is under way.
const SendProducerGroup = "RMQC_CONSOLE_SEND"

// Bounds of a message to send, checked before any broker is asked.
const (
	// DefaultMaxMessageSize is the brokers' maxMessageSize when it cannot be read (4 MiB,
	// the default of 4.x and 5.x).
	DefaultMaxMessageSize = 4 * 1024 * 1024
	// MaxDelayLevel is the last of the brokers' default delay levels (2h).
	MaxDelayLevel = 18
)

// Properties the client and the broker set themselves (MessageConst's names a
// producer may not use for its own), and the console's send sets from its fields.
var reservedProperties = []string{
	"KEYS", "TAGS", "WAIT", "DELAY", "RETRY_TOPIC", "REAL_TOPIC", "REAL_QID", "TRAN_MSG",
	"PGROUP", "MIN_OFFSET", "MAX_OFFSET", "BUYER_ID", "ORIGIN_MESSAGE_ID", "TRANSFER_FLAG",
	"CORRECTION_FLAG", "MQ2_FLAG", "RECONSUME_TIME", "MSG_REGION", "TRACE_ON", "UNIQ_KEY",
	"MAX_RECONSUME_TIMES", "CONSUME_START_TIME", "__SHARDINGKEY", "TIMER_DELIVER_MS",
	"TIMER_DELAY_SEC", "TIMER_DELAY_MS", "CLUSTER", "INNER_NUM", "INNER_BASE",
	"POP_CK", "1ST_POP_TIME", "DLQ_ORIGIN_TOPIC", "DLQ_ORIGIN_MESSAGE_ID",
}

// propertyShardingKey is where 5.x keeps a FIFO message's group (MessageConst
// PROPERTY_SHARDING_KEY); timerDeliverMs the time a 5.x timer message is delivered.
const (
	propertyShardingKey  = "__SHARDINGKEY"
	propertyTimerDeliver = "TIMER_DELIVER_MS"
	propertyDelayLevel   = "DELAY"
	propertyWaitStore    = "WAIT"
)

// SendRequest is a message to send to a topic.
type SendRequest struct {
	// Topic is where it goes (the path names it; a body field, if given, must agree).
	Topic string `json:"topic,omitempty"`
	// Body is the message's body: text, or base64 with BodyEncoding "base64".
	Body         string            `json:"body"`
	BodyEncoding string            `json:"bodyEncoding,omitempty"`
	Tags         string            `json:"tags,omitempty"`
	Keys         []string          `json:"keys,omitempty"`
	Properties   map[string]string `json:"properties,omitempty"`
	// DeliverAt (epoch ms) makes it a 5.x timer message; DelayLevel (1–18) a delayed
	// message as 4.x clients send it. At most one of the two.
	DeliverAt  int64 `json:"deliverAt,omitempty"`
	DelayLevel int   `json:"delayLevel,omitempty"`
	// QueueID (with BrokerName when the topic is on several brokers) picks the queue;
	// nil lets the console pick one, by the message group's hash for a FIFO topic.
	QueueID    *int   `json:"queueId,omitempty"`
	BrokerName string `json:"brokerName,omitempty"`
	// MessageGroup is a FIFO message's group; required on a 5.x FIFO topic.
	MessageGroup string `json:"messageGroup,omitempty"`
	// Reason is kept in the audit entry.
	Reason string `json:"reason,omitempty"`
	// CopiedFrom names the message this one copies (the message page's copy), for the
	// audit log.
	CopiedFrom string `json:"copiedFrom,omitempty"`
}

// Sent is where a sent message was stored.
type Sent struct {
	MsgID       string `json:"msgId"`
	OffsetMsgID string `json:"offsetMsgId"`
	BrokerName  string `json:"brokerName"`
	QueueID     int    `json:"queueId"`
	QueueOffset int64  `json:"queueOffset"`
	// Status is how the broker stored it (SEND_OK, or stored but not flushed in time).
	Status string `json:"status"`
	// AuditID is the audit entry of the send.
	AuditID int64 `json:"auditId"`
}

// sendTarget is a broker a send may go to, as read just before (its master's version,
// the topic's configuration there), with the broker's maxMessageSize and the topic's
// writable queues on it.
type sendTarget struct {
	target
	maxSize int
	queues  []rocketmq.MessageQueue
}

// Send sends one message to r.Topic and answers where it was stored. Everything that
// can be refused is refused before the message goes to a broker, with a sentence: bad
// input, a system topic, a topic that does not exist or takes no writes, a body over
// the brokers' maxMessageSize, a FIFO topic without a message group, a timer on a 4.x
// broker. The send is written to the audit log before it is made.
func (s *Service) Send(ctx context.Context, who Who, r SendRequest) (*Sent, error) {
	body, err := checkSend(r, s.opts.Now())
	if err != nil {
		return nil, err
	}
	if s.opts.Audit == nil || s.sender == nil {
		return nil, errNoAudit()
	}
	ci, err := s.cluster.Info(ctx)
	if err != nil {
		return nil, err
	}
	// Retry and dead-letter topics are system topics too.
	if ci.IsSystemTopic(r.Topic) {
		return nil, inputErr("topic", "topics.send.system", "Topic", r.Topic)
	}
	targets, err := s.sendTargets(ctx, r.Topic)
	if err != nil {
		return nil, err
	}
	t, q, err := pickQueue(r, targets, len(body))
	if err != nil {
		return nil, err
	}
	m := outgoing(r, body)
	params, _ := json.Marshal(struct {
		SendRequest
		Body     string `json:"body,omitempty"`
		BodySize int    `json:"bodySize"`
	}{SendRequest: r, BodySize: len(body)})
	e := s.entry(who, ModeSend, r.Topic, params)
	e.Reason = r.Reason
	var sendErr error
	name, addr := t.broker.Name, t.broker.Master
	out := &Sent{MsgID: m.Properties[rocketmq.PropertyUniqueKey], BrokerName: name, QueueID: q.QueueID}
	err = s.opts.Audit.Change(ctx, e, func(ctx context.Context) ([]store.AuditQueue, error) {
		row := store.AuditQueue{Topic: r.Topic, BrokerName: name, BrokerAddr: addr, QueueID: q.QueueID, Before: -1, Target: -1}
		res, err := s.sender.SendMessage(context.WithoutCancel(ctx), addr, q, SendProducerGroup, m)
		if err != nil {
			sendErr = err
			row.Error = i18n.TextOf(i18n.M("topics.send.failed", "Broker", name, "Addr", addr, "Error", err.Error()))
			return []store.AuditQueue{row}, nil
		}
		out.OffsetMsgID, out.QueueID, out.QueueOffset, out.Status = res.OffsetMsgID, res.Queue.QueueID, res.QueueOffset, res.Status.String()
		row.QueueID, row.Target = res.Queue.QueueID, res.QueueOffset
		note := i18n.M("topics.send.audit.note", "MsgID", out.MsgID, "OffsetMsgID", out.OffsetMsgID,
			"Offset", strconv.FormatInt(res.QueueOffset, 10))
		if r.CopiedFrom != "" {
			note = i18n.M("topics.send.audit.copy", "From", r.CopiedFrom, "MsgID", out.MsgID, "OffsetMsgID", out.OffsetMsgID,
				"Offset", strconv.FormatInt(res.QueueOffset, 10))
		}
		row.Note = i18n.TextOf(note)
		if res.Status != rocketmq.SendOK {
			row.Error = i18n.TextOf(i18n.M("topics.send.status", "Broker", name, "Status", res.Status.String()))
		}
		return []store.AuditQueue{row}, nil
	})
	if err != nil {
		return nil, err
	}
	out.AuditID = e.ID
	if sendErr != nil {
		return nil, fault.Wrap(sendErr, fault.Unavailable, "topics.send.notstored", "Topic", r.Topic, "Broker", name,
			"Error", sendErr.Error(), "ID", e.ID).Because("send_failed")
	}
	return out, nil
}

// checkSend refuses what needs no broker to refuse, and answers the body's bytes.
func checkSend(r SendRequest, now time.Time) ([]byte, error) {
	if err := CheckName(r.Topic); err != nil {
		return nil, err
	}
	var l fault.List
	body := []byte(r.Body)
	switch r.BodyEncoding {
	case "", "text":
	case "base64":
		b, err := base64.StdEncoding.DecodeString(r.Body)
		if err != nil {
			l.Add(inputErr("body", "topics.send.input.base64"))
		}
		body = b
	default:
		l.Add(inputErr("bodyEncoding", "topics.send.input.encoding", "Encoding", r.BodyEncoding))
	}
	if len(body) == 0 && len(l) == 0 {
		l.Add(inputErr("body", "topics.send.input.body.empty"))
	}
	if strings.ContainsAny(r.Tags, "|\x01\x02") || strings.TrimSpace(r.Tags) != r.Tags {
		l.Add(inputErr("tags", "topics.send.input.tags", "Tags", r.Tags))
	}
	for _, k := range r.Keys {
		if k == "" || strings.ContainsAny(k, " \x01\x02") {
			l.Add(inputErr("keys", "topics.send.input.key", "Key", k))
			break
		}
	}
	for _, k := range slices.Sorted(maps.Keys(r.Properties)) {
		v := r.Properties[k]
		switch {
		case slices.Contains(reservedProperties, k):
			l.Add(inputErr("properties", "topics.send.input.prop.reserved", "Name", k))
		case k == "" || v == "" || strings.ContainsAny(k+v, "\x01\x02"):
			l.Add(inputErr("properties", "topics.send.input.prop.bad", "Name", k))
		}
	}
	switch {
	case r.DeliverAt != 0 && r.DelayLevel != 0:
		l.Add(inputErr("deliverAt", "topics.send.input.delay.both"))
	case r.DelayLevel < 0 || r.DelayLevel > MaxDelayLevel:
		l.Add(inputErr("delayLevel", "topics.send.input.delay.level", "Level", r.DelayLevel, "Max", MaxDelayLevel))
	case r.DeliverAt < 0:
		l.Add(inputErr("deliverAt", "topics.send.input.deliverat", "At", r.DeliverAt))
	}
	if r.MessageGroup != "" && (r.DeliverAt != 0 || r.DelayLevel != 0) {
		l.Add(inputErr("messageGroup", "topics.send.input.group.delay"))
	}
	if r.QueueID != nil && *r.QueueID < 0 {
		l.Add(inputErr("queueId", "topics.send.input.queue", "Queue", *r.QueueID))
	}
	return body, l.Err()
}

// sendTargets reads, on each broker of the topic's route with writable queues, the
// topic's configuration, the master's version and maxMessageSize. A topic no
// NameServer routes is NotFound; one without a writable queue is refused.
func (s *Service) sendTargets(ctx context.Context, topic string) ([]sendTarget, error) {
	route, err := s.cluster.Route(ctx, topic)
	if errors.Is(err, rocketmq.ErrTopicNotFound) {
		return nil, NotFound(topic)
	}
	if err != nil {
		return nil, err
	}
	byBroker := map[string][]rocketmq.MessageQueue{}
	for _, q := range route.Raw().WriteQueues() {
		byBroker[q.BrokerName] = append(byBroker[q.BrokerName], q)
	}
	if len(byBroker) == 0 {
		return nil, fault.New(fault.Conflict, "topics.send.notwritable", "Topic", topic).Because("topic_not_writable")
	}
	var brokers []cluster.Broker
	for _, b := range route.Brokers {
		if len(byBroker[b.Name]) > 0 {
			brokers = append(brokers, b)
		}
	}
	maxSize := make([]int, len(brokers))
	ts, err := s.readTargets(ctx, topic, brokers, func(ctx context.Context, i int, addr string) error {
		cfg, err := s.sender.BrokerConfig(ctx, addr)
		if err != nil {
			return err
		}
		maxSize[i] = DefaultMaxMessageSize
		if n, err := strconv.Atoi(cfg["maxMessageSize"]); err == nil && n > 0 {
			maxSize[i] = n
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	out := make([]sendTarget, len(ts))
	for i, t := range ts {
		out[i] = sendTarget{target: t, maxSize: maxSize[i], queues: byBroker[t.broker.Name]}
	}
	return out, nil
}

// pickQueue is the broker and queue the message goes to: the one asked, else the
// message group's (as 5.x picks a FIFO message's queue: its hash over the topic's
// writable queues), else one at random. It refuses what the brokers would.
func pickQueue(r SendRequest, ts []sendTarget, size int) (sendTarget, rocketmq.MessageQueue, error) {
	var all []rocketmq.MessageQueue
	byName := map[string]sendTarget{}
	for _, t := range ts {
		all = append(all, t.queues...)
		byName[t.broker.Name] = t
		if size > t.maxSize {
			return t, rocketmq.MessageQueue{}, inputErr("body", "topics.send.input.body.large", "Size", size, "Max", t.maxSize, "Broker", t.broker.Name)
		}
		if t.before != nil && messageType(*t.before, t.is5) == TypeFIFO && r.MessageGroup == "" {
			return t, rocketmq.MessageQueue{}, inputErr("messageGroup", "topics.send.input.group.missing", "Topic", r.Topic)
		}
		if r.DeliverAt != 0 && !t.is5 {
			return t, rocketmq.MessageQueue{}, inputErr("deliverAt", "topics.send.input.deliverat.4x", "Broker", t.broker.Name)
		}
	}
	rocketmq.SortMessageQueues(all)
	var q rocketmq.MessageQueue
	switch {
	case r.QueueID != nil:
		name := r.BrokerName
		if name == "" {
			if len(ts) > 1 {
				return ts[0], q, inputErr("brokerName", "topics.send.input.broker.which", "Brokers", strings.Join(slices.Sorted(maps.Keys(byName)), ", "))
			}
			name = ts[0].broker.Name
		}
		t, ok := byName[name]
		if !ok {
			return ts[0], q, inputErr("brokerName", "topics.send.input.broker.unknown", "Broker", name, "Brokers", strings.Join(slices.Sorted(maps.Keys(byName)), ", "))
		}
		if *r.QueueID >= len(t.queues) {
			return t, q, inputErr("queueId", "topics.send.input.queue.range", "Queue", *r.QueueID, "Last", len(t.queues)-1, "Broker", t.broker.Name)
		}
		return t, t.queues[*r.QueueID], nil
	case r.MessageGroup != "":
		q = all[javaHash(r.MessageGroup)%len(all)]
	default:
		q = all[rand.IntN(len(all))]
	}
	return byName[q.BrokerName], q, nil
}

// javaHash is |String.hashCode()|, as Java's producers pick a FIFO queue.
func javaHash(s string) int {
	var h int32
	for _, c := range s {
		if c > 0xFFFF {
			// A supplementary character is two UTF-16 units.
			c -= 0x10000
			h = 31*h + int32(0xD800+(c>>10))
			h = 31*h + int32(0xDC00+(c&0x3FF))
			continue
		}
		h = 31*h + int32(c)
	}
	if h < 0 {
		return -int(h)
	}
	return int(h)
}

// outgoing is r as the message the brokers store: the user's properties with the keys,
// tags, delay and group in the properties the clients use for them.
func outgoing(r SendRequest, body []byte) rocketmq.OutgoingMessage {
	p := map[string]string{propertyWaitStore: "true"}
	maps.Copy(p, r.Properties)
	p[rocketmq.PropertyUniqueKey] = rocketmq.NewUniqueKey()
	if r.Tags != "" {
		p[rocketmq.PropertyTags] = r.Tags
	}
	if len(r.Keys) > 0 {
		p[rocketmq.PropertyKeys] = strings.Join(r.Keys, " ")
	}
	if r.DelayLevel > 0 {
		p[propertyDelayLevel] = strconv.Itoa(r.DelayLevel)
	}
	if r.DeliverAt > 0 {
		p[propertyTimerDeliver] = strconv.FormatInt(r.DeliverAt, 10)
	}
	if r.MessageGroup != "" {
		p[propertyShardingKey] = r.MessageGroup
	}
	return rocketmq.OutgoingMessage{Topic: r.Topic, Body: body, Properties: p}
}

// String is how a sent message is named in logs.
func (s *Sent) String() string {
	return fmt.Sprintf("msgId %s at %s queue %d offset %d", s.MsgID, s.BrokerName, s.QueueID, s.QueueOffset)
}

// CopyOf is the send of a copy of m to topic to, as an operator starts it from the
// message's page: the same body (base64 when it is not text), tags, keys, message group
// and the properties the producer set; what the client and the broker set (its id,
// times, retry and transaction marks) the copy gets anew.
func CopyOf(m *rocketmq.Message, to string) SendRequest {
	r := SendRequest{Topic: to, Tags: m.Tags(), Keys: m.Keys(), MessageGroup: m.Properties[propertyShardingKey], CopiedFrom: m.MsgID()}
	if id := m.OffsetMsgID(); id != "" {
		r.CopiedFrom = id // names this stored copy, whatever the producer's id
	}
	if utf8.Valid(m.Body) {
		r.Body = string(m.Body)
	} else {
		r.Body, r.BodyEncoding = base64.StdEncoding.EncodeToString(m.Body), "base64"
	}
	for k, v := range m.Properties {
		if !slices.Contains(reservedProperties, k) && v != "" {
			if r.Properties == nil {
				r.Properties = map[string]string{}
			}
			r.Properties[k] = v
		}
	}
	return r
}
