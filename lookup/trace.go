package lookup

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"rmqconsole/cluster"
	"rmqconsole/fault"
)

// DefaultTraceTopic is where clients send message traces unless configured otherwise
// (TopicValidator.RMQ_SYS_TRACE_TOPIC; brokers name it in msgTraceTopicName).
const DefaultTraceTopic = "RMQ_SYS_TRACE_TOPIC"

// TraceQuery names where a message's trace is looked for.
type TraceQuery struct {
	// Topic is the trace topic the clients were configured with; "" reads the
	// message's broker's msgTraceTopicName (RMQ_SYS_TRACE_TOPIC unless changed).
	Topic string
}

// Where the trace topic's name came from.
const (
	TraceTopicAsked   = "asked"   // TraceQuery.Topic
	TraceTopicBroker  = "broker"  // the broker's msgTraceTopicName
	TraceTopicDefault = "default" // RMQ_SYS_TRACE_TOPIC: the broker's config was not read
)

// MessageTrace is what the trace topic holds about one message: who sent it, where it
// was stored, and each consumer group's attempts to consume it.
type MessageTrace struct {
	// MsgID is the id the trace records are keyed by (the message's unique key).
	MsgID string
	// Topic is the trace topic read; TopicFrom says where its name came from (one of
	// the TraceTopic* constants); ConfigBroker is the broker whose config named it.
	Topic        string
	TopicFrom    string
	ConfigBroker string
	// TopicMissing: no broker serves the trace topic, so nothing can have been
	// recorded in it. TraceTopicEnable is ConfigBroker's traceTopicEnable ("" when
	// its config was not read), which is what makes brokers create RMQ_SYS_TRACE_TOPIC.
	TopicMissing     bool
	TraceTopicEnable string

	Published    []TracePublish
	Transactions []TraceTransaction
	// Groups are the consumer groups that recorded attempts, by name.
	Groups []TraceGroup

	// TraceMessages is how many trace messages held records of this message;
	// Truncated says the key index had more than lookup returns (KeyLimit).
	TraceMessages int
	Truncated     bool
	// Undecodable counts records about this message, or trace messages, that could
	// not be read; DecodeError is the first reason.
	Undecodable int
	DecodeError string

	Failures   []BrokerFailure
	FromSlaves []SlaveRead
}

// Empty says no record of the message was found.
func (t *MessageTrace) Empty() bool {
	return len(t.Published) == 0 && len(t.Groups) == 0 && len(t.Transactions) == 0
}

// TracePublish is one send of the message by a producer (a Pub record).
type TracePublish struct {
	Group      string
	ClientHost string
	// SentFrom is the address the broker saw the trace record come from (the trace
	// message's born host, what mqadmin queryMsgTraceById shows as the client host). It
	// differs from ClientHost when the client names another address of its own, or
	// reaches the broker through NAT.
	SentFrom   string
	Time       time.Time
	CostMs     int64
	Success    bool
	Topic      string
	Tags, Keys string
	BodyLength int
	MsgType    string
	// Where it was stored: the store host the producer sent to, the broker that is,
	// and the offsetMsgId the broker made.
	StoreHost   string
	StoreBroker string
	OffsetMsgID string
}

// TraceTransaction is a transactional producer's commit or rollback (EndTransaction).
type TraceTransaction struct {
	Group, ClientHost string
	SentFrom          string
	Time              time.Time
	State             string
	TransactionID     string
	FromCheck         bool
}

// TraceGroup is one consumer group's attempts, oldest first.
type TraceGroup struct {
	Group    string
	Attempts []TraceAttempt
}

// TraceAttempt is one delivery of the message to a client's listener.
type TraceAttempt struct {
	ClientHost string
	SentFrom   string
	// Time is when the listener was called (SubBefore; the SubAfter's time when only
	// that was recorded).
	Time time.Time
	// RetryTimes is the message's reconsume count at this delivery: 0 the first time.
	RetryTimes int
	// Finished says the listener's result was recorded (SubAfter); without it the
	// client is still consuming, or stopped before sending the record.
	Finished bool
	Success  bool
	CostMs   int64
	// Returned says how the listener returned ("success", "timeout", "exception"...),
	// when the client recorded it.
	Returned string
}

