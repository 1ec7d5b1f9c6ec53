package deadletters

import (
	"cmp"
	"strings"
	"time"

	"rmqconsole/paging"
)

// OverviewPage is one page of the dead-letter topics, in Overview's order.
type OverviewPage struct {
	Topics []GroupDLQ
	// Total counts every dead-letter topic, on all pages.
	Total int
	// Next is the cursor of the following page; "" on the last one.
	Next string
}

// overviewOrder is Overview's: the newest dead letters first, then the fullest, then
// by topic.
func overviewOrder(a, b GroupDLQ) int {
	return cmp.Or(b.Newest.Compare(a.Newest), cmp.Compare(b.Stored, a.Stored), strings.Compare(a.Topic, b.Topic))
}

var overviewKeys = paging.Keys[GroupDLQ]{
	Order: overviewOrder,
	Key: func(g GroupDLQ, c *paging.Cursor) {
		ms := g.Newest.UnixMilli()
		c.Name, c.Num, c.Float = g.Topic, &ms, float64(g.Stored)
	},
	Row: func(c paging.Cursor) GroupDLQ {
		g := GroupDLQ{TopicCount: TopicCount{Topic: c.Name, Stored: int64(c.Float)}}
		if c.Num != nil {
			g.Newest = time.UnixMilli(*c.Num)
		}
		return g
	},
}

// overviewQuery is the overview's one order, which its cursors belong to.
var overviewQuery = paging.Query{Sort: "newest"}

// CheckOverviewCursor refuses a cursor (not "") PageOverview would refuse, so that a
// request is refused before the overview is counted.
func CheckOverviewCursor(after string) error {
	return paging.Check(overviewQuery, overviewKeys, after)
}

// PageOverview cuts the page of list (as Overview returns it) that follows after, a
// cursor from an earlier page ("" for the first).
func PageOverview(list []GroupDLQ, limit int, after string) (OverviewPage, error) {
	rows, next, err := paging.Cut(list, overviewQuery, overviewKeys, limit, after)
	return OverviewPage{Topics: rows, Total: len(list), Next: next}, err
}
