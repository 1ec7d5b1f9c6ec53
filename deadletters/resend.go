package deadletters

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"time"

	"rmqconsole/cluster"
	"rmqconsole/fault"
	"rmqconsole/freetext"
	"rmqconsole/i18n"
	"rmqconsole/lookup"
	"rmqconsole/rocketmq"
	"rmqconsole/store"
)

// ResendRequest asks for dead letters to be sent again to their original topics.
type ResendRequest struct {
	// IDs name the messages: offsetMsgIds, or unique keys of Topic.
	IDs []string `json:"ids"`
	// Topic is the dead-letter topic the unique keys are looked up in; offsetMsgIds
	// need none.
	Topic  string `json:"topic,omitempty"`
	Reason string `json:"reason,omitempty"`
	// Actor and ActorAddr are who asks, for the audit log.
	Actor     string `json:"-"`
	ActorAddr string `json:"-"`
}

// Resent is what became of one dead letter.
type Resent struct {
	// DLQMsgID and DLQOffsetMsgID name the dead letter.
	DLQMsgID       string
	DLQOffsetMsgID string
	// Topic is the original topic it was sent to ("" when the message names none).
	Topic string
	// Where the new message was stored, and its ids.
	BrokerName  string
	BrokerAddr  string
	QueueID     int
	QueueOffset int64
	MsgID       string
	OffsetMsgID string
	// Error says why it was not resent, naming the broker; its ID is "" when it was.
	Error i18n.Message
}

// Failed reports whether the message was not resent.
func (r *Resent) Failed() bool { return r.Error.ID != "" }

// fail records why r was not resent.
func (r *Resent) fail(m i18n.Message) { r.Error = m }

// ResendResult is the outcome of a resend.
type ResendResult struct {
	Group    string
	DLQTopic string
	// AuditID is the audit entry of the resend; Status its outcome.
	AuditID  int64
	Status   store.AuditStatus
	Messages []Resent
}

// Resend sends each dead letter that req names to its original topic, as a new message
// with the dead letter's body, flag, keys, tags and user properties (see Resendable),
// on a writable queue of a master of that topic. Nothing is sent unless every id names
// a message of one group's dead-letter topic (at most MaxResend of them); then the
// resend is written to the audit log before the first message is sent, with one row
// per message. A message that could not be sent has its Error; the others are sent.
func (s *Service) Resend(ctx context.Context, req ResendRequest) (*ResendResult, error) {
	ids, err := checkIDs(req)
	if err != nil {
		return nil, err
	}
	msgs := make([]lookup.Message, 0, len(ids))
	for _, id := range ids {
		r, err := s.cfg.Finder.ByID(ctx, lookup.IDQuery{ID: id, Topic: req.Topic})
		if fe := fault.As(err); fe != nil && fe.Code == fault.Invalid {
			return nil, unsent(fe.Reason, fe.Msg, err).On(fe.Field)
		}
		if err != nil {
			return nil, fmt.Errorf("find message %s (nothing was resent): %w", id, err)
		}
		msgs = append(msgs, r.Message)
	}
	group, err := oneGroup(msgs)
	if err != nil {
		return nil, err
	}
	res := &ResendResult{Group: group, DLQTopic: rocketmq.DLQTopic(group)}
	topics := append([]string{res.DLQTopic}, OriginTopics(msgs)...)
	params, _ := json.Marshal(struct {
		IDs   []string `json:"ids"`
		Topic string   `json:"topic,omitempty"`
	}{ids, req.Topic})
	e := &store.AuditEntry{StartedAt: time.Now(), Actor: req.Actor, ActorAddr: req.ActorAddr, Cluster: s.cfg.NameServers,
		Group: group, Topics: topics, Mode: AuditMode, Params: params, Reason: req.Reason}
	err = s.cfg.Audit.Change(ctx, e, func(ctx context.Context) ([]store.AuditQueue, error) {
		// Once started, every message is tried, even if the caller goes away: the
		// audit entry then tells what was sent.
		res.Messages = s.sendAll(context.WithoutCancel(ctx), msgs)
		rows := make([]store.AuditQueue, len(res.Messages))
		for i, r := range res.Messages {
			rows[i] = auditRow(r)
		}
		return rows, nil
	})
	if err != nil {
		if e.ID == 0 {
			return nil, fmt.Errorf("resend of group %s's dead letters not started (nothing was sent): %w", group, err)
		}
		return nil, fmt.Errorf("resend of group %s's dead letters (audit entry %d): %w", group, e.ID, err)
	}
	res.AuditID, res.Status = e.ID, e.Status
	return res, nil
}

// checkIDs refuses what can be refused without asking a broker: a reason the free-text
// rule refuses, no id, too many, or one that is no message id.
func checkIDs(req ResendRequest) ([]string, error) {
	if te := fault.As(freetext.ResendReason.Check(req.Reason)); te != nil {
		return nil, unsent("bad_reason", te.Msg, te).On("reason")
	}
	var ids []string
	for _, id := range req.IDs {
		if id = strings.TrimSpace(id); id != "" && !slices.Contains(ids, id) {
			ids = append(ids, id)
		}
	}
	switch {
	case len(ids) == 0:
		return nil, refused("no_messages", "deadletters.input.none")
	case len(ids) > MaxResend:
		return nil, refused("too_many", "deadletters.input.toomany", "Max", MaxResend, "N", len(ids))
	}
	if req.Topic != "" && !rocketmq.IsDLQTopic(req.Topic) {
		return nil, notDeadLetter("all", "", req.Topic)
	}
	for _, id := range ids {
		if _, err := (&lookup.IDQuery{ID: id, Topic: req.Topic}).Validate(); err != nil {
			return nil, unsent("bad_id", fault.As(err).Msg, err)
		}
	}
	return ids, nil
}

