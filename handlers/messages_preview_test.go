package handlers

import (
	"strings"
	"testing"
	"unicode/utf8"

	"rmqconsole/i18n"
)

// A result row's body preview reads as the body does: JSON on one line with its fields
// rather than its indentation, text cut at 120 characters, binary said to be binary.
func TestMessagePreviewReadsLikeTheBody(t *testing.T) {
	l := i18n.Match("en")
	long := strings.Repeat("ab", 100)
	cases := []struct {
		name, body, want string
	}{
		{"indented JSON is compacted", "{\n  \"order\": 4711,\n  \"paid\": true\n}\n", `{"order":4711,"paid":true}`},
		{"a JSON array too", "[ 1, 2,\n 3 ]", `[1,2,3]`},
		{"text cut at 120", long, long[:120] + "…"},
		{"broken JSON stays text", "{\"order\": 47", `{"order": 47`},
		{"binary", "\xff\xfe\x00\x01", "(binary, 4 bytes)"},
		{"empty", "", "(empty)"},
	}
	for _, c := range cases {
		if got := msgPreview(l, []byte(c.body)); got != c.want {
			t.Errorf("%s: preview %q, want %q", c.name, got, c.want)
		}
	}
	big := "{" + strings.Repeat(`"k": "v",   `, 40) + `"end": 1}`
	if got := msgPreview(l, []byte(big)); utf8.RuneCountInString(got) != 121 || !strings.HasPrefix(got, `{"k":"v","k":"v"`) {
		t.Errorf("a long JSON body: %q", got)
	}
}
