package subgroups

import (
	"encoding/json"
	"regexp"
	"slices"
	"strings"
	"time"

	"rmqconsole/cluster"
	"rmqconsole/fault"
	"rmqconsole/freetext"
	"rmqconsole/rocketmq"
)

// Settings are the fields of a subscription group that can be changed; a nil field is
// kept as the broker has it (or, for a group a broker does not have yet, takes what
// another broker of the group has, else RocketMQ's default).
type Settings struct {
	ConsumeEnable          *bool `json:"consumeEnable,omitempty"`
	ConsumeBroadcastEnable *bool `json:"consumeBroadcastEnable,omitempty"`
	// ConsumeMessageOrderly (5.x) makes POP consumers of the group consume orderly.
	ConsumeMessageOrderly *bool `json:"consumeMessageOrderly,omitempty"`
	RetryMaxTimes         *int  `json:"retryMaxTimes,omitempty"`
	RetryQueueNums        *int  `json:"retryQueueNums,omitempty"`
	// GroupRetryPolicy (5.x) is the delays of POP consumers' retries.
	GroupRetryPolicy *RetryPolicy `json:"groupRetryPolicy,omitempty"`
	// WhichBrokerWhenConsumeSlowly is the broker id (0 master, else a slave) a consumer
	// is told to pull from when it falls far behind.
	WhichBrokerWhenConsumeSlowly *int64 `json:"whichBrokerWhenConsumeSlowly,omitempty"`
	// BrokerID is the broker id consumers pull from.
	BrokerID                       *int64 `json:"brokerId,omitempty"`
	ConsumeFromMinEnable           *bool  `json:"consumeFromMinEnable,omitempty"`
	NotifyConsumerIdsChangedEnable *bool  `json:"notifyConsumerIdsChangedEnable,omitempty"`
	// ConsumeTimeoutMinute (5.x).
	ConsumeTimeoutMinute *int `json:"consumeTimeoutMinute,omitempty"`
	// Attributes (5.x) sets each attribute to its value; an empty value removes it. A
	// broker refuses keys it does not know (5.3.3 knows none).
	Attributes map[string]string `json:"attributes,omitempty"`
}

// RetryPolicy is a 5.x group's retry policy: exponential or a customized list of delays.
type RetryPolicy struct {
	// Type is EXPONENTIAL or CUSTOMIZED.
	Type        string             `json:"type"`
	Exponential *ExponentialRetry  `json:"exponentialRetryPolicy,omitempty"`
	Customized  *CustomizedRetries `json:"customizedRetryPolicy,omitempty"`
}

// ExponentialRetry waits Initial ms, then Multiplier times longer each retry, at most Max ms.
type ExponentialRetry struct {
	Initial    int64 `json:"initial"`
	Max        int64 `json:"max"`
	Multiplier int64 `json:"multiplier"`
}

// CustomizedRetries waits Next[i] ms before retry i+1 (the last for every later one).
type CustomizedRetries struct {
	Next []int64 `json:"next"`
}

// Field is one setting of a subscription group, as the preview and the page name it:
// RocketMQ's field name.
type Field struct {
	Name string
	// Only5 is set for fields 4.x brokers do not have.
	Only5 bool
	// Form is set for fields the settings form shows; the API takes every field.
	Form bool
}

// Fields are the settings in the order pages show them.
var Fields = []Field{
	{Name: "consumeEnable", Form: true},
	{Name: "consumeBroadcastEnable", Form: true},
	{Name: "consumeMessageOrderly", Only5: true, Form: true},
	{Name: "retryMaxTimes", Form: true},
	{Name: "retryQueueNums", Form: true},
	{Name: "groupRetryPolicy", Only5: true, Form: true},
	{Name: "whichBrokerWhenConsumeSlowly", Form: true},
	{Name: "attributes", Only5: true, Form: true},
	{Name: "brokerId"},
	{Name: "consumeFromMinEnable"},
	{Name: "notifyConsumerIdsChangedEnable"},
	{Name: "consumeTimeoutMinute", Only5: true},
}

// FieldNamed returns the field of that name.
func FieldNamed(name string) (Field, bool) {
	i := slices.IndexFunc(Fields, func(f Field) bool { return f.Name == name })
	if i < 0 {
		return Field{}, false
	}
	return Fields[i], true
}

