package freetext

import (
	"errors"
	"strings"
	"testing"
	"unicode/utf8"

	"rmqconsole/i18n"
)

var testField = Field{Name: "reason", Label: i18n.M("freetext.field.reset_reason"), Max: 20}

// What the probes found kept (NUL, ESC, CR/LF, U+202E, bytes that are not UTF-8, text
// without end) is refused, naming the field, the character and where it is, with the
// value quoted escaped; ordinary text in any script passes.
func TestCheckRefusesWhatHidesOrBreaksText(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want string // in the sentence; "" when the text passes
	}{
		{"rollback after bad deploy", "too_long"},
		{"回滚：发布出错", ""},
		{"retry (été) — ok", ""},
		{"a\x00b", `U+0000, a control or line-break character, at character 2 ("a\x00b")`},
		{"a\x1b[31mred", `U+001B`},
		{"one\r\ntwo", `U+000D`},
		{"tab\there", `U+0009`},
		{"line\u2028sep", `U+2028`},
		{"\u202egnp.exe", `U+202E, which changes the direction of the text after it, at character 1 ("\u202egnp.exe")`},
		{"iso\u2066late", `U+2066`},
		{"a\xff\xfeb", `byte 0xFF at position 2 is not part of any character ("a\xff\xfeb")`},
	} {
		err := testField.Check(tc.in)
		if tc.want == "" {
			if err != nil {
				t.Errorf("Check(%q) = %v, want it to pass", tc.in, err)
			}
			continue
		}
		if !errors.Is(err, ErrInvalid) {
			t.Errorf("Check(%q) = %v, want ErrInvalid", tc.in, err)
			continue
		}
		var fe *Error
		if !errors.As(err, &fe) || fe.Field.Name != "reason" {
			t.Errorf("Check(%q): %#v does not name the field", tc.in, err)
		}
		msg := err.Error()
		if tc.want == "too_long" {
			if !strings.Contains(msg, "25 characters long; at most 20") {
				t.Errorf("Check(%q) = %q, want the length and the bound", tc.in, msg)
			}
			continue
		}
		if !strings.HasPrefix(msg, "The reason of the reset ") || !strings.Contains(msg, tc.want) {
			t.Errorf("Check(%q) = %q, want it to say %q", tc.in, msg, tc.want)
		}
		if !Allowed(msg) {
			t.Errorf("the sentence refusing %q holds what it refuses: %q", tc.in, msg)
		}
	}
}

// The sentence is in Chinese too, the field's name with it.
func TestCheckSaysItInChinese(t *testing.T) {
	err := testField.Check("a\x00b")
	var fe *Error
	if !errors.As(err, &fe) {
		t.Fatal(err)
	}
	got := i18n.Match("zh-CN").Say(fe.Say())
	if !strings.HasPrefix(got, "重置原因") || !strings.Contains(got, "U+0000") || !strings.Contains(got, `"a\x00b"`) {
		t.Errorf("in Chinese: %q", got)
	}
}

// A 60 000-character value is quoted cut, not whole.
func TestLongValuesAreQuotedCut(t *testing.T) {
	err := testField.Check(strings.Repeat("x", 60000) + "\x00")
	if err == nil || len(err.Error()) > 400 {
		t.Fatalf("refusal of 60 000 characters is %d bytes long: %.200q", len(err.Error()), err)
	}
}

// Shown keeps text the rule allows as it is, and escapes the rest so it can be stored
// and shown and still says exactly what was sent.
func TestShownEscapesOnlyWhatMustBe(t *testing.T) {
	for in, want := range map[string]string{
		`C:\deploy "v2"`:   `C:\deploy "v2"`,
		"a\x00b":           `"a\x00b"`,
		"\u202egnp.exe":    `"\u202egnp.exe"`,
		"x\xffy":           `"x\xffy"`,
		"two\nlines":       `"two\nlines"`,
		"重置原因":             "重置原因",
		"esc \x1b[2J done": `"esc \x1b[2J done"`,
	} {
		if got := Shown(in); got != want {
			t.Errorf("Shown(%q) = %s, want %s", in, got, want)
		}
		if !Allowed(Shown(in)) {
			t.Errorf("Shown(%q) = %q still holds what the rule refuses", in, Shown(in))
		}
	}
}

// Cut shortens by characters: a long Chinese value is cut between two characters, with
// an ellipsis, and what fits is kept whole.
func TestCutNeverSplitsACharacter(t *testing.T) {
	for _, tc := range []struct {
		in   string
		n    int
		want string
	}{
		{"orders", 6, "orders"},
		{"orders-eu", 6, "order…"},
		{"订单主题", 4, "订单主题"},
		{"订单主题名称", 4, "订单主…"},
		{strings.Repeat("消", 81), 80, strings.Repeat("消", 79) + "…"},
	} {
		got := Cut(tc.in, tc.n)
		if got != tc.want || !utf8.ValidString(got) {
			t.Errorf("Cut(%q, %d) = %q, want %q", tc.in, tc.n, got, tc.want)
		}
	}
}
