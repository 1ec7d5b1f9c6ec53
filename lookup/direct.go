package lookup

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"

	"rmqconsole/cluster"
	"rmqconsole/fault"
	"rmqconsole/freetext"
	"rmqconsole/i18n"
	"rmqconsole/rocketmq"
	"rmqconsole/store"
)

// DirectConsumer asks one client to consume a stored message now
// (CONSUME_MESSAGE_DIRECTLY); *rocketmq.Client implements it.
type DirectConsumer interface {
	ConsumeMessageDirectly(ctx context.Context, addr, group, clientID, offsetMsgID, topic string) (*rocketmq.ConsumeMessageDirectlyResult, error)
}

var _ DirectConsumer = (*rocketmq.Client)(nil)

// ChangeLog records a change to the cluster before it is made; *store.AuditLog
// implements it.
type ChangeLog interface {
	Change(ctx context.Context, e *store.AuditEntry, apply func(ctx context.Context) ([]store.AuditQueue, error)) error
}

var _ ChangeLog = (*store.AuditLog)(nil)

// ModeConsumeDirectly is the audit mode of a message consumed again on one client.
const ModeConsumeDirectly = "message-consume-directly"

// DirectRequest asks client ClientID of consumer group Group to consume the message
// that ID (and Topic, for a unique key) names once more.
type DirectRequest struct {
	ID       string `json:"id"`
	Topic    string `json:"topic,omitempty"`
	Group    string `json:"group"`
	ClientID string `json:"clientId"`
	// Actor and ActorAddr are who asked, for the audit log.
	Actor     string `json:"-"`
	ActorAddr string `json:"-"`
	// Rights, when set, are asked about the message's own topic once the message is
	// read, before anything else is: an id names no topic, so only then is it known.
	Rights DirectRights `json:"-"`
}

// DirectRights are the caller's rights over the message a request names.
type DirectRights interface {
	// MayConsumeAgain answers nil when the caller may have a message of topic consumed
	// again, else the refusal to answer.
	MayConsumeAgain(topic string) error
	// MaySee reports whether a refusal may name topic (one the group subscribes to).
	MaySee(topic string) bool
}

// The answers a client gives (CMResult), in RocketMQ's words.
const (
	ResultSuccess   = "CR_SUCCESS"
	ResultLater     = "CR_LATER"
	ResultRollback  = "CR_ROLLBACK"
	ResultCommit    = "CR_COMMIT"
	ResultException = "CR_THROW_EXCEPTION"
	ResultNull      = "CR_RETURN_NULL"
)

// DirectAnswer is what came of a DirectRequest.
type DirectAnswer struct {
	Message Message
	Group   string
	// Client is the connection the message was sent to (its language and version).
	Client rocketmq.Connection
	// MessageModel is the group's: CLUSTERING or BROADCASTING.
	MessageModel string
	// BrokerAddr is the master of the broker that stores the message (Message.BrokerName).
	BrokerAddr string
	// Result is the client's answer; nil when none came (Err says why).
	Result *rocketmq.ConsumeMessageDirectlyResult
	// Err is why the message was not consumed: the client's answer was not a success,
	// or the broker or client failed to answer. nil when consumed.
	Err error
	// Entry is the audit entry of the attempt.
	Entry *store.AuditEntry
}

// Consumed reports whether the client says it consumed the message.
func (a *DirectAnswer) Consumed() bool { return a.Err == nil }

// refusal is a DirectRequest that was not sent to any client, because it could not
// work as the cluster stands: the client is not in the group, the group is offline or
// does not subscribe to the message's topic, the broker has no master. A Conflict
// fault whose API code is reason ("client_not_in_group", "group_not_subscribed",
// "group_offline", "no_master").
func refusal(reason, id string, kv ...any) *fault.Error {
	return fault.New(fault.Conflict, id, kv...).Because(reason)
}

// maxClientIDLen bounds a client id: ip@instance, where RocketMQ's own instance names are
// short.
const maxClientIDLen = 255

