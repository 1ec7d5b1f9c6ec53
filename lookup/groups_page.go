package lookup

import (
	"cmp"
	"slices"
	"strings"

	"rmqconsole/paging"
)

// stateOrder puts the groups a reader of a message looks for first: those whose state
// is unknown, that have not consumed it, that are offline, then popped, filtered, and
// last those that consumed it. A state's rank is its index, the cursor's sort key.
var stateOrder = []ConsumeState{Unknown, NotConsumed, Offline, Popped, Filtered, Consumed}

func stateRank(s ConsumeState) int64 { return max(int64(slices.Index(stateOrder, s)), 0) }

// GroupPage is one page of a message's groups, in their order (see PageGroups).
type GroupPage struct {
	States []GroupState
	// Total counts every group of the topic, on all pages.
	Total int
	// Next is the cursor of the following page; "" on the last one.
	Next string
}

var groupStateKeys = paging.Keys[GroupState]{
	Order: func(a, b GroupState) int {
		return cmp.Or(cmp.Compare(stateRank(a.State), stateRank(b.State)), strings.Compare(a.Group, b.Group))
	},
	Key: func(g GroupState, c *paging.Cursor) {
		r := stateRank(g.State)
		c.Name, c.Num = g.Group, &r
	},
	Row: func(c paging.Cursor) GroupState {
		return GroupState{Group: c.Name, State: stateOrder[*c.Num]}
	},
	// A cursor's rank names a state: a forged one is refused, not taken for Consumed.
	Valid: func(c paging.Cursor) bool {
		return c.Num != nil && *c.Num >= 0 && *c.Num < int64(len(stateOrder))
	},
}

// PageGroups cuts the page of a message's groups that follows after, a cursor from an
// earlier page ("" for the first): the groups with trouble first (see stateOrder), then
// by name. A topic may have thousands of groups; the page holds limit.
func PageGroups(states []GroupState, limit int, after string) (GroupPage, error) {
	sorted := slices.SortedFunc(slices.Values(states), groupStateKeys.Order)
	rows, next, err := paging.Cut(sorted, paging.Query{Sort: "state"}, groupStateKeys, limit, after)
	return GroupPage{States: rows, Total: len(states), Next: next}, err
}
