package handlers

import (
	"html"
	"net/http"
	"net/http/httptest"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// pagedPage is what a paged list's page offers: its rows (by rowRE's first group), the
// plain Next link and the More row's fetch.
type pagedPage struct {
	rows          []string
	next, more    string
	nextOOB, body string
}

func readPagedPage(t *testing.T, h http.Handler, path, id string, rowRE *regexp.Regexp, htmx bool) pagedPage {
	t.Helper()
	req := httptest.NewRequest(http.MethodGet, path, nil)
	if htmx {
		req.Header.Set("HX-Request", "true")
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	if rec.Code != http.StatusOK {
		t.Fatalf("GET %s: %d %s", path, rec.Code, rec.Body)
	}
	p := pagedPage{body: rec.Body.String()}
	for _, m := range rowRE.FindAllStringSubmatch(p.body, -1) {
		p.rows = append(p.rows, html.UnescapeString(m[1]))
	}
	link := func(re string) string {
		if m := regexp.MustCompile(re).FindStringSubmatch(p.body); m != nil {
			return html.UnescapeString(m[1])
		}
		return ""
	}
	p.next = link(`<a id="` + id + `-next" href="([^"]+)" rel="next" data-testid="` + id + `-next">`)
	p.nextOOB = link(`<a id="` + id + `-next" href="([^"]+)" rel="next" data-testid="` + id + `-next" hx-swap-oob="true">`)
	p.more = link(`hx-get="([^"]+)"[^>]*data-testid="` + id + `-more-link"`)
	return p
}

// checkMoreInPlace opens a paged list at path (its first page of want rows), follows
// its More row as htmx does, and checks that the answer is the next rows alone with a
// More row of its own, the Next link replaced to point past every row now shown and the
// "n of total" replaced to count them; and that without JavaScript the Next link leads
// to the same rows.
func checkMoreInPlace(t *testing.T, h http.Handler, path, id string, rowRE *regexp.Regexp, want int) {
	t.Helper()
	first := readPagedPage(t, h, path, id, rowRE, false)
	if len(first.rows) != want || first.next == "" || first.more == "" {
		t.Fatalf("%s: %d rows, Next %q, More %q; want %d rows, a Next link and a More row", path, len(first.rows), first.next, first.more, want)
	}
	frag := readPagedPage(t, h, first.more, id, rowRE, true)
	if len(frag.rows) == 0 || strings.Contains(frag.body, "<table") || strings.Contains(frag.body, "<html") {
		t.Fatalf("%s: %d rows; want the next rows alone, without table or page", first.more, len(frag.rows))
	}
	for _, r := range frag.rows {
		if slices.Contains(first.rows, r) {
			t.Fatalf("%s: %s was on the first page already", first.more, r)
		}
	}
	plain := readPagedPage(t, h, first.next, id, rowRE, false)
	if !slices.Equal(plain.rows, frag.rows) {
		t.Fatalf("the Next page (%s) shows %d rows from %v; the More row brought %d from %v", first.next, len(plain.rows), plain.rows[:1], len(frag.rows), frag.rows[:1])
	}
	if frag.more == "" || frag.nextOOB == "" || !strings.Contains(frag.body, "<template>") {
		t.Fatalf("%s: More %q, out-of-band Next %q; want a further More row and the Next link replaced", first.more, frag.more, frag.nextOOB)
	}
	// The list's "n of total" counts the rows now shown, not the first page's.
	shown := func(body string, oob bool) string {
		re := `<span id="` + id + `-shown" data-testid="` + id + `-shown">([\d,]+) of `
		if oob {
			re = `<span id="` + id + `-shown" data-testid="` + id + `-shown" hx-swap-oob="true">([\d,]+) of `
		}
		if m := regexp.MustCompile(re).FindStringSubmatch(body); m != nil {
			return m[1]
		}
		return ""
	}
	if n := shown(first.body, false); n != strconv.Itoa(len(first.rows)) {
		t.Fatalf("%s: the count says %q shown; want %d", path, n, len(first.rows))
	}
	if n := shown(frag.body, true); n != strconv.Itoa(len(first.rows)+len(frag.rows)) {
		t.Fatalf("%s: the count replaced out of band says %q shown; want %d", first.more, n, len(first.rows)+len(frag.rows))
	}
	if frag.nextOOB == first.next {
		t.Fatalf("after the rows loaded in place, Next still points at them: %s", frag.nextOOB)
	}
	third := readPagedPage(t, h, frag.nextOOB, id, rowRE, false)
	if len(third.rows) == 0 || slices.Contains(first.rows, third.rows[0]) || slices.Contains(frag.rows, third.rows[0]) {
		t.Fatalf("the replaced Next link (%s) shows %v, not the rows after those shown", frag.nextOOB, third.rows[:min(1, len(third.rows))])
	}
}

func TestGroupsMoreRowReplacesTheNextLink(t *testing.T) {
	r := newGroupRouter(t, true)
	r.fg.list = bigGroupList(500)
	checkMoreInPlace(t, r, "/groups?sort=lag&desc=1", "groups", groupRowRE, 50)
}

func TestTopicsMoreRowLoadsTheNextRowsInPlace(t *testing.T) {
	r := topicsRouter(&fakeTopics{list: bigTopicList(300)})
	checkMoreInPlace(t, r, "/topics?sort=messages&desc=1", "topics", regexp.MustCompile(`<tr data-topic="([^"]+)"`), 50)
}
