package lookup

import (
	"cmp"
	"context"
	"maps"
	"slices"
	"strings"
	"time"

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

var groupsQuery = paging.Query{Sort: "state"}

// CheckGroupsCursor refuses a cursor (not "") PageGroups would refuse, before the groups
// are read.
func CheckGroupsCursor(after string) error {
	if after == "" {
		return nil
	}
	return paging.Check(groupsQuery, groupStateKeys, after)
}

// PageGroups cuts the page of a message's groups that follows after, a cursor from an
// earlier page ("" for the first): the groups with trouble first (see stateOrder), then
// by name. A topic may have thousands of groups; the page holds limit.
func PageGroups(states []GroupState, limit int, after string) (GroupPage, error) {
	sorted := slices.SortedFunc(slices.Values(states), groupStateKeys.Order)
	rows, next, err := paging.Cut(sorted, groupsQuery, groupStateKeys, limit, after)
	return GroupPage{States: rows, Total: len(states), Next: next}, err
}

// groupsKey names a message by where it is stored, for its kept group states.
type groupsKey struct {
	cluster, topic, broker string
	queue                  int
	offset                 int64
}

type keptGroups struct {
	at     time.Time
	states *GroupStates
}

func groupsKeyOf(cluster string, m Message) groupsKey {
	return groupsKey{cluster: cluster, topic: m.Topic, broker: m.BrokerName, queue: m.QueueID, offset: m.QueueOffset}
}

// KeptGroups is m's group states as Groups last read them, when that was within
// GroupsTTL, else read now (and kept). A message's later pages cut from this copy: a page
// does not ask every broker of the topic again, and since states are the sort key, rows
// whose state moved between two reads would repeat or be skipped. The answer is shared:
// callers do not change it.
func (s *Service) KeptGroups(ctx context.Context, m Message, failed ...BrokerFailure) (*GroupStates, error) {
	s.keptMu.Lock()
	k, ok := s.kept[groupsKeyOf(s.clusterName, m)]
	s.keptMu.Unlock()
	if ok && time.Since(k.at) < s.groupsTTL {
		return k.states, nil
	}
	return s.Groups(ctx, m, failed...)
}

// keepGroups keeps gs for m, and forgets the copies older than GroupsTTL.
func (s *Service) keepGroups(m Message, gs *GroupStates) {
	now := time.Now()
	s.keptMu.Lock()
	defer s.keptMu.Unlock()
	maps.DeleteFunc(s.kept, func(_ groupsKey, k keptGroups) bool { return now.Sub(k.at) >= s.groupsTTL })
	s.kept[groupsKeyOf(s.clusterName, m)] = keptGroups{at: now, states: gs}
}
