package sqlfilter

import (
	"testing"
	"unicode/utf8"

	"rmqconsole/fault"
)

// FuzzParse holds the parser's promises on any input: no panic, either an expression
// or an Invalid fault whose place lies within the input, and an evaluation that
// never panics and agrees with Match. The seed corpus is in testdata/fuzz/FuzzParse.
func FuzzParse(f *testing.F) {
	for _, s := range []string{"a = 1", "TAGS IN ('a', 'b') AND x BETWEEN 1 AND 10", "a > ", "NOT a = 1", "(a"} {
		f.Add(s)
	}
	messages := []map[string]string{
		nil,
		{"a": "1", "b": "x", "TAGS": "t", "c": "2.5", "d": "NaN"},
		{"a": "abc", "b": "", "x": "-0.0", "y": "+7", "z": "٣"},
	}
	f.Fuzz(func(t *testing.T, src string) {
		e, err := Parse(src)
		if err != nil {
			fe := fault.As(err)
			if fe == nil || fe.Code != fault.Invalid || fe.Error() == "" {
				t.Fatalf("%q: %#v is not an Invalid fault with a sentence", src, err)
			}
			if se := SyntaxErrorOf(err); se != nil {
				if se.Offset() < 0 || se.Offset() > len(src) || se.Line() < 1 || se.Column() < 1 || se.Column() > utf8.RuneCountInString(src)+1 {
					t.Fatalf("%q: error place %d (%d:%d) outside the input", src, se.Offset(), se.Line(), se.Column())
				}
			}
			return
		}
		for _, m := range messages {
			v := e.Evaluate(m)
			if e.Match(m) != (v == True) {
				t.Fatalf("%q on %v: Match disagrees with %s", src, m, v)
			}
		}
		if again, err := Parse(src); err != nil || again.String() != e.String() {
			t.Fatalf("%q parses once but not twice: %v", src, err)
		}
	})
}