// ConsumeDirectly has one online client of a group consume the message again: the
// broker that stores it reads it at its commit-log offset (the request carries the
// offsetMsgId) and relays it to the client, whose listener runs as for any delivery,
// and whose answer comes back. The group's offsets do not move.
//
// Before anything is sent, the message is looked up, and the group's connections on
// that broker must show the client online and the group subscribed to the message's
// topic; otherwise the answer is a fault (Conflict: see refusal; Invalid for bad input;
// NotFound for an unknown message) and nothing reaches a client. A service built
// without a client or an audit log answers Unavailable. The attempt is audited (mode
// ModeConsumeDirectly, one row: the client and its answer); an answer other than
// consumed is the row's Error. The returned error is only for a request that was not
// sent; a client that answered badly or not at all is the answer's Err.
func (s *Service) ConsumeDirectly(ctx context.Context, req DirectRequest) (*DirectAnswer, error) {
	if s.direct == nil || s.audit == nil {
		return nil, fault.New(fault.Unavailable, "lookup.direct.unavailable")
	}
	req.Group, req.ClientID = strings.TrimSpace(req.Group), strings.TrimSpace(req.ClientID)
	if req.Group == "" {
		return nil, invalid("group", "missing_group", "lookup.direct.group.missing")
	}
	if err := checkName("group", "consumer group", req.Group); err != nil {
		return nil, err
	}
	if req.ClientID == "" {
		return nil, invalid("clientId", "missing_client", "lookup.direct.client.missing", "Group", req.Group)
	}
	if err := checkText(freetext.ClientID, req.ClientID); err != nil {
		return nil, err
	}
	if len(req.ClientID) > maxClientIDLen || strings.ContainsFunc(req.ClientID, unicode.IsSpace) {
		return nil, invalid("clientId", "bad_client", "lookup.direct.client.bad", "Client", freetext.Quote(req.ClientID))
	}
	found, err := s.ByID(ctx, IDQuery{ID: req.ID, Topic: req.Topic})
	if err != nil {
		return nil, err
	}
	m := found.Message
	if req.Rights != nil {
		if err := req.Rights.MayConsumeAgain(m.Topic); err != nil {
			return nil, err
		}
	}
	a := &DirectAnswer{Message: m, Group: req.Group}
	route, err := s.route(s.cluster.Fanout(ctx), m.Topic, "consume directly")
	if err != nil {
		return nil, err
	}
	b, ok := route.Broker(m.BrokerName)
	if !ok || b.Master == "" {
		return nil, refusal("no_master", "lookup.direct.nomaster", "Broker", m.BrokerName, "Topic", m.Topic)
	}
	a.BrokerAddr = b.Master
	conn, err := s.admin.ConsumerConnections(ctx, b.Master, req.Group)
	switch {
	case errors.Is(err, rocketmq.ErrConsumerNotOnline):
		return nil, refusal("group_offline", "lookup.direct.offline", "Group", req.Group, "Broker", m.BrokerName)
	case err != nil:
		return nil, cluster.BrokerFailure{Broker: b.Name, Addr: b.Master, Op: "consume directly", Err: err}
	}
	a.MessageModel = conn.MessageModel
	if _, ok := conn.Subscriptions[m.Topic]; !ok {
		subscribed := slices.Sorted(maps.Keys(conn.Subscriptions))
		if req.Rights != nil { // name only the topics the caller may see
			subscribed = slices.DeleteFunc(subscribed, func(t string) bool { return !req.Rights.MaySee(t) })
		}
		return nil, refusal("group_not_subscribed", "lookup.direct.notsubscribed", "Group", req.Group, "Topic", m.Topic,
			"Topics", strings.Join(subscribed, ", "))
	}
	i := slices.IndexFunc(conn.Connections, func(c rocketmq.Connection) bool { return c.ClientID == req.ClientID })
	if i < 0 {
		ids := make([]string, len(conn.Connections))
		for j, c := range conn.Connections {
			ids[j] = c.ClientID
		}
		return nil, refusal("client_not_in_group", "lookup.direct.notingroup", "Client", req.ClientID, "Group", req.Group,
			"Broker", m.BrokerName, "Clients", strings.Join(ids, ", "))
	}
	a.Client = conn.Connections[i]

	entry := &store.AuditEntry{
		StartedAt: time.Now(), Actor: req.Actor, ActorAddr: req.ActorAddr, Cluster: s.clusterName,
		Group: req.Group, Topics: []string{m.Topic}, Mode: ModeConsumeDirectly,
		Params: directParams(req, m),
	}
	a.Entry = entry
	err = s.audit.Change(ctx, entry, func(ctx context.Context) ([]store.AuditQueue, error) {
		a.Result, a.Err = s.direct.ConsumeMessageDirectly(ctx, b.Master, req.Group, req.ClientID, m.OffsetMsgID(), m.Topic)
		if a.Err == nil {
			a.Err = answerError(a.Result)
		}
		return []store.AuditQueue{directRow(a)}, nil
	})
	if err != nil {
		if entry.ID == 0 { // not written, so not sent
			return nil, err
		}
		// Sent and answered, but the outcome could not be written: the entry stays
		// pending and is marked interrupted at the next start.
		return a, fmt.Errorf("the client answered, but the audit entry %d could not be finished: %w", entry.ID, err)
	}
	return a, nil
}

