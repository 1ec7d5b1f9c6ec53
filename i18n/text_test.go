package i18n

import (
	"encoding/json"
	"testing"
	"time"
)

func TestStoredTextReadsInTheReadersLanguage(t *testing.T) {
	// A note written from an English page, stored, and read back on a Chinese one.
	written := TextOf(
		M("format.span.h", "N", 3),
		M("format.span.m", "N", int64(1234567)),
	)
	s, err := Encode(written)
	if err != nil {
		t.Fatal(err)
	}
	read := Decode(s)
	zh := Match("zh-CN")
	if got, want := zh.SayText(read), zh.SayText(written); got != want || got == written.String() {
		t.Fatalf("read back in Chinese: %q, want %q (English: %q)", got, want, written.String())
	}
	if got := read.String(); got != "3 h 1234567 min" {
		t.Fatalf("read back in English: %q", got)
	}
}

func TestStoredValuesKeepTheirKind(t *testing.T) {
	inner := M("format.span.s", "N", 5)
	m := M("format.span.d", "N", Span(90*time.Minute), "Msg", inner, "Text", TextOf(inner, Plain("broker said no")), "F", 1.5, "B", true)
	s, err := Encode(TextOf(m))
	if err != nil {
		t.Fatal(err)
	}
	got := Decode(s)[0]
	if v, ok := got.Args[1].(Span); !ok || time.Duration(v) != 90*time.Minute {
		t.Errorf("span came back as %#v", got.Args[1])
	}
	if v, ok := got.Args[3].(Message); !ok || v.ID != inner.ID || v.Args[1] != int64(5) {
		t.Errorf("message came back as %#v", got.Args[3])
	}
	if v, ok := got.Args[5].(Text); !ok || len(v) != 2 || v[1].String() != "broker said no" {
		t.Errorf("text came back as %#v", got.Args[5])
	}
	if got.Args[7] != 1.5 || got.Args[9] != true {
		t.Errorf("number and bool came back as %#v, %#v", got.Args[7], got.Args[9])
	}
	if _, err := Encode(TextOf(M("x", "V", struct{}{}))); err == nil {
		t.Error("a value that cannot be said later was stored")
	}
}

func TestTextStoredAsEnglishBeforeReadsAsItIs(t *testing.T) {
	old := "Every queue is already at its target: applying changes nothing."
	got := Decode(old)
	if len(got) != 1 || Match("zh-CN").SayText(got) != old {
		t.Fatalf("old English text read back as %#v", got)
	}
	if Decode("") != nil {
		t.Fatal("an empty stored text is no sentence")
	}
}

func TestTextIsEnglishInTheAPI(t *testing.T) {
	b, err := json.Marshal(struct{ Note Text }{TextOf(M("format.span.h", "N", 2), Plain("more"))})
	if err != nil {
		t.Fatal(err)
	}
	if string(b) != `{"Note":"2 h more"}` {
		t.Fatalf("JSON: %s", b)
	}
	if got := Match("zh-CN").SayText(TextOf(M("format.span.h", "N", 2), Plain("更多"))); got != "2 小时更多" {
		t.Fatalf("Chinese joins without a space: %q", got)
	}
}

func TestSpanIsSaidPerLanguage(t *testing.T) {
	if got := Match("en").T("format.span.d", "N", Span(3*time.Hour+20*time.Minute)); got != "3h20m d" {
		t.Fatalf("English span: %q", got)
	}
	if got := Match("zh-CN").Span(3*time.Hour + 20*time.Minute); got != "3 小时 20 分钟" {
		t.Fatalf("Chinese span: %q", got)
	}
}
