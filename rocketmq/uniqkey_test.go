package rocketmq

import (
	"encoding/hex"
	"net/netip"
	"strings"
	"testing"
	"time"
)

func TestParseUniqueKeyAt(t *testing.T) {
	utc := func(s string) time.Time {
		tm, err := time.Parse(time.RFC3339Nano, s)
		if err != nil {
			t.Fatal(err)
		}
		return tm.UTC()
	}
	tests := []struct {
		name, id string
		now      time.Time
		want     UniqueKeyInfo
	}{
		{
			// 0A000005 | 0C38 | ABCDEF01 | 00000001 | 002A
			name: "Java IPv4", id: "0A0000050C38ABCDEF0100000001002A", now: utc("2024-03-15T12:00:00Z"),
			want: UniqueKeyInfo{Client: "java", IP: netip.MustParseAddr("10.0.0.5"), PID: 3128, ClientHash: 0xABCDEF01,
				SinceMonthStart: time.Millisecond, BornApprox: utc("2024-03-01T00:00:00.001Z"), Counter: 42},
		},
		{
			name: "span equal to now goes to the previous month", id: "0A0000050C38ABCDEF0100000001002A", now: utc("2024-03-01T00:00:00.001Z"),
			want: UniqueKeyInfo{Client: "java", IP: netip.MustParseAddr("10.0.0.5"), PID: 3128, ClientHash: 0xABCDEF01,
				SinceMonthStart: time.Millisecond, BornApprox: utc("2024-02-01T00:00:00.001Z"), Counter: 42},
		},
		{
			// 2001:db8::5 | 0C38 | 12345678 | A0000000 (2684354560 ms, past int32) | FFFF
			name: "Java IPv6, span beyond 2^31 ms", id: "20010db80000000000000000000000050c3812345678a0000000ffff", now: utc("2024-04-10T00:00:00Z"),
			want: UniqueKeyInfo{Client: "go", IP: netip.MustParseAddr("2001:db8::5"), PID: 3128, ClientHash: 0x12345678,
				SinceMonthStart: 2684354560 * time.Millisecond, BornApprox: utc("2024-04-01T01:39:14.56Z"), Counter: 65535},
		},
		{
			// Go client: hash 0, time and counter in lower-case hex, 500 s.
			name: "Go client", id: "7F0000011F40000000000007a1200005", now: utc("2024-06-20T08:00:00Z"),
			want: UniqueKeyInfo{Client: "go", IP: netip.MustParseAddr("127.0.0.1"), PID: 8000,
				SinceMonthStart: 500 * time.Second, BornApprox: utc("2024-06-01T00:08:20Z"), Counter: 5},
		},
		{
			// No letters in the time and counter hex and no class-loader hash.
			name: "no hint which client", id: "C0A80001FFFF00000000000000000001", now: utc("2024-06-20T08:00:00Z"),
			want: UniqueKeyInfo{IP: netip.MustParseAddr("192.168.0.1"), PID: 65535, BornApprox: utc("2024-06-01T00:00:00Z"), Counter: 1},
		},
		{
			// 01 | 56F7E71C361B | 21BC | 024CCDBE (38587838 s) | 00000000: the
			// example in the RocketMQ 5 clients' MessageIdCodec.
			name: "RocketMQ 5 gRPC client", id: "0156F7E71C361B21BC024CCDBE00000000", now: utc("2024-06-20T08:00:00Z"),
			want: UniqueKeyInfo{Client: "grpc", MAC: mustMAC("56f7e71c361b"), PID: 8636, BornApprox: utc("2022-03-23T14:50:38Z")},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ParseUniqueKeyAt(tc.id, tc.now)
			if err != nil {
				t.Fatal(err)
			}
			if !got.BornApprox.Equal(tc.want.BornApprox) {
				t.Errorf("BornApprox = %v, want %v", got.BornApprox, tc.want.BornApprox)
			}
			got.BornApprox, tc.want.BornApprox = time.Time{}, time.Time{}
			if got.IP != tc.want.IP || got.PID != tc.want.PID || got.ClientHash != tc.want.ClientHash ||
				got.SinceMonthStart != tc.want.SinceMonthStart || got.Counter != tc.want.Counter ||
				got.Client != tc.want.Client || got.MAC.String() != tc.want.MAC.String() {
				t.Errorf("got  %+v\nwant %+v", got, tc.want)
			}
		})
	}
}

