package sqlfilter

import (
	"errors"
	"strings"
	"testing"

	"rmqconsole/fault"
	"rmqconsole/i18n"
)

// props is one message as the broker's evaluation sees it: every property a string.
var props = map[string]string{
	"TAGS":    "TagA",
	"KEYS":    "k1 k2",
	"a":       "5",
	"s":       "abc",
	"f":       "2.5",
	"big":     "3000000000",
	"neg":     "-7",
	"t":       "TRUE",
	"sp":      " 5 ",
	"nan":     "NaN",
	"arabic":  "٤٢", // Arabic-Indic 42: Integer.valueOf reads it, Double.valueOf does not
	"zh":      "订单已支付",
	"hex":     "0x1p3",
	"plus":    "+5",
	"zero":    "0",
	"mzero":   "-0.0",
	"fsuffix": "2.5f",
	"q":       "it's",
	"inf":     "-Infinity",
}

// TestVerdictsFollowTheBroker pins what the broker's evaluation (ComparisonExpression,
// LogicExpression, UnaryExpression of RocketMQ 5.3.3) answers, case by case, above
// all where it is not what SQL would answer: NULLs, conversions of string
// properties, failures that sink a whole expression, and NOT's precedence.
func TestVerdictsFollowTheBroker(t *testing.T) {
	for _, c := range []struct {
		expr string
		want Verdict
	}{
		// A string property against a whole number: Integer.valueOf.
		{"a = 5", True},
		{"a = '5'", True},
		{"a = 6", False},
		{"a <> 5", False},
		{"a <> 6", True},
		{"a > 4", True},
		{"a >= 5", True},
		{"a < 5", False},
		{"a <= 5", True},
		{"a = 5L", True},
		{"plus = 5", True},
		{"neg < 0", True},
		{"neg = -7", True},
		{"arabic = 42", True},      // Character.digit takes any decimal digit
		{"sp = 5", Failed},         // Integer.valueOf does not trim
		{"s = 5", Failed},          // not a number: the whole expression fails
		{"s > 5", Failed},          //
		{"big > 5", Failed},        // beyond 32 bits for an Integer literal
		{"big > 2147483648", True}, // a Long literal: Long.valueOf
		{"big = 3000000000", True},
		{"mzero = 0", Failed},
		{"hex = 8", Failed},
		{"fsuffix > 2", Failed},
		// Against a decimal literal: Double.valueOf, which trims and takes more forms.
		{"a = 5.0", True},
		{"sp = 5.0", True},
		{"sp > 4.5", True},
		{"hex = 8.0", True},
		{"fsuffix = 2.5", True},
		{"f = 2.5", True},
		{"f > .5", True},
		{"f < 25e-1", False},
		{"f <= 25E-1", True},
		{"big > 5.0", True},
		{"arabic > 41.5", Failed},
		{"nan > 1.5", True}, // Double.compare: NaN is above everything
		{"nan < 1.5", False},
		{"inf < -1.5", True},
		{"mzero < 0.5", True},
		// Two properties: ordered as Double.valueOf numbers, equal as strings.
		{"f < a", True},
		{"a < f", False},
		{"mzero < zero", True}, // -0.0 is below 0.0
		{"nan > f", True},
		{"a = f", False},
		{"nan = nan", True},
		{"s > f", Failed},
		// NULL: a missing property.
		{"missing = 5", Unknown},
		{"missing <> 5", Unknown},
		{"5 = missing", False}, // a value against NULL on the right is FALSE ...
		{"5 <> missing", True}, // ... so <> is TRUE
		{"'x' <> missing", True},
		{"missing = other", True}, // NULL = NULL is TRUE
		{"missing <> other", False},
		{"missing > 1", Unknown},
		{"1 < missing", Unknown},
		{"-a > 1", Unknown}, // minus on a string property is NULL
		{"missing IS NULL", True},
		{"a IS NULL", False},
		{"a IS NOT NULL", True},
		{"missing IS NOT NULL", False},
		{"NULL IS NULL", True},
		{"5 IS NULL", False},
		// Three-valued logic, left to right, stopping when decided.
		{"missing = 1 OR a = 5", True},
		{"missing = 1 OR a = 6", Unknown},
		{"missing = 1 AND a = 6", False},
		{"missing = 1 AND a = 5", Unknown},
		{"NOT (missing = 1)", Unknown},
		{"NOT (a = 6)", True},
		{"s > 5 OR TAGS = 'TagA'", Failed}, // the left side fails first
		{"TAGS = 'TagA' OR s > 5", True},   // decided before the right side
		{"TAGS = 'x' AND s > 5", False},
		{"TAGS = 'TagA' AND s > 5", Failed},
		// TRUE and FALSE: Boolean.valueOf on the string side.
		{"t = TRUE", True},
		{"s = TRUE", False},
		{"s = FALSE", True},
		{"'true' = TRUE", True},
		{"missing = TRUE", Unknown},
		{"TRUE = t", Failed}, // the broker casts the Boolean to a String
		{"TRUE = missing", False},
		{"1 = TRUE", False},
		{"TRUE = TRUE", True},
		{"(a = 5) = TRUE", True},
		{"(a = 5) <> FALSE", True},
		{"(a = 5) = 'true'", Failed},
		{"5 = 5.0", True},
		{"TRUE", True},
		{"FALSE", False},
		{"NULL", Unknown},
		{"NOT NULL", Unknown},
		// A bare property as a condition: FALSE when present, NULL when missing.
		{"a", False},
		{"missing", Unknown},
		{"NOT a", True},
		{"NOT missing", Unknown},
		{"a AND TRUE", False},
		// NOT binds tighter than comparisons.
		{"NOT a = 1", False},         // (NOT a) = 1: TRUE = 1
		{"NOT a = 5", False},         //
		{"NOT missing = 1", Unknown}, //
		{"NOT a IS NULL", False},     // (NOT a) IS NULL
		{"NOT missing IS NULL", True},
		// BETWEEN: two comparisons.
		{"a BETWEEN 1 AND 10", True},
		{"a BETWEEN 5 AND 5", True},
		{"a BETWEEN 6 AND 10", False},
		{"a NOT BETWEEN 6 AND 10", True},
		{"a NOT BETWEEN 10 AND 1", True}, // NOT BETWEEN does not check its bounds
		{"missing BETWEEN 1 AND 10", Unknown},
		{"missing NOT BETWEEN 1 AND 10", Unknown},
		{"s BETWEEN 1 AND 10", Failed},
		{"a BETWEEN -1 AND 5", True},
		{"a BETWEEN 5 AND -1", False}, // a signed bound is not checked
		{"f BETWEEN 2 AND 3", Failed},
		{"f BETWEEN 2.0 AND 3.0", True},
		// IN: strings only, on a property.
		{"TAGS IN ('TagA', 'TagB')", True},
		{"TAGS IN ('taga')", False},
		{"TAGS NOT IN ('TagA')", False},
		{"TAGS NOT IN ('TagB', 'TagC', 'TagD', 'TagE', 'TagF')", True},
		{"missing IN ('x')", Unknown},
		{"missing NOT IN ('x')", Unknown},
		{"a IN ('5')", True},
		{"(a) IN ('5')", True},
		// CONTAINS, STARTSWITH, ENDSWITH: never NULL.
		{"s CONTAINS 'b'", True},
		{"s NOT CONTAINS 'b'", False},
		{"missing CONTAINS 'b'", False},
		{"missing NOT CONTAINS 'b'", False},
		{"NOT (missing CONTAINS 'b')", True},
		{"s CONTAINS ''", False},
		{"s NOT CONTAINS ''", False},
		{"s STARTSWITH 'ab'", True},
		{"s NOT STARTSWITH 'ab'", False},
		{"s ENDSWITH 'bc'", True},
		{"s NOT ENDSWITH 'x'", True},
		{"zh CONTAINS '支付'", True},
		{"zh STARTSWITH '订单'", True},
		{"5 CONTAINS '5'", False},
		{"NOT a CONTAINS 'T'", False}, // (NOT a) CONTAINS: a Boolean is not a string
		// System properties: TAGS and KEYS as stored.
		{"KEYS = 'k1'", False},
		{"KEYS = 'k1 k2'", True},
		{"KEYS CONTAINS 'k2'", True},
		{"TAGS = 'TagA'", True},
		{"tags = 'TagA'", Unknown}, // names are case-sensitive
		// Literals and signs.
		{"q = 'it''s'", True},
		{"-(-5) = a", True},
		{"a = --5", True},
		{"+a = 5", True},
		{"a = +5", True},
		{"a = 5 -- the five\n", True},
		{"/* lead */ a /* mid */ = 5", True},
		{"a = 5 --c\r\nAND f = 2.5", True},
		{"a = 5.e0", True},
		{"s = 'abc' AND f > 2 OR TAGS = 'x'", Failed},
	} {
		e, err := Parse(c.expr)
		if err != nil {
			t.Errorf("%s: %v", c.expr, err)
			continue
		}
		got, why := e.Explain(props)
		if got != c.want {
			t.Errorf("%s: %s, want %s %s", c.expr, got, c.want, why)
		}
		if e.Match(props) != (c.want == True) {
			t.Errorf("%s: Match disagrees with Evaluate", c.expr)
		}
	}
}

