package groups

import (
	"strconv"
	"strings"

	"rmqconsole/paging"
)

// Page is one page of the selected groups.
type Page struct {
	Groups []Summary
	// Total counts every group the filter keeps, on all pages.
	Total int
	// Next is the cursor of the following page; "" on the last one.
	Next string
}

// PageOf cuts the page of sel (in q's order, as Select returns it) that follows after,
// a cursor from an earlier page ("" for the first).
func PageOf(sel []Summary, q ListQuery, limit int, after string) (Page, error) {
	pq := paging.Query{Sort: q.Sort, Desc: q.Desc,
		Filter: []string{strings.ToLower(strings.TrimSpace(q.Filter)), strconv.FormatBool(q.System)}}
	rows, next, err := paging.Cut(sel, pq, paging.Keys[Summary]{Order: Order(q),
		Key: func(s Summary, c *paging.Cursor) {
			c.Name = s.Group
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
				c.Float = s.ConsumeTPS
			}
		},
		Row: func(c paging.Cursor) Summary {
			s := Summary{Group: c.Name, ConsumeTPS: c.Float, TotalLag: c.Num, MaxLagTimeMs: c.Num}
			if c.Num != nil {
				s.Clients, s.LastTimestamp = int(*c.Num), *c.Num
			}
			return s
		},
	}, limit, after)
	return Page{Groups: rows, Total: len(sel), Next: next}, err
}
