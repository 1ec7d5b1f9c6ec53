package topics

import (
	"strconv"
	"strings"

	"rmqconsole/paging"
)

// Page is one page of the selected topics.
type Page struct {
	Topics []Summary
	// Total counts every topic the filter keeps, on all pages.
	Total int
	// Next is the cursor of the following page; "" on the last one.
	Next string
}

// PageOf cuts the page of sel (in q's order, as Select returns it) that follows after,
// a cursor from an earlier page ("" for the first).
func PageOf(sel []Summary, q ListQuery, limit int, after string) (Page, error) {
	pq := paging.Query{Sort: q.Sort, Desc: q.Desc,
		Filter: []string{strings.ToLower(q.Filter), q.Type, strconv.FormatBool(q.System)}}
	rows, next, err := paging.Cut(sel, pq, paging.Keys[Summary]{Order: Order(q),
		Key: func(s Summary, c *paging.Cursor) {
			c.Name, c.Text = s.Topic, s.Type
			switch q.Sort {
			case "queues":
				n := int64(s.ReadQueues + s.WriteQueues)
				c.Num = &n
			case "messages":
				n := stored(s)
				c.Num = &n
			case "tps":
				c.Float = tps(s)
			}
		},
		Row: func(c paging.Cursor) Summary {
			s := Summary{Topic: c.Name, Type: c.Text}
			if c.Num != nil {
				s.ReadQueues, s.Messages = int(*c.Num), *c.Num
				if s.Messages >= 0 {
					s.StatsFrom = 1 // known figures: see stored
				}
			}
			if c.Float >= 0 {
				f := c.Float
				s.PutTPS = &f
			}
			return s
		},
	}, limit, after)
	return Page{Topics: rows, Total: len(sel), Next: next}, err
}