// Trace reads the trace records of m: the trace messages indexed under m's msgId in
// the trace topic (QUERY_MESSAGE on every broker of that topic), decoded and grouped by
// what they report. A trace topic that does not exist is not an error: the answer says
// so (TopicMissing). Brokers named in failed are not asked for their config again.
func (s *Service) Trace(ctx context.Context, m Message, q TraceQuery, failed ...BrokerFailure) (*MessageTrace, error) {
	topic := strings.TrimSpace(q.Topic)
	if topic != "" {
		if err := cluster.CheckName("topic", topic); err != nil {
			return nil, fault.Wrap(err, fault.Invalid, "lookup.trace.topic", "Error", nameRefusal(err)).On("traceTopic").Because("bad_trace_topic")
		}
	}
	id := m.UniqueKey()
	if id == "" {
		// Clients without unique keys trace a message under its offsetMsgId.
		id = m.OffsetMsgID()
	}
	t := &MessageTrace{MsgID: id, Topic: topic, TopicFrom: TraceTopicAsked}
	fails := s.cluster.Fanout(ctx)
	s.readTraceConfig(ctx, fails, t, m, failed)
	if id == "" {
		t.Failures = fails.Wait()
		return t, nil
	}
	res, err := s.ByKey(ctx, KeyQuery{Topic: t.Topic, Key: id})
	switch {
	case fault.Is(err, fault.Invalid) && fault.As(err).Reason == unknownTopic:
		t.TopicMissing = true
	case err != nil:
		return nil, fmt.Errorf("read trace topic %s: %w", t.Topic, err)
	default:
		t.Truncated = res.Truncated
		t.FromSlaves = res.FromSlaves
		t.collect(res.Messages)
		s.nameStoreBrokers(ctx, t)
	}
	t.Failures = append(fails.Wait(), resFailures(res)...)
	cluster.SortFailures(t.Failures)
	return t, nil
}

func resFailures(r *Result) []BrokerFailure {
	if r == nil {
		return nil
	}
	return r.Failures
}

// readTraceConfig reads the message's broker's trace settings into t: the trace topic's
// name when none was asked, and traceTopicEnable for explaining a missing trace topic.
func (s *Service) readTraceConfig(ctx context.Context, fo *cluster.Fanout, t *MessageTrace, m Message, failed []BrokerFailure) {
	if t.Topic == "" {
		t.Topic, t.TopicFrom = DefaultTraceTopic, TraceTopicDefault
	}
	if slices.ContainsFunc(failed, func(f BrokerFailure) bool { return f.Broker == m.BrokerName }) {
		return
	}
	bs, err := s.cluster.Brokers(ctx)
	if err != nil {
		return // the key query below says what failed
	}
	i := slices.IndexFunc(bs, func(b cluster.Broker) bool { return b.Name == m.BrokerName })
	if i < 0 {
		return
	}
	var cfg map[string]string
	fo.Read(bs[i], "trace settings", func(ctx context.Context, addr string) error {
		var err error
		cfg, err = s.admin.BrokerConfig(ctx, addr)
		return err
	})
	fo.Wait()
	if cfg == nil {
		return
	}
	t.ConfigBroker = m.BrokerName
	t.TraceTopicEnable = cfg["traceTopicEnable"]
	if name := cfg["msgTraceTopicName"]; t.TopicFrom == TraceTopicDefault && name != "" {
		t.Topic, t.TopicFrom = name, TraceTopicBroker
	}
}

