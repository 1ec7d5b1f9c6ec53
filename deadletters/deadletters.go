// Package deadletters is what the console does with a consumer group's failed messages:
// it tells how many wait in the group's retry topic (%RETRY%<group>) and its dead-letter
// topic (%DLQ%<group>), and resends dead letters to the topic they were first sent to,
// keeping their keys, tags and user properties, each resend audited.
//
// A message a consumer fails goes back to its broker (CONSUMER_SEND_MSG_BACK), which
// stores a copy in the group's retry topic for a later delivery; once it has failed
// more often than the group's max reconsume times, the copy goes to the dead-letter
// topic instead, which the broker creates then. No consumer reads a dead-letter topic:
// its messages stay there until an operator resends them.
package deadletters

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"

	"rmqconsole/cluster"
	"rmqconsole/fault"
	"rmqconsole/i18n"
	"rmqconsole/lookup"
	"rmqconsole/rocketmq"
	"rmqconsole/store"
)

// MaxResend is the most messages one resend sends: a search of a dead-letter topic
// shows up to 2000, and a resend of that many in one request would hold the group's
// audit entry, and the operator's browser, for long.
const MaxResend = 100

// ProducerGroup is the producer group resent messages are sent as. Brokers use it only
// to check transactions, which a resend never starts.
const ProducerGroup = "RMQC_RESEND_PRODUCER"

// AuditMode is the audit log's mode of a resend.
const AuditMode = "message-resend"

// Admin is what the service asks RocketMQ; *rocketmq.Client implements it.
type Admin interface {
	cluster.Client
	TopicStats(ctx context.Context, addr, topic string) (*rocketmq.TopicStats, error)
	TopicList(ctx context.Context) ([]string, error)
	SendMessage(ctx context.Context, addr string, mq rocketmq.MessageQueue, producerGroup string, m rocketmq.OutgoingMessage) (*rocketmq.SendResult, error)
}

var _ Admin = (*rocketmq.Client)(nil)

// Finder finds a message by its id; *lookup.Service implements it.
type Finder interface {
	ByID(ctx context.Context, q lookup.IDQuery) (*lookup.IDResult, error)
}

// Auditor writes changes to the audit log; *store.AuditLog implements it.
type Auditor interface {
	Change(ctx context.Context, e *store.AuditEntry, apply func(ctx context.Context) ([]store.AuditQueue, error)) error
}

// Config is what a Service is built from.
type Config struct {
	Admin   Admin
	Cluster *cluster.Cluster
	Finder  Finder
	Audit   Auditor
	// NameServers is the NameServer list, recorded in audit entries.
	NameServers string
}

// Service answers the group page's counts and resends dead letters. It is safe for
// concurrent use.
type Service struct {
	cfg Config

	overviewMu sync.Mutex
	overview   struct {
		list []GroupDLQ
		at   time.Time
	}
}

// New returns a Service.
func New(cfg Config) *Service {
	if cfg.Cluster == nil {
		cfg.Cluster = cluster.New(cfg.Admin, cluster.Options{})
	}
	return &Service{cfg: cfg}
}

// refused is a request refused before anything was sent: an Invalid fault whose API
// code is reason, said by the catalogue's id (a sentence that says nothing was sent).
func refused(reason, id string, kv ...any) *fault.Error {
	return fault.New(fault.Invalid, id, kv...).Because(reason)
}

// unsent is err, which refused a request before anything was sent, said as why and
// "Nothing was sent."
func unsent(reason string, why i18n.Message, err error) *fault.Error {
	return &fault.Error{Code: fault.Invalid, Reason: reason, Msg: i18n.M("deadletters.input.unsent", "Why", why), Err: err}
}

// checkGroup refuses a group name RocketMQ would refuse, before any broker is asked.
func checkGroup(group string) error {
	err := cluster.CheckName("group", group)
	if err == nil {
		return nil
	}
	why := i18n.Plain(err.Error())
	if fe := fault.As(err); fe != nil {
		why = fe.Msg
	}
	return &fault.Error{Code: fault.Invalid, Reason: "bad_group", Field: "group", Msg: why, Err: err}
}

