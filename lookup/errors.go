package lookup

import (
	"errors"
	"fmt"

	"rmqconsole/i18n"
)

// InputError is a query that cannot be run as asked: a missing or malformed field, a
// range that ends before it begins, a topic that does not exist. Nothing was sent to a
// broker. Message is a sentence for the user with the next step; Field names the form
// field it concerns.
type InputError struct {
	Field   string // "topic", "begin", "end", "key", "id", "tag", "limit"
	Code    string // for the API: "missing_topic", "unknown_topic", "bad_range", ...
	Message string
	// Text is Message as a catalogue sentence, for the handler to say in the
	// request's language; empty when the sentence comes from elsewhere (Message only).
	Text i18n.Message
	// Err is the free-text rule's error when the field broke it (freetext.ErrInvalid).
	Err error
}

// Unwrap returns the free-text rule's error, if any.
func (e *InputError) Unwrap() error { return e.Err }

// inputError is an InputError whose sentence is m.
func inputError(field, code string, m i18n.Message) *InputError {
	return &InputError{Field: field, Code: code, Message: m.String(), Text: m}
}

func (e *InputError) Error() string { return e.Message }

// ErrNotFound is returned by the id lookup when no broker holds the message.
var ErrNotFound = errors.New("message not found")

// NotFoundError says which id was looked up where, as a sentence, and matches
// ErrNotFound.
type NotFoundError struct {
	Message string
	// Text is Message as catalogue sentences (empty: Message only): Text, then Also
	// when it has an id.
	Text, Also i18n.Message
}

// notFound is a NotFoundError whose sentence is m.
func notFound(m i18n.Message) *NotFoundError {
	return &NotFoundError{Message: m.String(), Text: m}
}

func (e *NotFoundError) Error() string { return e.Message }

// Is makes errors.Is(err, ErrNotFound) hold.
func (e *NotFoundError) Is(target error) bool { return target == ErrNotFound }

func errUnknownTopic(topic string) error {
	return inputError("topic", "unknown_topic", i18n.M("lookup.topic.unknown", "Topic", fmt.Sprintf("%q", topic)))
}

func errMissing(field, code string, msg i18n.Message) error {
	return inputError(field, code, msg)
}
