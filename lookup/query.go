package lookup

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"rmqconsole/cluster"
	"rmqconsole/freetext"
	"rmqconsole/i18n"
	"rmqconsole/rocketmq"
)

// maxTextLen bounds what a user may type into a topic, key or tag field; RocketMQ's own
// limits are lower (topic 127, key index entries much less).
const maxTextLen = 255

// RangeQuery asks for the newest messages of a topic stored within [Begin, End].
type RangeQuery struct {
	Topic string
	Begin time.Time
	End   time.Time
	// Tag keeps only messages with this tag (property TAGS); "" keeps all.
	Tag string
	// Limit caps the answer; 0 means RangeLimit, and more than RangeLimit is refused.
	Limit int
	// Skip leaves out the Skip newest messages stored in End's millisecond: a search
	// continued from a row stored then has shown them already (see Result.After).
	Skip int
}

// Validate checks the query without asking any broker.
func (q *RangeQuery) Validate() error {
	q.Topic = strings.TrimSpace(q.Topic)
	q.Tag = strings.TrimSpace(q.Tag)
	if err := checkTopic(q.Topic); err != nil {
		return err
	}
	if q.Begin.IsZero() || q.End.IsZero() {
		return errMissing("begin", "missing_range", i18n.M("lookup.range.missing"))
	}
	if q.Begin.After(q.End) {
		return inputError("begin", "bad_range", i18n.M("lookup.range.reversed",
			"Begin", q.Begin.UTC().Format(time.DateTime+" UTC"), "End", q.End.UTC().Format(time.DateTime+" UTC")))
	}
	if err := checkTag(q.Tag); err != nil {
		return err
	}
	if q.Limit == 0 {
		q.Limit = RangeLimit
	}
	if q.Limit < 0 || q.Limit > RangeLimit {
		return inputError("limit", "bad_limit", i18n.M("lookup.limit", "Max", RangeLimit))
	}
	if q.Skip < 0 || q.Skip > RangeLimit {
		return inputError("skip", "bad_skip", i18n.M("lookup.skip", "Max", RangeLimit))
	}
	return nil
}

// KeyQuery asks the brokers' key index for a topic's messages with a key, optionally
// stored within [Begin, End] (zero times are unbounded).
type KeyQuery struct {
	Topic string
	Key   string
	Begin time.Time
	End   time.Time
}

// Validate checks the query without asking any broker.
func (q *KeyQuery) Validate() error {
	q.Topic = strings.TrimSpace(q.Topic)
	q.Key = strings.TrimSpace(q.Key)
	if err := checkTopic(q.Topic); err != nil {
		return err
	}
	if q.Key == "" {
		return errMissing("key", "missing_key", i18n.M("lookup.key.missing"))
	}
	if err := checkKey(q.Key); err != nil {
		return err
	}
	if !q.Begin.IsZero() && !q.End.IsZero() && q.Begin.After(q.End) {
		return inputError("begin", "bad_range", i18n.M("lookup.range.reversed.key",
			"Begin", q.Begin.UTC().Format(time.DateTime+" UTC"), "End", q.End.UTC().Format(time.DateTime+" UTC")))
	}
	return nil
}

// checkKey says what is wrong with a key, one rule per sentence.
func checkKey(k string) error {
	if len(k) > maxTextLen {
		return inputError("key", "bad_key", i18n.M("lookup.key.long", "Max", maxTextLen, "Len", len(k)))
	}
	if err := checkText(freetext.MessageKey, k); err != nil {
		return err
	}
	if strings.ContainsAny(k, " \t\r\n") {
		return inputError("key", "bad_key", i18n.M("lookup.key.spaces"))
	}
	return nil
}

// checkTag says what is wrong with a tag, one rule per sentence.
func checkTag(tag string) error {
	if len(tag) > maxTextLen {
		return inputError("tag", "bad_tag", i18n.M("lookup.tag.long", "Max", maxTextLen, "Len", len(tag)))
	}
	if err := checkText(freetext.MessageTag, tag); err != nil {
		return err
	}
	switch {
	case strings.ContainsAny(tag, " \t"):
		return inputError("tag", "bad_tag", i18n.M("lookup.tag.spaces"))
	case strings.Contains(tag, "|"):
		return inputError("tag", "bad_tag", i18n.M("lookup.tag.bar"))
	}
	return nil
}

// checkText applies the free-text rule to what a query sends a broker.
func checkText(f freetext.Field, s string) error {
	var te *freetext.Error
	if err := f.Check(s); errors.As(err, &te) {
		return &InputError{Field: f.Name, Code: "bad_" + f.Name, Message: te.Error(), Text: te.Say(), Err: te}
	}
	return nil
}

// IDQuery asks for one message by id: an offsetMsgId, or a unique key in Topic.
type IDQuery struct {
	ID    string
	Topic string // needed for a unique key; optional for an offsetMsgId
}

// Validate checks the query without asking any broker, and says which kind of id it
// holds.
func (q *IDQuery) Validate() (rocketmq.IDKind, error) {
	q.ID = strings.TrimSpace(q.ID)
	q.Topic = strings.TrimSpace(q.Topic)
	if q.ID == "" {
		return rocketmq.IDInvalid, errMissing("id", "missing_id", i18n.M("lookup.id.missing"))
	}
	kind := rocketmq.ClassifyID(q.ID)
	if kind == rocketmq.IDUniqueKey && !plausibleUniqueKey(q.ID) {
		kind = rocketmq.IDInvalid
	}
	if kind == rocketmq.IDInvalid {
		return kind, inputError("id", "bad_id", i18n.M("lookup.id.bad", "ID", fmt.Sprintf("%q", short(q.ID))))
	}
	if q.Topic != "" {
		if err := checkTopic(q.Topic); err != nil {
			return kind, err
		}
	}
	if kind == rocketmq.IDUniqueKey && q.Topic == "" {
		return kind, inputError("topic", "missing_topic", i18n.M("lookup.id.needtopic", "ID", fmt.Sprintf("%q", short(q.ID))))
	}
	return kind, nil
}

// plausibleUniqueKey accepts what producers write as UNIQ_KEY: hex from every client, and
// the letters, digits and separators of ids a producer sets itself. Anything else (markup,
// quotes, a pasted sentence) is a mistake worth pointing out before asking the index.
func plausibleUniqueKey(s string) bool {
	for _, r := range s {
		ok := r == '-' || r == '_' || r == '.' || r == ':' || r == '@' ||
			(r >= '0' && r <= '9') || (r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z')
		if !ok {
			return false
		}
	}
	return true
}

// CheckTopic checks a topic name as the queries do, without asking anyone, so a form
// can report every wrong field at once.
func CheckTopic(t string) error { return checkTopic(strings.TrimSpace(t)) }

func checkTopic(t string) error {
	if t == "" {
		return errMissing("topic", "missing_topic", i18n.M("lookup.topic.missing"))
	}
	if err := cluster.CheckName("topic", t); err != nil {
		return &InputError{Field: "topic", Code: "bad_topic", Message: err.Error()}
	}
	return nil
}

// short cuts a user's input for quoting it back in a message.
func short(s string) string {
	if len(s) > 80 {
		return s[:77] + "..."
	}
	return s
}
