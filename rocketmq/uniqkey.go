package rocketmq

import (
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"net/netip"
	"strings"
	"time"
)

// UniqueKeyInfo is what a client message id (the UNIQ_KEY property, which
// clients show as "msgId") reveals about the producer that made it.
//
// Both the Java client (MessageClientIDSetter) and rocketmq-client-go write
// the same byte layout, big-endian, hex-encoded:
//
//	IP (4 bytes, or 16 for an IPv6 Java producer) | pid (2) |
//	class-loader hash (4; always 0 from Go) | ms since month start (4) | counter (2)
//
// That is 32 hex characters for IPv4 and 56 for IPv6.
type UniqueKeyInfo struct {
	// IP is the producer's address as the client saw it. Java uses a
	// "fake IP" (low bytes of the clock) when it finds none; Go then uses
	// four ASCII digits of the clock, which look like 48.x–57.x.
	IP netip.Addr
	// PID is the producer's process id, truncated to 16 bits.
	PID int
	// ClientHash is the Java producer's class-loader hash; it tells apart
	// producers sharing a host and pid. rocketmq-client-go writes 0.
	ClientHash uint32
	// SinceMonthStart is the time field: how long after the start of the
	// producer's month the id was made.
	SinceMonthStart time.Duration
	// BornApprox is the approximate creation time; see ParseUniqueKeyAt for
	// how it is rebuilt and why it can be off.
	BornApprox time.Time
	// Counter is the producer's 16-bit sequence number.
	Counter int
	// Client guesses which client library made the id: "go" when the time
	// and counter hex is lower-case (only rocketmq-client-go writes that),
	// "java" when it is upper-case with letters, or with a non-zero
	// class-loader hash; "" when the id cannot tell.
	Client string
}

// ParseUniqueKey decodes a client message id using the current time and the
// console's local time zone to rebuild the born time. See ParseUniqueKeyAt.
func ParseUniqueKey(s string) (UniqueKeyInfo, error) {
	return ParseUniqueKeyAt(s, time.Now())
}

// ParseUniqueKeyAt decodes a client message id (UNIQ_KEY), case-insensitive.
//
// The id holds only the milliseconds since the start of the month in which
// it was made (second resolution from Go producers), so the born time is
// rebuilt as Java's MessageClientIDSetter.getNearlyTimeFromID does: the
// start of now's month plus that span, or of the previous month if that
// lands at or after now. The month start is taken in now's location, but
// the producer computed it in its own local time zone: when the two zones
// differ, BornApprox is off by the difference of their UTC offsets (and by
// a whole month near month boundaries). Treat it as a hint, and use the
// broker's born and store timestamps when the message itself is at hand.
func ParseUniqueKeyAt(s string, now time.Time) (UniqueKeyInfo, error) {
	s = strings.TrimSpace(s)
	b, err := decodeUniqueKeyBytes(s)
	if err != nil {
		return UniqueKeyInfo{}, err
	}
	ipLen := len(b) - 12
	var info UniqueKeyInfo
	if ipLen == 4 {
		info.IP = netip.AddrFrom4([4]byte(b[:4]))
	} else {
		info.IP = netip.AddrFrom16([16]byte(b[:16]))
	}
	info.PID = int(binary.BigEndian.Uint16(b[ipLen:]))
	info.ClientHash = binary.BigEndian.Uint32(b[ipLen+2:])
	// Read unsigned: a span past 24.8 days overflows the writer's int32,
	// but the bits are still the right count of milliseconds.
	span := time.Duration(binary.BigEndian.Uint32(b[ipLen+6:])) * time.Millisecond
	info.SinceMonthStart = span
	info.Counter = int(binary.BigEndian.Uint16(b[ipLen+10:]))

	monthStart := time.Date(now.Year(), now.Month(), 1, 0, 0, 0, 0, now.Location())
	if !monthStart.Add(span).Before(now) {
		monthStart = monthStart.AddDate(0, -1, 0)
	}
	info.BornApprox = monthStart.Add(span)

	tail := s[len(s)-12:]
	switch {
	case strings.ContainsAny(tail, "abcdef"):
		info.Client = "go"
	case strings.ContainsAny(tail, "ABCDEF") || info.ClientHash != 0:
		info.Client = "java"
	}
	return info, nil
}

// decodeUniqueKeyBytes checks the length and hex of a unique key.
func decodeUniqueKeyBytes(s string) ([]byte, error) {
	if len(s) != 32 && len(s) != 56 {
		return nil, fmt.Errorf("parse unique key %q: it has %d characters, but a client message id (UNIQ_KEY) is 32 hex characters (IPv4 producer) or 56 (IPv6): producer IP, pid, class-loader hash, time and counter. A broker-made offsetMsgId has the same lengths and is decoded with ParseOffsetMsgID", truncateForError(s), len(s))
	}
	b, err := hex.DecodeString(s)
	if err != nil {
		return nil, fmt.Errorf("parse unique key %q: it is not hexadecimal; a client message id holds only 0-9 and A-F", truncateForError(s))
	}
	return b, nil
}
