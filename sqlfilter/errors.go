package sqlfilter

import "rmqconsole/i18n"

// SyntaxError is an expression the broker would refuse, or one the console refuses
// for being unclear (text after a complete condition): where, and why as a catalogue
// sentence.
type SyntaxError struct {
	// Msg says what is wrong; Message says it with the place.
	Msg i18n.Message

	at pos // where: see Line, Column, Offset

	missingValue bool // a value or condition was expected here
	afterSet     bool // Msg already names the operator before it
}

// Line and Column say where the problem is, counting from 1 (Column in characters);
// Offset is the same place in bytes.
func (e *SyntaxError) Line() int   { return e.at.line }
func (e *SyntaxError) Column() int { return e.at.col }
func (e *SyntaxError) Offset() int { return e.at.off }

// Message is the whole sentence, place included.
func (e *SyntaxError) Message() i18n.Message {
	return i18n.M("filter.sql.error", "Where", where(e.at), "What", e.Msg)
}

func (e *SyntaxError) Error() string { return e.Message().String() }

func syntaxErr(at pos, id string, kv ...any) *SyntaxError {
	return &SyntaxError{at: at, Msg: i18n.M(id, kv...)}
}

// where says "column 17", or "line 2, column 5" once the expression has several lines.
func where(p pos) i18n.Message {
	if p.line > 1 {
		return i18n.M("filter.sql.where.line", "Line", p.line, "Column", p.col)
	}
	return i18n.M("filter.sql.where.column", "Column", p.col)
}

// describe names what was found in a sentence: the end, or the token as written.
func describe(t token) i18n.Message {
	if t.kind == tEOF {
		return i18n.M("filter.sql.found.end")
	}
	return i18n.M("filter.sql.found", "Token", quoteToken(t))
}

// quoteToken shows a token as written: operators in quotes, so '>' reads as a
// symbol, and names, keywords, numbers and 'strings' as they are.
func quoteToken(t token) string {
	switch t.kind {
	case tEq, tNe, tGt, tGe, tLt, tLe, tLParen, tComma, tRParen, tPlus, tMinus:
		return "'" + t.text + "'"
	case tString:
		r := []rune(t.text)
		if len(r) > 30 {
			return string(r[:27]) + "...'"
		}
		return t.text
	}
	if t.kind >= tNot && t.kind <= tEndsWith {
		return upper(t.text)
	}
	return t.text
}

func upper(s string) string {
	b := []byte(s)
	for i, c := range b {
		if c >= 'a' && c <= 'z' {
			b[i] = c - 'a' + 'A'
		}
	}
	return string(b)
}
