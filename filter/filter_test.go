package filter

import (
	"strings"
	"testing"

	"rmqconsole/fault"
	"rmqconsole/i18n"
	"rmqconsole/rocketmq"
)

const order = `{"order":{"id":4711,"bigId":9007199254740993,"total":"129.50","paid":true,"note":null,
"customer":{"name":"Zoë","region":"eu"},"items":[{"sku":"A-1","qty":2,"price":9.5},{"sku":"B-7","qty":1,"price":110.5}],
"tags":["vip","repeat"]},"a.b":1}`

func msg(body string, props map[string]string) *rocketmq.Message {
	return &rocketmq.Message{Body: []byte(body), Properties: props}
}

func TestMatchCombinesEveryCondition(t *testing.T) {
	props := map[string]string{"TAGS": "paid", "region": "eu", "amount": "129"}
	binary := string([]byte{0x08, 0x96, 0x01, 0xff, 0x00, 'p', 'a', 'i', 'd'})
	for _, c := range []struct {
		name string
		q    Query
		body string
		want bool
	}{
		{"empty query", Query{}, binary, true},
		{"where true", Query{Where: "TAGS = 'paid' AND amount > 100"}, order, true},
		{"where false", Query{Where: "region = 'us'"}, order, false},
		{"contains", Query{BodyContains: `"sku":"B-7"`}, order, true},
		{"contains is case-sensitive", Query{BodyContains: "zoë"}, order, false},
		{"contains unicode", Query{BodyContains: "Zoë"}, order, true},
		{"contains in a binary body", Query{BodyContains: "paid"}, binary, true},
		{"regex", Query{BodyRegex: `"sku":"[A-Z]-\d"`}, order, true},
		{"regex case-insensitive", Query{BodyRegex: `(?i)ZOË`}, order, true},
		{"regex on binary", Query{BodyRegex: `\x00p.id$`}, binary, true},
		{"regex reads invalid UTF-8 as U+FFFD", Query{BodyRegex: `^\x08\x{FFFD}`}, binary, true},
		{"regex misses", Query{BodyRegex: `sku":"C-`}, order, false},
		{"json number =", Query{JSON: "order.id", JSONValue: "4711"}, order, true},
		{"json number = decimal form", Query{JSON: "order.id", JSONValue: "4711.0"}, order, true},
		{"json number !=", Query{JSON: "order.id", JSONOp: "!=", JSONValue: "4711"}, order, false},
		{"json big id exact", Query{JSON: "order.bigId", JSONValue: "9007199254740993"}, order, true},
		{"json big id off by one", Query{JSON: "order.bigId", JSONValue: "9007199254740992"}, order, false},
		{"json string holding a number >", Query{JSON: "order.total", JSONOp: ">", JSONValue: "100"}, order, true},
		{"json string holding a number <=", Query{JSON: "order.total", JSONOp: "le", JSONValue: "129.5"}, order, true},
		{"json string =", Query{JSON: "order.customer.region", JSONOp: "=", JSONValue: "eu"}, order, true},
		{"json string ordered as text", Query{JSON: "order.customer.name", JSONOp: ">=", JSONValue: "Z"}, order, true},
		{"json string contains", Query{JSON: "order.customer.name", JSONOp: "contains", JSONValue: "oë"}, order, true},
		{"json bool", Query{JSON: "order.paid", JSONValue: "true"}, order, true},
		{"json bool other", Query{JSON: "order.paid", JSONValue: "false"}, order, false},
		{"json null", Query{JSON: "order.note", JSONValue: "null"}, order, true},
		{"json exists", Query{JSON: "order.note"}, order, true},
		{"json exists op", Query{JSON: "order.customer", JSONOp: "exists"}, order, true},
		{"json missing field", Query{JSON: "order.refund"}, order, false},
		{"json missing field !=", Query{JSON: "order.refund", JSONOp: "!=", JSONValue: "x"}, order, false},
		{"json number against a word", Query{JSON: "order.id", JSONValue: "abc"}, order, false},
		{"json number != a word", Query{JSON: "order.id", JSONOp: "!=", JSONValue: "abc"}, order, true},
		{"json array any element", Query{JSON: "order.items.#.sku", JSONValue: "B-7"}, order, true},
		{"json array any element >", Query{JSON: "order.items.#.price", JSONOp: "gt", JSONValue: "100"}, order, true},
		{"json array no element", Query{JSON: "order.items.#.qty", JSONOp: ">", JSONValue: "5"}, order, false},
		{"json array field", Query{JSON: "order.tags", JSONValue: "vip"}, order, true},
		{"json array index", Query{JSON: "order.items.1.sku", JSONValue: "B-7"}, order, true},
		{"json query", Query{JSON: `order.items.#(qty>1).sku`, JSONValue: "A-1"}, order, true},
		{"json escaped dot", Query{JSON: `a\.b`, JSONValue: "1"}, order, true},
		{"json on a binary body", Query{JSON: "order.id"}, binary, false},
		{"json on broken JSON", Query{JSON: "order.id", JSONValue: "4711"}, `{"order":{"id":4711`, false},
		{"all together", Query{Where: "TAGS = 'paid'", BodyContains: "4711", BodyRegex: `Zo.`, JSON: "order.total", JSONOp: ">=", JSONValue: "129.50"}, order, true},
		{"all but one", Query{Where: "TAGS = 'paid'", BodyContains: "4711", BodyRegex: `Zo.`, JSON: "order.total", JSONOp: ">", JSONValue: "129.50"}, order, false},
	} {
		f, err := Compile(c.q)
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		if got := f.Match(msg(c.body, props)); got != c.want {
			t.Errorf("%s: Match = %v, want %v", c.name, got, c.want)
		}
	}
}

