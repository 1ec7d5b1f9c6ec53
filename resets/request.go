package resets

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"rmqconsole/cluster"
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
)

// Modes lists every mode, in the order forms show them.
var Modes = []Mode{ModeTimestamp, ModeEarliest, ModeLatest, ModeOffset, ModeShift}

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
	Shift  int64
	Reason string
}

// OneQueue reports whether the request is limited to one queue.
func (r Request) OneQueue() bool { return r.QueueID >= 0 }

// InputError is one thing wrong with a request, for the field it concerns: a sentence
// with the next step.
type InputError struct {
	Field   string `json:"field"`
	Message string `json:"message"`
	// Say is Message from the catalogues, for a page to say in its reader's language.
	Say i18n.Message `json:"-"`
	// Err is the free-text rule's error when the field broke it (freetext.ErrInvalid).
	Err error `json:"-"`
}

// inputError is the InputErrors of one field whose sentence is the catalogue's id.
func inputError(field, id string, kv ...any) InputErrors {
	m := i18n.M(id, kv...)
	return InputErrors{{Field: field, Message: m.String(), Say: m}}
}

// say adds the catalogue's sentence id on field.
func (e *InputErrors) say(field, id string, kv ...any) {
	*e = append(*e, inputError(field, id, kv...)...)
}

// InputErrors is every problem found in a request. Nothing is asked of a broker to change
// while a request has any.
type InputErrors []InputError

// Unwrap returns the free-text rule's errors among e, so errors.Is(e, freetext.ErrInvalid)
// tells a request that sent text the console does not take.
func (e InputErrors) Unwrap() []error {
	var out []error
	for _, ie := range e {
		if ie.Err != nil {
			out = append(out, ie.Err)
		}
	}
	return out
}

func (e InputErrors) Error() string {
	msgs := make([]string, len(e))
	for i, ie := range e {
		msgs[i] = ie.Message
	}
	return strings.Join(msgs, " ")
}

// For returns the message for a field, "" when it has none.
func (e InputErrors) For(field string) string {
	for _, ie := range e {
		if ie.Field == field {
			return ie.Message
		}
	}
	return ""
}

func (e *InputErrors) add(field, format string, args ...any) {
	*e = append(*e, InputError{Field: field, Message: fmt.Sprintf(format, args...)})
}

func checkName(errs *InputErrors, field, what, name string) bool {
	if err := cluster.CheckName(what, name); err != nil {
		var ne *cluster.NameError
		if errors.As(err, &ne) {
			*errs = append(*errs, InputError{Field: field, Message: err.Error(), Say: ne.Say()})
		} else {
			errs.add(field, "%s", err.Error())
		}
		return false
	}
	return true
}

// Check finds what is wrong with the request by itself, before any broker is asked:
// names, the mode and its parameter, a timestamp in the future. What depends on the
// cluster (the group and topic exist, the queue exists, the offset is within the queue)
// is checked by Plan.
func (r Request) Check(now time.Time) InputErrors {
	var errs InputErrors
	if r.Group == "" {
		errs.say("group", "resets.input.no_group")
	} else if checkName(&errs, "group", "consumer group", r.Group) && rocketmq.IsSystemGroup(r.Group) {
		errs.say("group", "resets.input.system_group", "Group", r.Group)
	}
	if r.Topic != "" && checkName(&errs, "topic", "topic", r.Topic) {
		checkTopicOfGroup(&errs, r.Group, r.Topic)
	}
	if !r.Mode.Valid() {
		errs.say("mode", "resets.input.mode", "Mode", strconv.Quote(string(r.Mode)))
	}
	switch r.Mode {
	case ModeTimestamp:
		switch {
		case r.Timestamp.IsZero():
			errs.say("timestamp", "resets.input.no_time")
		case r.Timestamp.After(now):
			errs.say("timestamp", "resets.input.future",
				"Time", r.Timestamp.UTC().Format("2006-01-02 15:04:05 UTC"), "Now", now.UTC().Format("2006-01-02 15:04:05 UTC"))
		}
	case ModeOffset:
		if !r.OneQueue() {
			errs.say("queueId", "resets.input.offset_one_queue")
		}
		if r.Offset < 0 {
			errs.say("offset", "resets.input.offset_negative", "Offset", r.Offset)
		}
	case ModeShift:
		if r.Shift == 0 {
			errs.say("shift", "resets.input.shift_zero")
		}
	}
	if r.OneQueue() {
		if r.Topic == "" {
			errs.say("topic", "resets.input.queue_topic")
		}
		if r.BrokerName != "" {
			checkName(&errs, "brokerName", "broker", r.BrokerName)
		}
	} else if r.QueueID != AllQueues {
		errs.say("queueId", "resets.input.queue_negative", "Queue", r.QueueID)
	} else if r.BrokerName != "" {
		errs.say("queueId", "resets.input.broker_without_queue", "Broker", cut(r.BrokerName, 80))
	}
	var te *freetext.Error
	if err := freetext.ResetReason.Check(r.Reason); errors.As(err, &te) {
		errs = append(errs, InputError{Field: "reason", Message: te.Error(), Say: te.Say(), Err: te})
	}
	return errs
}

// checkTopicOfGroup refuses topics a group's offsets must not be moved on: the brokers'
// own topics (scheduled messages, transactions, timers, the default topic...), and
// another group's retry topic. A group's own retry topic may be reset with the group.
func checkTopicOfGroup(errs *InputErrors, group, topic string) {
	switch {
	case rocketmq.IsBrokerInternalTopic(topic):
		errs.say("topic", "resets.input.internal_topic", "Topic", topic)
	case rocketmq.IsRetryTopic(topic) && topic != rocketmq.RetryTopic(group):
		errs.say("topic", "resets.input.other_retry", "Topic", topic, "Owner", strings.TrimPrefix(topic, rocketmq.RetryTopicPrefix), "Group", group)
	}
}

// internalTopicError refuses a topic the cluster names after itself or one of its brokers
// (the brokers create them); only cluster info tells those apart from an application's.
func internalTopicError(topic string) InputErrors {
	return inputError("topic", "resets.input.cluster_topic", "Topic", topic)
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
		r.Offset == o.Offset && r.Shift == o.Shift
}

// Describe says where the reset goes, as the apply button and the audit log show it:
// "to 2026-11-29 10:00:00 UTC", "to the earliest offset", "back by 100".
func (r Request) Describe() string {
	switch r.Mode {
	case ModeTimestamp:
		return "to " + FormatTime(r.Timestamp, r.TimeZone)
	case ModeEarliest:
		return "to the earliest offset"
	case ModeLatest:
		return "to the latest offset (skipping the backlog)"
	case ModeOffset:
		return fmt.Sprintf("to offset %d", r.Offset)
	case ModeShift:
		if r.Shift < 0 {
			return fmt.Sprintf("back by %d messages", -r.Shift)
		}
		return fmt.Sprintf("forward by %d messages", r.Shift)
	}
	return string(r.Mode)
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
