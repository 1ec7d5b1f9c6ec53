package rocketmq

import (
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"net/netip"
	"strings"
)

// OffsetMsgID is a decoded offsetMsgId: the id a broker gives a message when
// it stores it, made of the storing broker's address and the message's
// physical offset in that broker's commit log. It tells VIEW_MESSAGE_BY_ID
// where to go and what to read.
type OffsetMsgID struct {
	// StoreHost is the broker's brokerIP1 and listen port.
	StoreHost netip.AddrPort
	// CommitLogOffset is the message's physical offset in the commit log.
	CommitLogOffset int64
}

// Lengths of an offsetMsgId in hex characters: 4-byte IP + 4-byte port +
// 8-byte offset, or the same with a 16-byte IPv6 address.
const (
	offsetMsgIDLenV4 = 2 * (4 + 4 + 8)
	offsetMsgIDLenV6 = 2 * (16 + 4 + 8)
)

// String encodes the id as the broker does: upper-case hex of store IP,
// port (int32) and commit-log offset (int64), 32 characters for an IPv4
// store host and 56 for IPv6. An IPv4-mapped IPv6 address (::ffff:a.b.c.d)
// keeps its 16 bytes so the id round-trips through ParseOffsetMsgID; Java
// would collapse it to IPv4 and pad a 56-character id with zeros, which
// decodes to a wrong host, but a Java broker never stores such an address
// (it sees the IPv4 form). The zero OffsetMsgID encodes as "".
func (id OffsetMsgID) String() string {
	addr := id.StoreHost.Addr()
	if !addr.IsValid() {
		return ""
	}
	var buf [16 + 4 + 8]byte
	var n int
	if addr.Is4() {
		a := addr.As4()
		n = copy(buf[:], a[:])
	} else {
		a := addr.As16()
		n = copy(buf[:], a[:])
	}
	binary.BigEndian.PutUint32(buf[n:], uint32(id.StoreHost.Port()))
	binary.BigEndian.PutUint64(buf[n+4:], uint64(id.CommitLogOffset))
	return strings.ToUpper(hex.EncodeToString(buf[:n+12]))
}

// ParseOffsetMsgID decodes an offsetMsgId (case-insensitive, surrounding
// spaces ignored). It checks only the shape; a unique key (UNIQ_KEY) of the
// same length also parses, so use ClassifyID to tell the two apart.
func ParseOffsetMsgID(s string) (OffsetMsgID, error) {
	s = strings.TrimSpace(s)
	var ipLen int
	switch len(s) {
	case offsetMsgIDLenV4:
		ipLen = 4
	case offsetMsgIDLenV6:
		ipLen = 16
	default:
		return OffsetMsgID{}, fmt.Errorf("parse offsetMsgId %q: it has %d characters, but an offsetMsgId is 32 hex characters (IPv4 store host) or 56 (IPv6): store IP, port and commit-log offset. A client message id (UNIQ_KEY) has the same lengths; look it up as a unique key instead", truncateForError(s), len(s))
	}
	b, err := hex.DecodeString(s)
	if err != nil {
		return OffsetMsgID{}, fmt.Errorf("parse offsetMsgId %q: it is not hexadecimal; an offsetMsgId holds only the characters 0-9 and A-F", truncateForError(s))
	}
	var addr netip.Addr
	if ipLen == 4 {
		addr = netip.AddrFrom4([4]byte(b[:4]))
	} else {
		addr = netip.AddrFrom16([16]byte(b[:16]))
	}
	port := binary.BigEndian.Uint32(b[ipLen:])
	if port > 0xFFFF {
		return OffsetMsgID{}, fmt.Errorf("parse offsetMsgId %q: the port field is %d, beyond 65535, so this is not an offsetMsgId (perhaps it is a client message id, UNIQ_KEY)", s, port)
	}
	offset := int64(binary.BigEndian.Uint64(b[ipLen+4:]))
	if offset < 0 {
		return OffsetMsgID{}, fmt.Errorf("parse offsetMsgId %q: the commit-log offset is negative, so this is not an offsetMsgId (perhaps it is a client message id, UNIQ_KEY)", s)
	}
	return OffsetMsgID{StoreHost: netip.AddrPortFrom(addr, uint16(port)), CommitLogOffset: offset}, nil
}

// IDKind says which kind of message id a string is.
type IDKind int

// The kinds of message id a user can paste.
const (
	// IDInvalid is neither kind: empty, longer than 128 characters, or
	// holding spaces or characters other than printable ASCII.
	IDInvalid IDKind = iota
	// IDOffsetMsgID is a broker-made offsetMsgId (store host + commit-log
	// offset); read it with VIEW_MESSAGE_BY_ID.
	IDOffsetMsgID
	// IDUniqueKey is a client-made message id (the UNIQ_KEY property);
	// find it through the broker's key index with QUERY_MESSAGE.
	IDUniqueKey
)

// String names the kind as the JSON API does ("offsetMsgId", "uniqueKey").
func (k IDKind) String() string {
	switch k {
	case IDOffsetMsgID:
		return "offsetMsgId"
	case IDUniqueKey:
		return "uniqueKey"
	default:
		return "invalid"
	}
}

// maxPlausibleCommitLogOffset is 2^52 bytes (4 PiB), far beyond any real
// commit log. A unique key read as an offsetMsgId puts the class-loader
// hash and time in the offset's high bytes, so it almost always exceeds it.
const maxPlausibleCommitLogOffset = 1 << 52

// LooksLikeOffsetMsgID reports whether s is shaped like an offsetMsgId
// rather than a unique key. Both kinds are 32 (IPv4) or 56 (IPv6) hex
// characters, so this is a heuristic: in an offsetMsgId the port field's
// high 16 bits are zero and the port is not, and the commit-log offset is
// small; in a unique key the same bytes hold the pid and class-loader hash
// (Java) or the pid (Go), which almost never fit. Callers that get "not
// found" from the broker should still try the other kind.
func LooksLikeOffsetMsgID(s string) bool {
	id, err := ParseOffsetMsgID(s)
	if err != nil {
		return false
	}
	return id.StoreHost.Port() != 0 && id.CommitLogOffset < maxPlausibleCommitLogOffset
}

// maxIDLen bounds what ClassifyID accepts as an id at all.
const maxIDLen = 128

// ClassifyID says which kind of id s (surrounding spaces ignored) most
// likely is: IDOffsetMsgID when it passes LooksLikeOffsetMsgID; otherwise
// IDUniqueKey for any token of printable ASCII without spaces (at most 128
// characters), since the key index is the only way to find other ids
// (client-made ids of every layout, or a UNIQ_KEY a producer set itself);
// IDInvalid for anything else, e.g. an empty string.
func ClassifyID(s string) IDKind {
	s = strings.TrimSpace(s)
	if LooksLikeOffsetMsgID(s) {
		return IDOffsetMsgID
	}
	if s == "" || len(s) > maxIDLen {
		return IDInvalid
	}
	for i := 0; i < len(s); i++ {
		if s[i] <= ' ' || s[i] >= 0x7F {
			return IDInvalid
		}
	}
	return IDUniqueKey
}
