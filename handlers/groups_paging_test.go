package handlers

import (
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/gin-gonic/gin"

	"rmqconsole/groups"
	"rmqconsole/paging"
)

// bigGroupList is a cluster of n groups: lags spread out of name order, every 97th
// unknown, every 500th a system group.
func bigGroupList(n int) *groups.List {
	l := &groups.List{CheckedAt: time.Now(), Groups: make([]groups.Summary, 0, n)}
	for i := range n {
		g := groups.Summary{Group: fmt.Sprintf("app-%05d-consumer", i), Online: i%2 == 0, Clients: i % 5,
			ConsumeType: "push", MessageModel: "CLUSTERING", Topics: []string{fmt.Sprintf("topic-%04d", i%1000)},
			ConsumeTPS: float64(i%13) / 2, LastTimestamp: int64(1_700_000_000_000 + i)}
		if i%97 != 0 {
			g.TotalLag = i64(int64(i*7919) % 100_003)
			g.MaxLagTimeMs = i64(int64(i*31) % 60_000)
		} else {
			g.LagNote = plain("No offsets are stored for this group yet.")
		}
		if i%500 == 0 {
			g.Group, g.System = fmt.Sprintf("CID_RMQ_SYS_%05d", i), true
		}
		l.Groups = append(l.Groups, g)
	}
	return l
}

type pageRow struct {
	Group    string `json:"group"`
	TotalLag *int64 `json:"totalLag"`
}

type groupPageJSON struct {
	Groups []pageRow `json:"groups"`
	Total  int       `json:"total"`
	All    int       `json:"all"`
	Next   *string   `json:"next"`
}

func getGroupPage(t *testing.T, r *groupRouter, path string) (groupPageJSON, int) {
	t.Helper()
	rec := r.get(t, path)
	if rec.Code != http.StatusOK {
		t.Fatalf("GET %s: %d %s", path, rec.Code, rec.Body)
	}
	var p groupPageJSON
	if err := json.Unmarshal(rec.Body.Bytes(), &p); err != nil {
		t.Fatal(err)
	}
	return p, rec.Body.Len()
}

// walkGroups follows next from base to the last page and returns every row seen.
func walkGroups(t *testing.T, r *groupRouter, base string) ([]pageRow, int) {
	t.Helper()
	var all []pageRow
	path, total := base, -1
	for range 1000 {
		p, _ := getGroupPage(t, r, path)
		if total >= 0 && p.Total != total {
			t.Fatalf("total went from %d to %d between pages", total, p.Total)
		}
		total = p.Total
		all = append(all, p.Groups...)
		if p.Next == nil {
			return all, total
		}
		if *p.Next == "" {
			t.Fatal("next is empty rather than absent")
		}
		path = base + "&cursor=" + url.QueryEscape(*p.Next)
	}
	t.Fatal("next never ended")
	return nil, 0
}

func TestGroupsAPIPagesAFiveThousandGroupCluster(t *testing.T) {
	r := newGroupRouter(t, true)
	r.fg.list = bigGroupList(5000)
	apps := 5000 - 10

	first, size := getGroupPage(t, r, "/api/v1/groups")
	if len(first.Groups) != paging.DefaultLimit || first.Total != apps || first.All != 5000 || first.Next == nil || size > 200_000 {
		t.Fatalf("first page: %d rows, total %d, all %d, next %v, %d bytes: want 50 rows of %d, a next cursor, under 200 KB",
			len(first.Groups), first.Total, first.All, first.Next != nil, size, apps)
	}

	for _, order := range []string{"", "&sort=lag&desc=1", "&sort=behind", "&sort=tps&desc=true", "&sort=clients", "&sort=last&desc=1"} {
		base := "/api/v1/groups?limit=500" + order
		rows, total := walkGroups(t, r, base)
		seen := map[string]int{}
		for _, g := range rows {
			seen[g.Group]++
			if seen[g.Group] > 1 {
				t.Fatalf("%s: %s came twice", base, g.Group)
			}
		}
		if len(rows) != apps || total != apps {
			t.Fatalf("%s: %d rows, total %d; want every one of the %d application groups once", base, len(rows), total, apps)
		}
		q := groups.ListQuery{}
		if order != "" {
			v, _ := url.ParseQuery(order[1:])
			q.Sort, q.Desc = v.Get("sort"), v.Get("desc") != ""
		}
		want := groups.Select(r.fg.list, q)
		for i := range want {
			if rows[i].Group != want[i].Group {
				t.Fatalf("%s: row %d is %s; the whole list's order has %s there", base, i, rows[i].Group, want[i].Group)
			}
		}
	}

	// The largest lag of all is on page one, whatever its name.
	byLag, _ := getGroupPage(t, r, "/api/v1/groups?sort=lag&desc=1")
	var most int64
	for _, g := range r.fg.list.Groups {
		if !g.System && g.TotalLag != nil {
			most = max(most, *g.TotalLag)
		}
	}
	if byLag.Groups[0].TotalLag == nil || *byLag.Groups[0].TotalLag != most {
		t.Fatalf("first row by lag: %+v; want the largest lag, %d", byLag.Groups[0], most)
	}

	// The filter applies before the page is cut: total counts what it keeps.
	filtered, ftotal := walkGroups(t, r, "/api/v1/groups?q=topic-012&limit=7")
	want := 0
	for _, g := range r.fg.list.Groups {
		if !g.System && strings.Contains(g.Topics[0], "topic-012") {
			want++
		}
	}
	if ftotal != want || len(filtered) != want || want == 0 {
		t.Fatalf("q=topic-012: %d rows, total %d; want %d", len(filtered), ftotal, want)
	}
}

