package auth

import (
	"errors"
	"fmt"
	"time"

	"rmqconsole/freetext"
	"rmqconsole/i18n"
	"rmqconsole/store"
)

// ErrBadCredentials means the user name or the password is wrong. Which one is not said,
// so that sign-in does not reveal which user names exist.
var ErrBadCredentials = errors.New("wrong user name or password")

// ErrSessionEnded means a session cookie names no live session: it expired (idle or
// absolute), was signed out, or its user changed password or was removed.
var ErrSessionEnded = errors.New("session ended")

// ErrTokenInvalid means a bearer token is unknown or revoked.
var ErrTokenInvalid = errors.New("API token is not valid")

// ErrThrottled is matched (errors.Is) by every *ThrottledError.
var ErrThrottled = errors.New("too many failed sign-ins")

// ThrottledError says sign-in is refused for a while after repeated failures.
type ThrottledError struct {
	Wait time.Duration // how long until the next attempt is allowed
}

func (e *ThrottledError) Error() string {
	return fmt.Sprintf("too many failed sign-ins: try again in %s", e.Wait.Round(time.Second))
}

// Is makes errors.Is(err, ErrThrottled) true.
func (e *ThrottledError) Is(target error) bool { return target == ErrThrottled }

// InvalidError is input that cannot be accepted (a user name, password, role or token
// name). Reason is a sentence for the user.
type InvalidError struct {
	Field  string
	Reason string
	// Say is Reason from the catalogues, for a page or the CLI to say in its language.
	Say i18n.Message
	// Err is the free-text rule's error when the field broke it (freetext.ErrInvalid).
	Err error
}

func (e *InvalidError) Error() string { return e.Reason }

// Unwrap returns the free-text rule's error, if any.
func (e *InvalidError) Unwrap() error { return e.Err }

// textInvalid is the free-text rule applied to value as field f: nil, or an
// *InvalidError carrying the rule's error.
func textInvalid(f freetext.Field, value string) error {
	var te *freetext.Error
	if err := f.Check(value); errors.As(err, &te) {
		return &InvalidError{Field: f.Name, Reason: te.Error(), Say: te.Say(), Err: te}
	}
	return nil
}

// invalid is the InvalidError of field whose reason is m.
func invalid(field string, m i18n.Message) *InvalidError {
	return &InvalidError{Field: field, Reason: m.String(), Say: m}
}

// Not-found errors of the store, re-exported so callers of this package need not import
// the store to tell them apart.
var (
	ErrUserNotFound  = store.ErrUserNotFound
	ErrUserExists    = store.ErrUserExists
	ErrTokenNotFound = store.ErrTokenNotFound
)
