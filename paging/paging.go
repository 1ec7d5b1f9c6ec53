// Package paging cuts a filtered, sorted list into pages with opaque cursors, so that
// an answer does not grow with the cluster.
package paging

import (
	"encoding/base64"
	"encoding/json"
	"hash/fnv"
	"slices"
	"strconv"

	"rmqconsole/fault"
)

// Page sizes: a request that does not say takes DefaultLimit rows, and none takes more
// than MaxLimit.
const (
	DefaultLimit = 50
	MaxLimit     = 500
)

// Cursor is where a page ended: the last row's sort key and name, with the order and
// filter it belongs to. The key rather than an offset, so rows created or deleted while
// a user pages neither repeat a row nor skip one that was there all along.
type Cursor struct {
	Sort   string  `json:"s,omitempty"`
	Desc   bool    `json:"d,omitempty"`
	Filter uint64  `json:"f"`
	Name   string  `json:"g"`
	Num    *int64  `json:"n,omitempty"`
	Float  float64 `json:"t,omitempty"`
	Text   string  `json:"x,omitempty"`
}

// Query is the order and filter a page belongs to.
type Query struct {
	Sort string
	Desc bool
	// Filter names the filter's inputs; a cursor from another filter is refused.
	Filter []string
}

func (q Query) hash() uint64 {
	h := fnv.New64a()
	for _, f := range q.Filter {
		h.Write([]byte(f))
		h.Write([]byte{0})
	}
	return h.Sum64()
}

// Keys say how a list's rows become cursors and back, and orders them.
type Keys[T any] struct {
	// Order is the list's order, with the name last so no two rows tie.
	Order func(a, b T) int
	// Key fills a cursor's Name and sort key from a row.
	Key func(T, *Cursor)
	// Row is the row a cursor stands for, as far as Order looks at it.
	Row func(Cursor) T
	// Valid, when set, says a cursor's sort key is one a row can have; a cursor it
	// refuses is bad input rather than a page that starts somewhere arbitrary.
	Valid func(Cursor) bool
}

// ParseLimit reads a page size: "" is DefaultLimit, anything else 1..MaxLimit.
func ParseLimit(s string) (int, error) {
	if s == "" {
		return DefaultLimit, nil
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 1 || n > MaxLimit {
		return 0, fault.InvalidField("limit", "list.error.limit", "Limit", s, "Max", MaxLimit).Because("bad_limit")
	}
	return n, nil
}

// encode is the cursor c of a page in q: c's Name and sort key, with q's order and
// filter, in a form fit for a URL.
func encode(q Query, c Cursor) string {
	c.Sort, c.Desc, c.Filter = q.Sort, q.Desc, q.hash()
	b, _ := json.Marshal(c)
	return base64.RawURLEncoding.EncodeToString(b)
}

// decode reads a cursor encode gave out for q. One that is not a cursor, or that belongs
// to another order or filter, is bad input with a sentence that says which.
func decode(q Query, s string) (Cursor, error) {
	var c Cursor
	b, err := base64.RawURLEncoding.DecodeString(s)
	if err == nil {
		err = json.Unmarshal(b, &c)
	}
	if err != nil || c.Name == "" {
		return Cursor{}, fault.InvalidField("cursor", "list.error.cursor").Because("bad_cursor")
	}
	if c.Sort != q.Sort || c.Desc != q.Desc || c.Filter != q.hash() {
		return Cursor{}, fault.InvalidField("cursor", "list.error.cursorQuery").Because("stale_cursor")
	}
	return c, nil
}

// Encode is the cursor of a page of q that ends at the row c names, for a list a
// database cuts (by its sort key) rather than Cut.
func Encode(q Query, c Cursor) string { return encode(q, c) }

// Decode reads a cursor Encode gave out for q, refused as Cut refuses one.
func Decode(q Query, s string) (Cursor, error) { return decode(q, s) }

// Check refuses a cursor after (not "") that Cut would refuse for q, so that a request
// can be refused before any broker is asked for the rows.
func Check[T any](q Query, k Keys[T], after string) error {
	_, err := cursorOf(q, k, after)
	return err
}

func cursorOf[T any](q Query, k Keys[T], after string) (Cursor, error) {
	c, err := decode(q, after)
	if err == nil && k.Valid != nil && !k.Valid(c) {
		err = fault.InvalidField("cursor", "list.error.cursor").Because("bad_cursor")
	}
	return c, err
}

// Cut returns the rows of sel (sorted by k.Order) after the cursor after ("" for the
// first page), at most limit, and the cursor of the next page ("" on the last). A
// cursor that is not one, or that belongs to another order or filter, is bad input.
func Cut[T any](sel []T, q Query, k Keys[T], limit int, after string) ([]T, string, error) {
	from := 0
	if after != "" {
		c, err := cursorOf(q, k, after)
		if err != nil {
			return nil, "", err
		}
		last := k.Row(c)
		from, _ = slices.BinarySearchFunc(sel, last, k.Order)
		if from < len(sel) && k.Order(sel[from], last) == 0 {
			from++
		}
	}
	to := min(from+limit, len(sel))
	if to >= len(sel) || to == from {
		return sel[from:to], "", nil
	}
	var c Cursor
	k.Key(sel[to-1], &c)
	return sel[from:to], encode(q, c), nil
}
