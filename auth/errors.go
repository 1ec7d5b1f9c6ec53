package auth

import (
	"errors"
	"fmt"
	"time"

	"rmqconsole/fault"
	"rmqconsole/freetext"
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

// ThrottledError is the cause of a sign-in refused for a while after repeated failures
// (a Busy *fault.Error): how long until the next attempt is allowed, for Retry-After.
type ThrottledError struct {
	Wait time.Duration
}

func (e *ThrottledError) Error() string {
	return fmt.Sprintf("sign-in throttled for %s", e.Wait.Round(time.Second))
}

// throttled is the refusal of a sign-in for wait, said in whole seconds (at least one).
func throttled(wait time.Duration) error {
	secs := max(int(wait.Round(time.Second)/time.Second), 1)
	return fault.Wrap(&ThrottledError{Wait: wait}, fault.Busy, "login.throttled", "Seconds", secs).Because("sign_in_throttled")
}

// Input the service refuses (a user name, password, role or token name) is an Invalid
// *fault.Error on its field, with the API code "invalid_<field>".

// textInvalid is the free-text rule applied to value as field f: nil, or its refusal.
func textInvalid(f freetext.Field, value string) error {
	if fe := fault.As(f.Check(value)); fe != nil {
		return fe.Because("invalid_" + fe.Field)
	}
	return nil
}

// invalid refuses field with the catalogue's sentence id.
func invalid(field, id string, kv ...any) *fault.Error {
	return fault.InvalidField(field, id, kv...).Because("invalid_" + field)
}

// Not-found errors of the store, re-exported so callers of this package need not import
// the store to tell them apart.
var (
	ErrUserNotFound  = store.ErrUserNotFound
	ErrUserExists    = store.ErrUserExists
	ErrTokenNotFound = store.ErrTokenNotFound
)
