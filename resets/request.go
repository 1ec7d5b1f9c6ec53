package resets

import (
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"rmqconsole/cluster"
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
}

// InputErrors is every problem found in a request. Nothing is asked of a broker to change
// while a request has any.
type InputErrors []InputError

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

const maxReasonLen = 1000

func checkName(errs *InputErrors, field, what, name string) bool {
	if err := cluster.CheckName(what, name); err != nil {
		errs.add(field, "%s", err.Error())
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
		errs.add("group", "Name the consumer group to reset.")
	} else if checkName(&errs, "group", "consumer group", r.Group) && rocketmq.IsSystemGroup(r.Group) {
		errs.add("group", "%s is one of RocketMQ's own consumer groups (brokers and tools such as mqadmin use it); its offsets are not reset from the console. Choose an application's group.", r.Group)
	}
	if r.Topic != "" && checkName(&errs, "topic", "topic", r.Topic) {
		checkTopicOfGroup(&errs, r.Group, r.Topic)
	}
	if !r.Mode.Valid() {
		errs.add("mode", "Choose how to reset: timestamp, earliest, latest, offset or shift (got %q).", r.Mode)
	}
	switch r.Mode {
	case ModeTimestamp:
		switch {
		case r.Timestamp.IsZero():
			errs.add("timestamp", "Enter the time to reset to.")
		case r.Timestamp.After(now):
			errs.add("timestamp", "%s is in the future (it is now %s): no message is stored after now. Enter a past time, or choose latest to skip the backlog.",
				r.Timestamp.UTC().Format("2006-01-02 15:04:05 UTC"), now.UTC().Format("2006-01-02 15:04:05 UTC"))
		}
	case ModeOffset:
		if !r.OneQueue() {
			errs.add("queueId", "An exact offset is for one queue: choose the broker and queue.")
		}
		if r.Offset < 0 {
			errs.add("offset", "Offset %d is negative; offsets start at 0.", r.Offset)
		}
	case ModeShift:
		if r.Shift == 0 {
			errs.add("shift", "A shift of 0 changes nothing: enter a negative number to re-consume or a positive one to skip.")
		}
	}
	if r.OneQueue() {
		if r.Topic == "" {
			errs.add("topic", "Choose the topic of the queue to reset.")
		}
		if r.BrokerName != "" {
			checkName(&errs, "brokerName", "broker", r.BrokerName)
		}
	} else if r.QueueID != AllQueues {
		errs.add("queueId", "Queue id %d is negative; queue ids start at 0.", r.QueueID)
	} else if r.BrokerName != "" {
		errs.add("queueId", "Broker %s names one queue only with its queue id: give the queue id too, or clear the broker to reset every queue.", cut(r.BrokerName, 80))
	}
	if n := utf8.RuneCountInString(r.Reason); n > maxReasonLen {
		errs.add("reason", "The reason is %d characters long; keep it under %d.", n, maxReasonLen)
	}
	return errs
}

// checkTopicOfGroup refuses topics a group's offsets must not be moved on: the brokers'
// own topics (scheduled messages, transactions, timers, the default topic...), and
// another group's retry topic. A group's own retry topic may be reset with the group.
func checkTopicOfGroup(errs *InputErrors, group, topic string) {
	switch {
	case rocketmq.IsBrokerInternalTopic(topic):
		errs.add("topic", "%s is one of the brokers' own topics (scheduled messages, transactions, timers, tracing or the default topic); moving a group's offsets on it would upset the broker's own delivery, so it is not reset from the console. Choose one of the group's topics.", topic)
	case rocketmq.IsRetryTopic(topic) && topic != rocketmq.RetryTopic(group):
		errs.add("topic", "%s is the retry topic of group %s, not of %s: a retry topic is reset only with its own group.", topic, strings.TrimPrefix(topic, rocketmq.RetryTopicPrefix), group)
	}
}

// internalTopicError refuses a topic the cluster names after itself or one of its brokers
// (the brokers create them); only cluster info tells those apart from an application's.
func internalTopicError(topic string) InputErrors {
	return InputErrors{{Field: "topic", Message: fmt.Sprintf(
		"%s is a topic the brokers create for their cluster or broker name; it is not reset from the console. Choose one of the group's topics.", topic)}}
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
