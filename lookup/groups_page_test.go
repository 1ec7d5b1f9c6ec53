package lookup

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"testing"

	"rmqconsole/fault"
)

// Paging through a message's groups visits each once, trouble first; a cursor whose
// rank names no state is refused as bad input, not taken for the consumed groups.
func TestPageGroupsRefusesACursorWithoutAState(t *testing.T) {
	var states []GroupState
	for i, s := range stateOrder {
		for j := range 3 {
			states = append(states, GroupState{Group: fmt.Sprintf("GID_%d_%d", 5-i, j), State: s})
		}
	}
	seen := map[string]bool{}
	var last ConsumeState = Unknown
	after := ""
	for {
		pg, err := PageGroups(states, 4, after)
		if err != nil {
			t.Fatal(err)
		}
		for _, g := range pg.States {
			if seen[g.Group] || stateRank(g.State) < stateRank(last) {
				t.Fatalf("%s (%s) after %s, or twice", g.Group, g.State, last)
			}
			seen[g.Group], last = true, g.State
		}
		if after = pg.Next; after == "" {
			break
		}
	}
	if len(seen) != len(states) {
		t.Fatalf("paged %d groups of %d", len(seen), len(states))
	}

	first, err := PageGroups(states, 4, "")
	if err != nil {
		t.Fatal(err)
	}
	for _, rank := range []int64{-1, int64(len(stateOrder)), 99} {
		forged := withRank(t, first.Next, rank)
		pg, err := PageGroups(states, 4, forged)
		if fe := fault.As(err); fe == nil || fe.Code != fault.Invalid || fe.Reason != "bad_cursor" {
			t.Errorf("rank %d: %d groups, error %v; want the cursor refused", rank, len(pg.States), err)
		}
	}
}

// withRank is cursor with its state rank replaced.
func withRank(t *testing.T, cursor string, rank int64) string {
	t.Helper()
	b, err := base64.RawURLEncoding.DecodeString(cursor)
	if err != nil {
		t.Fatal(err)
	}
	var c map[string]any
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber() // the filter's hash does not fit a float64
	if err := d.Decode(&c); err != nil {
		t.Fatal(err)
	}
	c["n"] = rank
	b, _ = json.Marshal(c)
	return base64.RawURLEncoding.EncodeToString(b)
}
