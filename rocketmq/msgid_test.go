package rocketmq

import (
	"net/netip"
	"strings"
	"testing"
)

func TestParseOffsetMsgID(t *testing.T) {
	tests := []struct {
		in, host string
		offset   int64
		canon    string // String() of the result; "" means strings.ToUpper(trimmed in)
	}{
		// The reference's worked example (§6.5).
		{in: "0A00000100002A9F00000000000F4240", host: "10.0.0.1:10911", offset: 1000000},
		{in: "  0a00000100002a9f00000000000f4240\n", host: "10.0.0.1:10911", offset: 1000000, canon: "0A00000100002A9F00000000000F4240"},
		{in: "C0A8FFFE0000FFFF0000000000000000", host: "192.168.255.254:65535", offset: 0},
		{in: "20010DB800000000000000000000000100002A9F00007048860DDF79", host: "[2001:db8::1]:10911", offset: 123456789012345},
		{in: "00000000000000000000FFFF0A01020300002A9F00000000075BCD15", host: "[::ffff:10.1.2.3]:10911", offset: 123456789},
	}
	for _, tc := range tests {
		id, err := ParseOffsetMsgID(tc.in)
		if err != nil {
			t.Errorf("ParseOffsetMsgID(%q): %v", tc.in, err)
			continue
		}
		if id.StoreHost != netip.MustParseAddrPort(tc.host) || id.CommitLogOffset != tc.offset {
			t.Errorf("ParseOffsetMsgID(%q) = %v @ %d, want %s @ %d", tc.in, id.StoreHost, id.CommitLogOffset, tc.host, tc.offset)
		}
		canon := tc.canon
		if canon == "" {
			canon = strings.ToUpper(strings.TrimSpace(tc.in))
		}
		if id.String() != canon {
			t.Errorf("String() = %s, want %s", id.String(), canon)
		}
	}
}

func TestParseOffsetMsgIDErrors(t *testing.T) {
	for _, tc := range []struct{ in, mention string }{
		{"", "32 hex characters (IPv4 store host) or 56 (IPv6)"},
		{"0A00000100002A9F00000000000F424", "has 31 characters"},
		{"0A00000100002A9F00000000000F4240AB", "UNIQ_KEY"},
		{"0A00000100002A9F00000000000F424G", "not hexadecimal"},
		// A Go client's unique key: pid 0x1F40 lands in the port's high bits.
		{"7F0000011F40000000000007a1200005", "beyond 65535"},
		{"0A00000100002A9F8000000000000000", "negative"},
	} {
		_, err := ParseOffsetMsgID(tc.in)
		if err == nil || !strings.Contains(err.Error(), tc.mention) {
			t.Errorf("ParseOffsetMsgID(%q) error %v, want one mentioning %q", tc.in, err, tc.mention)
		}
	}
}

func TestOffsetMsgIDString(t *testing.T) {
	if s := (OffsetMsgID{}).String(); s != "" {
		t.Errorf("zero id = %q", s)
	}
	id := OffsetMsgID{StoreHost: netip.MustParseAddrPort("[fe80::1:2:3:4]:30911"), CommitLogOffset: 7}
	if s := id.String(); s != "FE800000000000000001000200030004000078BF0000000000000007" {
		t.Errorf("IPv6 id = %s", s)
	}
}

// TestOffsetMsgIDMatchesJava checks ids made by Java's
// MessageDecoder.createMessageId decode to the same host and offset, and
// that we encode them identically.
func TestOffsetMsgIDMatchesJava(t *testing.T) {
	var fx javaIDs
	readJSON(t, "testdata/java/ids.json", &fx)
	if len(fx.OffsetMsgIDs) == 0 {
		t.Fatal("no Java offsetMsgIds")
	}
	for _, e := range fx.OffsetMsgIDs {
		id, err := ParseOffsetMsgID(e.ID)
		if err != nil {
			t.Errorf("%s: %v", e.ID, err)
			continue
		}
		if javaHost(id.StoreHost) != e.Host || id.CommitLogOffset != e.Offset {
			t.Errorf("%s: %s @ %d, Java %s @ %d", e.ID, javaHost(id.StoreHost), id.CommitLogOffset, e.Host, e.Offset)
		}
		if id.String() != e.ID {
			t.Errorf("String() = %s, Java made %s", id.String(), e.ID)
		}
	}
}

type javaIDs struct {
	OffsetMsgIDs []struct {
		ID     string `json:"id"`
		Host   string `json:"host"`
		Offset int64  `json:"offset"`
	} `json:"offsetMsgIds"`
	UniqueKeys []struct {
		ID         string `json:"id"`
		IP         string `json:"ip"`
		PID        int    `json:"pid"`
		NearlyTime int64  `json:"nearlyTime"`
	} `json:"uniqueKeys"`
	DecodedAtMillis int64  `json:"decodedAtMillis"`
	Timezone        string `json:"timezone"`
}

func TestClassifyID(t *testing.T) {
	var fx javaIDs
	readJSON(t, "testdata/java/ids.json", &fx)
	tests := map[string]IDKind{
		"0A00000100002A9F00000000000F4240":                         IDOffsetMsgID,
		" 0a00000100002a9f00000000000f4240 ":                       IDOffsetMsgID,
		"20010DB800000000000000000000000100002A9F00007048860DDF79": IDOffsetMsgID,
		"0A0000050C38ABCDEF0100000001002A":                         IDUniqueKey, // Java, IPv4
		"7F0000011F40000000000007a1200005":                         IDUniqueKey, // Go client
		"0156F7E71C361B21BC024CCDBE00000000":                       IDUniqueKey, // RocketMQ 5 gRPC client
		"order-20240601-17":                                        IDUniqueKey, // a UNIQ_KEY set by hand
		"":                                                         IDInvalid,
		"   ":                                                      IDInvalid,
		"two words":                                                IDInvalid,
		strings.Repeat("A", 129):                                   IDInvalid,
		"caf\u00e9":                                                IDInvalid,
	}
	for _, e := range fx.OffsetMsgIDs {
		// The heuristic rightly doubts offsets no commit log reaches
		// (the fixture includes Long.MAX_VALUE).
		if e.Offset < maxPlausibleCommitLogOffset {
			tests[e.ID] = IDOffsetMsgID
		}
	}
	for _, e := range fx.UniqueKeys {
		tests[e.ID] = IDUniqueKey
	}
	for in, want := range tests {
		if got := ClassifyID(in); got != want {
			t.Errorf("ClassifyID(%q) = %v, want %v", in, got, want)
		}
	}
	if IDOffsetMsgID.String() != "offsetMsgId" || IDUniqueKey.String() != "uniqueKey" || IDInvalid.String() != "invalid" {
		t.Error("IDKind names must match the JSON API's idKind values")
	}
}