// what is "all" (the messages) or "one" (the message id).
func notDeadLetter(what, id, topic string) error {
	return refused("not_dead_letter", "deadletters.input.notdlq."+what, "Topic", freetext.Shown(topic), "ID", id)
}

// oneGroup is the group whose dead-letter topic holds every message.
func oneGroup(msgs []lookup.Message) (string, error) {
	group := ""
	for _, m := range msgs {
		o, ok := OriginOf(m.Message)
		if !ok || !o.DeadLetter {
			return "", notDeadLetter("one", m.MsgID(), m.Topic)
		}
		if group != "" && o.Group != group {
			return "", refused("several_groups", "deadletters.input.groups", "Group", group, "Other", o.Group)
		}
		group = o.Group
	}
	return group, nil
}

// sendAll sends each message to its original topic, one after the other, in the order
// asked: a resend is a few dozen messages, and their order is kept for the queues they
// land on.
func (s *Service) sendAll(ctx context.Context, msgs []lookup.Message) []Resent {
	out := make([]Resent, len(msgs))
	routes := map[string]*writeRoute{}
	for i, m := range msgs {
		o, _ := OriginOf(m.Message)
		r := Resent{DLQMsgID: m.MsgID(), DLQOffsetMsgID: m.OffsetMsgID(), Topic: o.Topic}
		if o.Topic == "" {
			r.fail(i18n.M("deadletters.resent.notopic"))
			out[i] = r
			continue
		}
		wr, ok := routes[o.Topic]
		if !ok {
			wr = s.writeRoute(ctx, o.Topic)
			routes[o.Topic] = wr
		}
		if wr.err.ID != "" {
			r.fail(wr.err)
			out[i] = r
			continue
		}
		q := wr.next()
		b, _ := wr.route.Broker(q.BrokerName)
		r.BrokerName, r.BrokerAddr, r.QueueID = q.BrokerName, b.Master, q.QueueID
		sent, err := s.cfg.Admin.SendMessage(ctx, b.Master, q, ProducerGroup, Resendable(m.Message, o.Topic))
		if err != nil {
			r.fail(i18n.M("deadletters.resent.notstored", "Broker", q.BrokerName, "Addr", b.Master, "Error", fmt.Sprint(err)))
			out[i] = r
			continue
		}
		r.QueueID, r.QueueOffset, r.MsgID, r.OffsetMsgID = sent.Queue.QueueID, sent.QueueOffset, sent.MsgID, sent.OffsetMsgID
		if sent.Status != rocketmq.SendOK {
			// Stored, but not flushed or replicated within the broker's timeout.
			r.fail(i18n.M("deadletters.resent.status", "Broker", q.BrokerName, "Addr", b.Master, "Status", fmt.Sprint(sent.Status)))
		}
		out[i] = r
	}
	return out
}

// writeRoute is a topic's writable queues on masters, taken in turn from a random one,
// as producers spread their messages.
type writeRoute struct {
	route  *cluster.Route
	queues []rocketmq.MessageQueue
	n      int
	err    i18n.Message // why no message can be sent to the topic (ID "" when one can)
}

func (w *writeRoute) next() rocketmq.MessageQueue {
	q := w.queues[w.n%len(w.queues)]
	w.n++
	return q
}

func (s *Service) writeRoute(ctx context.Context, topic string) *writeRoute {
	route, err := s.cfg.Cluster.Route(ctx, topic)
	if err != nil {
		if errors.Is(err, cluster.ErrTopicNotFound) {
			return &writeRoute{err: i18n.M("deadletters.resent.gone", "Topic", topic)}
		}
		return &writeRoute{err: i18n.M("deadletters.resent.route", "Topic", topic, "Error", err.Error())}
	}
	// WriteQueues has only queues of brokers whose master is in the route.
	w := &writeRoute{route: route, queues: route.Raw().WriteQueues()}
	if len(w.queues) == 0 {
		w.err = i18n.M("deadletters.resent.nowrite", "Topic", topic)
		return w
	}
	w.n = rand.IntN(len(w.queues))
	return w
}

// auditRow is one resent message as the audit log keeps it: where it went, and both
// messages' ids in Note.
func auditRow(r Resent) store.AuditQueue {
	row := store.AuditQueue{Topic: r.Topic, BrokerName: r.BrokerName, BrokerAddr: r.BrokerAddr, QueueID: r.QueueID, Before: -1, Target: r.QueueOffset}
	if r.Failed() {
		row.Error = i18n.TextOf(r.Error)
	}
	row.Note = i18n.TextOf(i18n.M("deadletters.audit.note", "MsgID", r.DLQMsgID, "OffsetMsgID", r.DLQOffsetMsgID))
	if r.OffsetMsgID != "" {
		row.Note = row.Note.And(i18n.M("deadletters.audit.resent_as", "MsgID", r.MsgID, "OffsetMsgID", r.OffsetMsgID,
			"Offset", strconv.FormatInt(r.QueueOffset, 10)))
	}
	return row
}
