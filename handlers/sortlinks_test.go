package handlers

import (
	"testing"

	"rmqconsole/groups"
	"rmqconsole/topics"
)

func TestSortLinksFlipTheCurrentColumnAndStartNumbersLargestFirst(t *testing.T) {
	for _, tc := range []struct {
		name string
		got  func() (url string, active, desc bool)
		url  string
		act  bool
		desc bool
	}{
		// The default order (by name, A first): its own link flips it, a number starts largest first.
		{"group, default", func() (string, bool, bool) {
			l := groupSortLinks(groups.ListQuery{})["group"]
			return l.URL, l.Active, l.Desc
		},
			"/groups?desc=1&sort=group", true, false},
		{"lag, default", func() (string, bool, bool) {
			l := groupSortLinks(groups.ListQuery{})["lag"]
			return l.URL, l.Active, l.Desc
		},
			"/groups?desc=1&sort=lag", false, false},
		// Sorted by name Z first: its link goes back to the plain list, keeping the filter.
		{"group, descending", func() (string, bool, bool) {
			l := groupSortLinks(groups.ListQuery{Sort: "group", Desc: true, Filter: "pay"})["group"]
			return l.URL, l.Active, l.Desc
		}, "/groups?q=pay", true, true},
		{"lag, descending", func() (string, bool, bool) {
			l := groupSortLinks(groups.ListQuery{Sort: "lag", Desc: true})["lag"]
			return l.URL, l.Active, l.Desc
		},
			"/groups?sort=lag", true, true},
		// A topic's type reads from A, like its name.
		{"topic type", func() (string, bool, bool) {
			l := topicSortLinks(topics.ListQuery{})["type"]
			return l.URL, l.Active, l.Desc
		},
			"/topics?sort=type", false, false},
		{"topic, default", func() (string, bool, bool) {
			l := topicSortLinks(topics.ListQuery{System: true})["topic"]
			return l.URL, l.Active, l.Desc
		},
			"/topics?desc=1&sort=topic&system=1", true, false},
	} {
		url, act, desc := tc.got()
		if url != tc.url || act != tc.act || desc != tc.desc {
			t.Errorf("%s: link %q active %v desc %v, want %q %v %v", tc.name, url, act, desc, tc.url, tc.act, tc.desc)
		}
	}
}