// TopicCount is one of a group's retry and dead-letter topics and how many messages it
// stores.
type TopicCount struct {
	Topic string
	// Exists is false while the broker has not created the topic: a retry topic comes
	// with the group's first push consumer, a dead-letter topic with its first dead
	// letter.
	Exists bool
	// Stored is the sum over the topic's queues of max - min offset: the messages
	// still on disk, consumed or not. It leaves out the brokers in Failures.
	Stored int64
	// Written is the sum over the topic's queues of the max offset: every message the
	// topic ever received, which only grows (expired files lower Stored, not Written).
	Written int64
	// Counted is how many brokers of the topic answered; with none, Stored is unknown.
	Counted int
	// Newest is the store time of the newest message still stored, as the brokers that
	// answered tell it; zero when none is stored or none of them said.
	Newest time.Time
	// Failures are brokers that did not say.
	Failures []cluster.BrokerFailure
}

// GroupTopics are a group's retry and dead-letter topics.
type GroupTopics struct {
	Retry, DLQ TopicCount
	// PopRetry are a POP group's retry topics (PopRetryTopics); nil for other groups.
	PopRetry []TopicCount
}

// Topics tells whether the group's retry and dead-letter topics exist and how many
// messages each stores: one route lookup and one GET_TOPIC_STATS_INFO per broker of
// each.
func (s *Service) Topics(ctx context.Context, group string) (*GroupTopics, error) {
	if err := checkGroup(group); err != nil {
		return nil, err
	}
	var out GroupTopics
	var errs [2]error
	done := make(chan struct{})
	go func() {
		defer close(done)
		out.Retry, errs[0] = s.count(ctx, rocketmq.RetryTopic(group))
	}()
	out.DLQ, errs[1] = s.count(ctx, rocketmq.DLQTopic(group))
	<-done
	if err := errors.Join(errs[0], errs[1]); err != nil {
		return nil, err
	}
	return &out, nil
}

