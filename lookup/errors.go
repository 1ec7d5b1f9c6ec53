package lookup

import (
	"errors"
	"fmt"
)

// InputError is a query that cannot be run as asked: a missing or malformed field, a
// range that ends before it begins, a topic that does not exist. Nothing was sent to a
// broker. Message is a sentence for the user with the next step; Field names the form
// field it concerns.
type InputError struct {
	Field   string // "topic", "begin", "end", "key", "id", "tag", "limit"
	Code    string // for the API: "missing_topic", "unknown_topic", "bad_range", ...
	Message string
}

func (e *InputError) Error() string { return e.Message }

// ErrNotFound is returned by the id lookup when no broker holds the message.
var ErrNotFound = errors.New("message not found")

// NotFoundError says which id was looked up where, as a sentence, and matches
// ErrNotFound.
type NotFoundError struct {
	Message string
}

func (e *NotFoundError) Error() string { return e.Message }

// Is makes errors.Is(err, ErrNotFound) hold.
func (e *NotFoundError) Is(target error) bool { return target == ErrNotFound }

func errUnknownTopic(topic string) error {
	return &InputError{Field: "topic", Code: "unknown_topic",
		Message: fmt.Sprintf("Topic %q does not exist on this cluster. Check the name, or pick one from the suggestions.", topic)}
}

func errMissing(field, code, msg string) error {
	return &InputError{Field: field, Code: code, Message: msg}
}

// idForms explains the two kinds of message id, for error messages.
const idForms = "A message id is either an offsetMsgId, made by the broker that stored the message " +
	"(32 hex characters, or 56 for an IPv6 broker: the broker's address and the commit-log offset), " +
	"or a unique key (UNIQ_KEY), made by the producer and shown by clients as msgId " +
	"(usually 32 hex characters, 34 from RocketMQ 5 gRPC clients), which is found through a topic's index."
