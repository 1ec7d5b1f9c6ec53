// Package sqlfilter is RocketMQ's SQL92 message filter — what consumers subscribe with
// MessageSelector.bySql on a broker with enablePropertyFilter=true — parsed and
// evaluated exactly as the broker does, so the console selects the messages a
// consumer with the same expression would receive.
//
// The language (RocketMQ's SelectorParser, 4.x and 5.x alike):
//
//   - properties by name: letters, digits, _ and $, case-sensitive, not starting with a
//     digit. A message's user properties and its system ones are visible: TAGS (its
//     tag), KEYS (its keys as one space-separated string), UNIQ_KEY and the rest. A
//     name the message lacks is NULL.
//   - literals: 'strings' (a doubled quote stands for one), whole numbers (an l or
//     L suffix allowed), decimal numbers (1.5, .5, 1e3), TRUE, FALSE, NULL.
//   - =, <>, >, >=, <, <=, [NOT] BETWEEN low AND high, [NOT] IN ('a', 'b'),
//     IS [NOT] NULL, AND, OR, NOT, unary + and -, parentheses;
//     and from RocketMQ 5.1.3: [NOT] CONTAINS, STARTSWITH, ENDSWITH 'text'.
//   - comments: /* ... */, and -- to the end of a line.
//
// How the broker decides, which is often not what SQL would:
//
//   - a message is selected only when the expression is TRUE; NULL (unknown) and a
//     failed evaluation both leave it out.
//   - every property is a string. Compared with a whole-number literal it is read
//     with Java's Integer.valueOf (Long.valueOf beyond 32 bits), with a decimal
//     literal with Double.valueOf (which allows surrounding spaces, NaN, Infinity,
//     hexadecimal and an f or d suffix); with TRUE or FALSE it is true when it reads
//     "true" in any case. A string that does not convert makes the whole expression
//     fail for that message — even under an OR whose other side is TRUE, unless the
//     left side already decided.
//   - two properties are ordered (<, >, ...) as Double.valueOf numbers, and compared
//     with = as strings. A 'string' literal cannot be ordered at all.
//   - = is not symmetric with NULL: missing = 'x' is NULL, but 'x' = missing is FALSE
//     (so 'x' <> missing is TRUE), and missing = alsoMissing is TRUE.
//   - NOT binds tighter than comparisons: NOT a = 1 is (NOT a) = 1, which is never
//     TRUE. Write NOT (a = 1).
//   - a bare property used as a condition is FALSE when present, NULL when missing.
//   - [NOT] CONTAINS/STARTSWITH/ENDSWITH are FALSE (not NULL) on a missing property,
//     and FALSE for an empty 'text', with or without NOT.
//   - a decimal literal equal to zero (0.0) is refused; write 0.
//
// The console is stricter than the broker in one way: the broker stops reading at the
// end of the first complete condition and ignores what follows ("a = 1 b = 2" is
// "a = 1" there); here text after a complete condition is an error, since it is
// nearly always a missing AND or OR.
package sqlfilter

import (
	"slices"
	"strings"
	"unicode/utf8"

	"rmqconsole/fault"
)

// MaxLength is the longest expression accepted, in bytes.
const MaxLength = 8 << 10

// Expression is a parsed SQL92 filter; it is safe for concurrent use.
type Expression struct {
	src   string
	root  node
	props []string
	since string
}

// Parse parses src as the broker would, or answers a *fault.Error (code Invalid,
// reason "sql92") whose sentence names the place and the problem: "Syntax error at
// column 17: expected a value after '>', found the end of the expression." The error
// unwraps to a *SyntaxError.
func Parse(src string) (*Expression, error) {
	if len(src) > MaxLength {
		return nil, fault.New(fault.Invalid, "filter.sql.long", "Len", utf8.RuneCountInString(src), "Max", MaxLength).Because("sql92")
	}
	toks, serr := lex(src)
	if serr == nil && toks[0].kind == tEOF {
		return nil, fault.New(fault.Invalid, "filter.sql.empty").Because("sql92")
	}
	var root node
	if serr == nil {
		p := &parser{src: src, toks: toks}
		root, serr = p.parse()
	}
	if serr != nil {
		return nil, &fault.Error{Code: fault.Invalid, Reason: "sql92", Msg: serr.Message(), Err: serr}
	}
	e := &Expression{src: src, root: root}
	seen := map[string]bool{}
	for _, t := range toks {
		switch t.kind {
		case tID:
			if !seen[t.text] {
				seen[t.text] = true
				e.props = append(e.props, t.text)
			}
		case tContains, tStartsWith, tEndsWith:
			e.since = "5.1.3"
		}
	}
	slices.Sort(e.props)
	return e, nil
}

// MustParse is Parse for expressions written in code; it panics on an error.
func MustParse(src string) *Expression {
	e, err := Parse(src)
	if err != nil {
		panic(err)
	}
	return e
}

// String is the expression as written.
func (e *Expression) String() string { return e.src }

// Properties lists the property names the expression reads, sorted.
func (e *Expression) Properties() []string { return slices.Clone(e.props) }

// MinBrokerVersion is the oldest RocketMQ broker that accepts the expression in a
// subscription: "5.1.3" when it uses CONTAINS, STARTSWITH or ENDSWITH, else "" (every
// broker with enablePropertyFilter). The console evaluates it whatever the version.
func (e *Expression) MinBrokerVersion() string { return e.since }

// Verdict is what an expression says of one message.
type Verdict uint8

const (
	// False: the expression is FALSE; the broker does not deliver the message.
	False Verdict = iota
	// True: the expression is TRUE; the broker delivers the message.
	True
	// Unknown: the expression is NULL (it read a missing property); not delivered.
	Unknown
	// Failed: evaluation threw on the broker (a string that is no number where one
	// was needed); not delivered.
	Failed
)

func (v Verdict) String() string {
	return [...]string{False: "FALSE", True: "TRUE", Unknown: "NULL", Failed: "failed"}[v]
}

// Match reports whether a message with these properties (user and system ones,
// TAGS and KEYS included, as the broker stores them) is delivered to a consumer
// subscribed with the expression.
func (e *Expression) Match(props map[string]string) bool {
	v, f := e.root.eval(props)
	return f == nil && v.kind == vBool && v.b
}

// Evaluate is Match with the reason a message is left out.
func (e *Expression) Evaluate(props map[string]string) Verdict {
	v, _ := e.Explain(props)
	return v
}

// Explain is Evaluate with, for a failed evaluation, what failed (in English, for
// logs and tests: "'abc' is not a whole number of 32 bits").
func (e *Expression) Explain(props map[string]string) (Verdict, string) {
	v, f := e.root.eval(props)
	switch {
	case f != nil:
		return Failed, f.reason
	case v.kind == vNull:
		return Unknown, ""
	case v.kind == vBool && v.b:
		return True, ""
	}
	return False, ""
}

// SyntaxErrorOf returns the *SyntaxError err carries, or nil.
func SyntaxErrorOf(err error) *SyntaxError {
	if fe := fault.As(err); fe != nil {
		if se, ok := fe.Err.(*SyntaxError); ok {
			return se
		}
	}
	return nil
}

// Quote writes s as an SQL92 string literal, for building expressions from values.
func Quote(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }
