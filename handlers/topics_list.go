package handlers

import (
	"context"
	"net/http"
	"net/url"
	"slices"
	"time"

	"github.com/gin-gonic/gin"

	"rmqconsole/i18n"
	"rmqconsole/topics"
	"rmqconsole/views"
)

// TopicReader is what the topic pages need from package topics.
type TopicReader interface {
	List(ctx context.Context, withSystem, refresh bool) (*topics.List, error)
	Detail(ctx context.Context, q topics.DetailQuery) (*topics.Detail, error)
}

// Topics is /topics, /topics/{topic} and their API.
type Topics struct {
	*Env
	// Topics is nil when no NameServer is configured.
	Topics TopicReader
	// Changes creates, updates and deletes topics; nil when no NameServer is configured.
	Changes TopicChanger
	// Now is the clock, for the list's age (tests).
	Now func() time.Time
}

// TopicsJSON answers GET /api/v1/topics. Each topic keeps the fields the API has always
// had (topic, readQueues, writeQueues, brokers, system) and adds its figures.
type TopicsJSON struct {
	Topics    []topics.Summary  `json:"topics"`
	Total     int               `json:"total"`
	CheckedAt time.Time         `json:"checkedAt"`
	AgeSecond float64           `json:"ageSeconds"`
	Errors    []BrokerErrorJSON `json:"errors,omitempty"`
}

// errTopicsNoCluster answers when no NameServer is configured.
func errTopicsNoCluster(c *gin.Context) *UserError {
	return &UserError{Status: http.StatusServiceUnavailable, Code: "no_cluster",
		Message: i18n.From(c.Request.Context()).T("topics.api.nocluster")}
}

// topicListQuery reads the filter and order from the query string; what it does not
// know is a user error, said next to the form.
func topicListQuery(c *gin.Context) (topics.ListQuery, *UserError) {
	q := topics.ListQuery{Filter: c.Query("q"), Sort: c.Query("sort"), Type: c.Query("type")}
	l := i18n.From(c.Request.Context())
	var ok bool
	if q.System, ok = queryFlag(c.Query("system")); !ok {
		return q, &UserError{Status: http.StatusBadRequest, Code: "bad_system", Message: l.T("topics.bad.flag", "Name", "system")}
	}
	if q.Desc, ok = queryFlag(c.Query("desc")); !ok {
		return q, &UserError{Status: http.StatusBadRequest, Code: "bad_desc", Message: l.T("topics.bad.flag", "Name", "desc")}
	}
	if q.Sort != "" && !slices.Contains(topics.SortKeys, q.Sort) {
		bad := q.Sort
		q.Sort = ""
		return q, &UserError{Status: http.StatusBadRequest, Code: "bad_sort",
			Message: l.T("topics.bad.sort", "Sort", views.Cut(bad))}
	}
	if q.Type != "" && !slices.Contains(topics.Types, q.Type) {
		bad := q.Type
		q.Type = ""
		return q, &UserError{Status: http.StatusBadRequest, Code: "bad_type",
			Message: l.T("topics.bad.type", "Type", views.Cut(bad))}
	}
	if err := filterRefused(l, &q.Filter); err != nil {
		return q, err
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
	vm := views.TopicsVM{Configured: true, Filter: q.Filter, Type: q.Type, Types: topics.Types, System: q.System, Sort: q.Sort, Desc: q.Desc,
		SortLinks: topicSortLinks(q), RefreshURL: topicListURL(q, true)}
	if uerr != nil {
		vm.FormError = uerr.Message
		vm.Error = lz.T("topics.error.filter")
		h.renderPageOrFragment(c, http.StatusUnprocessableEntity, p, views.TopicsPage(vm))
		return
	}
	refresh, _ := queryFlag(c.Query("refresh"))
	l, err := h.Topics.List(c.Request.Context(), q.System, refresh)
	if err != nil {
		vm.Error = lz.T("topics.error.read", "Error", sayErr(lz, err))
		h.renderPageOrFragment(c, http.StatusOK, p, views.TopicsPage(vm))
		return
	}
	vm = topicsVM(lz, vm, l, q)
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

// ListAPI answers GET /api/v1/topics[?q=&type=&system=&sort=&desc=&refresh=].
func (h *Topics) ListAPI(c *gin.Context) {
	if h.Topics == nil {
		h.Fail(c, errTopicsNoCluster(c))
		return
	}
	q, uerr := topicListQuery(c)
	if uerr != nil {
		h.Fail(c, uerr)
		return
	}
	refresh, _ := queryFlag(c.Query("refresh"))
	l, err := h.Topics.List(c.Request.Context(), q.System, refresh)
	if err != nil {
		h.Fail(c, err)
		return
	}
	sel := topics.Select(l, q)
	c.JSON(http.StatusOK, TopicsJSON{Topics: sel, Total: len(l.Topics), CheckedAt: l.CheckedAt,
		AgeSecond: h.now().Sub(l.CheckedAt).Seconds(), Errors: brokerErrorsJSON(l.Failures)})
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
