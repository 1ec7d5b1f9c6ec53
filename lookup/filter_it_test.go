package lookup

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/apache/rocketmq-client-go/v2/primitive"

	"rmqconsole/dev"
	"rmqconsole/filter"
)

// filterCase is a filter and the messages it should keep, judged here by hand from
// what was sent, not by the filter package.
type filterCase struct {
	name string
	q    filter.Query
	want func(i int) bool
}

// filterMessages are 60 messages with varied properties, tags and bodies: message i
// has region eu (i%3 == 0), us (i%3 == 1) or none, amount i*10, tag Paid on even i,
// a JSON body {"order":i,"total":i*1.5,"items":[...]} on i%4 != 3, else a binary body
// holding the text "order-i" after a NUL.
func filterMessages(topic, key string) []*primitive.Message {
	var ms []*primitive.Message
	for i := range 60 {
		props := map[string]string{"amount": strconv.Itoa(i * 10)}
		switch i % 3 {
		case 0:
			props["region"] = "eu"
		case 1:
			props["region"] = "us"
		}
		tag := "Open"
		if i%2 == 0 {
			tag = "Paid"
		}
		body := fmt.Sprintf(`{"order":%d,"total":%g,"items":[{"sku":"sku-%d"}]}`, i, float64(i)*1.5, i%5)
		if i%4 == 3 {
			body = "\x00\xffbinary order-" + strconv.Itoa(i)
		}
		ms = append(ms, msg(topic, body, tag, []string{key, "k-" + strconv.Itoa(i)}, props))
	}
	return ms
}

var filterCases = []filterCase{
	{"SQL92 on a property", filter.Query{Where: "region = 'eu' AND amount > 200"}, func(i int) bool { return i%3 == 0 && i*10 > 200 }},
	{"SQL92 on TAGS and a missing property", filter.Query{Where: "TAGS = 'Paid' AND region IS NULL"}, func(i int) bool { return i%2 == 0 && i%3 == 2 }},
	{"SQL92 IN and BETWEEN", filter.Query{Where: "region IN ('us') AND amount BETWEEN 100 AND 300"}, func(i int) bool { return i%3 == 1 && i >= 10 && i <= 30 }},
	{"body contains, binary bodies too", filter.Query{BodyContains: "order-7"}, func(i int) bool { return i%4 == 3 && (i == 7) }},
	{"body regular expression", filter.Query{BodyRegex: `"order":1[0-9],`}, func(i int) bool { return i%4 != 3 && i >= 10 && i <= 19 }},
	{"JSON field comparison", filter.Query{JSON: "total", JSONOp: ">=", JSONValue: "60"}, func(i int) bool { return i%4 != 3 && float64(i)*1.5 >= 60 }},
	{"JSON field of every element", filter.Query{JSON: "items.#.sku", JSONOp: "=", JSONValue: "sku-3"}, func(i int) bool { return i%4 != 3 && i%5 == 3 }},
	{"SQL92 and a body condition together", filter.Query{Where: "region = 'us'", JSON: "order", JSONOp: "<", JSONValue: "20"}, func(i int) bool { return i%3 == 1 && i%4 != 3 && i < 20 }},
}

// Filters on the range and key queries keep exactly the messages that match, read from
// the real broker: SQL92 on properties and tags, body text, regular expressions and
// JSON fields, binary bodies included; the range result counts what was read.
func TestIntegrationFilters(t *testing.T) {
	e, topic, p := startIT(t, "lk-filter", 4)
	key := dev.UniqueName("fk")
	ss := sendAll(t, p, 4, filterMessages(topic, key)...)
	b, en := span(ss)
	ctx := ctxT(t)
	index := map[string]int{}
	for i, s := range ss {
		index[s.uniq] = i
	}
	dev.Eventually(t, 30*time.Second, "index the 60 messages", func() error {
		r, err := e.svc.ByKey(ctx, KeyQuery{Topic: topic, Key: key})
		if err != nil {
			return err
		}
		if len(r.Messages) < 60 {
			return fmt.Errorf("%d indexed", len(r.Messages))
		}
		return nil
	})
	for _, c := range filterCases {
		f, err := filter.Compile(c.q)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		want := map[string]bool{}
		for i, s := range ss {
			if c.want(i) {
				want[s.uniq] = true
			}
		}
		if len(want) == 0 {
			t.Fatalf("%s: the case keeps nothing", c.name)
		}
		r, err := e.svc.ByRange(ctx, RangeQuery{Topic: topic, Begin: b, End: en, Filter: f})
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if got := uniqs(r.Messages); !maps.Equal(got, want) || r.Total != int64(len(want)) || r.Truncated {
			t.Errorf("%s, range: %d kept (total %d, truncated %v), want %d: %v", c.name, len(got), r.Total, r.Truncated, len(want), sentIndexes(index, got))
		}
		if r.InRange != 60 || r.Scanned != 60 {
			t.Errorf("%s, range: %d in range, %d read; want 60 and 60", c.name, r.InRange, r.Scanned)
		}
		checkNewestFirst(t, r.Messages)
		k, err := e.svc.ByKey(ctx, KeyQuery{Topic: topic, Key: key, Filter: f})
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if got := uniqs(k.Messages); !maps.Equal(got, want) {
			t.Errorf("%s, key: %d kept, want %d: %v", c.name, len(got), len(want), sentIndexes(index, got))
		}
	}
}

func sentIndexes(index map[string]int, got map[string]bool) []int {
	var out []int
	for u := range got {
		out = append(out, index[u])
	}
	slices.Sort(out)
	return out
}
