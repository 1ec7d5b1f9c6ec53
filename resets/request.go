package resets

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"rmqconsole/cluster"
	"rmqconsole/fault"
	"rmqconsole/freetext"
	"rmqconsole/i18n"
	"rmqconsole/rocketmq"
)

// Mode is how a reset picks each queue's target offset.
type Mode string

// The reset modes.
const (
	// ModeTimestamp: the first message stored at or after Timestamp.
	ModeTimestamp Mode = "timestamp"
	// ModeEarliest: the oldest message still stored (re-consume everything kept).
	ModeEarliest Mode = "earliest"
	// ModeLatest: the end of the queue (skip the backlog).
	ModeLatest Mode = "latest"
	// ModeOffset: an exact offset, for one queue.
	ModeOffset Mode = "offset"
	// ModeShift: the current offset moved by Shift (negative: re-consume, positive: skip).
	ModeShift Mode = "shift"
	// ModeUndo: each queue of an applied (or partial) reset back to its "before" offset
	// as the audit entry AuditID recorded it.
	ModeUndo Mode = "undo"
	// ModeGroup: each queue to the committed offset of another group, FromGroup;
	// queues that group has no offset on are left alone.
	ModeGroup Mode = "group"
	// ModeMessage: the queue of message MsgID to its offset (just past it with Skip),
	// the group's other queues of the topic to the message's store time.
	ModeMessage Mode = "message"
)

// Modes lists every mode, in the order forms show them.
var Modes = []Mode{ModeTimestamp, ModeEarliest, ModeLatest, ModeOffset, ModeShift, ModeUndo, ModeGroup, ModeMessage}

// Valid reports whether m is a known mode.
func (m Mode) Valid() bool {
	for _, v := range Modes {
		if m == v {
			return true
		}
	}
	return false
}

// AllQueues is Request.QueueID when the reset is not limited to one queue.
const AllQueues = -1

// Request is what an operator asks for: which group, which topics or queue, and how to
// choose the targets.
type Request struct {
	Group string
	// Topic limits the reset to one topic; "" means every topic the group has offsets on.
	Topic string
	Mode  Mode
	// Timestamp is the store time to go back (or forward) to, for ModeTimestamp.
	Timestamp time.Time
	// TimeZone is the zone the operator entered Timestamp in; it only changes how the
	// time is shown.
	TimeZone string
	// BrokerName and QueueID limit the reset to one queue (QueueID AllQueues: no limit).
	BrokerName string
	QueueID    int
	// Offset is the exact target, for ModeOffset.
	Offset int64
	// Shift moves the current offset, for ModeShift.
	Shift int64
	// AuditID is the audit entry whose reset ModeUndo takes back.
	AuditID int64
	// FromGroup is the group whose offsets ModeGroup copies.
	FromGroup string
	// MsgID is the message ModeMessage starts from (an offsetMsgId, or a unique key with
	// Topic); Skip starts just after it.
	MsgID  string
	Skip   bool
	Reason string
}

// OneQueue reports whether the request is limited to one queue.
func (r Request) OneQueue() bool { return r.QueueID >= 0 }

// checkName adds the name rule's refusal of name on field; ok is false when it refused.
func checkName(errs *fault.List, field, what, name string) bool {
	if err := cluster.CheckName(what, name); err != nil {
		errs.Add(invalidOn(field, err))
		return false
	}
	return true
}

// invalidOn is a rule's refusal (the name rule, the free-text rule) as an Invalid error
// on field, in the rule's own sentence; the rule's error stays its cause.
func invalidOn(field string, err error) *fault.Error {
	e := &fault.Error{Code: fault.Invalid, Field: field, Msg: i18n.Plain(err.Error()), Err: err}
	if fe := fault.As(err); fe != nil {
		e.Reason, e.Msg = fe.Reason, fe.Msg
	}
	return e
}