// Bounds of the settings, checked before any broker is asked. Brokers check none of
// them: a broker takes a negative retry count as it is.
const (
	// MaxRetryMaxTimes: from the 17th retry on, a message waits the last delay level
	// (2 hours) each time, so 128 retries are already more than a week of retrying.
	MaxRetryMaxTimes = 128
	// MaxRetryQueueNums: a retry topic carries only failed messages; a group needs one
	// queue per broker, a few at most.
	MaxRetryQueueNums = 64
	// MaxBrokerID bounds broker ids (0 is the master; slaves, DLedger and controller
	// members count up from 1).
	MaxBrokerID = 1024
	// MaxConsumeTimeoutMinute is a day.
	MaxConsumeTimeoutMinute = 24 * 60
	// MaxRetryDelay is the longest delay a retry policy may ask: the broker's default
	// timerMaxDelaySec (3 days).
	MaxRetryDelay = 3 * 24 * time.Hour
	// MaxRetryDelays bounds a customized policy's list.
	MaxRetryDelays = 64
	// MaxMultiplier bounds an exponential policy's multiplier.
	MaxMultiplier = 10
	// MaxAttributes bounds the attributes one change sets.
	MaxAttributes = 16
)

// attributeKey is what RocketMQ's attribute keys look like ("priority.factor").
var attributeKey = regexp.MustCompile(`^[a-zA-Z][a-zA-Z0-9._-]{0,63}$`)

// check finds every bad field of s, each with a sentence.
func (s Settings) check(errs *fault.List) {
	intIn := func(field string, v *int, lo, hi int) {
		if v != nil && (*v < lo || *v > hi) {
			errs.Invalid(field, "subgroups.input.range", "Field", field, "N", *v, "Min", lo, "Max", hi)
		}
	}
	int64In := func(field string, v *int64, lo, hi int64) {
		if v != nil && (*v < lo || *v > hi) {
			errs.Invalid(field, "subgroups.input.range", "Field", field, "N", *v, "Min", lo, "Max", hi)
		}
	}
	intIn("retryMaxTimes", s.RetryMaxTimes, 0, MaxRetryMaxTimes)
	intIn("retryQueueNums", s.RetryQueueNums, 1, MaxRetryQueueNums)
	intIn("consumeTimeoutMinute", s.ConsumeTimeoutMinute, 1, MaxConsumeTimeoutMinute)
	int64In("whichBrokerWhenConsumeSlowly", s.WhichBrokerWhenConsumeSlowly, 0, MaxBrokerID)
	int64In("brokerId", s.BrokerID, 0, MaxBrokerID)
	if p := s.GroupRetryPolicy; p != nil {
		p.check(errs)
	}
	if len(s.Attributes) > MaxAttributes {
		errs.Invalid("attributes", "subgroups.input.attributes.many", "N", len(s.Attributes), "Max", MaxAttributes)
	}
	for k, v := range s.Attributes {
		if !attributeKey.MatchString(k) {
			errs.Invalid("attributes", "subgroups.input.attributes.key", "Key", freetext.Quote(k))
		}
		if len(v) > 256 || strings.ContainsAny(v, "\n\r") {
			errs.Invalid("attributes", "subgroups.input.attributes.value", "Key", k)
		}
	}
}

func (p RetryPolicy) check(errs *fault.List) {
	maxMs := MaxRetryDelay.Milliseconds()
	switch p.Type {
	case "EXPONENTIAL":
		e := p.Exponential
		switch {
		case e == nil:
			errs.Invalid("groupRetryPolicy", "subgroups.input.policy.exponential.missing")
		case e.Initial < 1 || e.Initial > maxMs || e.Max < e.Initial || e.Max > maxMs:
			errs.Invalid("groupRetryPolicy", "subgroups.input.policy.exponential.delays", "Initial", e.Initial, "Max", e.Max, "Limit", maxMs)
		case e.Multiplier < 1 || e.Multiplier > MaxMultiplier:
			errs.Invalid("groupRetryPolicy", "subgroups.input.policy.exponential.multiplier", "N", e.Multiplier, "Max", MaxMultiplier)
		}
		if p.Customized != nil {
			errs.Invalid("groupRetryPolicy", "subgroups.input.policy.both")
		}
	case "CUSTOMIZED":
		c := p.Customized
		switch {
		case c == nil || len(c.Next) == 0:
			errs.Invalid("groupRetryPolicy", "subgroups.input.policy.customized.missing")
		case len(c.Next) > MaxRetryDelays:
			errs.Invalid("groupRetryPolicy", "subgroups.input.policy.customized.many", "N", len(c.Next), "Max", MaxRetryDelays)
		case slices.ContainsFunc(c.Next, func(d int64) bool { return d < 1 || d > maxMs }):
			errs.Invalid("groupRetryPolicy", "subgroups.input.policy.customized.delay", "Limit", maxMs)
		}
		if p.Exponential != nil {
			errs.Invalid("groupRetryPolicy", "subgroups.input.policy.both")
		}
	default:
		errs.Invalid("groupRetryPolicy", "subgroups.input.policy.type", "Type", freetext.Quote(p.Type))
	}
}