func TestNoPropertiesAtAll(t *testing.T) {
	e := MustParse("a IS NULL AND TAGS IS NULL")
	if !e.Match(nil) {
		t.Error("a message without properties has every property NULL")
	}
	if MustParse("a = 1").Evaluate(nil) != Unknown {
		t.Error("a = 1 on no properties is not NULL")
	}
}

// TestSyntaxErrorsNameThePlaceAndTheProblem: every expression the broker refuses is
// refused here too, with the sentence for what is wrong and where.
func TestSyntaxErrorsNameThePlaceAndTheProblem(t *testing.T) {
	for _, c := range []struct {
		expr     string
		id       string
		line     int
		col      int
		contains string // in the English sentence
	}{
		{"a >", "filter.sql.expect.value", 1, 4, "Syntax error at column 4: expected a value after '>'"},
		{"region = 'eu' AND amount >", "filter.sql.expect.value", 1, 27, "after '>'"},
		{"a = ", "filter.sql.expect.value", 1, 5, "after '='"},
		{"a BETWEEN 1 AND", "filter.sql.expect.value", 1, 16, "after AND"},
		{"a = -", "filter.sql.expect.value", 1, 6, "after '-'"},
		{"a = 1 AND", "filter.sql.expect.condition_after", 1, 10, "after AND"},
		{"a = 1 OR )", "filter.sql.expect.condition_after", 1, 10, "found ')'"},
		{"NOT", "filter.sql.expect.condition_after", 1, 4, "after NOT"},
		{"in = 1", "filter.sql.expect.condition", 1, 1, "found IN"},
		{"a = 1\n  AND b >", "filter.sql.expect.value", 2, 10, "line 2, column 10"},
		{"a > 'x'", "filter.sql.not_comparable", 1, 5, "'x' cannot be compared with >"},
		{"'x' < a", "filter.sql.not_comparable", 1, 1, ""},
		{"a > TRUE", "filter.sql.not_comparable", 1, 5, ""},
		{"a BETWEEN 'a' AND 'b'", "filter.sql.not_comparable", 1, 11, ""},
		{"a BETWEEN 'x' AND 5", "filter.sql.not_comparable", 1, 11, ""},
		{"a > NULL", "filter.sql.null_compared", 1, 5, "IS NULL"},
		{"a = NULL", "filter.sql.null_compared", 1, 5, ""},
		{"NULL <> a", "filter.sql.null_compared", 1, 1, ""},
		{"TRUE = 'x'", "filter.sql.bool_compared", 1, 1, "TRUE cannot be compared with 'x'"},
		{"FALSE = 1", "filter.sql.bool_compared", 1, 1, ""},
		{"(a = 1) > 5", "filter.sql.condition_compared", 1, 2, ""},
		{"a > (b = 1)", "filter.sql.condition_compared", 1, 6, ""},
		{"5", "filter.sql.not_condition", 1, 1, "5 is not a condition"},
		{"'x' AND a = 1", "filter.sql.not_condition", 1, 1, ""},
		{"a = 1 OR 7", "filter.sql.not_condition", 1, 10, ""},
		{"NOT 5", "filter.sql.not_condition", 1, 5, ""},
		{"NOT -a", "filter.sql.not_condition", 1, 5, ""},
		{"5 IN ('a')", "filter.sql.in_property", 1, 1, ""},
		{"NOT a IN ('a')", "filter.sql.in_property", 1, 1, ""},
		{"a BETWEEN NULL AND 5", "filter.sql.between_null", 1, 1, ""},
		{"a BETWEEN 5 AND 1", "filter.sql.between_order", 1, 11, "BETWEEN 5 AND 1"},
		{"a BETWEEN 2.5 AND 2", "filter.sql.between_order", 1, 11, ""},
		{"a = 1 b = 2", "filter.sql.trailing", 1, 7, "followed by b"},
		{"a = 007", "filter.sql.trailing", 1, 6, ""},
		{"a = 0L", "filter.sql.trailing", 1, 6, ""},
		{"a = 1 )", "filter.sql.trailing", 1, 7, "')'"},
		{"a = 1 -- note", "filter.sql.trailing.comment", 1, 7, ""},
		{"a != 1", "filter.sql.char.ne", 1, 3, "<>"},
		{"a = 1 && b = 2", "filter.sql.char.logic", 1, 7, "AND or OR"},
		{"a = 1 || b = 2", "filter.sql.char.logic", 1, 7, ""},
		{`a = "x"`, "filter.sql.char.quote", 1, 5, "single quotes"},
		{"a.b = 1", "filter.sql.char.dot", 1, 2, ""},
		{"a = 1 #", "filter.sql.char", 1, 7, "# is not part"},
		{"a = 1 \v", "filter.sql.char", 1, 7, "U+000B"},
		{"名 = 1", "filter.sql.char.name", 1, 1, ""},
		{"a = 'x", "filter.sql.string_open", 1, 5, ""},
		{"a = 1 /* x", "filter.sql.comment_open", 1, 7, ""},
		{"a = 0.0", "filter.sql.number_zero", 1, 5, "write 0"},
		{"a = 0e5", "filter.sql.number_zero", 1, 5, ""},
		{"a = 1e-400", "filter.sql.number_zero", 1, 5, ""},
		{"a = 1e400", "filter.sql.number_inf", 1, 5, ""},
		{"a = 9223372036854775808", "filter.sql.number_big", 1, 5, ""},
		{"a IS 5", "filter.sql.expect.null", 1, 6, "after IS"},
		{"a IS NOT 5", "filter.sql.expect.null", 1, 10, "after IS NOT"},
		{"a NOT x", "filter.sql.expect.not", 1, 7, "NOT (a = 1)"},
		{"a NOT NOT IN ('x')", "filter.sql.expect.not", 1, 7, ""},
		{"a IN 'x'", "filter.sql.expect.in_open", 1, 6, ""},
		{"a IN ('x' 'y')", "filter.sql.expect.in_next", 1, 11, ""},
		{"a IN ()", "filter.sql.expect.string", 1, 7, "IN takes a text"},
		{"a IN (1)", "filter.sql.expect.string", 1, 7, ""},
		{"a CONTAINS b", "filter.sql.expect.string", 1, 12, "CONTAINS takes"},
		{"a not startswith 5", "filter.sql.expect.string", 1, 18, "STARTSWITH takes"},
		{"a BETWEEN 1 OR 2", "filter.sql.expect.between_and", 1, 13, ""},
		{"(a = 1", "filter.sql.expect.rparen", 1, 7, "the ( at column 1"},
		{strings.Repeat("(", 150) + "a = 1" + strings.Repeat(")", 150), "filter.sql.deep", 1, 101, ""},
		{strings.Repeat("NOT ", 150) + "a", "filter.sql.deep", 1, 401, ""},
	} {
		_, err := Parse(c.expr)
		se := SyntaxErrorOf(err)
		if se == nil {
			t.Errorf("%q: %v, want a syntax error", c.expr, err)
			continue
		}
		if se.Msg.ID != c.id || se.Line() != c.line || se.Column() != c.col {
			t.Errorf("%q: %s at %d:%d (%v), want %s at %d:%d", c.expr, se.Msg.ID, se.Line(), se.Column(), err, c.id, c.line, c.col)
		}
		if !strings.Contains(err.Error(), c.contains) {
			t.Errorf("%q: %q does not say %q", c.expr, err.Error(), c.contains)
		}
		fe := fault.As(err)
		if fe == nil || fe.Code != fault.Invalid || fe.Reason != "sql92" {
			t.Errorf("%q: %#v is not an Invalid fault", c.expr, err)
		}
		if !errors.As(err, &se) {
			t.Errorf("%q: the fault does not unwrap to the SyntaxError", c.expr)
		}
	}
}