// Check finds what is wrong with the request by itself, before any broker is asked:
// names, the mode and its parameter, a timestamp in the future. What depends on the
// cluster (the group and topic exist, the queue exists, the offset is within the queue)
// is checked by Plan. Each problem is a fault.Invalid on its field.
func (r Request) Check(now time.Time) fault.List {
	var errs fault.List
	if r.Group == "" {
		errs.Invalid("group", "resets.input.no_group")
	} else if checkName(&errs, "group", "consumer group", r.Group) && rocketmq.IsSystemGroup(r.Group) {
		errs.Invalid("group", "resets.input.system_group", "Group", r.Group)
	}
	if r.Topic != "" && checkName(&errs, "topic", "topic", r.Topic) {
		checkTopicOfGroup(&errs, r.Group, r.Topic)
	}
	if !r.Mode.Valid() {
		errs.Invalid("mode", "resets.input.mode", "Mode", strconv.Quote(string(r.Mode)))
	}
	switch r.Mode {
	case ModeTimestamp:
		switch {
		case r.Timestamp.IsZero():
			errs.Invalid("timestamp", "resets.input.no_time")
		case r.Timestamp.After(now):
			errs.Invalid("timestamp", "resets.input.future",
				"Time", r.Timestamp.UTC().Format("2006-01-02 15:04:05 UTC"), "Now", now.UTC().Format("2006-01-02 15:04:05 UTC"))
		}
	case ModeOffset:
		if !r.OneQueue() {
			errs.Invalid("queueId", "resets.input.offset_one_queue")
		}
		if r.Offset < 0 {
			errs.Invalid("offset", "resets.input.offset_negative", "Offset", r.Offset)
		}
	case ModeShift:
		if r.Shift == 0 {
			errs.Invalid("shift", "resets.input.shift_zero")
		}
	case ModeUndo:
		checkUndo(&errs, r)
	case ModeMessage:
		checkMessage(&errs, r)
	case ModeGroup:
		switch {
		case r.FromGroup == "":
			errs.Invalid("fromGroup", "resets.input.from_group.none")
		case !checkName(&errs, "fromGroup", "consumer group", r.FromGroup):
		case r.FromGroup == r.Group:
			errs.Invalid("fromGroup", "resets.input.from_group.same", "Group", r.Group)
		}
	}
	if r.OneQueue() {
		if r.Topic == "" {
			errs.Invalid("topic", "resets.input.queue_topic")
		}
		if r.BrokerName != "" {
			checkName(&errs, "brokerName", "broker", r.BrokerName)
		}
	} else if r.QueueID != AllQueues {
		errs.Invalid("queueId", "resets.input.queue_negative", "Queue", r.QueueID)
	} else if r.BrokerName != "" {
		errs.Invalid("queueId", "resets.input.broker_without_queue", "Broker", cut(r.BrokerName, 80))
	}
	if err := freetext.ResetReason.Check(r.Reason); err != nil {
		errs.Add(invalidOn("reason", err))
	}
	return errs
}

// checkTopicOfGroup refuses topics a group's offsets must not be moved on: the brokers'
// own topics (scheduled messages, transactions, timers, the default topic...), and
// another group's retry topic. A group's own retry topic may be reset with the group.
func checkTopicOfGroup(errs *fault.List, group, topic string) {
	switch {
	case rocketmq.IsBrokerInternalTopic(topic):
		errs.Invalid("topic", "resets.input.internal_topic", "Topic", topic)
	case rocketmq.IsRetryTopic(topic) && topic != rocketmq.RetryTopic(group):
		errs.Invalid("topic", "resets.input.other_retry", "Topic", topic, "Owner", strings.TrimPrefix(topic, rocketmq.RetryTopicPrefix), "Group", group)
	}
}

// internalTopicError refuses a topic the cluster names after itself or one of its brokers
// (the brokers create them); only cluster info tells those apart from an application's.
func internalTopicError(topic string) error {
	return fault.InvalidField("topic", "resets.input.cluster_topic", "Topic", topic)
}

