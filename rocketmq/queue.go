package rocketmq

import (
	"cmp"
	"fmt"
	"slices"
	"unicode/utf8"
)

// MessageQueue names one queue of a topic on one broker group. It is the
// unit that consumers own, offsets are kept for, and lag is reported on.
// The JSON tags match the broker's field names, so a MessageQueue decodes
// straight from ConsumeStats / ConsumerRunningInfo keys (see
// ParseMessageQueueKey). It is comparable and can be a map key.
type MessageQueue struct {
	Topic      string `json:"topic"`
	BrokerName string `json:"brokerName"`
	QueueID    int    `json:"queueId"`
}

// String renders the queue exactly as Java's MessageQueue.toString does,
// because the CONSISTENT_HASH strategy hashes this text and operators know
// it from broker and client logs.
func (q MessageQueue) String() string {
	return fmt.Sprintf("MessageQueue [topic=%s, brokerName=%s, queueId=%d]", q.Topic, q.BrokerName, q.QueueID)
}

// Compare orders queues as Java's MessageQueue.compareTo does: topic, then
// broker name (both in Java's UTF-16 string order), then queue id. It
// returns a negative number, zero or a positive number. Allocation results
// depend on this order, so it must match the clients exactly.
func (q MessageQueue) Compare(o MessageQueue) int {
	if c := compareJavaStrings(q.Topic, o.Topic); c != 0 {
		return c
	}
	if c := compareJavaStrings(q.BrokerName, o.BrokerName); c != 0 {
		return c
	}
	// Java subtracts the ids; cmp.Compare gives the same sign without the
	// overflow Java would have for extreme values no broker produces.
	return cmp.Compare(q.QueueID, o.QueueID)
}

// Less reports whether q sorts before o in Java's MessageQueue order.
func (q MessageQueue) Less(o MessageQueue) bool { return q.Compare(o) < 0 }

// SortMessageQueues sorts queues in place in Java's MessageQueue.compareTo
// order (topic, brokerName, queueId), the order clients sort mqAll in before
// allocating. The sort is stable, like Java's Collections.sort.
func SortMessageQueues(queues []MessageQueue) {
	slices.SortStableFunc(queues, MessageQueue.Compare)
}

// compareJavaStrings compares two UTF-8 strings the way java.lang.String
// compareTo compares their UTF-16 forms. Go's byte order equals code point
// order, which differs from UTF-16 order only when a character above U+FFFF
// (a surrogate pair, units D800–DBFF) meets one in U+E000–U+FFFF; topic and
// group names are ASCII in practice, but the result must not depend on that.
func compareJavaStrings(a, b string) int {
	for a != "" && b != "" {
		ra, na := utf8.DecodeRuneInString(a)
		rb, nb := utf8.DecodeRuneInString(b)
		if ra != rb {
			return cmp.Compare(firstUTF16Unit(ra, rb), firstUTF16Unit(rb, ra))
		}
		a, b = a[na:], b[nb:]
	}
	return cmp.Compare(len(a), len(b))
}

// firstUTF16Unit returns the value to compare r by against other: its
// first UTF-16 code unit, unless both runes are supplementary, in which case
// code point order already equals UTF-16 order.
func firstUTF16Unit(r, other rune) rune {
	if r < 0x10000 || other >= 0x10000 {
		return r
	}
	return 0xD800 + (r-0x10000)>>10
}
