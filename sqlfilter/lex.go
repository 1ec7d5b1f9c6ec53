package sqlfilter

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// tokenKind is what the broker's lexer (the JavaCC grammar of SelectorParser) makes of
// a run of characters.
type tokenKind int

const (
	tEOF tokenKind = iota
	// Reserved words, matched without regard to case.
	tNot
	tAnd
	tOr
	tBetween
	tIn
	tTrue
	tFalse
	tNull
	tIs
	tContains
	tStartsWith
	tEndsWith
	// Literals and names.
	tDecimal // 0 | [1-9][0-9]*[lL]?
	tFloat   // 5.5, 5., .5, 5E10, 5.5E-3
	tString  // 'it''s'
	tID      // [a-zA-Z_$][a-zA-Z0-9_$]*
	// Operators.
	tEq     // =
	tNe     // <>
	tGt     // >
	tGe     // >=
	tLt     // <
	tLe     // <=
	tLParen // (
	tComma  // ,
	tRParen // )
	tPlus   // +
	tMinus  // -
)

var keywords = map[string]tokenKind{
	"NOT": tNot, "AND": tAnd, "OR": tOr, "BETWEEN": tBetween, "IN": tIn,
	"TRUE": tTrue, "FALSE": tFalse, "NULL": tNull, "IS": tIs,
	"CONTAINS": tContains, "STARTSWITH": tStartsWith, "ENDSWITH": tEndsWith,
}

// token is one lexeme with where it starts.
type token struct {
	kind tokenKind
	text string // as written (a string literal with its quotes)
	pos  pos
}

// pos is a place in the expression: the byte offset, and the line and column (in
// characters, from 1) a person counts.
type pos struct {
	off, line, col int
}

// lexer cuts an expression into tokens as the broker's lexer does: longest match
// first, the earlier definition on a tie (so IN is a keyword and INX a name);
// white space is space, tab, form feed and line breaks only; "--" comments run to a
// line break (without one, "--" is two minus signs, as on the broker) and /* */
// comments may span lines.
type lexer struct {
	src  string
	off  int
	line int
	col  int
}

func lex(src string) ([]token, *SyntaxError) {
	l := &lexer{src: src, line: 1, col: 1}
	var out []token
	for {
		t, err := l.next()
		if err != nil {
			return nil, err
		}
		out = append(out, t)
		if t.kind == tEOF {
			return out, nil
		}
	}
}

func (l *lexer) here() pos { return pos{off: l.off, line: l.line, col: l.col} }

// advance moves past n bytes, counting lines and characters.
func (l *lexer) advance(n int) {
	end := l.off + n
	for l.off < end {
		r, size := utf8.DecodeRuneInString(l.src[l.off:])
		l.off += size
		switch {
		case r == '\n':
			l.line++
			l.col = 1
		case r == '\r':
			// \r\n is one line break; a lone \r is one too.
			if l.off < len(l.src) && l.src[l.off] == '\n' {
				l.col++ // the \n that follows starts the new line
			} else {
				l.line++
				l.col = 1
			}
		default:
			l.col++
		}
	}
}

func (l *lexer) next() (token, *SyntaxError) {
	for {
		if l.off >= len(l.src) {
			return token{kind: tEOF, pos: l.here()}, nil
		}
		c := l.src[l.off]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f':
			l.advance(1)
			continue
		case strings.HasPrefix(l.src[l.off:], "--"):
			if n := lineComment(l.src[l.off:]); n > 0 {
				l.advance(n)
				continue
			}
		case strings.HasPrefix(l.src[l.off:], "/*"):
			start := l.here()
			end := strings.Index(l.src[l.off+2:], "*/")
			if end < 0 {
				return token{}, syntaxErr(start, "filter.sql.comment_open")
			}
			l.advance(2 + end + 2)
			continue
		}
		break
	}
	start := l.here()
	rest := l.src[l.off:]
	emit := func(k tokenKind, n int) (token, *SyntaxError) {
		t := token{kind: k, text: rest[:n], pos: start}
		l.advance(n)
		return t, nil
	}
	c := rest[0]
	switch {
	case c == '\'':
		n := stringLiteral(rest)
		if n < 0 {
			return token{}, syntaxErr(start, "filter.sql.string_open")
		}
		return emit(tString, n)
	case isDigit(c) || c == '.':
		d, f := decimalLen(rest), floatLen(rest)
		switch {
		case d == 0 && f == 0:
			return token{}, badChar(start, rest)
		case f > d:
			return emit(tFloat, f)
		default:
			return emit(tDecimal, d)
		}
	case isIDStart(c):
		n := 1
		for n < len(rest) && isIDPart(rest[n]) {
			n++
		}
		if k, ok := keywords[strings.ToUpper(rest[:n])]; ok {
			return emit(k, n)
		}
		return emit(tID, n)
	}
	for _, op := range operators {
		if strings.HasPrefix(rest, op.text) {
			return emit(op.kind, len(op.text))
		}
	}
	return token{}, badChar(start, rest)
}