// TestCompileFindsEveryInputErrorAtOnce: one request with several mistakes is told all
// of them, each on its field, before anything is read.
func TestCompileFindsEveryInputErrorAtOnce(t *testing.T) {
	_, err := Compile(Query{Where: "amount >", BodyRegex: "(unclosed", JSON: "$.order.items[0].sku", JSONOp: "~", BodyContains: strings.Repeat("x", MaxContains+1)})
	list := fault.All(err)
	want := map[string]string{
		FieldWhere:        "filter.sql.error",
		FieldBodyRegex:    "filter.regex.bad",
		FieldJSON:         "filter.json.path.dollar",
		FieldJSONOp:       "filter.json.op.bad",
		FieldBodyContains: "filter.contains.long",
	}
	if len(list) != len(want) {
		t.Fatalf("got %d errors, want %d: %v", len(list), len(want), err)
	}
	for field, id := range want {
		e := list.For(field)
		if e == nil || e.Msg.ID != id || e.Code != fault.Invalid {
			t.Errorf("%s: %+v, want %s", field, e, id)
		}
	}
	if s := list.For(FieldWhere).Error(); !strings.Contains(s, "column 9") || !strings.Contains(s, "after '>'") {
		t.Errorf("where: %s", s)
	}
	if s := list.For(FieldBodyRegex).Error(); !strings.Contains(s, "missing closing )") {
		t.Errorf("regex: %s", s)
	}
	if s := list.For(FieldJSON).Error(); !strings.Contains(s, "write order.items.0.sku") {
		t.Errorf("json: %s", s)
	}
}

