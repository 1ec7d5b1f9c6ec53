// Package fault is the console's one error for what a person must read: a code saying
// what kind of failure it is (the handlers map it to an HTTP status in one table), the
// sentence as a catalogue message (said in the reader's language when it is shown), the
// form field it concerns, and the cause it wraps.
//
// Services return a *fault.Error (or several, as a List) for every failure a person can
// act on; any other error reaching a handler is either a RocketMQ server's (a broker
// failure, told by the cluster layer) or the console's own (internal).
package fault

import (
	"errors"
	"strings"

	"rmqconsole/i18n"
)

// Code says what kind of failure an error is. It decides the HTTP status, and is what
// a script reads in an API answer's "kind".
type Code string

const (
	// Invalid: the input cannot be acted on as given (a malformed field, an unknown
	// topic named in a form). Nothing was sent to a broker or written to a store.
	Invalid Code = "invalid"
	// NotFound: what the request names does not exist (a group, a message, an entry).
	NotFound Code = "not_found"
	// Conflict: the request contradicts the current state (a reset already running, a
	// topic that already exists, a preview that went stale).
	Conflict Code = "conflict"
	// Refused: the console will not do this for this caller or on this subject (a role,
	// a system group, the console's own access key).
	Refused Code = "refused"
	// Unavailable: a part the request needs is missing or down (the database, the
	// audit log, a cluster); the caller is not at fault and may retry later.
	Unavailable Code = "unavailable"
	// Busy: the console is at a limit it sets itself (heavy queries at once, watchers
	// per user); retry shortly.
	Busy Code = "busy"
	// Internal: the console itself failed (a bug, a failing render).
	Internal Code = "internal"
)

// Error is one failure told as a sentence.
type Error struct {
	Code Code
	// Reason is a finer code for scripts ("unknown_topic", "group_not_found"); empty
	// when Code says enough.
	Reason string
	// Field names the form or JSON field the failure concerns ("" for none).
	Field string
	// Msg is the sentence with the next step, kept as its catalogue id and values.
	Msg i18n.Message
	// Err is the cause, for logs and errors.Is/As; nil when there is none.
	Err error
}

// New is an error of code whose sentence is the catalogue's id with the values kv.
func New(code Code, id string, kv ...any) *Error {
	return &Error{Code: code, Msg: i18n.M(id, kv...)}
}

// Wrap is New with the cause err.
func Wrap(err error, code Code, id string, kv ...any) *Error {
	return &Error{Code: code, Msg: i18n.M(id, kv...), Err: err}
}

// InvalidField is an Invalid error on field whose sentence is the catalogue's id.
func InvalidField(field, id string, kv ...any) *Error {
	return &Error{Code: Invalid, Field: field, Msg: i18n.M(id, kv...)}
}

// Because sets the finer reason for scripts and returns e.
func (e *Error) Because(reason string) *Error { e.Reason = reason; return e }

// On sets the field e concerns and returns e.
func (e *Error) On(field string) *Error { e.Field = field; return e }

// Error is the sentence in English, then the cause.
func (e *Error) Error() string {
	s := e.Msg.String()
	if e.Err != nil && !strings.Contains(s, e.Err.Error()) {
		return s + ": " + e.Err.Error()
	}
	return s
}

func (e *Error) Unwrap() error { return e.Err }

// Say is e's sentence in l's language.
func (e *Error) Say(l *i18n.Localizer) string { return l.Say(e.Msg) }

// APICode is what an API answer's "code" holds: the finer reason when there is one.
func (e *Error) APICode() string {
	if e.Reason != "" {
		return e.Reason
	}
	return string(e.Code)
}

// List is every failure found in one input, told together so a form shows them all at
// once. Its code is its first error's.
type List []*Error

func (l List) Error() string {
	msgs := make([]string, len(l))
	for i, e := range l {
		msgs[i] = e.Error()
	}
	return strings.Join(msgs, " ")
}

// Say is every sentence of l in loc's language, one after the other.
func (l List) Say(loc *i18n.Localizer) string {
	msgs := make([]string, len(l))
	for i, e := range l {
		msgs[i] = e.Say(loc)
	}
	return strings.Join(msgs, " ")
}

// Add appends e and returns the list.
func (l *List) Add(e *Error) { *l = append(*l, e) }

// Invalid adds an Invalid error on field whose sentence is the catalogue's id.
func (l *List) Invalid(field, id string, kv ...any) {
	l.Add(InvalidField(field, id, kv...))
}

// Err is the list as an error, nil when it is empty.
func (l List) Err() error {
	if len(l) == 0 {
		return nil
	}
	return l
}

// For returns the first error on field, nil when it has none.
func (l List) For(field string) *Error {
	for _, e := range l {
		if e.Field == field {
			return e
		}
	}
	return nil
}

// As returns the *Error err carries (the first of a List), or nil.
func As(err error) *Error {
	var e *Error
	if errors.As(err, &e) {
		return e
	}
	var l List
	if errors.As(err, &l) && len(l) > 0 {
		return l[0]
	}
	return nil
}

// All returns every *Error err carries: the list's, or the one.
func All(err error) List {
	var l List
	if errors.As(err, &l) {
		return l
	}
	if e := As(err); e != nil {
		return List{e}
	}
	return nil
}

// CodeOf is err's code: its *Error's, Internal for any other non-nil error, "" for nil.
func CodeOf(err error) Code {
	if err == nil {
		return ""
	}
	if e := As(err); e != nil {
		return e.Code
	}
	return Internal
}

// Is reports whether err carries an *Error of code.
func Is(err error, code Code) bool {
	e := As(err)
	return e != nil && e.Code == code
}
