package sqlfilter

import (
	"math"
	"strconv"
	"strings"

	"rmqconsole/i18n"
)

// maxDepth bounds nesting (parentheses, NOT, signs), so no input can exhaust the stack.
const maxDepth = 100

// parser is a recursive descent over the broker's grammar (SelectorParser.jj), from
// the loosest binding to the tightest:
//
//	or         = and { OR and }
//	and        = equality { AND equality }
//	equality   = comparison { "=" comparison | "<>" comparison | IS NULL | IS NOT NULL }
//	comparison = unary { (">" | ">=" | "<" | "<=") unary
//	                   | [NOT] (CONTAINS | STARTSWITH | ENDSWITH) string
//	                   | [NOT] BETWEEN unary AND unary
//	                   | [NOT] IN "(" string { "," string } ")" }
//	unary      = "+" unary | "-" unary | NOT unary | primary
//	primary    = literal | name | "(" or ")"
//
// NOT in unary binds tighter than every comparison, as on the broker: NOT a = 1 is
// (NOT a) = 1. The checks the broker makes while building the tree (what may be
// ordered, what may be compared with what, IN only on a name) are made here too, and
// an expression must be used up to its end, which the broker does not require.
type parser struct {
	src   string
	toks  []token
	i     int
	depth int
}

func (p *parser) peek() token { return p.toks[p.i] }

func (p *parser) take() token {
	t := p.toks[p.i]
	if t.kind != tEOF {
		p.i++
	}
	return t
}

// spanFrom is the place from start to the end of the last token taken.
func (p *parser) spanFrom(start pos) loc {
	end := start.off
	if p.i > 0 {
		last := p.toks[p.i-1]
		end = last.pos.off + len(last.text)
	}
	return loc{start: start, end: end}
}

func (p *parser) text(s loc) string { return p.src[s.start.off:s.end] }

func (p *parser) parse() (node, *SyntaxError) {
	n, err := p.or()
	if err != nil {
		return nil, err
	}
	if t := p.peek(); t.kind != tEOF {
		if t.kind == tMinus && p.toks[p.i+1].kind == tMinus && p.toks[p.i+1].pos.off == t.pos.off+1 {
			return nil, syntaxErr(t.pos, "filter.sql.trailing.comment")
		}
		return nil, syntaxErr(t.pos, "filter.sql.trailing", "Token", quoteToken(t))
	}
	return p.condition(n)
}

// condition is the broker's asBooleanExpression: a condition stays as it is, a
// property becomes a condition that is FALSE when present and NULL when missing,
// anything else (a number, a string) is refused.
func (p *parser) condition(n node) (node, *SyntaxError) {
	switch x := n.(type) {
	case *propNode:
		return &castNode{loc: x.loc, x: x}, nil
	}
	if !isCondition(n) {
		return nil, syntaxErr(n.at().start, "filter.sql.not_condition", "Expr", p.quote(n))
	}
	return n, nil
}

func (p *parser) or() (node, *SyntaxError) {
	l, err := p.and()
	if err != nil {
		return nil, err
	}
	for p.peek().kind == tOr {
		op := p.take()
		r, err := p.and()
		if err != nil {
			return nil, p.expectedCondition(err, op)
		}
		if l, err = p.logic(false, l, r); err != nil {
			return nil, err
		}
	}
	return l, nil
}

func (p *parser) and() (node, *SyntaxError) {
	l, err := p.equality()
	if err != nil {
		return nil, err
	}
	for p.peek().kind == tAnd {
		op := p.take()
		r, err := p.equality()
		if err != nil {
			return nil, p.expectedCondition(err, op)
		}
		if l, err = p.logic(true, l, r); err != nil {
			return nil, err
		}
	}
	return l, nil
}

func (p *parser) logic(and bool, l, r node) (node, *SyntaxError) {
	l, err := p.condition(l)
	if err != nil {
		return nil, err
	}
	if r, err = p.condition(r); err != nil {
		return nil, err
	}
	return &logicNode{loc: loc{start: l.at().start, end: r.at().end}, and: and, l: l, r: r}, nil
}