// Params is the request as the audit log records it.
func (r Request) Params() map[string]any {
	m := map[string]any{"topic": r.Topic, "mode": string(r.Mode)}
	switch r.Mode {
	case ModeTimestamp:
		m["timestamp"] = r.Timestamp.UTC().Format("2006-01-02T15:04:05.000Z07:00")
		m["timestampMs"] = r.Timestamp.UnixMilli()
		if r.TimeZone != "" {
			m["timeZone"] = r.TimeZone
		}
	case ModeOffset:
		m["offset"] = r.Offset
	case ModeShift:
		m["shift"] = r.Shift
	case ModeUndo:
		m["auditId"] = r.AuditID
	case ModeGroup:
		m["fromGroup"] = r.FromGroup
	case ModeMessage:
		m["msgId"] = r.MsgID
		m["skip"] = r.Skip
	}
	if r.OneQueue() {
		m["brokerName"] = r.BrokerName
		m["queueId"] = r.QueueID
	}
	return m
}

// sameAs reports whether two requests ask for the same reset (the reason aside).
func (r Request) sameAs(o Request) bool {
	return r.Group == o.Group && r.Topic == o.Topic && r.Mode == o.Mode &&
		r.Timestamp.Equal(o.Timestamp) && r.BrokerName == o.BrokerName && r.QueueID == o.QueueID &&
		r.Offset == o.Offset && r.Shift == o.Shift && r.AuditID == o.AuditID && r.FromGroup == o.FromGroup &&
		r.MsgID == o.MsgID && r.Skip == o.Skip
}

// Describe says where the reset goes, as the apply button and the audit log show it:
// "to 2026-11-29 10:00:00 UTC", "to the earliest offset", "back by 100 messages".
func (r Request) Describe() i18n.Message {
	switch r.Mode {
	case ModeTimestamp:
		return i18n.M("reset.to.time", "Time", FormatTime(r.Timestamp, r.TimeZone))
	case ModeEarliest:
		return i18n.M("reset.to.earliest")
	case ModeLatest:
		return i18n.M("reset.to.latest")
	case ModeOffset:
		return i18n.M("reset.to.offset", "Offset", r.Offset)
	case ModeShift:
		if r.Shift < 0 {
			return i18n.M("reset.to.back", "N", -r.Shift)
		}
		return i18n.M("reset.to.forward", "N", r.Shift)
	case ModeUndo:
		return i18n.M("reset.to.undo", "ID", r.AuditID)
	case ModeGroup:
		return i18n.M("reset.to.group", "From", r.FromGroup)
	case ModeMessage:
		if r.Skip {
			return i18n.M("reset.to.message_skip", "ID", r.MsgID)
		}
		return i18n.M("reset.to.message", "ID", r.MsgID)
	}
	return i18n.Plain(string(r.Mode))
}

// FormatTime shows t to the second in the named zone, always with the zone, and the UTC
// time too when the zone is not UTC: "2026-11-29 11:00:00 Europe/Paris (10:00:00 UTC)".
func FormatTime(t time.Time, zone string) string {
	loc, err := LoadZone(zone)
	if err != nil || loc == time.UTC {
		return t.UTC().Format("2006-01-02 15:04:05") + " UTC"
	}
	return t.In(loc).Format("2006-01-02 15:04:05") + " " + zone + " (" + t.UTC().Format("15:04:05") + " UTC)"
}

// LoadZone resolves a zone as forms accept it: "" or "UTC", an IANA name such as
// "Europe/Paris", or a fixed offset such as "+02:00".
func LoadZone(zone string) (*time.Location, error) {
	zone = strings.TrimSpace(zone)
	if zone == "" || strings.EqualFold(zone, "UTC") || zone == "Z" {
		return time.UTC, nil
	}
	if len(zone) == 6 && (zone[0] == '+' || zone[0] == '-') && zone[3] == ':' {
		t, err := time.Parse("-07:00", zone)
		if err == nil {
			_, off := t.Zone()
			return time.FixedZone(zone, off), nil
		}
	}
	loc, err := time.LoadLocation(zone)
	if err != nil {
		return nil, fmt.Errorf("unknown time zone %q: use UTC, a name such as Europe/Paris, or an offset such as +02:00", zone)
	}
	return loc, nil
}