// operators, longer first so <> and <= win over <.
var operators = []struct {
	text string
	kind tokenKind
}{
	{"<>", tNe}, {">=", tGe}, {"<=", tLe},
	{"=", tEq}, {">", tGt}, {"<", tLt}, {"(", tLParen}, {",", tComma}, {")", tRParen}, {"+", tPlus}, {"-", tMinus},
}

// lineComment is the length of a "--" comment at the start of s with its line break,
// or 0 when no line break ends it (then the broker reads two minus signs).
func lineComment(s string) int {
	i := strings.IndexAny(s, "\n\r")
	if i < 0 {
		return 0
	}
	if s[i] == '\r' && i+1 < len(s) && s[i+1] == '\n' {
		return i + 2
	}
	return i + 1
}

// stringLiteral is the length of the quoted string at the start of s (two quotes
// are one quote inside it), or -1 when it is not closed.
func stringLiteral(s string) int {
	for i := 1; i < len(s); i++ {
		if s[i] != '\'' {
			continue
		}
		if i+1 < len(s) && s[i+1] == '\'' {
			i++
			continue
		}
		return i + 1
	}
	return -1
}

// unquote is the value of a string literal: without its quotes, a doubled quote
// read as one.
func unquote(lit string) string {
	return strings.ReplaceAll(lit[1:len(lit)-1], "''", "'")
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }
func isIDStart(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_' || c == '$'
}
func isIDPart(c byte) bool { return isIDStart(c) || isDigit(c) }

func digits(s string, i int) int {
	for i < len(s) && isDigit(s[i]) {
		i++
	}
	return i
}

// decimalLen is the longest DECIMAL_LITERAL at the start of s: "0" alone (a leading
// zero ends the number), or a digit 1-9, more digits and an optional l or L.
func decimalLen(s string) int {
	switch {
	case s[0] == '0':
		return 1
	case s[0] >= '1' && s[0] <= '9':
		n := digits(s, 1)
		if n < len(s) && (s[n] == 'l' || s[n] == 'L') {
			n++
		}
		return n
	}
	return 0
}

// floatLen is the longest FLOATING_POINT_LITERAL at the start of s: digits "."
// digits? exponent?, "." digits exponent?, or digits exponent; 0 when none.
func floatLen(s string) int {
	intEnd := digits(s, 0)
	if intEnd < len(s) && s[intEnd] == '.' {
		fracEnd := digits(s, intEnd+1)
		if intEnd == 0 && fracEnd == intEnd+1 {
			return 0 // "." without a digit on either side
		}
		return fracEnd + exponentLen(s[fracEnd:])
	}
	if intEnd == 0 {
		return 0
	}
	if e := exponentLen(s[intEnd:]); e > 0 {
		return intEnd + e
	}
	return 0
}

// exponentLen is the length of an exponent (E, a sign, digits) at the start of s, or 0.
func exponentLen(s string) int {
	if len(s) == 0 || (s[0] != 'e' && s[0] != 'E') {
		return 0
	}
	i := 1
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		i++
	}
	if end := digits(s, i); end > i {
		return end
	}
	return 0
}

// badChar is the error for a character no token starts with, with a hint for what
// people write out of habit from other SQL dialects and languages.
func badChar(at pos, rest string) *SyntaxError {
	r, _ := utf8.DecodeRuneInString(rest)
	switch {
	case strings.HasPrefix(rest, "!="):
		return syntaxErr(at, "filter.sql.char.ne")
	case strings.HasPrefix(rest, "&&"), strings.HasPrefix(rest, "||"):
		return syntaxErr(at, "filter.sql.char.logic", "Op", rest[:2])
	case r == '"' || r == '`':
		return syntaxErr(at, "filter.sql.char.quote", "Char", string(r))
	case r == '.':
		return syntaxErr(at, "filter.sql.char.dot")
	case r >= utf8.RuneSelf && r != utf8.RuneError:
		return syntaxErr(at, "filter.sql.char.name", "Char", string(r))
	}
	return syntaxErr(at, "filter.sql.char", "Char", printable(r))
}

// printable shows a character as it is, or by its code when it would not show.
func printable(r rune) string {
	if r < ' ' || r == 0x7f || r == utf8.RuneError {
		return fmt.Sprintf("U+%04X", r)
	}
	return string(r)
}
