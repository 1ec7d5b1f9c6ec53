package handlers

import (
	"cmp"
	"context"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"time"

	"github.com/gin-gonic/gin"

	"rmqconsole/fault"
	"rmqconsole/groups"
	"rmqconsole/i18n"
	"rmqconsole/paging"
	"rmqconsole/store"
	"rmqconsole/views"
)

// GroupLister is what the group list needs from package groups.
type GroupLister interface {
	List(ctx context.Context, refresh bool) (*groups.List, error)
}

// GroupsList is /groups and GET /api/v1/groups.
type GroupsList struct {
	*Env
	// Groups is nil when no NameServer is configured.
	Groups GroupLister
	// Now is the clock, for the list's age (tests).
	Now func() time.Time
	// Lag is the stored lag history, for the last hour's sparklines; nil draws none.
	Lag LagHistory
}

// maxSparklines bounds the rows that get a sparkline: one read of the last hour of
// every group on a list of thousands would cost more than the list itself.
const maxSparklines = 500

// GroupsJSON is the answer of GET /api/v1/groups.
type GroupsJSON struct {
	// Groups is one page: limit rows (paging.DefaultLimit when the request gives none).
	Groups []groups.Summary `json:"groups"`
	// Total counts the groups the filter keeps, on every page.
	Total int `json:"total"`
	// All counts every group of the cluster, before the filter.
	All int `json:"all"`
	// Next is the cursor of the following page; absent on the last one.
	Next      string                 `json:"next,omitempty"`
	CheckedAt time.Time              `json:"checkedAt"`
	AgeSecond float64                `json:"ageSeconds"`
	Failures  []groups.BrokerFailure `json:"failures,omitempty"`
}

// listQuery reads the filter and order from the query string. A sort key or flag it
// does not know is bad input (fault.Invalid): the page says so next to the form.
func listQuery(c *gin.Context) (groups.ListQuery, error) {
	q := groups.ListQuery{Filter: c.Query("q"), Sort: c.Query("sort")}
	var ok bool
	if q.System, ok = queryFlag(c.Query("system")); !ok {
		return q, fault.InvalidField("system", "groups.error.system").Because("bad_system")
	}
	if q.Desc, ok = queryFlag(c.Query("desc")); !ok {
		return q, fault.InvalidField("desc", "groups.error.desc").Because("bad_desc")
	}
	if q.Sort != "" && !slices.Contains(groups.SortKeys, q.Sort) {
		bad := q.Sort
		q.Sort = ""
		return q, fault.InvalidField("sort", "groups.error.sort", "Sort", views.Cut(bad)).Because("bad_sort")
	}
	if fe := filterRefused(&q.Filter); fe != nil {
		return q, fe
	}
	return q, nil
}

func queryFlag(s string) (bool, bool) {
	if s == "" {
		return false, true
	}
	b, err := strconv.ParseBool(s)
	return b, err == nil
}

func (h *GroupsList) now() time.Time {
	if h.Now != nil {
		return h.Now()
	}
	return time.Now()
}

// Show renders /groups.
func (h *GroupsList) Show(c *gin.Context) {
	loc := i18n.From(c.Request.Context())
	p := h.page(c, loc.T("groups.title"), "groups")
	if h.Groups == nil {
		h.render(c, http.StatusOK, p, views.GroupsPage(views.GroupsVM{}))
		return
	}
	q, qerr := listQuery(c)
	limit, after, lerr := pageQuery(c)
	qerr = cmp.Or(qerr, lerr)
	vm := views.GroupsVM{Configured: true, Filter: q.Filter, System: q.System, Sort: q.Sort, Desc: q.Desc,
		SortLinks: groupSortLinks(q), RefreshURL: groupListURL(q, true)}
	if qerr != nil {
		vm.FormError = errorMessage(c, qerr, "")
		vm.Error = loc.T("groups.error.fixFilter")
		h.renderPageOrFragment(c, http.StatusUnprocessableEntity, p, views.GroupsPage(vm))
		return
	}
	refresh, _ := queryFlag(c.Query("refresh"))
	l, err := h.Groups.List(c.Request.Context(), refresh)
	l = visibleGroups(c, l)
	if err != nil {
		vm.Error = loc.T("groups.error.read", "Error", groupErrText(loc, err))
		h.renderPageOrFragment(c, http.StatusOK, p, views.GroupsPage(vm))
		return
	}
	pg, perr := groups.PageOf(groups.Select(l, q), q, limit, after)
	if perr != nil {
		vm.FormError = errorMessage(c, perr, "")
		vm.Error = loc.T("groups.error.fixFilter")
		h.renderPageOrFragment(c, http.StatusUnprocessableEntity, p, views.GroupsPage(vm))
		return
	}
	sel := pg.Groups
	vm.Total, vm.Shown = pg.Total, shownThrough(c, len(sel))
	if pg.Next != "" {
		vm.NextURL = groupPageURL(q, limit, pg.Next, vm.Shown, false)
		vm.MoreURL = groupPageURL(q, limit, pg.Next, vm.Shown, true)
	}
	if after != "" {
		vm.FirstURL = groupListURL(q, false)
	}
	for _, g := range l.Groups {
		if g.System && !q.System {
			vm.Hidden++
		}
	}
	spark, now := h.recentLag(c, sel), h.now()
	for _, s := range sel {
		r := groupRowVM(loc, s)
		if v, ok := spark[s.Group]; ok {
			r.Spark = views.NewSparklineOver(loc, sparkValues(v), loc.N("groups.spark.over", len(v)))
			r.Trend = trendVM(loc, "", groups.TrendOf(v, now), LagSampling{})
		} else {
			r.Spark.Empty = true
		}
		vm.Rows = append(vm.Rows, r)
	}
	vm.CheckedAt, vm.CheckedISO = views.TimeUTC(l.CheckedAt), views.ISO(l.CheckedAt)
	vm.Took = msSpan(loc, l.Took.Milliseconds(), time.Millisecond)
	vm.Failures = sayFailures(loc, l.Failures)
	vm.Needs5x = loc.SayText(l.Needs5x)
	if n, at := groups.KeptMaxOffsets(l); n > 0 {
		vm.MaxOffsets = loc.N("groups.maxOffsets", n)
		vm.MaxOffsetsAt, vm.MaxOffsetsISO = views.TimeUTC(at), views.ISO(at)
	}
	if c.Query("rows") == "1" && isHTMX(c) {
		h.renderFragment(c, http.StatusOK, views.GroupRowsFragment(vm))
		return
	}
	h.renderPageOrFragment(c, http.StatusOK, p, views.GroupsPage(vm))
}

