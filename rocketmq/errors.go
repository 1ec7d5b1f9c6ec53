package rocketmq

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// Sentinel errors. A *BrokerError whose code means one of these matches it
// with errors.Is, so callers need not know the numeric codes.
var (
	// ErrTopicNotFound: the NameServer has no route for the topic, or the
	// broker does not know it (TOPIC_NOT_EXIST, 17).
	ErrTopicNotFound = errors.New("topic not found")
	// ErrConsumerNotOnline: no client of the consumer group is connected to
	// the broker (CONSUMER_NOT_ONLINE, 206, and the equivalent remarks of
	// other requests).
	ErrConsumerNotOnline = errors.New("consumer group not online")
	// ErrGroupNotFound: the broker has no subscription group of that name
	// (SUBSCRIPTION_GROUP_NOT_EXIST, 26).
	ErrGroupNotFound = errors.New("subscription group not found")
	// ErrMessageNotFound: no message matched (QUERY_NOT_FOUND for message
	// queries, or a commit-log offset the broker cannot read).
	ErrMessageNotFound = errors.New("message not found")
	// ErrNoConsumerOffset: the broker holds no committed offset for the
	// group and queue (QUERY_NOT_FOUND, 22, on QUERY_CONSUMER_OFFSET).
	ErrNoConsumerOffset = errors.New("no consumer offset stored")
	// ErrNotSupported: the server does not implement the request
	// (REQUEST_CODE_NOT_SUPPORTED, 3).
	ErrNotSupported = errors.New("request not supported by server")
	// ErrFrameTooLarge: a frame's length field exceeds MaxFrameSize.
	ErrFrameTooLarge = errors.New("remoting frame too large")
	// ErrBadFrame: a frame or header that cannot be decoded.
	ErrBadFrame = errors.New("malformed remoting frame")
	// ErrClosed: the Client (or the connection) was closed.
	ErrClosed = errors.New("rocketmq client closed")
)

// BrokerError is a non-success response from a broker or NameServer.
type BrokerError struct {
	Addr   string       // the server that answered
	Code   ResponseCode // its response code
	Remark string       // its remark, often a Java exception text

	// kind is the sentinel this answer means in the context of the
	// operation (e.g. QUERY_NOT_FOUND means ErrNoConsumerOffset for
	// QUERY_CONSUMER_OFFSET); nil when only the code decides.
	kind error
}

func (e *BrokerError) Error() string {
	if e.Remark == "" {
		return fmt.Sprintf("%s answered %s (%d)", e.Addr, e.Code, int(e.Code))
	}
	return fmt.Sprintf("%s answered %s (%d): %s", e.Addr, e.Code, int(e.Code), e.Remark)
}

// Is lets errors.Is(err, ErrTopicNotFound) and friends match by code.
func (e *BrokerError) Is(target error) bool {
	if e.kind != nil && target == e.kind {
		return true
	}
	switch target {
	case ErrTopicNotFound:
		return e.Code == CodeTopicNotExist
	case ErrConsumerNotOnline:
		return e.Code == CodeConsumerNotOnline
	case ErrGroupNotFound:
		return e.Code == CodeSubscriptionGroupNotExist
	case ErrNotSupported:
		return e.Code == CodeRequestCodeNotSupported
	}
	return false
}

// TimeoutError reports a call whose deadline passed before the answer came.
// It wraps context.DeadlineExceeded, so errors.Is(err,
// context.DeadlineExceeded) holds.
type TimeoutError struct {
	Addr    string
	Code    RequestCode
	Elapsed time.Duration
}

func (e *TimeoutError) Error() string {
	return fmt.Sprintf("%s to %s: no answer within %s", e.Code, e.Addr, e.Elapsed.Round(time.Millisecond))
}

// Unwrap returns context.DeadlineExceeded.
func (e *TimeoutError) Unwrap() error { return context.DeadlineExceeded }

// Timeout reports true, like net.Error.
func (e *TimeoutError) Timeout() bool { return true }

// ConnError reports a connection to addr that could not be opened or broke
// while a call was in flight. The request may or may not have reached the
// server.
type ConnError struct {
	Addr string
	Err  error
}

func (e *ConnError) Error() string { return fmt.Sprintf("connection to %s: %v", e.Addr, e.Err) }

// Unwrap returns the underlying network error.
func (e *ConnError) Unwrap() error { return e.Err }

// ErrProducerNotOnline: no producer of the producer group is connected to
// the broker.
var ErrProducerNotOnline = errors.New("producer group not online")