func TestEmptyAndTooLongExpressionsAreRefused(t *testing.T) {
	for _, expr := range []string{"", "   ", "\n/* nothing */\n", "-- nothing\n"} {
		_, err := Parse(expr)
		if fe := fault.As(err); fe == nil || fe.Msg.ID != "filter.sql.empty" {
			t.Errorf("%q: %v", expr, err)
		}
	}
	_, err := Parse("a = '" + strings.Repeat("x", MaxLength) + "'")
	if fe := fault.As(err); fe == nil || fe.Msg.ID != "filter.sql.long" {
		t.Errorf("too long: %v", err)
	}
}

// What the broker accepts is accepted, including its odd corners.
func TestBrokerAcceptedFormsParse(t *testing.T) {
	for _, expr := range []string{
		"a = 1 AND b <> 'x' OR NOT (c > 2.5)",
		"TAGS IN ('a') AND KEYS CONTAINS 'k'",
		"a between 1 and 2", // keywords in any case
		"a Is Not Null",
		"INX = 1 AND $x = 2 AND _y = 3 AND ORDER1 = 4", // names that start with a keyword
		"'x' = TRUE",
		"1 = TRUE",
		"NULL IS NULL",
		"5 CONTAINS 'x'",
		"a = b = c", // equality chains
		"a = 9223372036854775807",
		"a = 2147483648",
		"a = 1.7976931348623157e308",
		"a = 4.9e-324",
		"a > -(b = 1)", // a minus hides a condition from the ordering check, as on the broker
		"a = 1 -- note\n",
		"a\t=\f1\r\n",
		"(((a = 1)))",
		"a NOT BETWEEN 10 AND 1",
	} {
		if _, err := Parse(expr); err != nil {
			t.Errorf("%q: %v", expr, err)
		}
	}
}

