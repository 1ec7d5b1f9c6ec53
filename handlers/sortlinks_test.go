package handlers

import (
	"testing"

	"rmqconsole/groups"
	"rmqconsole/topics"
	"rmqconsole/views"
)

func TestSortLinksFlipTheCurrentColumnAndStartNumbersLargestFirst(t *testing.T) {
	for _, tc := range []struct {
		name  string
		links map[string]views.SortLink
		col   string
		want  views.SortLink
	}{
		// The default order (by name, A first): its own link flips it, a number starts largest first.
		{"group, default", groupSortLinks(groups.ListQuery{}), "group", views.SortLink{URL: "/groups?desc=1&sort=group", Active: true}},
		{"lag, default", groupSortLinks(groups.ListQuery{}), "lag", views.SortLink{URL: "/groups?desc=1&sort=lag"}},
		// Sorted by name Z first: its link goes back to the plain list, keeping the filter.
		{"group, descending", groupSortLinks(groups.ListQuery{Sort: "group", Desc: true, Filter: "pay"}), "group", views.SortLink{URL: "/groups?q=pay", Active: true, Desc: true}},
		{"lag, descending", groupSortLinks(groups.ListQuery{Sort: "lag", Desc: true}), "lag", views.SortLink{URL: "/groups?sort=lag", Active: true, Desc: true}},
		// A topic's type reads from A, like its name.
		{"topic type", topicSortLinks(topics.ListQuery{}), "type", views.SortLink{URL: "/topics?sort=type"}},
		{"topic, default", topicSortLinks(topics.ListQuery{System: true}), "topic", views.SortLink{URL: "/topics?desc=1&sort=topic&system=1", Active: true}},
	} {
		if got := tc.links[tc.col]; got != tc.want {
			t.Errorf("%s: link %+v, want %+v", tc.name, got, tc.want)
		}
	}
}
