package sqlfilter

import (
	"math"
	"strconv"
	"strings"
	"unicode"
)

// The broker is Java: a property is a java.lang.String, a number literal an Integer,
// a Long or a Double, and comparing a string with a number converts the string with
// Integer.valueOf, Long.valueOf or Double.valueOf. These functions accept exactly what
// those accept, so the console converts the same strings the broker does and refuses
// the same others.

// javaParseInt is Integer.valueOf (bits 32) or Long.valueOf (bits 64): an optional
// sign, then decimal digits, any Unicode decimal digit of the Basic Multilingual
// Plane counting (Character.digit), no spaces; false when the number does not fit.
func javaParseInt(s string, bits int) (int64, bool) {
	if s == "" {
		return 0, false
	}
	neg := false
	i := 0
	switch s[0] {
	case '-':
		neg, i = true, 1
	case '+':
		i = 1
	}
	if i == len(s) {
		return 0, false
	}
	limit := uint64(1)<<(bits-1) - 1 // MAX_VALUE
	if neg {
		limit++ // MIN_VALUE's magnitude
	}
	var n uint64
	for _, r := range s[i:] {
		d, ok := javaDigit(r)
		if !ok {
			return 0, false
		}
		if n > (limit-uint64(d))/10 {
			return 0, false
		}
		n = n*10 + uint64(d)
	}
	if neg {
		return -int64(n), true // wraps to MIN_VALUE exactly when n is its magnitude
	}
	return int64(n), true
}

// javaDigit is Character.digit(c, 10) for one UTF-16 unit: the value of a decimal
// digit of the Basic Multilingual Plane (characters beyond it are two units in Java,
// neither a digit).
func javaDigit(r rune) (int, bool) {
	if r >= '0' && r <= '9' {
		return int(r - '0'), true
	}
	if r > 0xFFFF || !unicode.IsDigit(r) {
		return 0, false
	}
	// Unicode keeps every decimal digit in runs of ten from its zero, and Go's
	// table merges adjacent runs: the offset from a range's start modulo ten is
	// the value.
	for _, rg := range unicode.Nd.R16 {
		if uint16(r) >= rg.Lo && uint16(r) <= rg.Hi {
			return int(uint16(r)-rg.Lo) % 10, true
		}
	}
	return 0, false
}

// javaParseDouble is Double.valueOf: the string without leading and trailing
// characters up to U+0020 (String.trim), an optional sign, then NaN, Infinity, a
// decimal number (digits with one optional point, at least one digit, an optional
// exponent) or a hexadecimal one (0x1.8p3, its binary exponent required), and an
// optional type suffix f, F, d or D.
func javaParseDouble(s string) (float64, bool) {
	s = strings.TrimFunc(s, func(r rune) bool { return r <= ' ' })
	if s == "" {
		return 0, false
	}
	body := s
	neg := false
	if body[0] == '+' || body[0] == '-' {
		neg = body[0] == '-'
		body = body[1:]
	}
	switch {
	case body == "NaN":
		return math.NaN(), true
	case body == "Infinity":
		if neg {
			return math.Inf(-1), true
		}
		return math.Inf(1), true
	case strings.HasPrefix(body, "0x") || strings.HasPrefix(body, "0X"):
		if !javaHexFloat(body[2:]) {
			return 0, false
		}
	default:
		if !javaDecimalFloat(body) {
			return 0, false
		}
	}
	if last := s[len(s)-1]; last == 'f' || last == 'F' || last == 'd' || last == 'D' {
		s = s[:len(s)-1]
	}
	// The syntax is checked: ParseFloat only converts. Its ErrRange comes with
	// ±Inf or 0, which is what Java answers too.
	f, err := strconv.ParseFloat(s, 64)
	if err != nil && !isRange(err) {
		return 0, false
	}
	return f, true
}

func isRange(err error) bool {
	ne, ok := err.(*strconv.NumError)
	return ok && ne.Err == strconv.ErrRange
}

// javaDecimalFloat checks digits [. digits] [e [sign] digits] [suffix], with at
// least one digit before the exponent.
func javaDecimalFloat(s string) bool {
	i := digits(s, 0)
	n := i
	if i < len(s) && s[i] == '.' {
		j := digits(s, i+1)
		n += j - i - 1
		i = j
	}
	if n == 0 {
		return false
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		j := digits(s, i)
		if j == i {
			return false
		}
		i = j
	}
	return i == len(s) || (i == len(s)-1 && strings.ContainsRune("fFdD", rune(s[i])))
}

// javaHexFloat checks what follows 0x: hex digits [. hex digits] p [sign] digits
// [suffix], with at least one hex digit.
func javaHexFloat(s string) bool {
	hex := func(i int) int {
		for i < len(s) && (isDigit(s[i]) || s[i] >= 'a' && s[i] <= 'f' || s[i] >= 'A' && s[i] <= 'F') {
			i++
		}
		return i
	}
	i := hex(0)
	n := i
	if i < len(s) && s[i] == '.' {
		j := hex(i + 1)
		n += j - i - 1
		i = j
	}
	if n == 0 || i >= len(s) || (s[i] != 'p' && s[i] != 'P') {
		return false
	}
	i++
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		i++
	}
	j := digits(s, i)
	if j == i {
		return false
	}
	return j == len(s) || (j == len(s)-1 && strings.ContainsRune("fFdD", rune(s[j])))
}

// javaCompareDouble is Double.compare: NaN is above every other value and equal to
// itself, and -0.0 is below 0.0.
func javaCompareDouble(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	ab, bb := doubleToLongBits(a), doubleToLongBits(b)
	switch {
	case ab == bb:
		return 0
	case ab < bb:
		return -1
	}
	return 1
}

// doubleToLongBits is Java's: every NaN has one bit pattern.
func doubleToLongBits(f float64) int64 {
	if math.IsNaN(f) {
		return 0x7ff8000000000000
	}
	return int64(math.Float64bits(f))
}

func compareInt(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}
