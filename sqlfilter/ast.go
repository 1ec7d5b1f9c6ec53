package sqlfilter

import "strings"

// node is one expression of the tree, shaped as the broker builds it: NOT BETWEEN is
// an OR of two comparisons, <> is NOT of =, IS NULL is = against a NULL that a
// missing property equals. Each evaluates to a value (a Boolean or NULL for
// conditions) or fails as the broker's would.
type node interface {
	eval(props map[string]string) (value, *failure)
	// at is where the expression is written, for error messages.
	at() loc
}

type loc struct {
	start pos
	end   int // byte offset just past it
}

func (s loc) at() loc { return s }

// propNode is a property: its string value, NULL when the message lacks it.
type propNode struct {
	loc
	name string
}

func (n *propNode) eval(props map[string]string) (value, *failure) {
	v, ok := props[n.name]
	if !ok {
		return null, nil
	}
	return value{kind: vString, s: v}, nil
}

// constNode is a literal. Its boolean flag marks TRUE, FALSE and NULL, which the
// broker types as conditions (BooleanConstantExpression).
type constNode struct {
	loc
	v       value
	boolean bool
}

func (n *constNode) eval(map[string]string) (value, *failure) { return n.v, nil }

// negNode is unary minus: the negated number, NULL for anything else.
type negNode struct {
	loc
	x node
}

func (n *negNode) eval(props map[string]string) (value, *failure) {
	v, f := n.x.eval(props)
	if f != nil {
		return null, f
	}
	switch v.kind {
	case vInt:
		return value{kind: vInt, n: int64(-int32(v.n))}, nil
	case vLong:
		return value{kind: vLong, n: -v.n}, nil
	case vDouble:
		return value{kind: vDouble, f: -v.f}, nil
	}
	return null, nil
}

// notNode is NOT: NULL stays NULL.
type notNode struct {
	loc
	x node
}

func (n *notNode) eval(props map[string]string) (value, *failure) {
	v, f := n.x.eval(props)
	if f != nil || v.kind != vBool {
		return null, f
	}
	return boolean(!v.b), nil
}

// castNode makes a property a condition where one is needed (a bare name, an
// operand of AND, OR or NOT): NULL when missing, otherwise FALSE, since a property
// is a string and never a Boolean.
type castNode struct {
	loc
	x node
}

func (n *castNode) eval(props map[string]string) (value, *failure) {
	v, f := n.x.eval(props)
	if f != nil || v.kind == vNull {
		return null, f
	}
	if v.kind != vBool {
		return vfalse, nil
	}
	return v, nil
}

// logicNode is AND or OR in three-valued logic, left first, stopping as soon as the
// answer is known (so a failure on the right does not count when the left decided).
type logicNode struct {
	loc
	and  bool
	l, r node
}

func (n *logicNode) eval(props map[string]string) (value, *failure) {
	decisive := !n.and // OR is decided by a TRUE, AND by a FALSE
	l, f := n.l.eval(props)
	if f != nil {
		return null, f
	}
	if l.kind == vBool && l.b == decisive {
		return boolean(decisive), nil
	}
	r, f := n.r.eval(props)
	if f != nil {
		return null, f
	}
	if r.kind == vBool && r.b == decisive {
		return boolean(decisive), nil
	}
	if l.kind != vBool || r.kind != vBool {
		return null, nil
	}
	return boolean(!decisive), nil
}

// eqNode is = (and, under NOT, <>; with a NULL literal on the right, IS NULL).
// Both sides are evaluated. A NULL left side against a value is NULL, a value
// against a NULL right side is FALSE, and NULL against NULL is TRUE: the broker's
// equality is not symmetric, and a = b holds when both are missing.
type eqNode struct {
	loc
	l, r node
}

func (n *eqNode) eval(props map[string]string) (value, *failure) {
	l, f := n.l.eval(props)
	if f != nil {
		return null, f
	}
	r, f := n.r.eval(props)
	if f != nil {
		return null, f
	}
	switch {
	case l.kind == vNull && r.kind == vNull:
		return vtrue, nil
	case l.kind == vNull:
		return null, nil
	case r.kind == vNull:
		return vfalse, nil
	case javaEquals(l, r):
		return vtrue, nil
	}
	c, f := javaCompare(l, r)
	if f != nil {
		return null, f
	}
	return boolean(c == 0), nil
}

// cmpOp is one of the ordering comparisons.
type cmpOp uint8

const (
	opGt cmpOp = iota
	opGe
	opLt
	opLe
)

var cmpText = [...]string{opGt: ">", opGe: ">=", opLt: "<", opLe: "<="}

// cmpNode is >, >=, < or <= (and the halves of BETWEEN). NULL on either side is
// NULL, the right side not evaluated when the left is NULL; two strings (two
// properties) are compared as Double.valueOf numbers, and fail when one is not.
type cmpNode struct {
	loc
	op   cmpOp
	l, r node
}

func (n *cmpNode) eval(props map[string]string) (value, *failure) {
	l, f := n.l.eval(props)
	if f != nil || l.kind == vNull {
		return null, f
	}
	r, f := n.r.eval(props)
	if f != nil || r.kind == vNull {
		return null, f
	}
	var c int
	if l.kind == vString && r.kind == vString {
		a, ok1 := javaParseDouble(l.s)
		b, ok2 := javaParseDouble(r.s)
		if !ok1 || !ok2 {
			return null, failf("%s and %s cannot be ordered: strings are compared with %s only as numbers", l, r, cmpText[n.op])
		}
		c = javaCompareDouble(a, b)
	} else if c, f = javaCompare(l, r); f != nil {
		return null, f
	}
	switch n.op {
	case opGt:
		return boolean(c > 0), nil
	case opGe:
		return boolean(c >= 0), nil
	case opLt:
		return boolean(c < 0), nil
	}
	return boolean(c <= 0), nil
}

// strOp is one of the string matches RocketMQ 5.1.3 added.
type strOp uint8

const (
	opContains strOp = iota
	opStartsWith
	opEndsWith
)

// strNode is [NOT] CONTAINS, STARTSWITH or ENDSWITH 'text'. It is never NULL: a
// missing property, a non-string or an empty 'text' make it FALSE, with or
// without NOT.
type strNode struct {
	loc
	op     strOp
	not    bool
	x      node
	search string
}

func (n *strNode) eval(props map[string]string) (value, *failure) {
	if n.search == "" {
		return vfalse, nil
	}
	v, f := n.x.eval(props)
	if f != nil {
		return null, f
	}
	if v.kind != vString {
		return vfalse, nil
	}
	var hit bool
	switch n.op {
	case opContains:
		hit = strings.Contains(v.s, n.search)
	case opStartsWith:
		hit = strings.HasPrefix(v.s, n.search)
	default:
		hit = strings.HasSuffix(v.s, n.search)
	}
	return boolean(hit != n.not), nil
}

// inNode is property [NOT] IN ('a', 'b'): NULL when the property is missing.
type inNode struct {
	loc
	prop *propNode
	not  bool
	list []string
	set  map[string]struct{}
}

func (n *inNode) eval(props map[string]string) (value, *failure) {
	v, ok := props[n.prop.name]
	if !ok {
		return null, nil
	}
	_, hit := n.set[v]
	return boolean(hit != n.not), nil
}

// isCondition reports whether the broker types n as a condition (BooleanExpression).
func isCondition(n node) bool {
	switch n := n.(type) {
	case *constNode:
		return n.boolean
	case *propNode, *negNode:
		return false
	}
	return true
}