func TestGroupsPagingRefusesBadLimitCursorAndSort(t *testing.T) {
	r := newGroupRouter(t, true)
	r.fg.list = bigGroupList(300)
	p, _ := getGroupPage(t, r, "/api/v1/groups?sort=lag")
	other := url.QueryEscape(*p.Next)
	for _, q := range []string{"limit=0", "limit=501", "limit=ten", "cursor=%21%21", "cursor=e30", "sort=lag&desc=1&cursor=" + other, "q=x&sort=lag&cursor=" + other, "sort=size"} {
		rec := r.get(t, "/api/v1/groups?"+q)
		e := apiError(t, rec)
		if rec.Code != http.StatusBadRequest || !strings.HasSuffix(e.Error, ".") || e.Field == "" {
			t.Errorf("API ?%s: %d %+v; want 400 with a sentence about the field", q, rec.Code, e)
		}
		page := r.get(t, "/groups?"+q)
		if page.Code != http.StatusUnprocessableEntity || !strings.Contains(page.Body.String(), `data-testid="groups-form-error"`) {
			t.Errorf("page ?%s: %d; want 422 with the sentence next to the form", q, page.Code)
		}
	}
}

var groupRowRE = regexp.MustCompile(`<tr data-group="([^"]+)"`)

func TestGroupsPageShowsOnePageWithMoreAndNextLinks(t *testing.T) {
	r := newGroupRouter(t, true)
	r.fg.list = bigGroupList(5000)
	rec := r.get(t, "/groups?sort=lag&desc=1")
	body := rec.Body.String()
	rows := groupRowRE.FindAllStringSubmatch(body, -1)
	if rec.Code != http.StatusOK || len(rows) != 50 {
		t.Fatalf("/groups: %d, %d rows; want one page of 50", rec.Code, len(rows))
	}
	if !strings.Contains(body, "50 of 4,990 groups") {
		t.Errorf("/groups does not say “50 of 4,990 groups”")
	}
	next := regexp.MustCompile(`data-testid="groups-next" href="([^"]+)"|href="([^"]+)" rel="next"`).FindStringSubmatch(body)
	more := regexp.MustCompile(`hx-get="([^"]+)"[^>]*data-testid="groups-more-link"`).FindStringSubmatch(body)
	if next == nil || more == nil {
		t.Fatalf("/groups has no Next page link or More row")
	}
	nextURL := strings.ReplaceAll(next[1]+next[2], "&amp;", "&")
	moreURL := strings.ReplaceAll(more[1], "&amp;", "&")

	// Without JavaScript: the whole next page, which names the rows after the first 50.
	p2 := r.get(t, nextURL)
	rows2 := groupRowRE.FindAllStringSubmatch(p2.Body.String(), -1)
	if p2.Code != http.StatusOK || len(rows2) != 50 || rows2[0][1] == rows[0][1] || !strings.Contains(p2.Body.String(), "100 of 4,990 groups") {
		t.Fatalf("%s: %d, %d rows; want the next 50, “100 of 4,990 groups”", nextURL, p2.Code, len(rows2))
	}
	// With htmx: the same rows alone, to go in place of the More row.
	req := httptest.NewRequest(http.MethodGet, moreURL, nil)
	req.Header.Set("HX-Request", "true")
	frag := httptest.NewRecorder()
	r.ServeHTTP(frag, req)
	fb := frag.Body.String()
	rowsF := groupRowRE.FindAllStringSubmatch(fb, -1)
	if frag.Code != http.StatusOK || len(rowsF) != 50 || rowsF[0][1] != rows2[0][1] || strings.Contains(fb, "<table") || !strings.Contains(fb, `data-testid="groups-more"`) {
		t.Fatalf("%s: %d, %d rows; want the next 50 rows and a More row, without the table", moreURL, frag.Code, len(rowsF))
	}
}

// BenchmarkGroupsAPIFirstPage compares the first page of GET /api/v1/groups at 5 000
// groups with the whole list as one answer (what the API sent before it paged):
//
//	go test ./handlers/ -run '^$' -bench GroupsAPIFirstPage -benchmem
func BenchmarkGroupsAPIFirstPage(b *testing.B) {
	gin.SetMode(gin.TestMode)
	fg := &fakeGroups{list: bigGroupList(5000)}
	h := &GroupsList{Env: &Env{Log: slog.New(slog.DiscardHandler)}, Groups: fg}
	r := newEngine()
	r.GET("/api/v1/groups", h.API)
	b.Run("page", func(b *testing.B) {
		var size int
		for b.Loop() {
			rec := httptest.NewRecorder()
			r.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/api/v1/groups?sort=lag&desc=1", nil))
			size = rec.Body.Len()
		}
		b.ReportMetric(float64(size), "bytes/answer")
	})
	b.Run("whole", func(b *testing.B) {
		var size int
		for b.Loop() {
			sel := groups.Select(fg.list, groups.ListQuery{Sort: "lag", Desc: true})
			body, _ := json.Marshal(GroupsJSON{Groups: sel, Total: len(sel), All: len(fg.list.Groups), CheckedAt: fg.list.CheckedAt})
			size = len(body)
		}
		b.ReportMetric(float64(size), "bytes/answer")
	})
}
