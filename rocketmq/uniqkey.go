package rocketmq

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"net"
	"net/netip"
	"strings"
	"time"
)

// UniqueKeyInfo is what a client message id (the UNIQ_KEY property, which
// clients show as "msgId") reveals about the producer that made it.
//
// Remoting clients (the Java client's MessageClientIDSetter and
// rocketmq-client-go) write one byte layout, big-endian, hex-encoded:
//
//	IP (4 bytes, or 16 for an IPv6 Java producer) | pid (2) |
//	class-loader hash (4; always 0 from Go) | ms since month start (4) | counter (2)
//
// That is 32 hex characters for IPv4 and 56 for IPv6. RocketMQ 5 gRPC
// clients (every language) write 34 characters instead:
//
//	"01" | MAC address (6 bytes) | pid (2) | seconds since 2021-01-01 (4) | sequence (4)
type UniqueKeyInfo struct {
	// Client tells which family of client made the id: "java" or "go"
	// for the remoting layout (see below), "grpc" for a RocketMQ 5 gRPC
	// client. It is "" for a remoting id that gives no hint: the Go
	// client alone writes the time and counter in lower-case hex, and the
	// Java client alone writes a non-zero class-loader hash.
	Client string
	// IP is the producer's address as the client saw it (remoting ids
	// only). Java uses a "fake IP" (low bytes of the clock) when it finds
	// none; Go then uses four ASCII digits of the clock, which look like
	// 48.x–57.x.
	IP netip.Addr
	// IPStandIn: IP is a Go client's four ASCII digits of the clock, not an address.
	IPStandIn bool
	// MAC is the low six bytes of the producer's MAC address (gRPC ids only).
	MAC net.HardwareAddr
	// PID is the producer's process id, truncated to 16 bits.
	PID int
	// ClientHash is the Java producer's class-loader hash; it tells apart
	// producers sharing a host and pid. rocketmq-client-go writes 0.
	ClientHash uint32
	// SinceMonthStart is the remoting time field: how long after the start
	// of the producer's month the id was made (whole seconds from Go).
	SinceMonthStart time.Duration
	// BornApprox is the approximate creation time; see ParseUniqueKeyAt for
	// how it is rebuilt and why it can be off.
	BornApprox time.Time
	// Counter is the producer's sequence number: 16 bits in remoting ids,
	// 32 bits in gRPC ids.
	Counter int
}

// ParseUniqueKey decodes a client message id using the current time and the
// console's local time zone to rebuild the born time. See ParseUniqueKeyAt.
func ParseUniqueKey(s string) (UniqueKeyInfo, error) {
	return ParseUniqueKeyAt(s, time.Now())
}

// ParseUniqueKeyAt decodes a client message id (UNIQ_KEY), case-insensitive.
//
// The born time is approximate, and assumes the producer's time zone is
// now's location:
//
//   - A remoting id holds only the milliseconds since the start of the month
//     in which it was made, so the time is rebuilt as Java's
//     MessageClientIDSetter.getNearlyTimeFromID does: the start of now's
//     month plus that span, or of the previous month if that lands at or
//     after now (and further back if the span is longer than that month,
//     where Java would answer a time in the future). The producer computed the month start in its own local
//     zone: when that differs from now's location, BornApprox is off by the
//     difference of the UTC offsets, and near a month boundary by a whole
//     month. Ids older than about a month come out a month (or more) late.
//   - A gRPC id holds seconds since 2021-01-01 00:00 in the producer's local
//     zone, so only the UTC offset difference can be wrong.
//
// Treat BornApprox as a hint; when the message itself is at hand, its
// broker-recorded born and store timestamps are exact.
func ParseUniqueKeyAt(s string, now time.Time) (UniqueKeyInfo, error) {
	s = strings.TrimSpace(s)
	if len(s) == grpcIDLen {
		return parseGRPCID(s, now)
	}
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

	// Java steps back one month when start+span is not before now; a span
	// longer than the previous month (up to 2^32 ms, 49.7 days) would then
	// still be in the future, so keep stepping (at most twice more).
	monthStart := time.Date(now.Year(), now.Month(), 1, 0, 0, 0, 0, now.Location())
	for i := 0; i < 3 && !monthStart.Add(span).Before(now); i++ {
		monthStart = monthStart.AddDate(0, -1, 0)
	}
	info.BornApprox = monthStart.Add(span)

	tail := s[len(s)-12:]
	switch {
	case strings.ContainsAny(tail, "abcdef"):
		info.Client = "go"
		info.IPStandIn = asciiDigits(info.IP)
	case strings.ContainsAny(tail, "ABCDEF") || info.ClientHash != 0:
		info.Client = "java"
	}
	return info, nil
}

// grpcIDLen is the length of a RocketMQ 5 gRPC client message id (v1).
const grpcIDLen = 34

// parseGRPCID decodes "01" + MAC(6) + pid(2) + seconds since 2021(4) + seq(4).
func parseGRPCID(s string, now time.Time) (UniqueKeyInfo, error) {
	b, err := hex.DecodeString(s)
	if err != nil {
		return UniqueKeyInfo{}, fmt.Errorf("parse unique key %q: it is not hexadecimal; a RocketMQ 5 client message id is 34 hex characters starting with 01", s)
	}
	if b[0] != 1 {
		return UniqueKeyInfo{}, fmt.Errorf("parse unique key %q: a 34-character id is a RocketMQ 5 client message id, which starts with version 01, not %02X", s, b[0])
	}
	epoch := time.Date(2021, time.January, 1, 0, 0, 0, 0, now.Location())
	return UniqueKeyInfo{
		Client:     "grpc",
		MAC:        net.HardwareAddr(bytes.Clone(b[1:7])),
		PID:        int(binary.BigEndian.Uint16(b[7:])),
		BornApprox: epoch.Add(time.Duration(binary.BigEndian.Uint32(b[9:])) * time.Second),
		Counter:    int(binary.BigEndian.Uint32(b[13:])),
	}, nil
}

// decodeUniqueKeyBytes checks the length and hex of a remoting unique key.
func decodeUniqueKeyBytes(s string) ([]byte, error) {
	if len(s) != 32 && len(s) != 56 {
		return nil, fmt.Errorf("parse unique key %q: it has %d characters, but a client message id (UNIQ_KEY) is 32 hex characters (IPv4 producer) or 56 (IPv6): producer IP, pid, class-loader hash, time and counter; or 34 from a RocketMQ 5 gRPC client. A broker-made offsetMsgId is also 32 or 56 characters and is decoded with ParseOffsetMsgID", truncateForError(s), len(s))
	}
	b, err := hex.DecodeString(s)
	if err != nil {
		return nil, fmt.Errorf("parse unique key %q: it is not hexadecimal; a client message id holds only 0-9 and A-F", truncateForError(s))
	}
	return b, nil
}

// asciiDigits reports whether every byte of an IPv4 address is an ASCII digit (48–57).
func asciiDigits(ip netip.Addr) bool {
	if !ip.Is4() {
		return false
	}
	for _, b := range ip.As4() {
		if b < '0' || b > '9' {
			return false
		}
	}
	return true
}
