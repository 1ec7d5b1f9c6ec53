package lookup

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// TraceKind is what a trace record reports (RocketMQ's TraceType).
type TraceKind string

// The kinds of trace record RocketMQ's clients write.
const (
	// TracePub: a producer sent the message (one record per send).
	TracePub TraceKind = "Pub"
	// TraceSubBefore: a consumer handed the message to its listener (one record per
	// delivery, so a message consumed again has several).
	TraceSubBefore TraceKind = "SubBefore"
	// TraceSubAfter: the listener returned, with how long it took and whether it
	// succeeded; RequestID pairs it with its SubBefore.
	TraceSubAfter TraceKind = "SubAfter"
	// TraceEndTransaction: a transactional producer committed or rolled back.
	TraceEndTransaction TraceKind = "EndTransaction"
)

// The separators of the trace encoding: fields of a record, and records of a trace
// message's body (TraceConstants.CONTENT_SPLITOR and FIELD_SPLITOR).
const (
	traceFieldSep  = '\x01'
	traceRecordSep = '\x02'
)

// TraceRecord is one record of a message trace as RocketMQ's clients write it into
// the trace topic (RIP-6). Fields a kind does not carry are zero.
type TraceRecord struct {
	Kind TraceKind
	// Time is when the record was made by the client's clock (Pub: after the send
	// returned; SubBefore: when the listener was called). Zero when the record has
	// none (SubAfter of clients before 4.9).
	Time     time.Time
	RegionID string
	// Group is the producer or consumer group; "" on the SubAfter records of Java
	// clients, which name it only in their SubBefore.
	Group string
	// RequestID is the consume attempt a SubBefore and its SubAfter share.
	RequestID string
	// MsgID is the traced message's unique key (what clients call msgId).
	MsgID       string
	Topic       string
	Tags        string
	Keys        string
	StoreHost   string
	OffsetMsgID string
	// ClientHost is the client's address when the record names it (Go clients and
	// Java clients from 5.x); otherwise the trace message's born host tells it.
	ClientHost string
	BodyLength int
	// CostMs is how long the send (Pub) or the listener (SubAfter) took.
	CostMs  int64
	Success bool
	// MsgType is the producer's kind of message (Pub, EndTransaction).
	MsgType string
	// RetryTimes is the message's reconsume count at this delivery (SubBefore).
	RetryTimes int
	// Returned says how the listener returned (SubAfter; "" when not recorded).
	Returned string
	// TransactionID, TransactionState and FromCheck describe an EndTransaction.
	TransactionID    string
	TransactionState string
	FromCheck        bool
}

// traceMsgTypes are RocketMQ's MessageType values by ordinal.
var traceMsgTypes = []string{"normal", "transaction half", "transaction commit", "delay", "order"}

// traceReturns are ConsumeReturnType values by ordinal.
var traceReturns = []string{"success", "timeout", "exception", "returned null", "failed"}

// ParseTrace decodes the body of one trace message: its records, and an error for each
// record it could not read (which is skipped). Records of kinds it does not know are
// skipped without error, so traces from newer clients still show what is known.
func ParseTrace(body []byte) ([]TraceRecord, []error) {
	var recs []TraceRecord
	var errs []error
	for i, raw := range strings.Split(string(body), string(traceRecordSep)) {
		raw = strings.TrimLeft(raw, "\r\n")
		if raw == "" {
			continue
		}
		f := strings.Split(raw, string(traceFieldSep))
		r, known, err := parseTraceRecord(f)
		switch {
		case err != nil:
			errs = append(errs, fmt.Errorf("trace record %d (%.20q): %w", i+1, f[0], err))
		case known:
			recs = append(recs, r)
		}
	}
	return recs, errs
}

// traceFields reads the fields of one record, remembering the first that is malformed.
type traceFields struct {
	f   []string
	err error
}

func (t *traceFields) str(i int) string {
	if i >= len(t.f) {
		return ""
	}
	// Clients write a missing key, tag or host as "null".
	if t.f[i] == "null" {
		return ""
	}
	return t.f[i]
}

