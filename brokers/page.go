package brokers

import (
	"cmp"
	"strings"

	"rmqconsole/paging"
)

// Page is one page of the broker list, in its order (broker name, then id).
type Page struct {
	Brokers []Runtime
	// Total counts every process listed, on all pages.
	Total int
	// Next is the cursor of the following page; "" on the last one.
	Next string
}

// processKeys page the list by its own order: a broker's name, then the process's id.
var processKeys = paging.Keys[Runtime]{
	Order: func(a, b Runtime) int { return cmp.Or(strings.Compare(a.Name, b.Name), cmp.Compare(a.ID, b.ID)) },
	Key:   func(r Runtime, c *paging.Cursor) { c.Name, c.Num = r.Name, &r.ID },
	Row: func(c paging.Cursor) Runtime {
		r := Runtime{Name: c.Name}
		if c.Num != nil {
			r.ID = *c.Num
		}
		return r
	},
}

// PageOf cuts the page of l's processes that follows after, a cursor from an earlier
// page ("" for the first).
func PageOf(l *List, limit int, after string) (Page, error) {
	rows, next, err := paging.Cut(l.Brokers, paging.Query{}, processKeys, limit, after)
	return Page{Brokers: rows, Total: len(l.Brokers), Next: next}, err
}