func TestCompileRefusesIncompleteJSONConditions(t *testing.T) {
	for _, c := range []struct {
		q     Query
		field string
		id    string
	}{
		{Query{JSONValue: "4711"}, FieldJSON, "filter.json.path.missing"},
		{Query{JSONOp: ">"}, FieldJSON, "filter.json.path.missing"},
		{Query{JSON: "order.id", JSONOp: ">"}, FieldJSONValue, "filter.json.value.missing"},
		{Query{JSON: "order.id", JSONOp: "exists", JSONValue: "1"}, FieldJSONValue, "filter.json.value.exists"},
		{Query{JSON: strings.Repeat("a", MaxJSONPath+1)}, FieldJSON, "filter.json.path.long"},
		{Query{JSON: "a", JSONValue: strings.Repeat("v", MaxJSONValue+1)}, FieldJSONValue, "filter.json.value.long"},
		{Query{BodyRegex: strings.Repeat("a", MaxRegex+1)}, FieldBodyRegex, "filter.regex.long"},
		{Query{Where: "tags = 'paid'"}, FieldWhere, "filter.where.case"},
		{Query{Where: "Keys CONTAINS 'k'"}, FieldWhere, "filter.where.case"},
		{Query{Where: "   "}, "", ""}, // only spaces: no condition
	} {
		_, err := Compile(c.q)
		if c.field == "" {
			if err != nil {
				t.Errorf("%+v: %v", c.q, err)
			}
			continue
		}
		e := fault.All(err).For(c.field)
		if e == nil || e.Msg.ID != c.id {
			t.Errorf("%+v: %v, want %s on %s", c.q, err, c.id, c.field)
		}
	}
}

func TestQueryRoundTripsThroughValues(t *testing.T) {
	q := Query{Where: "a = 'x y'", BodyContains: "&=", BodyRegex: `\d+`, JSON: "a.b", JSONOp: ">=", JSONValue: "5"}
	v := q.Values()
	if got := QueryFrom(v.Get); got != q {
		t.Errorf("round trip: %+v", got)
	}
	if (Query{}).Values().Encode() != "" || !(Query{}).IsZero() {
		t.Error("an empty query has values")
	}
	f1, _ := Compile(Query{JSON: " order.id ", JSONValue: "1"})
	f2, _ := Compile(Query{JSON: "order.id", JSONOp: "=", JSONValue: "1"})
	if f1.Key() != f2.Key() {
		t.Errorf("one filter, two keys: %q and %q", f1.Key(), f2.Key())
	}
	if f1.NeedsBody() != true {
		t.Error("a JSON filter needs bodies")
	}
	if f, _ := Compile(Query{Where: "a = 1"}); f.NeedsBody() || f.IsZero() || f.Where() == nil {
		t.Error("a property filter")
	}
	var nilFilter *Filter
	if !nilFilter.Match(msg("x", nil)) || !nilFilter.IsZero() {
		t.Error("a nil filter matches everything")
	}
}

func TestSentencesAreInBothLanguages(t *testing.T) {
	_, err := Compile(Query{Where: "tags = 1", BodyRegex: "(", JSON: "$.a", JSONOp: "~", JSONValue: ""})
	_, err2 := Compile(Query{JSON: "a", JSONOp: "<"})
	_, err3 := Compile(Query{JSON: "a", JSONOp: "exists", JSONValue: "1"})
	_, err4 := Compile(Query{JSONValue: "1", BodyContains: strings.Repeat("x", MaxContains+1)})
	for _, err := range []error{err, err2, err3, err4} {
		for _, e := range fault.All(err) {
			for _, lang := range []string{"en", "zh-CN"} {
				s := e.Say(i18n.Match(lang))
				if strings.HasPrefix(s, "filter.") || strings.Contains(s, "<no value>") {
					t.Errorf("%s in %s: %s", e.Msg.ID, lang, s)
				}
			}
		}
	}
}

func TestAMaskedFilterJudgesTheMessageAsTheReaderSeesIt(t *testing.T) {
	f, err := Compile(Query{BodyContains: "secret"})
	if err != nil {
		t.Fatal(err)
	}
	m := &rocketmq.Message{Body: []byte("a secret")}
	hide := func(m *rocketmq.Message) *rocketmq.Message { return &rocketmq.Message{Body: []byte("a ••••")} }
	masked := f.MaskedBy("viewer", hide)
	if !f.Match(m) || masked.Match(m) {
		t.Fatalf("unmasked matches %v, masked matches %v: want true, false", f.Match(m), masked.Match(m))
	}
	if masked.Key() == f.Key() {
		t.Error("a masked filter shares its key (and so its live tail) with an unmasked one")
	}
	var none *Filter
	if none.MaskedBy("viewer", hide) != nil {
		t.Error("a filter that asks for nothing became one that asks for something")
	}
}
