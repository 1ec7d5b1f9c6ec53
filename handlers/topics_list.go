package handlers

import (
	"context"
	"net/http"
	"net/url"
	"slices"
	"time"

	"github.com/gin-gonic/gin"

	"rmqconsole/fault"
	"rmqconsole/i18n"
	"rmqconsole/topics"
	"rmqconsole/views"
)

// TopicReader is what the topic pages need from package topics.
type TopicReader interface {
	List(ctx context.Context, withSystem, refresh bool) (*topics.List, error)
	Detail(ctx context.Context, q topics.DetailQuery) (*topics.Detail, error)
}

// TopicViewer is told which topics a reader has on screen.
type TopicViewer interface {
	Viewing(topics []string)
}

// Topics is /topics, /topics/{topic} and their API.
type Topics struct {
	*Env
	// Topics is nil when no NameServer is configured.
	Topics TopicReader
	// Viewer is told which topics a page shows, so their figures are read first; nil
	// when no NameServer is configured.
	Viewer TopicViewer
	// Changes creates, updates and deletes topics; nil when no NameServer is configured.
	Changes TopicChanger
	// Now is the clock, for the list's age (tests).
	Now func() time.Time
}

// TopicsJSON answers GET /api/v1/topics. Each topic keeps the fields the API has always
// had (topic, readQueues, writeQueues, brokers, system) and adds its figures.
type TopicsJSON struct {
	// Topics is one page: limit rows (paging.DefaultLimit when the request gives none).
	Topics []topics.Summary `json:"topics"`
	// Total counts the topics the filter keeps, on every page.
	Total int `json:"total"`
	// All counts every topic read, before the filter.
	All int `json:"all"`
	// Next is the cursor of the following page; absent on the last one.
	Next      string    `json:"next,omitempty"`
	CheckedAt time.Time `json:"checkedAt"`
	AgeSecond float64   `json:"ageSeconds"`
	// FiguresOldestSeconds is the age of the oldest figure among the topics the filter
	// keeps (absent when none is known); FiguresUnknown counts those with none yet. The
	// sort by messages or TPS orders them by these figures, the unknown last.
	FiguresOldestSeconds *float64               `json:"figuresOldestSeconds,omitempty"`
	FiguresUnknown       int                    `json:"figuresUnknown"`
	Failures             []topics.BrokerFailure `json:"failures,omitempty"`
	// Errors are Failures as {"broker","error"}. Deprecated: use failures.
	Errors []BrokerErrorJSON `json:"errors,omitempty"`
}

// topicListQuery reads the filter and order from the query string; what it does not
// know is refused, said next to the form.
func topicListQuery(c *gin.Context) (topics.ListQuery, *fault.Error) {
	q := topics.ListQuery{Filter: c.Query("q"), Sort: c.Query("sort"), Type: c.Query("type")}
	var ok bool
	if q.System, ok = queryFlag(c.Query("system")); !ok {
		return q, fault.InvalidField("system", "topics.bad.flag", "Name", "system").Because("bad_system")
	}
	if q.Desc, ok = queryFlag(c.Query("desc")); !ok {
		return q, fault.InvalidField("desc", "topics.bad.flag", "Name", "desc").Because("bad_desc")
	}
	if q.Sort != "" && !slices.Contains(topics.SortKeys, q.Sort) {
		bad := q.Sort
		q.Sort = ""
		return q, fault.InvalidField("sort", "topics.bad.sort", "Sort", views.Cut(bad)).Because("bad_sort")
	}
	if q.Type != "" && !slices.Contains(topics.Types, q.Type) {
		bad := q.Type
		q.Type = ""
		return q, fault.InvalidField("type", "topics.bad.type", "Type", views.Cut(bad)).Because("bad_type")
	}
	if fe := filterRefused(&q.Filter); fe != nil {
		return q, fe
	}
	return q, nil
}

func (h *Topics) now() time.Time {
	if h.Now != nil {
		return h.Now()
	}
	return time.Now()
}