func mustMAC(h string) []byte {
	b, err := hex.DecodeString(h)
	if err != nil {
		panic(err)
	}
	return b
}

// TestParseUniqueKeyTimeZoneCaveat shows why BornApprox is a hint: a
// producer at UTC+8 made this id at 05:00 local on 1 March (21:00 UTC on
// 29 February); its time field counts from its own month start.
func TestParseUniqueKeyTimeZoneCaveat(t *testing.T) {
	const id = "C0A80001000100000000" + "0112A880" + "0001" // span 5 h
	made := time.Date(2024, 2, 29, 21, 0, 0, 0, time.UTC)
	now := made.Add(time.Hour)

	shanghai := time.FixedZone("UTC+8", 8*3600)
	same, err := ParseUniqueKeyAt(id, now.In(shanghai))
	if err != nil {
		t.Fatal(err)
	}
	if !same.BornApprox.Equal(made) {
		t.Errorf("in the producer's zone: %v, want %v", same.BornApprox, made)
	}
	other, err := ParseUniqueKeyAt(id, now.In(time.UTC))
	if err != nil {
		t.Fatal(err)
	}
	if want := time.Date(2024, 2, 1, 5, 0, 0, 0, time.UTC); !other.BornApprox.Equal(want) {
		t.Errorf("in UTC: %v, want the documented month-early %v", other.BornApprox, want)
	}
}

// TestParseUniqueKeyMatchesJava compares with MessageClientIDSetter's own
// decoding of real ids made by the Java client (testdata/javagen).
func TestParseUniqueKeyMatchesJava(t *testing.T) {
	var fx javaIDs
	readJSON(t, "testdata/java/ids.json", &fx)
	if fx.Timezone != "UTC" || len(fx.UniqueKeys) < 4 {
		t.Fatalf("fixture: timezone %q, %d keys", fx.Timezone, len(fx.UniqueKeys))
	}
	now := time.UnixMilli(fx.DecodedAtMillis).UTC()
	for _, e := range fx.UniqueKeys {
		info, err := ParseUniqueKeyAt(e.ID, now)
		if err != nil {
			t.Errorf("%s: %v", e.ID, err)
			continue
		}
		if ip := strings.ToUpper(hex.EncodeToString(info.IP.AsSlice())); ip != e.IP {
			t.Errorf("%s: IP %s, Java %s", e.ID, ip, e.IP)
		}
		if info.PID != e.PID || info.BornApprox.UnixMilli() != e.NearlyTime {
			t.Errorf("%s: pid %d born %d, Java pid %d born %d", e.ID, info.PID, info.BornApprox.UnixMilli(), e.PID, e.NearlyTime)
		}
	}
}

func TestParseUniqueKeyErrors(t *testing.T) {
	for _, tc := range []struct{ in, mention string }{
		{"", "32 hex characters"},
		{"0A0000050C38ABCDEF0100000001002", "has 31 characters"},
		{"0A0000050C38ABCDEF0100000001002Z", "not hexadecimal"},
		{"0256F7E71C361B21BC024CCDBE00000000", "version 01"},
		{"0156F7E71C361B21BC024CCDBE0000000Z", "not hexadecimal"},
	} {
		_, err := ParseUniqueKey(tc.in)
		if err == nil || !strings.Contains(err.Error(), tc.mention) {
			t.Errorf("ParseUniqueKey(%q) error %v, want one mentioning %q", tc.in, err, tc.mention)
		}
	}
	if _, err := ParseUniqueKey("0A0000050C38ABCDEF0100000001002A"); err != nil {
		t.Errorf("ParseUniqueKey with the current time: %v", err)
	}
}

// rocketmq-client-go writes four ASCII digits of the clock where it finds no address:
// such an IP is marked a stand-in; a Go client's real address, and a Java id, are not.
func TestGoClientsStandInIPIsMarked(t *testing.T) {
	for id, want := range map[string]bool{
		"3136373339FA00000000050458f80001": true,  // "1673": digits, from Go
		"0A00000139FA00000000050458f80001": false, // 10.0.0.1 from Go
		"3136373339FA0000ABCD050458F80001": false, // the same bytes from Java
	} {
		info, err := ParseUniqueKey(id)
		if err != nil || info.IPStandIn != want {
			t.Errorf("%s: stand-in %v, want %v (%v)", id, info.IPStandIn, want, err)
		}
	}
}
