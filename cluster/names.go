package cluster

import (
	"strings"

	"rmqconsole/fault"
	"rmqconsole/freetext"
	"rmqconsole/i18n"
	"rmqconsole/rocketmq"
)

// ReasonBadName is the API code of a name RocketMQ would refuse.
const ReasonBadName = "bad_name"

// CheckName checks a non-empty topic, group or broker name against RocketMQ's rules, so a
// bad name never reaches a broker: nil, or an Invalid *fault.Error (ReasonBadName) whose
// sentence says what is wrong; the caller names the field (On). kind names it in the
// sentence ("topic"). An empty name passes: each form says in its own words what to fill
// in.
func CheckName(kind, name string) error {
	switch {
	case len(name) > rocketmq.MaxNameLen:
		return badName("cluster.name.too_long", "Kind", kindMessage(kind), "Len", len(name), "Max", rocketmq.MaxNameLen)
	case strings.IndexFunc(name, func(r rune) bool { return !rocketmq.ValidNameChar(r) }) >= 0:
		return badName("cluster.name.bad_chars", "Kind", kindMessage(kind), "Name", freetext.Quote(name))
	}
	return nil
}

func badName(id string, kv ...any) error {
	return fault.New(fault.Invalid, id, kv...).Because(ReasonBadName)
}

// kindIDs name in the catalogues what a checked name names.
var kindIDs = map[string]string{"topic": "cluster.kind.topic", "consumer group": "cluster.kind.group",
	"group": "cluster.kind.group", "broker": "cluster.kind.broker"}

// kindMessage is kind in the reader's words, as it is when the catalogues do not know it.
func kindMessage(kind string) any {
	if id, ok := kindIDs[kind]; ok {
		return i18n.M(id)
	}
	return kind
}

// ValidName reports whether a non-empty name passes CheckName.
func ValidName(name string) bool { return name != "" && CheckName("", name) == nil }