func TestPropertiesAndBrokerVersion(t *testing.T) {
	e := MustParse("region = 'eu' AND (amount > 100 OR TAGS IN ('vip')) AND region IS NOT NULL")
	if got := strings.Join(e.Properties(), ","); got != "TAGS,amount,region" {
		t.Errorf("Properties = %s", got)
	}
	if e.MinBrokerVersion() != "" {
		t.Errorf("MinBrokerVersion = %q", e.MinBrokerVersion())
	}
	if v := MustParse("a NOT ENDSWITH 'x'").MinBrokerVersion(); v != "5.1.3" {
		t.Errorf("ENDSWITH needs 5.1.3, got %q", v)
	}
	if e.String() != "region = 'eu' AND (amount > 100 OR TAGS IN ('vip')) AND region IS NOT NULL" {
		t.Errorf("String = %q", e.String())
	}
}

func TestQuoteMakesALiteral(t *testing.T) {
	e := MustParse("q = " + Quote("it's"))
	if !e.Match(map[string]string{"q": "it's"}) {
		t.Error("Quote did not round-trip")
	}
}

// TestJavaNumberParsing pins Integer.valueOf, Long.valueOf and Double.valueOf.
func TestJavaNumberParsing(t *testing.T) {
	ints := map[string]int64{"0": 0, "-0": 0, "+5": 5, "007": 7, "2147483647": 2147483647, "-2147483648": -2147483648, "٤٢": 42, "１２": 12}
	for s, want := range ints {
		if got, ok := javaParseInt(s, 32); !ok || got != want {
			t.Errorf("Integer.valueOf(%q) = %d, %v; want %d", s, got, ok, want)
		}
	}
	for _, s := range []string{"", "-", "+", " 5", "5 ", "2147483648", "-2147483649", "1.0", "1e3", "0x10", "5L", "--5", "𝟓"} {
		if _, ok := javaParseInt(s, 32); ok {
			t.Errorf("Integer.valueOf(%q) accepted", s)
		}
	}
	if n, ok := javaParseInt("-9223372036854775808", 64); !ok || n != -9223372036854775808 {
		t.Errorf("Long.valueOf(MIN) = %d, %v", n, ok)
	}
	if _, ok := javaParseInt("9223372036854775808", 64); ok {
		t.Error("Long.valueOf(MAX+1) accepted")
	}
	doubles := map[string]float64{"1": 1, " 2.5 ": 2.5, "\t-3\n": -3, "1e3": 1000, "1E+3": 1000, ".5": 0.5, "5.": 5, "2.5f": 2.5, "2.5D": 2.5, "0x1p3": 8, "0X1.8P1": 3, "-0x.8p1d": -1, "1e400": 0, "Infinity": 0, "+5": 5}
	for s, want := range doubles {
		got, ok := javaParseDouble(s)
		if !ok || (want != 0 && got != want) {
			t.Errorf("Double.valueOf(%q) = %v, %v; want %v", s, got, ok, want)
		}
	}
	for _, s := range []string{"", ".", "e5", "1e", "1e+", "nan", "inf", "infinity", "1_000", "1.5x", "0x1", "0x1.8", "1ff", "٤٢", "0x", "--1", "1.2.3"} {
		if _, ok := javaParseDouble(s); ok {
			t.Errorf("Double.valueOf(%q) accepted", s)
		}
	}
}

// Every sentence the package says is in both catalogues, with its values filled.
func TestSentencesAreInBothLanguages(t *testing.T) {
	exprs := []string{"a >", "a > 'x'", "a = 1 b", "a != 1", "a = 1 AND", "(a = 1", "a IS 5", "x BETWEEN 5 AND 1", "a = 0.0", "\n a >"}
	for _, expr := range exprs {
		_, err := Parse(expr)
		fe := fault.As(err)
		for _, lang := range []string{"en", "zh-CN"} {
			s := fe.Say(i18n.Match(lang))
			if strings.Contains(s, "filter.sql") || strings.Contains(s, "<no value>") {
				t.Errorf("%q in %s: %s", expr, lang, s)
			}
		}
	}
}