// PopRetryTopics counts a POP group's retry topics, one per topic it consumes: where
// the broker revives a message popped from that topic and not acknowledged within its
// invisible time (%RETRY%<group>_<topic>, or %RETRY%<group>+<topic> on brokers with
// enableRetryTopicV2). The V1 name is always returned; a V2 topic only where it exists.
func (s *Service) PopRetryTopics(ctx context.Context, group string, topics []string) ([]TopicCount, error) {
	if err := checkGroup(group); err != nil {
		return nil, err
	}
	out := make([][2]TopicCount, len(topics))
	errs := make([]error, 2*len(topics))
	var wg sync.WaitGroup
	for i, t := range topics {
		wg.Go(func() { out[i][0], errs[2*i] = s.count(ctx, rocketmq.PopRetryTopicV1(group, t)) })
		wg.Go(func() { out[i][1], errs[2*i+1] = s.count(ctx, rocketmq.PopRetryTopicV2(group, t)) })
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	var counts []TopicCount
	for _, c := range out {
		counts = append(counts, c[0])
		if c[1].Exists {
			counts = append(counts, c[1])
		}
	}
	return counts, nil
}

func (s *Service) count(ctx context.Context, topic string) (TopicCount, error) {
	tc := TopicCount{Topic: topic}
	fo := s.cfg.Cluster.Fanout(ctx)
	route, err := fo.Route(topic, "topic stats") // a broker gone from it failed to count
	if errors.Is(err, cluster.ErrTopicNotFound) {
		return tc, nil
	}
	if err != nil {
		return tc, fmt.Errorf("route of %s: %w", topic, err)
	}
	tc.Exists = true
	stats := cluster.EachRead(fo, route.Brokers, "topic stats", func(ctx context.Context, addr string) (*rocketmq.TopicStats, error) {
		return s.cfg.Admin.TopicStats(ctx, addr, topic)
	})
	for _, st := range stats {
		if st == nil {
			continue
		}
		tc.Counted++
		for _, o := range st.Offsets {
			tc.Stored += o.MaxOffset - o.MinOffset
			tc.Written += o.MaxOffset
			if at := time.UnixMilli(o.LastUpdateTimestamp); o.MaxOffset > o.MinOffset && o.LastUpdateTimestamp > 0 && at.After(tc.Newest) {
				tc.Newest = at
			}
		}
	}
	tc.Failures = fo.Wait()
	return tc, nil
}

// Origin is where a message in a retry or dead-letter topic came from, as the broker
// recorded it when the message failed.
type Origin struct {
	// Group is the consumer group whose retry or dead-letter topic holds the message.
	Group string
	// DeadLetter is set for a dead-letter topic, clear for a retry topic.
	DeadLetter bool
	// Topic is the topic the message was first sent to ("" when the message does not
	// say). MsgID is the id of the message that first failed: the broker records its
	// offsetMsgId (while the copy keeps the original's unique key).
	Topic string
	MsgID string
}

// OriginOf tells where m came from; ok is false when m is in neither a retry nor a
// dead-letter topic. The original topic is RETRY_TOPIC (set at the first failure and
// kept ever after), else 5.x's DLQ_ORIGIN_TOPIC (a POP consumer's dead letter), else a
// REAL_TOPIC that is not itself a retry topic.
func OriginOf(m *rocketmq.Message) (Origin, bool) {
	var o Origin
	switch {
	case rocketmq.IsDLQTopic(m.Topic):
		o.Group, o.DeadLetter = strings.TrimPrefix(m.Topic, rocketmq.DLQTopicPrefix), true
	case rocketmq.IsRetryTopic(m.Topic):
		o.Group = strings.TrimPrefix(m.Topic, rocketmq.RetryTopicPrefix)
	default:
		return o, false
	}
	p := m.Properties
	for _, t := range []string{p[rocketmq.PropertyRetryTopic], p[rocketmq.PropertyDLQOriginTopic], p[rocketmq.PropertyRealTopic]} {
		if t != "" && !rocketmq.IsRetryTopic(t) && !rocketmq.IsDLQTopic(t) {
			o.Topic = t
			break
		}
	}
	o.MsgID = p[rocketmq.PropertyOriginMessageID]
	if o.MsgID == "" {
		o.MsgID = p[rocketmq.PropertyDLQOriginMessageID]
	}
	return o, true
}

// OriginTopics are the original topics msgs name, each once, in the order first named.
func OriginTopics(msgs []lookup.Message) []string {
	var topics []string
	for _, m := range msgs {
		if o, _ := OriginOf(m.Message); o.Topic != "" && !slices.Contains(topics, o.Topic) {
			topics = append(topics, o.Topic)
		}
	}
	return topics
}

// dropped are the properties a resend leaves out: what the broker and the consumer
// wrote while the message failed, and what the broker sets again on every store. Every
// other property (KEYS, TAGS, __SHARDINGKEY and the user's own) is kept.
// docs/rocketmq-protocol-notes.md says why each is dropped.
var dropped = map[string]bool{
	rocketmq.PropertyRetryTopic: true, rocketmq.PropertyOriginMessageID: true,
	rocketmq.PropertyRealTopic: true, rocketmq.PropertyRealQueueID: true,
	rocketmq.PropertyDLQOriginTopic: true, rocketmq.PropertyDLQOriginMessageID: true,
	"DELAY": true, "WAIT": true, "MAX_RECONSUME_TIMES": true, "RECONSUME_TIME": true, "CONSUME_START_TIME": true,
	"TRAN_MSG": true, "PGROUP": true, "POP_CK": true, "1ST_POP_TIME": true,
	"MSG_REGION": true, "CLUSTER": true, "TRACE_ON": true,
	rocketmq.PropertyUniqueKey: true, // replaced: the resent message is a message of its own
}

// droppedPrefixes: the 5.x timer's bookkeeping (and a delay the message already served),
// and the multi-dispatch (LMQ) offsets of the stored record.
var droppedPrefixes = []string{"TIMER_", "INNER_"}

// Dropped reports whether a resend leaves the property out.
func Dropped(name string) bool {
	if dropped[name] {
		return true
	}
	for _, p := range droppedPrefixes {
		if strings.HasPrefix(name, p) {
			return true
		}
	}
	return false
}

// DroppedProperties names, for pages, the properties a resend leaves out.
func DroppedProperties() string {
	names := slices.Sorted(maps.Keys(dropped))
	for _, p := range droppedPrefixes {
		names = append(names, p+"*")
	}
	return strings.Join(names, ", ")
}

// Resendable is m as it is resent to topic: its body (uncompressed), flag and every
// property but the dropped ones, with a new unique key.
func Resendable(m *rocketmq.Message, topic string) rocketmq.OutgoingMessage {
	props := map[string]string{}
	for k, v := range m.Properties {
		if !Dropped(k) && v != "" {
			props[k] = v
		}
	}
	props[rocketmq.PropertyUniqueKey] = rocketmq.NewUniqueKey()
	return rocketmq.OutgoingMessage{Topic: topic, Body: m.Body, Flag: m.Flag, Properties: props}
}