// asked lists the fields s sets, as the JSON a broker holds them in (attributes aside).
func (s Settings) asked() map[string]json.RawMessage {
	out := map[string]json.RawMessage{}
	put := func(name string, v any, set bool) {
		if set {
			b, _ := json.Marshal(v)
			out[name] = b
		}
	}
	put("consumeEnable", s.ConsumeEnable, s.ConsumeEnable != nil)
	put("consumeBroadcastEnable", s.ConsumeBroadcastEnable, s.ConsumeBroadcastEnable != nil)
	put("consumeMessageOrderly", s.ConsumeMessageOrderly, s.ConsumeMessageOrderly != nil)
	put("retryMaxTimes", s.RetryMaxTimes, s.RetryMaxTimes != nil)
	put("retryQueueNums", s.RetryQueueNums, s.RetryQueueNums != nil)
	put("groupRetryPolicy", s.GroupRetryPolicy, s.GroupRetryPolicy != nil)
	put("whichBrokerWhenConsumeSlowly", s.WhichBrokerWhenConsumeSlowly, s.WhichBrokerWhenConsumeSlowly != nil)
	put("brokerId", s.BrokerID, s.BrokerID != nil)
	put("consumeFromMinEnable", s.ConsumeFromMinEnable, s.ConsumeFromMinEnable != nil)
	put("notifyConsumerIdsChangedEnable", s.NotifyConsumerIdsChangedEnable, s.NotifyConsumerIdsChangedEnable != nil)
	put("consumeTimeoutMinute", s.ConsumeTimeoutMinute, s.ConsumeTimeoutMinute != nil)
	return out
}

// only5 lists the 5.x-only fields s sets.
func (s Settings) only5() []string {
	var out []string
	for name := range s.asked() {
		if f, _ := FieldNamed(name); f.Only5 {
			out = append(out, name)
		}
	}
	if len(s.Attributes) > 0 {
		out = append(out, "attributes")
	}
	slices.Sort(out)
	return out
}

// Empty reports whether s changes nothing.
func (s Settings) Empty() bool { return len(s.asked()) == 0 && len(s.Attributes) == 0 }

// defaults is what a 5.3.3 broker gives a group created with only a name (RocketMQ's
// SubscriptionGroupConfig defaults), for a group no broker has yet.
var defaults = map[string]json.RawMessage{
	"consumeEnable":                  json.RawMessage(`true`),
	"consumeFromMinEnable":           json.RawMessage(`true`),
	"consumeBroadcastEnable":         json.RawMessage(`true`),
	"consumeMessageOrderly":          json.RawMessage(`false`),
	"retryQueueNums":                 json.RawMessage(`1`),
	"retryMaxTimes":                  json.RawMessage(`16`),
	"brokerId":                       json.RawMessage(`0`),
	"whichBrokerWhenConsumeSlowly":   json.RawMessage(`1`),
	"notifyConsumerIdsChangedEnable": json.RawMessage(`true`),
	"consumeTimeoutMinute":           json.RawMessage(`15`),
}

// Text is a field's value as pages show it: compact JSON, "" when the broker has none.
func Text(raw json.RawMessage) string {
	if len(raw) == 0 || string(raw) == "null" {
		return ""
	}
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		return string(raw)
	}
	if s, ok := v.(string); ok {
		return s
	}
	b, _ := json.Marshal(v)
	return string(b)
}

// same reports whether two values of a field are equal, whatever their JSON spelling.
func same(a, b json.RawMessage) bool { return canonical(a) == canonical(b) }

func canonical(raw json.RawMessage) string {
	if len(raw) == 0 {
		return "null"
	}
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		return string(raw)
	}
	b, _ := json.Marshal(v)
	return string(b)
}

// attributesOf reads the attributes a broker holds for the group.
func attributesOf(doc rocketmq.GroupDoc) map[string]string {
	out := map[string]string{}
	_ = json.Unmarshal(doc["attributes"], &out)
	return out
}

// CheckGroup checks a group name a change names: RocketMQ's rules for names, and not one
// of RocketMQ's own groups.
func CheckGroup(group string) error {
	switch {
	case group == "":
		return fault.InvalidField("group", "subgroups.input.group.missing")
	case !cluster.ValidName(group):
		return fault.InvalidField("group", "subgroups.input.group.bad", "Group", freetext.Quote(group), "Max", rocketmq.MaxNameLen)
	case rocketmq.IsSystemGroup(group):
		return fault.New(fault.Refused, "subgroups.refused.system", "Group", group).On("group").Because("system_group")
	}
	return nil
}
