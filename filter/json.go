package filter

import (
	"math"
	"strconv"
	"strings"

	"github.com/tidwall/gjson"

	"rmqconsole/fault"
)

// jsonOp is how a JSON field is compared with the value asked for.
type jsonOp uint8

const (
	opEq jsonOp = iota
	opNe
	opLt
	opLe
	opGt
	opGe
	opContains
	opExists
)

var jsonOpNames = [...]string{opEq: "=", opNe: "!=", opLt: "<", opLe: "<=", opGt: ">", opGe: ">=", opContains: "contains", opExists: "exists"}

func (o jsonOp) String() string { return jsonOpNames[o] }

// jsonOpOf reads an operator as written in a form or a URL: the symbols, and words
// for those that are awkward in a URL.
func jsonOpOf(s string) (jsonOp, bool) {
	switch strings.ToLower(s) {
	case "=", "==", "eq":
		return opEq, true
	case "!=", "<>", "ne":
		return opNe, true
	case "<", "lt":
		return opLt, true
	case "<=", "le":
		return opLe, true
	case ">", "gt":
		return opGt, true
	case ">=", "ge":
		return opGe, true
	case "contains":
		return opContains, true
	case "exists":
		return opExists, true
	}
	return 0, false
}

// jsonCond is a compiled JSON field condition.
type jsonCond struct {
	path  string
	op    jsonOp
	value string
	// num is value as a number, when it is one: numbers compare as numbers.
	num    float64
	isNum  bool
	intVal int64
	isInt  bool
}

func compileJSON(q Query) (*jsonCond, fault.List) {
	var errs fault.List
	if q.JSON == "" {
		if q.JSONValue != "" || q.JSONOp != "" {
			errs.Invalid(FieldJSON, "filter.json.path.missing")
		}
		return nil, errs
	}
	c := &jsonCond{path: q.JSON, value: q.JSONValue}
	switch {
	case len(q.JSON) > MaxJSONPath:
		errs.Invalid(FieldJSON, "filter.json.path.long", "Max", MaxJSONPath)
	case strings.HasPrefix(q.JSON, "$"):
		errs.Invalid(FieldJSON, "filter.json.path.dollar", "Suggest", suggestPath(q.JSON))
	}
	switch {
	case q.JSONOp == "" && q.JSONValue == "":
		c.op = opExists
	case q.JSONOp == "":
		c.op = opEq
	default:
		op, ok := jsonOpOf(q.JSONOp)
		if !ok {
			errs.Invalid(FieldJSONOp, "filter.json.op.bad", "Op", q.JSONOp)
		}
		c.op = op
	}
	if len(q.JSONValue) > MaxJSONValue {
		errs.Invalid(FieldJSONValue, "filter.json.value.long", "Max", MaxJSONValue)
	}
	if len(errs) == 0 {
		switch {
		case c.op == opExists && q.JSONValue != "":
			errs.Invalid(FieldJSONValue, "filter.json.value.exists")
		case c.op != opExists && c.op != opEq && c.op != opNe && q.JSONValue == "":
			errs.Invalid(FieldJSONValue, "filter.json.value.missing", "Op", c.op.String())
		}
	}
	if len(errs) > 0 {
		return nil, errs
	}
	if f, err := strconv.ParseFloat(strings.TrimSpace(c.value), 64); err == nil && !math.IsNaN(f) && !math.IsInf(f, 0) {
		c.num, c.isNum = f, true
		if n, err := strconv.ParseInt(strings.TrimSpace(c.value), 10, 64); err == nil {
			c.intVal, c.isInt = n, true
		}
	}
	return c, nil
}

// suggestPath turns the simplest JSONPath ($.a.b[0].c) into its GJSON form (a.b.0.c),
// for the sentence that refuses it.
func suggestPath(p string) string {
	p = strings.TrimPrefix(strings.TrimPrefix(p, "$"), ".")
	p = strings.NewReplacer("[*]", ".#", "['", ".", "']", "", "[", ".", "]", "").Replace(p)
	return strings.TrimPrefix(p, ".")
}

// match reports whether the body is JSON whose field at the path satisfies the
// condition. A body that is not JSON, or lacks the field, satisfies no condition but
// exists fails too: like a missing property in SQL92 the field is unknown, so = and !=
// both fail. When the path yields an array (items.#.sku, or a field holding an
// array), one element satisfying the condition is enough.
func (c *jsonCond) match(body []byte) bool {
	if !validJSON(body) {
		return false
	}
	r := gjson.GetBytes(body, c.path)
	if !r.Exists() {
		return false
	}
	if c.op == opExists {
		return true
	}
	if r.IsArray() {
		hit := false
		r.ForEach(func(_, el gjson.Result) bool {
			hit = c.matchOne(el)
			return !hit
		})
		return hit
	}
	return c.matchOne(r)
}

// matchOne compares one JSON value. Numbers compare as numbers (whole numbers
// exactly), and so do strings when both they and the value read as numbers ("12.5" in
// a body that writes numbers as strings); other strings compare as text. true, false
// and null equal the words. contains looks in a string's text, or another value's JSON.
func (c *jsonCond) matchOne(r gjson.Result) bool {
	if c.op == opContains {
		if r.Type == gjson.String {
			return strings.Contains(r.Str, c.value)
		}
		return strings.Contains(r.Raw, c.value)
	}
	cmp, ok := c.compare(r)
	if !ok {
		return c.op == opNe
	}
	switch c.op {
	case opEq:
		return cmp == 0
	case opNe:
		return cmp != 0
	case opLt:
		return cmp < 0
	case opLe:
		return cmp <= 0
	case opGt:
		return cmp > 0
	}
	return cmp >= 0
}

// compare orders the JSON value against the asked value; false when they cannot be
// compared (a number against a word, an object against anything).
func (c *jsonCond) compare(r gjson.Result) (int, bool) {
	switch r.Type {
	case gjson.Number:
		if !c.isNum {
			return 0, false
		}
		return c.compareNumber(r.Raw, r.Num), true
	case gjson.String:
		if c.isNum {
			if f, err := strconv.ParseFloat(strings.TrimSpace(r.Str), 64); err == nil {
				return c.compareNumber(strings.TrimSpace(r.Str), f), true
			}
		}
		return strings.Compare(r.Str, c.value), true
	case gjson.True, gjson.False:
		if !strings.EqualFold(c.value, "true") && !strings.EqualFold(c.value, "false") {
			return 0, false
		}
		if (r.Type == gjson.True) == strings.EqualFold(c.value, "true") {
			return 0, true
		}
		if r.Type == gjson.False {
			return -1, true
		}
		return 1, true
	case gjson.Null:
		if strings.EqualFold(c.value, "null") {
			return 0, true
		}
		return 0, false
	}
	return 0, false
}

// compareNumber compares a JSON number, written raw, with the value: exactly when
// both are whole numbers of 64 bits (ids beyond 2^53), as doubles otherwise.
func (c *jsonCond) compareNumber(raw string, f float64) int {
	if c.isInt {
		if n, err := strconv.ParseInt(raw, 10, 64); err == nil {
			switch {
			case n < c.intVal:
				return -1
			case n > c.intVal:
				return 1
			}
			return 0
		}
	}
	switch {
	case f < c.num:
		return -1
	case f > c.num:
		return 1
	}
	return 0
}