// answerError is why a client's answer is not "consumed", nil when it is.
func answerError(r *rocketmq.ConsumeMessageDirectlyResult) error {
	why := ""
	switch r.ConsumeResult {
	case ResultSuccess, ResultCommit:
		return nil
	case ResultLater:
		why = "later"
	case ResultException:
		why = "exception"
	case ResultNull:
		why = "null"
	case ResultRollback:
		why = "rollback"
	default:
		why = "unknown"
	}
	remark := ""
	if r.Remark != "" {
		remark = ": " + r.Remark
	}
	return i18n.M("lookup.direct.notconsumed."+why, "Answer", fmt.Sprintf("%q", r.ConsumeResult), "Remark", remark)
}

// directRow is the audit row of an attempt: the message's queue, the client and its
// answer.
func directRow(a *DirectAnswer) store.AuditQueue {
	m := a.Message
	row := store.AuditQueue{Topic: m.Topic, BrokerName: m.BrokerName, QueueID: m.QueueID, BrokerAddr: a.BrokerAddr,
		Before: m.QueueOffset, Target: m.QueueOffset, Method: "CONSUME_MESSAGE_DIRECTLY"}
	if r := a.Result; r != nil {
		row.Note = i18n.TextOf(i18n.M("lookup.direct.audit.answered", "Client", a.Client.ClientID, "Language", a.Client.Language,
			"Result", r.ConsumeResult, "Ms", r.SpentTimeMills, "Order", strconv.FormatBool(r.Order), "AutoCommit", strconv.FormatBool(r.AutoCommit)))
		if r.Remark != "" {
			row.Note = i18n.TextOf(i18n.M("lookup.direct.audit.remark", "Note", row.Note, "Remark", r.Remark))
		}
	} else {
		row.Note = i18n.TextOf(i18n.M("lookup.direct.audit.no_answer", "Client", a.Client.ClientID, "Language", a.Client.Language))
	}
	if a.Err != nil {
		row.Error = i18n.PlainText(a.Err.Error())
	}
	return row
}

func directParams(req DirectRequest, m Message) json.RawMessage {
	b, _ := json.Marshal(map[string]any{
		"id": req.ID, "topic": m.Topic, "group": req.Group, "clientId": req.ClientID,
		"offsetMsgId": m.OffsetMsgID(), "msgId": m.UniqueKey(),
		"brokerName": m.BrokerName, "queueId": m.QueueID, "queueOffset": m.QueueOffset,
	})
	return b
}
