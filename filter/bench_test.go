package filter

import (
	"fmt"
	"strings"
	"testing"

	"rmqconsole/rocketmq"
)

// BenchmarkMatch measures what a deep scan spends judging each message, against 1 KiB
// JSON bodies where the condition holds for none (so every condition is checked): the
// scan's goal is to keep up with the pulls, tens of thousands of messages a second.
func BenchmarkMatch(b *testing.B) {
	body := fmt.Sprintf(`{"order":{"id":4711,"customer":"Zoë","total":129.5,"items":[%s]}}`,
		strings.TrimSuffix(strings.Repeat(`{"sku":"SKU-1","qty":2,"price":9.5},`, 25), ","))
	m := &rocketmq.Message{Body: []byte(body), Properties: map[string]string{"TAGS": "paid", "region": "eu", "amount": "129", "UNIQ_KEY": "7F0000010001"}}
	for _, c := range []struct {
		name string
		q    Query
	}{
		{"where", Query{Where: "region = 'eu' AND amount > 1000"}},
		{"contains", Query{BodyContains: `"sku":"SKU-9"`}},
		{"json", Query{JSON: "order.total", JSONOp: ">", JSONValue: "1000"}},
		{"regex", Query{BodyRegex: `"sku":"SKU-\d{2}"`}},
		{"all", Query{Where: "region = 'eu'", BodyContains: "Zoë", JSON: "order.items.#.qty", JSONOp: ">", JSONValue: "5"}},
	} {
		b.Run(c.name, func(b *testing.B) {
			f, err := Compile(c.q)
			if err != nil {
				b.Fatal(err)
			}
			b.SetBytes(int64(len(body)))
			b.ReportAllocs()
			for b.Loop() {
				if f.Match(m) {
					b.Fatal("matched")
				}
			}
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "msgs/s")
		})
	}
}