func (p *parser) equality() (node, *SyntaxError) {
	l, err := p.comparison()
	if err != nil {
		return nil, err
	}
	for {
		t := p.peek()
		switch t.kind {
		case tEq, tNe:
			p.take()
			r, err := p.comparison()
			if err != nil {
				return nil, p.expectedValue(err, t)
			}
			if err := p.checkEqualOperands(l, r, t); err != nil {
				return nil, err
			}
			eq := &eqNode{loc: loc{start: l.at().start, end: r.at().end}, l: l, r: r}
			if t.kind == tEq {
				l = eq
			} else {
				l = &notNode{loc: eq.loc, x: eq}
			}
		case tIs:
			p.take()
			not := false
			if p.peek().kind == tNot {
				p.take()
				not = true
			}
			if nt := p.peek(); nt.kind != tNull {
				after := "IS"
				if not {
					after = "IS NOT"
				}
				return nil, syntaxErr(nt.pos, "filter.sql.expect.null", "After", after, "Found", describe(nt))
			}
			p.take()
			eq := &eqNode{loc: p.spanFrom(l.at().start), l: l, r: &constNode{boolean: true}}
			if not {
				l = &notNode{loc: eq.loc, x: eq}
			} else {
				l = eq
			}
		default:
			return l, nil
		}
	}
}

// checkEqualOperands is the broker's checkEqualOperand and
// checkEqualOperandCompatability: no NULL literal on either side of = or <>, and
// no TRUE or FALSE literal compared with another kind of literal.
func (p *parser) checkEqualOperands(l, r node, op token) *SyntaxError {
	for _, n := range []node{l, r} {
		if c, ok := n.(*constNode); ok && c.v.kind == vNull {
			return syntaxErr(c.start, "filter.sql.null_compared", "Op", op.text)
		}
	}
	lc, lok := l.(*constNode)
	rc, rok := r.(*constNode)
	if lok && rok && lc.boolean && !rc.boolean {
		return syntaxErr(l.at().start, "filter.sql.bool_compared", "Left", p.quote(l), "Right", p.quote(r))
	}
	return nil
}

func (p *parser) comparison() (node, *SyntaxError) {
	l, err := p.unary()
	if err != nil {
		return nil, err
	}
	for {
		t := p.peek()
		switch t.kind {
		case tGt, tGe, tLt, tLe:
			p.take()
			r, err := p.unary()
			if err != nil {
				return nil, p.expectedValue(err, t)
			}
			if l, err = p.ordered(cmpOpOf(t.kind), t.text, l, r); err != nil {
				return nil, err
			}
			continue
		case tNot:
			switch p.toks[p.i+1].kind {
			case tContains, tStartsWith, tEndsWith, tBetween, tIn:
			default:
				return nil, syntaxErr(p.toks[p.i+1].pos, "filter.sql.expect.not", "Found", describe(p.toks[p.i+1]))
			}
		case tContains, tStartsWith, tEndsWith, tBetween, tIn:
		default:
			return l, nil
		}
		not := false
		if t.kind == tNot {
			p.take()
			not = true
		}
		op := p.take()
		switch op.kind {
		case tContains, tStartsWith, tEndsWith:
			s, err := p.stringLiteral(op)
			if err != nil {
				return nil, err
			}
			l = &strNode{loc: p.spanFrom(l.at().start), op: strOpOf(op.kind), not: not, x: l, search: s}
		case tBetween:
			if l, err = p.between(l, not); err != nil {
				return nil, err
			}
		case tIn:
			if l, err = p.in(l, not); err != nil {
				return nil, err
			}
		}
	}
}

func cmpOpOf(k tokenKind) cmpOp {
	switch k {
	case tGt:
		return opGt
	case tGe:
		return opGe
	case tLt:
		return opLt
	}
	return opLe
}

func strOpOf(k tokenKind) strOp {
	switch k {
	case tContains:
		return opContains
	case tStartsWith:
		return opStartsWith
	}
	return opEndsWith
}

// ordered builds l op r after the broker's checkLessThanOperand on both sides: only
// numbers, and expressions that may yield one (names, signs, parentheses around
// them), can be ordered — never a string or TRUE/FALSE/NULL literal, never a
// condition.
func (p *parser) ordered(op cmpOp, opText string, l, r node) (node, *SyntaxError) {
	for _, n := range []node{l, r} {
		if c, ok := n.(*constNode); ok {
			if c.v.isNumber() {
				continue
			}
			if c.v.kind == vNull {
				return nil, syntaxErr(c.start, "filter.sql.null_compared", "Op", opText)
			}
			return nil, syntaxErr(c.start, "filter.sql.not_comparable", "Expr", p.quote(n), "Op", opText)
		}
		if isCondition(n) {
			return nil, syntaxErr(n.at().start, "filter.sql.condition_compared", "Expr", p.quote(n), "Op", opText)
		}
	}
	return &cmpNode{loc: loc{start: l.at().start, end: r.at().end}, op: op, l: l, r: r}, nil
}

