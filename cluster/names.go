package cluster

import (
	"fmt"
	"strings"

	"rmqconsole/freetext"
	"rmqconsole/rocketmq"
)

// NameError is a topic or group name RocketMQ would refuse; its text is a sentence for the
// user. Nothing was asked of a broker.
type NameError struct {
	// Kind is what the name names: "topic", "consumer group", "broker".
	Kind string
	Name string
	// TooLong is set when the name is over rocketmq.MaxNameLen; else a character is wrong.
	TooLong bool
}

func (e *NameError) Error() string {
	if e.TooLong {
		return fmt.Sprintf("The %s name is %d characters long; RocketMQ allows at most %d. Check what was pasted.", e.Kind, len(e.Name), rocketmq.MaxNameLen)
	}
	return fmt.Sprintf("%s is not a valid %s name: use only letters, digits, '-', '_', '%%' and '|'.", freetext.Quote(e.Name), e.Kind)
}

// CheckName checks a non-empty topic, group or broker name against RocketMQ's rules, so a
// bad name never reaches a broker. kind names it in the sentence ("topic"). An empty
// name passes: each form says in its own words what to fill in.
func CheckName(kind, name string) error {
	if len(name) > rocketmq.MaxNameLen {
		return &NameError{Kind: kind, Name: name, TooLong: true}
	}
	if strings.IndexFunc(name, func(r rune) bool { return !rocketmq.ValidNameChar(r) }) >= 0 {
		return &NameError{Kind: kind, Name: name}
	}
	return nil
}

// ValidName reports whether a non-empty name passes CheckName.
func ValidName(name string) bool { return name != "" && CheckName("", name) == nil }
