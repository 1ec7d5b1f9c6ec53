package filter

import (
	"testing"

	"rmqconsole/fault"
	"rmqconsole/rocketmq"
)

// FuzzFilter: any query either compiles or is refused with Invalid errors on named
// fields, and a compiled filter judges any body without panicking. Seeds are in
// testdata/fuzz/FuzzFilter.
func FuzzFilter(f *testing.F) {
	f.Add("a = 1", "x", `\d+`, "order.id", ">", "4711", []byte(`{"order":{"id":4712}}`))
	f.Add("", "", "", "items.#.sku", "", "", []byte(`{"items":[{"sku":"a"}]}`))
	f.Fuzz(func(t *testing.T, where, contains, regex, path, op, value string, body []byte) {
		flt, err := Compile(Query{Where: where, BodyContains: contains, BodyRegex: regex, JSON: path, JSONOp: op, JSONValue: value})
		if err != nil {
			for _, e := range fault.All(err) {
				if e.Code != fault.Invalid || e.Field == "" {
					t.Fatalf("%+v: an error without a field: %v", e, err)
				}
			}
			if len(fault.All(err)) == 0 {
				t.Fatalf("an error that is no fault: %v", err)
			}
			return
		}
		flt.Match(&rocketmq.Message{Body: body, Properties: map[string]string{"a": value, "TAGS": contains}})
		if again, err := Compile(flt.Query()); err != nil || again.Key() != flt.Key() {
			t.Fatalf("the compiled query does not compile to itself: %v", err)
		}
	})
}