// collect decodes the trace messages and keeps the records about t.MsgID.
func (t *MessageTrace) collect(msgs []Message) {
	type attempt struct {
		before, after  *TraceRecord
		host, sentFrom string
	}
	attempts := map[string]*attempt{} // by request id
	var order []string
	get := func(req string) *attempt {
		a, ok := attempts[req]
		if !ok {
			a = &attempt{}
			attempts[req] = a
			order = append(order, req)
		}
		return a
	}
	noteBad := func(err error) {
		t.Undecodable++
		if t.DecodeError == "" {
			t.DecodeError = err.Error()
		}
	}
	for _, tm := range msgs {
		// The trace message was sent by the traced client: its born host is the
		// client's, for records that do not name it.
		host := ""
		if tm.BornHost.IsValid() {
			host = tm.BornHost.Addr().String()
		}
		recs, errs := ParseTrace(tm.Body)
		if tm.BodyError != "" {
			errs = append(errs, errors.New(tm.BodyError))
		}
		mine := false
		for _, r := range recs {
			if !strings.EqualFold(r.MsgID, t.MsgID) {
				continue
			}
			mine = true
			r.ClientHost = cmp.Or(r.ClientHost, host)
			switch r.Kind {
			case TracePub:
				t.Published = append(t.Published, TracePublish{Group: r.Group, ClientHost: r.ClientHost, SentFrom: host, Time: r.Time,
					CostMs: r.CostMs, Success: r.Success, Topic: r.Topic, Tags: r.Tags, Keys: r.Keys, BodyLength: r.BodyLength,
					MsgType: r.MsgType, StoreHost: r.StoreHost, OffsetMsgID: r.OffsetMsgID})
			case TraceEndTransaction:
				t.Transactions = append(t.Transactions, TraceTransaction{Group: r.Group, ClientHost: r.ClientHost, SentFrom: host, Time: r.Time,
					State: r.TransactionState, TransactionID: r.TransactionID, FromCheck: r.FromCheck})
			case TraceSubBefore:
				a := get(r.RequestID + "\x00" + r.MsgID)
				a.before, a.host, a.sentFrom = &r, r.ClientHost, host
			case TraceSubAfter:
				a := get(r.RequestID + "\x00" + r.MsgID)
				a.after = &r
				a.host, a.sentFrom = cmp.Or(a.host, r.ClientHost), cmp.Or(a.sentFrom, host)
			}
		}
		// A batch holds other messages' records too: its errors count only when
		// nothing in it could be read, or it held records of this message.
		if mine || len(recs) == 0 {
			for _, err := range errs {
				noteBad(err)
			}
		}
		if mine {
			t.TraceMessages++
		}
	}
	groups := map[string]*TraceGroup{}
	for _, req := range order {
		a := attempts[req]
		at := TraceAttempt{ClientHost: a.host, SentFrom: a.sentFrom}
		group := ""
		if a.before != nil {
			at.Time, at.RetryTimes, group = a.before.Time, a.before.RetryTimes, a.before.Group
		}
		if a.after != nil {
			at.Finished, at.Success, at.CostMs, at.Returned = true, a.after.Success, a.after.CostMs, a.after.Returned
			at.Time = cmp.Or(at.Time, a.after.Time)
			group = cmp.Or(group, a.after.Group)
		}
		g, ok := groups[group]
		if !ok {
			g = &TraceGroup{Group: group}
			groups[group] = g
		}
		g.Attempts = append(g.Attempts, at)
	}
	for _, g := range groups {
		slices.SortStableFunc(g.Attempts, func(a, b TraceAttempt) int { return a.Time.Compare(b.Time) })
		t.Groups = append(t.Groups, *g)
	}
	slices.SortFunc(t.Groups, func(a, b TraceGroup) int { return strings.Compare(a.Group, b.Group) })
	slices.SortStableFunc(t.Published, func(a, b TracePublish) int { return a.Time.Compare(b.Time) })
	slices.SortStableFunc(t.Transactions, func(a, b TraceTransaction) int { return a.Time.Compare(b.Time) })
}

// nameStoreBrokers names the broker at each send's store host.
func (s *Service) nameStoreBrokers(ctx context.Context, t *MessageTrace) {
	for i, p := range t.Published {
		if p.StoreHost == "" {
			continue
		}
		if b, ok, err := s.cluster.BrokerAt(ctx, p.StoreHost); err == nil && ok {
			t.Published[i].StoreBroker = b.Name
		}
	}
}