// List renders /topics.
func (h *Topics) List(c *gin.Context) {
	lz := i18n.From(c.Request.Context())
	p := h.page(c, lz.T("topics.title"), "topics")
	if h.Topics == nil {
		h.render(c, http.StatusOK, p, views.TopicsPage(views.TopicsVM{}))
		return
	}
	q, uerr := topicListQuery(c)
	limit, after, lerr := pageQuery(c)
	if uerr == nil && lerr != nil {
		uerr = fault.As(lerr)
	}
	vm := views.TopicsVM{Configured: true, Filter: q.Filter, Type: q.Type, Types: topics.Types, System: q.System, Sort: q.Sort, Desc: q.Desc,
		SortLinks: topicSortLinks(q), RefreshURL: topicListURL(q, true)}
	if uerr != nil {
		vm.FormError = uerr.Say(lz)
		vm.Error = lz.T("topics.error.filter")
		h.renderPageOrFragment(c, http.StatusUnprocessableEntity, p, views.TopicsPage(vm))
		return
	}
	refresh, _ := queryFlag(c.Query("refresh"))
	l, err := h.Topics.List(c.Request.Context(), q.System, refresh)
	l = visibleTopics(c, l)
	if err != nil {
		vm.Error = lz.T("topics.error.read", "Error", sayErr(lz, err))
		h.renderPageOrFragment(c, http.StatusOK, p, views.TopicsPage(vm))
		return
	}
	sel := topics.Select(l, q)
	pg, perr := topics.PageOf(sel, q, limit, after)
	if perr != nil {
		vm.FormError = errorMessage(c, perr, "")
		vm.Error = lz.T("topics.error.filter")
		h.renderPageOrFragment(c, http.StatusUnprocessableEntity, p, views.TopicsPage(vm))
		return
	}
	h.viewing(pg.Topics)
	vm = topicsVM(lz, vm, l, q, pg, h.now())
	vm.SortNote = figuresSortNote(lz, q, topics.Age(sel), h.now())
	vm.Shown = shownThrough(c, len(pg.Topics))
	if pg.Next != "" {
		vm.NextURL = listPageURL(topicListURL(q, false), limit, pg.Next, vm.Shown, false)
		vm.MoreURL = listPageURL(topicListURL(q, false), limit, pg.Next, vm.Shown, true)
	}
	if after != "" {
		vm.FirstURL = topicListURL(q, false)
	}
	if c.Query("rows") == "1" && isHTMX(c) {
		h.renderFragment(c, http.StatusOK, views.TopicRowsFragment(vm))
		return
	}
	if !isHTMX(c) {
		h.changeForms(c, &vm)
	}
	h.renderPageOrFragment(c, http.StatusOK, p, views.TopicsPage(vm))
}

// changeForms adds the create form for operators, or says who may create topics.
func (h *Topics) changeForms(c *gin.Context, vm *views.TopicsVM) {
	switch {
	case h.canChangeTopics(c):
		vm.Create = h.createForm(c.Request.Context())
	case h.Changes != nil:
		vm.ChangeNote = i18n.From(c.Request.Context()).T("topics.operators")
	}
}

// ListAPI answers GET /api/v1/topics[?q=&type=&system=&sort=&desc=&refresh=&limit=&cursor=].
func (h *Topics) ListAPI(c *gin.Context) {
	if h.Topics == nil {
		h.Fail(c, errNoCluster())
		return
	}
	q, uerr := topicListQuery(c)
	if uerr != nil {
		h.Fail(c, uerr)
		return
	}
	limit, after, err := pageQuery(c)
	if err != nil {
		h.Fail(c, err)
		return
	}
	refresh, _ := queryFlag(c.Query("refresh"))
	l, err := h.Topics.List(c.Request.Context(), q.System, refresh)
	l = visibleTopics(c, l)
	if err != nil {
		h.Fail(c, err)
		return
	}
	sel := topics.Select(l, q)
	pg, err := topics.PageOf(sel, q, limit, after)
	if err != nil {
		h.Fail(c, err)
		return
	}
	h.viewing(pg.Topics)
	now := h.now()
	for i, t := range pg.Topics {
		if t.FiguresAt != nil {
			age := now.Sub(*t.FiguresAt).Seconds()
			pg.Topics[i].FiguresAgeSeconds = &age
		}
	}
	age := topics.Age(sel)
	var oldest *float64
	if age.Oldest != nil {
		v := now.Sub(*age.Oldest).Seconds()
		oldest = &v
	}
	c.JSON(http.StatusOK, TopicsJSON{FiguresOldestSeconds: oldest, FiguresUnknown: age.Unknown, Topics: pg.Topics, Total: pg.Total, All: len(l.Topics), Next: pg.Next, CheckedAt: l.CheckedAt,
		AgeSecond: h.now().Sub(l.CheckedAt).Seconds(), Failures: l.Failures, Errors: brokerErrorsJSON(l.Failures)})
}

// viewing tells the collector which topics a page shows.
func (h *Topics) viewing(ts []topics.Summary) {
	if h.Viewer == nil {
		return
	}
	names := make([]string, len(ts))
	for i, t := range ts {
		names[i] = t.Topic
	}
	h.Viewer.Viewing(names)
}

// topicListURL is /topics with q's filter and order.
func topicListURL(q topics.ListQuery, refresh bool) string {
	v := url.Values{}
	if q.Filter != "" {
		v.Set("q", q.Filter)
	}
	if q.Type != "" {
		v.Set("type", q.Type)
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
		return "/topics"
	}
	return "/topics?" + v.Encode()
}

// topicSortLinks gives each column a link that sorts by it (see sortLinks).
func topicSortLinks(q topics.ListQuery) map[string]views.SortLink {
	return sortLinks(topics.SortKeys, q.Sort, q.Desc, "topic",
		func(k string) bool { return k == "topic" || k == "type" },
		func(sort string, desc bool) string {
			n := q
			n.Sort, n.Desc = sort, desc
			return topicListURL(n, false)
		})
}
