package handlers

import (
	"strings"
	"testing"
	"time"

	"rmqconsole/fault"
	"rmqconsole/i18n"
)

// TestParseTimeInputReadsEveryFormInTheFieldsZone: the one reader of typed times takes
// RFC 3339 in its own zone, epoch milliseconds, and the console's zone-less formats in
// the zone the form names, and hands the time back in that zone.
func TestParseTimeInputReadsEveryFormInTheFieldsZone(t *testing.T) {
	shanghai, err := time.LoadLocation("Asia/Shanghai")
	if err != nil {
		t.Skip("no zone data:", err)
	}
	at := time.Date(2026, 11, 29, 2, 0, 0, 0, time.UTC) // 10:00 in Shanghai
	for _, tc := range []struct {
		in   string
		loc  *time.Location
		want time.Time
	}{
		{"", time.UTC, time.Time{}},
		{"   ", shanghai, time.Time{}},
		{"2026-11-29 10:00:00", shanghai, at},
		{"2026-11-29 10:00", shanghai, at},
		{"2026-11-29T10:00", shanghai, at},
		{"2026-11-29T10:00:00.250", shanghai, at.Add(250 * time.Millisecond)},
		{" 2026-11-29 02:00:00 ", time.UTC, at},
		{"2026-11-29", shanghai, time.Date(2026, 11, 29, 0, 0, 0, 0, shanghai)},
		{"2026-11-29T03:00:00+01:00", shanghai, at}, // its own zone wins
		{"2026-11-29T02:00:00Z", shanghai, at},
		{"1795917600000", shanghai, at},
	} {
		got, err := parseTimeInput(tc.in, tc.loc)
		if err != nil || !got.Equal(tc.want) {
			t.Errorf("parseTimeInput(%q, %s) = %v, %v; want %v", tc.in, tc.loc, got, err, tc.want)
			continue
		}
		if !got.IsZero() && got.Location() != tc.loc {
			t.Errorf("parseTimeInput(%q, %s) came back in %s", tc.in, tc.loc, got.Location())
		}
	}
}

// TestParseTimeInputSaysWhatItCannotRead: epoch seconds are refused naming the
// milliseconds meant, anything else names the zone the field is read in, in the
// reader's language.
func TestParseTimeInputSaysWhatItCannotRead(t *testing.T) {
	shanghai, err := time.LoadLocation("Asia/Shanghai")
	if err != nil {
		t.Skip("no zone data:", err)
	}
	for _, tc := range []struct {
		in  string
		loc *time.Location
		en  []string
		zh  string
	}{
		{"1795917600", time.UTC, []string{`"1795917600" looks like epoch seconds`, "1795917600000"}, "秒级时间戳"},
		{"yesterday", shanghai, []string{`"yesterday" is not a time`, "10:00:00 (Asia/Shanghai)"}, "（Asia/Shanghai）"},
		{"2026-13-01 10:00", time.UTC, []string{"(UTC)"}, "不是时间"},
	} {
		_, err := parseTimeInput(tc.in, tc.loc)
		fe := fault.As(err)
		if fe == nil || fe.Code != fault.Invalid {
			t.Errorf("parseTimeInput(%q): %v, want an invalid fault", tc.in, err)
			continue
		}
		en, zh := fe.Say(i18n.Match("en")), fe.Say(i18n.Match("zh-CN"))
		for _, w := range tc.en {
			if !strings.Contains(en, w) {
				t.Errorf("parseTimeInput(%q) says %q, want %q in it", tc.in, en, w)
			}
		}
		if !strings.Contains(zh, tc.zh) {
			t.Errorf("parseTimeInput(%q) says in Chinese %q, want %q in it", tc.in, zh, tc.zh)
		}
	}
}
