package handlers

import "rmqconsole/views"

// sortLinks gives each column of a list a link that sorts by it. The current column's
// link flips the direction; another column starts with the largest first, unless
// ascending says it reads from A (names, types). The default column ascending is the
// list's plain URL (no sort parameter). url makes a column's link.
func sortLinks(keys []string, cur string, desc bool, def string, ascending func(string) bool, url func(sort string, desc bool) string) map[string]views.SortLink {
	if cur == "" {
		cur = def
	}
	out := map[string]views.SortLink{}
	for _, k := range keys {
		d := !ascending(k)
		if k == cur {
			d = !desc
		}
		sort := k
		if k == def && !d {
			sort = ""
		}
		out[k] = views.SortLink{URL: url(sort, d), Active: k == cur, Desc: desc}
	}
	return out
}