func (t *traceFields) int(i int, what string) int64 {
	s := t.str(i)
	if s == "" {
		return 0
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil && t.err == nil {
		t.err = fmt.Errorf("%s (field %d) is %q, not a number", what, i+1, s)
	}
	return n
}

func (t *traceFields) time(i int) time.Time {
	ms := t.int(i, "the time")
	if ms <= 0 {
		return time.Time{}
	}
	return time.UnixMilli(ms).UTC()
}

func (t *traceFields) bool(i int) bool { return t.str(i) == "true" }

func (t *traceFields) ordinal(i int, names []string, what string) string {
	if t.str(i) == "" {
		return ""
	}
	n := t.int(i, what)
	if n < 0 || n >= int64(len(names)) {
		return "unknown (" + t.str(i) + ")"
	}
	return names[n]
}

// traceMinFields is how many fields each kind has at least (the oldest clients').
var traceMinFields = map[TraceKind]int{TracePub: 13, TraceSubBefore: 8, TraceSubAfter: 6, TraceEndTransaction: 13}

func parseTraceRecord(f []string) (TraceRecord, bool, error) {
	kind := TraceKind(f[0])
	need, known := traceMinFields[kind]
	if !known {
		return TraceRecord{}, false, nil
	}
	if len(f) < need {
		return TraceRecord{}, true, fmt.Errorf("%d fields, a %s record has at least %d", len(f), kind, need)
	}
	t := &traceFields{f: f}
	r := TraceRecord{Kind: kind}
	switch kind {
	case TracePub:
		// type time region group topic msgId tags keys storeHost bodyLength cost msgType
		// [offsetMsgId] success [clientHost]: the offsetMsgId came in 4.4, the client host in 5.x.
		r.Time, r.RegionID, r.Group = t.time(1), t.str(2), t.str(3)
		r.Topic, r.MsgID, r.Tags, r.Keys, r.StoreHost = t.str(4), t.str(5), t.str(6), t.str(7), t.str(8)
		r.BodyLength = int(t.int(9, "the body length"))
		r.CostMs = t.int(10, "the cost")
		r.MsgType = t.ordinal(11, traceMsgTypes, "the message type")
		if len(f) == 13 {
			r.Success = t.bool(12)
		} else {
			r.OffsetMsgID, r.Success, r.ClientHost = t.str(12), t.bool(13), t.str(14)
		}
	case TraceSubBefore:
		// type time region group requestId msgId retryTimes keys [clientHost]
		r.Time, r.RegionID, r.Group, r.RequestID = t.time(1), t.str(2), t.str(3), t.str(4)
		r.MsgID = t.str(5)
		r.RetryTimes = int(t.int(6, "the retry count"))
		r.Keys, r.ClientHost = t.str(7), t.str(8)
	case TraceSubAfter:
		// type requestId msgId cost success keys [returnCode [time [group]]]
		r.RequestID, r.MsgID = t.str(1), t.str(2)
		r.CostMs = t.int(3, "the cost")
		r.Success, r.Keys = t.bool(4), t.str(5)
		r.Returned = t.ordinal(6, traceReturns, "the return code")
		r.Time, r.Group = t.time(7), t.str(8)
	case TraceEndTransaction:
		// type time region group topic msgId tags keys storeHost msgType transactionId state fromCheck
		r.Time, r.RegionID, r.Group = t.time(1), t.str(2), t.str(3)
		r.Topic, r.MsgID, r.Tags, r.Keys, r.StoreHost = t.str(4), t.str(5), t.str(6), t.str(7), t.str(8)
		r.MsgType = t.ordinal(9, traceMsgTypes, "the message type")
		r.TransactionID, r.TransactionState, r.FromCheck = t.str(10), t.str(11), t.bool(12)
	}
	if r.MsgID == "" && t.err == nil {
		t.err = fmt.Errorf("no message id")
	}
	return r, true, t.err
}
