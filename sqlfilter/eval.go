package sqlfilter

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf16"
)

// valueKind is the Java type of a value during evaluation.
type valueKind uint8

const (
	vNull   valueKind = iota
	vBool             // java.lang.Boolean
	vInt              // java.lang.Integer: a whole-number literal within 32 bits
	vLong             // java.lang.Long: a larger whole-number literal
	vDouble           // java.lang.Double: a literal with a point or an exponent
	vString           // java.lang.String: every property, and quoted literals
)

type value struct {
	kind valueKind
	b    bool
	n    int64 // vInt, vLong
	f    float64
	s    string
}

var (
	null    = value{}
	vtrue   = value{kind: vBool, b: true}
	vfalse  = value{kind: vBool}
	boolean = func(b bool) value {
		if b {
			return vtrue
		}
		return vfalse
	}
)

func (v value) String() string {
	switch v.kind {
	case vBool:
		if v.b {
			return "TRUE"
		}
		return "FALSE"
	case vInt, vLong:
		return strconv.FormatInt(v.n, 10)
	case vDouble:
		return strconv.FormatFloat(v.f, 'g', -1, 64)
	case vString:
		return "'" + strings.ReplaceAll(v.s, "'", "''") + "'"
	}
	return "NULL"
}

func (v value) isNumber() bool { return v.kind == vInt || v.kind == vLong || v.kind == vDouble }

// failure is what the broker's evaluation throws: a string that is no number where
// one was needed, or a comparison Java cannot make. The whole expression is then
// false for that message, whatever the rest of it says.
type failure struct{ reason string }

func failf(format string, args ...any) *failure {
	return &failure{reason: fmt.Sprintf(format, args...)}
}

// javaEquals is Object.equals between two values: the same type and value (Doubles
// by bit pattern, so NaN equals NaN and 0.0 is not -0.0).
func javaEquals(a, b value) bool {
	if a.kind != b.kind {
		return false
	}
	switch a.kind {
	case vBool:
		return a.b == b.b
	case vInt, vLong:
		return a.n == b.n
	case vDouble:
		return doubleToLongBits(a.f) == doubleToLongBits(b.f)
	case vString:
		return a.s == b.s
	}
	return true
}

// javaCompare is the broker's ComparisonExpression.__compare with string conversion
// on (as every parsed expression has it): values of different types are brought to
// one type first — the narrower number widened to the wider one, a string converted
// to the other side's type (Integer.valueOf, Long.valueOf, Double.valueOf,
// Boolean.valueOf) — then compared. A Boolean on the left of a string fails (the
// broker's code casts the Boolean to a String); other mismatches compare as "less".
func javaCompare(l, r value) (int, *failure) {
	if l.kind != r.kind {
		var f *failure
		switch l.kind {
		case vBool:
			if r.kind == vString {
				return 0, failf("a boolean cannot be compared with the string %s", r)
			}
			return -1, nil
		case vInt:
			switch r.kind {
			case vLong:
				l.kind = vLong
			case vDouble:
				l = value{kind: vDouble, f: float64(l.n)}
			case vString:
				r, f = convertString(r, vInt)
			default:
				return -1, nil
			}
		case vLong:
			switch r.kind {
			case vInt:
				r.kind = vLong
			case vDouble:
				l = value{kind: vDouble, f: float64(l.n)}
			case vString:
				r, f = convertString(r, vLong)
			default:
				return -1, nil
			}
		case vDouble:
			switch r.kind {
			case vInt, vLong:
				r = value{kind: vDouble, f: float64(r.n)}
			case vString:
				r, f = convertString(r, vDouble)
			default:
				return -1, nil
			}
		case vString:
			switch r.kind {
			case vBool, vInt, vLong, vDouble:
				l, f = convertString(l, r.kind)
			default:
				return -1, nil
			}
		default:
			return -1, nil
		}
		if f != nil {
			return 0, f
		}
	}
	switch l.kind {
	case vBool:
		// Boolean.compareTo: false < true.
		switch {
		case l.b == r.b:
			return 0, nil
		case !l.b:
			return -1, nil
		}
		return 1, nil
	case vInt, vLong:
		return compareInt(l.n, r.n), nil
	case vDouble:
		return javaCompareDouble(l.f, r.f), nil
	case vString:
		return compareUTF16(l.s, r.s), nil
	}
	return 0, nil
}

// convertString is Integer.valueOf, Long.valueOf, Double.valueOf or Boolean.valueOf
// of a string value.
func convertString(s value, to valueKind) (value, *failure) {
	switch to {
	case vBool:
		return boolean(strings.EqualFold(s.s, "true")), nil
	case vInt, vLong:
		bits := 32
		if to == vLong {
			bits = 64
		}
		n, ok := javaParseInt(s.s, bits)
		if !ok {
			return null, failf("%s is not a whole number of %d bits", s, bits)
		}
		return value{kind: to, n: n}, nil
	case vDouble:
		f, ok := javaParseDouble(s.s)
		if !ok {
			return null, failf("%s is not a number", s)
		}
		return value{kind: vDouble, f: f}, nil
	}
	return null, failf("%s cannot be converted", s)
}

// compareUTF16 is String.compareTo's sign: the order of UTF-16 code units, which
// differs from Go's byte order for characters beyond U+FFFF against U+E000–U+FFFF.
// The broker only ever asks whether it is zero, but keep the sign honest.
func compareUTF16(a, b string) int {
	if a == b {
		return 0
	}
	ea, eb := utf16.Encode([]rune(a)), utf16.Encode([]rune(b))
	for i := 0; i < len(ea) && i < len(eb); i++ {
		if ea[i] != eb[i] {
			return compareInt(int64(ea[i]), int64(eb[i]))
		}
	}
	return compareInt(int64(len(ea)), int64(len(eb)))
}
