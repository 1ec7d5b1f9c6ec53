package resets

import (
	"context"
	"time"

	"rmqconsole/fault"
	"rmqconsole/i18n"
	"rmqconsole/lookup"
	"rmqconsole/rocketmq"
)

// Finder finds a message by its id (an offsetMsgId, or a unique key with its topic);
// *lookup.Service implements it.
type Finder interface {
	ByID(ctx context.Context, q lookup.IDQuery) (*lookup.IDResult, error)
}

// Message is the message a ModeMessage plan starts from: its queue goes to the
// message's offset (past it with Skip), the group's other queues of the topic to its
// store time.
type Message struct {
	MsgID     string
	Queue     rocketmq.MessageQueue
	Offset    int64
	StoreTime time.Time
	Skip      bool
}

// target is where the message's own queue goes.
func (m *Message) target() int64 {
	if m.Skip {
		return m.Offset + 1
	}
	return m.Offset
}

// checkMessage is Check's part for ModeMessage: the message is named, and the reset is
// the message's topic as a whole (its queue and the others follow from the message).
func checkMessage(errs *fault.List, r Request) {
	if r.MsgID == "" {
		errs.Invalid("msgId", "resets.input.message.none")
	}
	if r.OneQueue() || r.BrokerName != "" {
		errs.Invalid("queueId", "resets.input.message.scope")
	}
}

// foundMessage is the message a ModeMessage request names, looked up once whatever the
// group (a reset of several groups to a message reads it once): the message, or why it
// could not be read.
type foundMessage struct {
	m   *Message
	err error
}

// lookupMessage reads the message req starts from, before any offset is read: an
// unknown id, or a message of another topic than the reset's, is refused on msgId.
func (s *Service) lookupMessage(ctx context.Context, req Request) foundMessage {
	if s.finder == nil {
		return foundMessage{err: errNoCluster()}
	}
	res, err := s.finder.ByID(ctx, lookup.IDQuery{ID: req.MsgID, Topic: req.Topic})
	if err != nil {
		fe := fault.As(err)
		if fe == nil || (fe.Code != fault.Invalid && fe.Code != fault.NotFound) {
			return foundMessage{err: err}
		}
		field := "msgId"
		if fe.Field == "topic" {
			field = "topic"
		}
		return foundMessage{err: &fault.Error{Code: fault.Invalid, Field: field, Msg: fe.Msg, Reason: fe.Reason, Err: err}}
	}
	m := res.Message
	if req.Topic != "" && m.Topic != req.Topic {
		return foundMessage{err: fault.InvalidField("msgId", "resets.input.message.other_topic", "ID", req.MsgID, "Found", m.Topic, "Topic", req.Topic)}
	}
	return foundMessage{m: &Message{
		MsgID: req.MsgID, Queue: rocketmq.MessageQueue{Topic: m.Topic, BrokerName: m.BrokerName, QueueID: m.QueueID},
		Offset: m.QueueOffset, StoreTime: time.UnixMilli(m.StoreTimestamp), Skip: req.Skip,
	}}
}

// forGroup is the message req's group is reset to, or why it cannot be.
func (f foundMessage) forGroup(req Request) (*Message, error) {
	if f.err != nil {
		if fault.As(f.err) == nil {
			return nil, wrapf(f.err, "read message %s to reset group %q to it", req.MsgID, req.Group)
		}
		return nil, f.err
	}
	var errs fault.List
	checkTopicOfGroup(&errs, req.Group, f.m.Queue.Topic)
	if len(errs) > 0 {
		return nil, errs
	}
	return f.m, nil
}

// messageTarget is a queue's target in a ModeMessage plan: the message's queue goes to
// its offset (or just past it); the others to the first message stored at or after its
// store time.
func (s *Service) messageTarget(ctx context.Context, m *Message, q QueueState, b BrokerPlan) (int64, i18n.Text, error) {
	if q.Queue == m.Queue {
		id := "resets.note.message"
		if m.Skip {
			id = "resets.note.message_skip"
		}
		return m.target(), i18n.TextOf(i18n.M(id, "ID", m.MsgID, "Offset", m.Offset)), nil
	}
	off, note, err := s.timestampTarget(ctx, q, m.StoreTime, b)
	return off, joinNote(nil, note), err
}

// messageWarnings say what a ModeMessage plan does, in the words of the form.
func messageWarnings(p *Plan) []i18n.Message {
	m := p.Message
	id := "resets.warn.message"
	if m.Skip {
		id = "resets.warn.message_skip"
	}
	w := []i18n.Message{i18n.M(id, "ID", m.MsgID, "Broker", m.Queue.BrokerName, "Queue", m.Queue.QueueID, "Topic", m.Queue.Topic,
		"Offset", m.target(), "Time", FormatTime(m.StoreTime, p.Request.TimeZone))}
	found := false
	for _, q := range p.Queues {
		found = found || q.Queue == m.Queue
	}
	if !found {
		w = append(w, i18n.M("resets.warn.message_queue_missing", "Broker", m.Queue.BrokerName, "Queue", m.Queue.QueueID, "Topic", m.Queue.Topic))
	}
	return w
}