// API answers GET /api/v1/groups[?q=&system=&sort=&desc=&refresh=&limit=&cursor=].
func (h *GroupsList) API(c *gin.Context) {
	if h.Groups == nil {
		h.Fail(c, errNoCluster())
		return
	}
	q, err := listQuery(c)
	if err != nil {
		h.Fail(c, err)
		return
	}
	limit, after, err := pageQuery(c)
	if err != nil {
		h.Fail(c, err)
		return
	}
	refresh, _ := queryFlag(c.Query("refresh"))
	l, err := h.Groups.List(c.Request.Context(), refresh)
	l = visibleGroups(c, l)
	if err != nil {
		h.Fail(c, err)
		return
	}
	pg, err := groups.PageOf(groups.Select(l, q), q, limit, after)
	if err != nil {
		h.Fail(c, err)
		return
	}
	c.JSON(http.StatusOK, GroupsJSON{Groups: pg.Groups, Total: pg.Total, All: len(l.Groups), Next: pg.Next, CheckedAt: l.CheckedAt,
		AgeSecond: h.now().Sub(l.CheckedAt).Seconds(), Failures: l.Failures})
}

// groupListURL is /groups with q's filter and order.
func groupListURL(q groups.ListQuery, refresh bool) string {
	v := url.Values{}
	if q.Filter != "" {
		v.Set("q", q.Filter)
	}
	if q.System {
		v.Set("system", "1")
	}
	if q.Sort != "" {
		v.Set("sort", q.Sort)
	}
	if q.Desc {
		v.Set("desc", "1")
	}
	if refresh {
		v.Set("refresh", "1")
	}
	if len(v) == 0 {
		return "/groups"
	}
	return "/groups?" + v.Encode()
}

// pageQuery reads a list's page size and cursor; the cursor itself is checked against
// the list's order and filter when the page is cut.
func pageQuery(c *gin.Context) (int, string, error) {
	limit, err := paging.ParseLimit(c.Query("limit"))
	return limit, c.Query("cursor"), err
}

// shownThrough counts the rows up to the end of this page: the rows earlier pages showed
// (the "shown" the next-page link carries) and this page's. A count that is not one
// only makes the "n of total" line start over.
func shownThrough(c *gin.Context, rows int) int {
	before, err := strconv.Atoi(c.Query("shown"))
	if err != nil || before < 0 {
		before = 0
	}
	return before + rows
}

// groupPageURL is the page of the group list after cursor; rows asks for its rows alone.
func groupPageURL(q groups.ListQuery, limit int, cursor string, shown int, rows bool) string {
	return listPageURL(groupListURL(q, false), limit, cursor, shown, rows)
}

// listPageURL is list (a list page's URL with its filter and order) at the page after
// cursor; rows asks for its rows alone.
func listPageURL(list string, limit int, cursor string, shown int, rows bool) string {
	u, _ := url.Parse(list)
	v := u.Query()
	if limit != paging.DefaultLimit {
		v.Set("limit", strconv.Itoa(limit))
	}
	v.Set("cursor", cursor)
	v.Set("shown", strconv.Itoa(shown))
	if rows {
		v.Set("rows", "1")
	}
	return u.Path + "?" + v.Encode()
}

// groupSortLinks gives each column a link that sorts by it (see sortLinks).
func groupSortLinks(q groups.ListQuery) map[string]views.SortLink {
	return sortLinks(groups.SortKeys, q.Sort, q.Desc, "group",
		func(k string) bool { return k == "group" },
		func(sort string, desc bool) string {
			n := q
			n.Sort, n.Desc = sort, desc
			return groupListURL(n, false)
		})
}

// recentLag reads the last hour of the first maxSparklines groups shown. A store that
// fails costs the list its sparklines, not the list.
func (h *GroupsList) recentLag(c *gin.Context, sel []groups.Summary) map[string][]store.LagSample {
	if h.Lag == nil {
		return nil
	}
	names := make([]string, 0, min(len(sel), maxSparklines))
	for _, s := range sel[:min(len(sel), maxSparklines)] {
		names = append(names, s.Group)
	}
	m, err := h.Lag.RecentLag(c.Request.Context(), names, h.now().Add(-time.Hour))
	if err != nil {
		h.Log.Warn("read recent lag history", "groups", len(names), "err", err)
	}
	return m
}
