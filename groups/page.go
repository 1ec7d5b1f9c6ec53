package groups

import (
	"encoding/base64"
	"encoding/json"
	"hash/fnv"
	"slices"
	"strconv"
	"strings"

	"rmqconsole/fault"
)

// Page sizes of the group list: a page that does not say takes DefaultLimit rows, and
// none takes more than MaxLimit, so an answer does not grow with the cluster.
const (
	DefaultLimit = 50
	MaxLimit     = 500
)

// Page is one page of the selected groups.
type Page struct {
	Groups []Summary
	// Total counts every group the filter keeps, on all pages.
	Total int
	// Next is the cursor of the following page; "" on the last one.
	Next string
}

// cursor is where a page ended: the last row's sort key and name, with the order and
// filter it belongs to. The key rather than an offset, so groups created or deleted
// while a user pages neither repeat rows nor skip one that was there all along.
type cursor struct {
	Sort   string  `json:"s,omitempty"`
	Desc   bool    `json:"d,omitempty"`
	Filter uint64  `json:"f"`
	Group  string  `json:"g"`
	Num    *int64  `json:"n,omitempty"`
	TPS    float64 `json:"t,omitempty"`
}

func filterHash(q ListQuery) uint64 {
	h := fnv.New64a()
	h.Write([]byte(strings.ToLower(strings.TrimSpace(q.Filter))))
	h.Write([]byte(strconv.FormatBool(q.System)))
	return h.Sum64()
}

func cursorOf(q ListQuery, s Summary) string {
	c := cursor{Sort: q.Sort, Desc: q.Desc, Filter: filterHash(q), Group: s.Group}
	switch q.Sort {
	case "lag":
		c.Num = s.TotalLag
	case "behind":
		c.Num = s.MaxLagTimeMs
	case "clients":
		n := int64(s.Clients)
		c.Num = &n
	case "last":
		c.Num = &s.LastTimestamp
	case "tps":
		c.TPS = s.ConsumeTPS
	}
	b, _ := json.Marshal(c)
	return base64.RawURLEncoding.EncodeToString(b)
}

// row is the summary a cursor stands for, as far as Order looks at it.
func (c cursor) row() Summary {
	s := Summary{Group: c.Group, ConsumeTPS: c.TPS}
	switch c.Sort {
	case "lag":
		s.TotalLag = c.Num
	case "behind":
		s.MaxLagTimeMs = c.Num
	case "clients", "last":
		if c.Num == nil {
			return s
		}
		s.Clients, s.LastTimestamp = int(*c.Num), *c.Num
	}
	return s
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

// PageOf cuts the page of sel (in q's order, as Select returns it) that follows after,
// a cursor from an earlier page ("" for the first). A cursor that is not one, or that
// belongs to another order or filter, is bad input.
func PageOf(sel []Summary, q ListQuery, limit int, after string) (Page, error) {
	p := Page{Total: len(sel)}
	from := 0
	if after != "" {
		var c cursor
		b, err := base64.RawURLEncoding.DecodeString(after)
		if err == nil {
			err = json.Unmarshal(b, &c)
		}
		if err != nil || c.Group == "" {
			return p, fault.InvalidField("cursor", "list.error.cursor").Because("bad_cursor")
		}
		if c.Sort != q.Sort || c.Desc != q.Desc || c.Filter != filterHash(q) {
			return p, fault.InvalidField("cursor", "list.error.cursorQuery").Because("stale_cursor")
		}
		last, order := c.row(), Order(q)
		from, _ = slices.BinarySearchFunc(sel, last, order)
		if from < len(sel) && order(sel[from], last) == 0 {
			from++
		}
	}
	to := min(from+limit, len(sel))
	p.Groups = sel[from:to]
	if to < len(sel) && to > from {
		p.Next = cursorOf(q, sel[to-1])
	}
	return p, nil
}