// between is value [NOT] BETWEEN low AND high: (value >= low AND value <= high), or
// (value < low OR value > high). With two literal bounds, as on the broker, BETWEEN
// refuses NULL and a lower bound above the upper one; NOT BETWEEN checks neither.
func (p *parser) between(v node, not bool) (node, *SyntaxError) {
	kw := p.toks[p.i-1]
	low, err := p.unary()
	if err != nil {
		return nil, p.expectedValue(err, kw)
	}
	if t := p.peek(); t.kind != tAnd {
		return nil, syntaxErr(t.pos, "filter.sql.expect.between_and", "Found", describe(t))
	}
	and := p.take()
	high, err := p.unary()
	if err != nil {
		return nil, p.expectedValue(err, and)
	}
	sp := p.spanFrom(v.at().start)
	if !not {
		lc, lok := low.(*constNode)
		hc, hok := high.(*constNode)
		if lok && hok {
			if lc.v.kind == vNull || hc.v.kind == vNull {
				return nil, syntaxErr(sp.start, "filter.sql.between_null")
			}
			c, f := javaCompare(hc.v, lc.v)
			if f != nil {
				return nil, syntaxErr(lc.start, "filter.sql.not_comparable", "Expr", p.quote(low), "Op", "BETWEEN")
			}
			if c < 0 {
				return nil, syntaxErr(lc.start, "filter.sql.between_order", "Low", p.quote(low), "High", p.quote(high))
			}
		}
		ge, err := p.ordered(opGe, "BETWEEN", v, low)
		if err != nil {
			return nil, err
		}
		le, err := p.ordered(opLe, "BETWEEN", v, high)
		if err != nil {
			return nil, err
		}
		return &logicNode{loc: sp, and: true, l: ge, r: le}, nil
	}
	lt, err := p.ordered(opLt, "NOT BETWEEN", v, low)
	if err != nil {
		return nil, err
	}
	gt, err := p.ordered(opGt, "NOT BETWEEN", v, high)
	if err != nil {
		return nil, err
	}
	return &logicNode{loc: sp, and: false, l: lt, r: gt}, nil
}

// in is name [NOT] IN ('a', 'b', ...): a list of strings, on a property name only.
func (p *parser) in(v node, not bool) (node, *SyntaxError) {
	if t := p.peek(); t.kind != tLParen {
		return nil, syntaxErr(t.pos, "filter.sql.expect.in_open", "Found", describe(t))
	}
	p.take()
	in := &inNode{not: not, set: map[string]struct{}{}}
	for {
		s, err := p.stringLiteral(token{kind: tIn, text: "IN"})
		if err != nil {
			return nil, err
		}
		in.list = append(in.list, s)
		in.set[s] = struct{}{}
		t := p.take()
		if t.kind == tRParen {
			break
		}
		if t.kind != tComma {
			return nil, syntaxErr(t.pos, "filter.sql.expect.in_next", "Found", describe(t))
		}
	}
	prop, ok := v.(*propNode)
	if !ok {
		return nil, syntaxErr(v.at().start, "filter.sql.in_property", "Expr", p.quote(v))
	}
	in.prop = prop
	in.loc = p.spanFrom(v.at().start)
	return in, nil
}

// stringLiteral takes the 'string' an operator requires.
func (p *parser) stringLiteral(op token) (string, *SyntaxError) {
	t := p.peek()
	if t.kind != tString {
		return "", syntaxErr(t.pos, "filter.sql.expect.string", "Op", strings.ToUpper(op.text), "Found", describe(t))
	}
	p.take()
	return unquote(t.text), nil
}

func (p *parser) unary() (node, *SyntaxError) {
	if p.depth++; p.depth > maxDepth {
		return nil, syntaxErr(p.peek().pos, "filter.sql.deep", "Max", maxDepth)
	}
	defer func() { p.depth-- }()
	t := p.peek()
	switch t.kind {
	case tPlus:
		p.take()
		x, err := p.unary()
		return x, p.expectedValue(err, t)
	case tMinus:
		p.take()
		x, err := p.unary()
		if err != nil {
			return nil, p.expectedValue(err, t)
		}
		return &negNode{loc: p.spanFrom(t.pos), x: x}, nil
	case tNot:
		p.take()
		x, err := p.unary()
		if err != nil {
			return nil, p.expectedCondition(err, t)
		}
		if x, err = p.condition(x); err != nil {
			return nil, err
		}
		return &notNode{loc: p.spanFrom(t.pos), x: x}, nil
	}
	return p.primary()
}

