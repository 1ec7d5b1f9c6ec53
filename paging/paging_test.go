package paging

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"rmqconsole/fault"
)

// row is a list row with a sort key that many rows share, so the name must break ties.
type row struct {
	name string
	lag  int64
}

var byLag = Keys[row]{
	Order: func(a, b row) int { return cmp.Or(cmp.Compare(b.lag, a.lag), strings.Compare(a.name, b.name)) },
	Key:   func(r row, c *Cursor) { c.Name, c.Num = r.name, &r.lag },
	Row: func(c Cursor) row {
		r := row{name: c.Name}
		if c.Num != nil {
			r.lag = *c.Num
		}
		return r
	},
}

func rows(n int) []row {
	out := make([]row, n)
	for i := range out {
		out[i] = row{name: fmt.Sprintf("g%04d", i), lag: int64(i % 7)}
	}
	slices.SortFunc(out, byLag.Order)
	return out
}

func TestCursorRoundTripKeepsNameAndSortKey(t *testing.T) {
	q := Query{Sort: "lag", Desc: true, Filter: []string{"orders", "false"}}
	n := int64(42)
	c, err := decode(q, encode(q, Cursor{Name: "GID_orders", Num: &n, Float: 1.5, Text: "FIFO"}))
	if err != nil {
		t.Fatal(err)
	}
	if c.Name != "GID_orders" || c.Num == nil || *c.Num != 42 || c.Float != 1.5 || c.Text != "FIFO" {
		t.Fatalf("decoded %+v", c)
	}
}

func TestPagesCoverEveryRowOnceInOrder(t *testing.T) {
	all := rows(123)
	q := Query{Sort: "lag", Filter: []string{""}}
	for _, limit := range []int{1, 7, 50, 122, 123, 500} {
		var got []row
		after, pages := "", 0
		for {
			page, next, err := Cut(all, q, byLag, limit, after)
			if err != nil {
				t.Fatalf("limit %d, page %d: %v", limit, pages, err)
			}
			if len(page) > limit {
				t.Fatalf("limit %d: a page of %d rows", limit, len(page))
			}
			got = append(got, page...)
			pages++
			if next == "" {
				break
			}
			after = next
		}
		if !slices.Equal(got, all) {
			t.Fatalf("limit %d: pages hold %d rows, not the %d of the list in order", limit, len(got), len(all))
		}
		if want := (len(all) + limit - 1) / limit; pages != want {
			t.Errorf("limit %d: %d pages, want %d", limit, pages, want)
		}
	}
}

func TestLastPageHasNoNext(t *testing.T) {
	all := rows(100)
	q := Query{}
	page, next, err := Cut(all, q, byLag, 100, "")
	if err != nil || len(page) != 100 || next != "" {
		t.Fatalf("a page as long as the list: %d rows, next %q, %v", len(page), next, err)
	}
	page, next, _ = Cut(all, q, byLag, 60, "")
	if len(page) != 60 || next == "" {
		t.Fatalf("the first of two pages: %d rows, next %q", len(page), next)
	}
	page, next, err = Cut(all, q, byLag, 60, next)
	if err != nil || len(page) != 40 || next != "" {
		t.Fatalf("the second of two pages: %d rows, next %q, %v", len(page), next, err)
	}
	page, next, err = Cut(nil, q, byLag, 50, "")
	if err != nil || len(page) != 0 || next != "" {
		t.Fatalf("an empty list: %d rows, next %q, %v", len(page), next, err)
	}
}

// A row deleted between two pages neither costs the next page a row nor repeats one.
func TestRowGoneSinceTheCursorIsNotSkippedOver(t *testing.T) {
	all := rows(30)
	q := Query{}
	first, next, _ := Cut(all, q, byLag, 10, "")
	last := first[len(first)-1]
	rest := slices.DeleteFunc(slices.Clone(all), func(r row) bool { return r == last })
	second, _, err := Cut(rest, q, byLag, 10, next)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(second, all[10:20]) {
		t.Fatalf("after the last row of page one was deleted, page two is %v, want %v", second, all[10:20])
	}
}

func TestBadCursorIsASentenceOnTheCursorField(t *testing.T) {
	q := Query{Sort: "lag", Filter: []string{"a"}}
	other := encode(Query{Sort: "lag", Filter: []string{"b"}}, Cursor{Name: "g1"})
	desc := encode(Query{Sort: "lag", Desc: true, Filter: []string{"a"}}, Cursor{Name: "g1"})
	for _, tc := range []struct{ cursor, reason string }{
		{"not a cursor!", "bad_cursor"},
		{"eyJ4IjoxfQ", "bad_cursor"}, // {"x":1}: JSON, but names no row
		{other, "stale_cursor"},
		{desc, "stale_cursor"},
	} {
		_, _, err := Cut(rows(10), q, byLag, 5, tc.cursor)
		var fe *fault.Error
		if !errors.As(err, &fe) || fe.Code != fault.Invalid || fe.Field != "cursor" || fe.Reason != tc.reason {
			t.Errorf("cursor %q: %v, want an invalid cursor (%s)", tc.cursor, err, tc.reason)
			continue
		}
		if !strings.Contains(fe.Error(), "first page") {
			t.Errorf("cursor %q: %q does not say what to do", tc.cursor, fe.Error())
		}
	}
}

func TestLimits(t *testing.T) {
	for s, want := range map[string]int{"": DefaultLimit, "1": 1, "50": 50, "500": MaxLimit} {
		if n, err := ParseLimit(s); err != nil || n != want {
			t.Errorf("limit %q: %d, %v; want %d", s, n, err, want)
		}
	}
	for _, s := range []string{"0", "-1", "501", "ten", "1.5", " 5"} {
		_, err := ParseLimit(s)
		var fe *fault.Error
		if !errors.As(err, &fe) || fe.Field != "limit" || fe.Reason != "bad_limit" || !strings.Contains(fe.Error(), "500") {
			t.Errorf("limit %q: %v, want a sentence that gives the range", s, err)
		}
	}
}