func (p *parser) primary() (node, *SyntaxError) {
	t := p.peek()
	switch t.kind {
	case tID:
		p.take()
		return &propNode{loc: p.spanFrom(t.pos), name: t.text}, nil
	case tString:
		p.take()
		return &constNode{loc: p.spanFrom(t.pos), v: value{kind: vString, s: unquote(t.text)}}, nil
	case tTrue, tFalse, tNull:
		p.take()
		c := &constNode{loc: p.spanFrom(t.pos), boolean: true}
		if t.kind != tNull {
			c.v = boolean(t.kind == tTrue)
		}
		return c, nil
	case tDecimal:
		p.take()
		return p.decimal(t)
	case tFloat:
		p.take()
		return p.float(t)
	case tLParen:
		p.take()
		x, err := p.or()
		if err != nil {
			return nil, p.expectedValue(err, t)
		}
		if c := p.peek(); c.kind != tRParen {
			return nil, syntaxErr(c.pos, "filter.sql.expect.rparen", "Open", where(t.pos), "Found", describe(c))
		}
		p.take()
		return x, nil
	}
	return nil, &SyntaxError{at: t.pos, Msg: i18n.M("filter.sql.expect.condition", "Found", describe(t)), missingValue: true}
}

// decimal is a whole-number literal: an Integer when it fits 32 bits, else a Long;
// beyond 64 bits the broker refuses it.
func (p *parser) decimal(t token) (node, *SyntaxError) {
	digits := strings.TrimRight(t.text, "lL")
	n, err := strconv.ParseInt(digits, 10, 64)
	if err != nil {
		return nil, syntaxErr(t.pos, "filter.sql.number_big", "Number", t.text)
	}
	c := &constNode{loc: p.spanFrom(t.pos), v: value{kind: vLong, n: n}}
	if n >= math.MinInt32 && n <= math.MaxInt32 {
		c.v.kind = vInt
	}
	return c, nil
}

// float is a literal with a point or an exponent. The broker refuses one that reads
// as infinity, and one below the smallest positive double — zero included.
func (p *parser) float(t token) (node, *SyntaxError) {
	f, err := strconv.ParseFloat(t.text, 64)
	if err != nil && !isRange(err) {
		return nil, syntaxErr(t.pos, "filter.sql.number_big", "Number", t.text)
	}
	if math.IsInf(f, 0) {
		return nil, syntaxErr(t.pos, "filter.sql.number_inf", "Number", t.text)
	}
	if f < math.SmallestNonzeroFloat64 {
		return nil, syntaxErr(t.pos, "filter.sql.number_zero", "Number", t.text)
	}
	return &constNode{loc: p.spanFrom(t.pos), v: value{kind: vDouble, f: f}}, nil
}

// expectedValue turns "expected a condition" where a value was missing right after
// an operator into "expected a value after <op>", which says what is wrong better.
func (p *parser) expectedValue(err *SyntaxError, after token) *SyntaxError {
	return p.expectedAfter(err, after, "filter.sql.expect.value")
}

// expectedCondition is expectedValue after AND, OR and NOT, which take a condition.
func (p *parser) expectedCondition(err *SyntaxError, after token) *SyntaxError {
	return p.expectedAfter(err, after, "filter.sql.expect.condition_after")
}

func (p *parser) expectedAfter(err *SyntaxError, after token, id string) *SyntaxError {
	if err == nil || !err.missingValue || err.afterSet {
		return err
	}
	found := p.toks[len(p.toks)-1]
	for _, t := range p.toks {
		if t.pos.off == err.at.off {
			found = t
			break
		}
	}
	return &SyntaxError{at: err.at, Msg: i18n.M(id, "After", quoteToken(after), "Found", describe(found)), missingValue: true, afterSet: true}
}

// quote is the source of n, shortened for a sentence.
func (p *parser) quote(n node) string {
	s := strings.TrimSpace(p.text(n.at()))
	if r := []rune(s); len(r) > 40 {
		s = string(r[:37]) + "..."
	}
	return s
}
