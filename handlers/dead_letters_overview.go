package handlers

import (
	"context"
	"net/http"
	"time"

	"github.com/gin-gonic/gin"

	"rmqconsole/cluster"
	"rmqconsole/deadletters"
	"rmqconsole/i18n"
	"rmqconsole/views"
)

// DeadLetterOverview lists the cluster's dead-letter topics; *deadletters.Service
// implements it.
type DeadLetterOverview interface {
	Overview(ctx context.Context, refresh bool) ([]deadletters.GroupDLQ, error)
}

// DeadLetterList is /dead-letters: every consumer group's dead-letter topic, the newest
// dead letters first.
type DeadLetterList struct {
	*Env
	// Service is nil when no NameServer is configured.
	Service DeadLetterOverview
	Now     func() time.Time
}

// Show renders /dead-letters, a page of topics at a time.
func (h *DeadLetterList) Show(c *gin.Context) {
	l := i18n.From(c.Request.Context())
	p := h.page(c, l.T("dlqs.title"), "deadletters")
	vm := views.DeadLettersVM{Configured: h.Service != nil}
	if h.Service != nil {
		limit, after, err := overviewPageQuery(c)
		var list []deadletters.GroupDLQ
		var pg deadletters.OverviewPage
		if err == nil {
			refresh, _ := queryFlag(c.Query("refresh"))
			if list, err = h.Service.Overview(c.Request.Context(), refresh); err != nil {
				vm.Error = l.T("dlqs.error", "Error", sayErr(l, err))
				h.render(c, http.StatusOK, p, views.DeadLettersPage(vm))
				return
			}
			list = visibleDeadLetters(c, list)
			pg, err = deadletters.PageOverview(list, limit, after)
		}
		if err != nil {
			vm.Error = errorMessage(c, err, "")
			h.render(c, http.StatusUnprocessableEntity, p, views.DeadLettersPage(vm))
			return
		}
		vm = deadLettersVM(l, list, pg.Topics, h.now())
		vm.Total, vm.Shown = pg.Total, shownThrough(c, len(pg.Topics))
		if pg.Next != "" {
			vm.NextURL = listPageURL("/dead-letters", limit, pg.Next, vm.Shown, false)
			vm.MoreURL = listPageURL("/dead-letters", limit, pg.Next, vm.Shown, true)
		}
		if after != "" {
			vm.FirstURL = "/dead-letters"
		}
		if c.Query("rows") == "1" && isHTMX(c) {
			h.renderFragment(c, http.StatusOK, views.DeadLetterRowsFragment(vm))
			return
		}
	}
	h.render(c, http.StatusOK, p, views.DeadLettersPage(vm))
}

// DeadLettersJSON answers GET /api/v1/dead-letters: a page of the overview /dead-letters
// shows, from the same copy (counted at most every deadletters.OverviewTTL).
type DeadLettersJSON struct {
	// DeadLetters is one page, the newest dead letters first: limit topics
	// (paging.DefaultLimit when the request gives none).
	DeadLetters []DeadLetterJSON `json:"deadLetters"`
	// Total counts every dead-letter topic, on every page.
	Total int `json:"total"`
	// Next is the cursor of the following page; absent on the last one.
	Next string `json:"next,omitempty"`
	// Failures are the brokers that did not count a topic, whichever page it is on, as
	// the page names them on every page.
	Failures []cluster.BrokerFailure `json:"failures,omitempty"`
}

// DeadLetterJSON is one consumer group's dead-letter topic.
type DeadLetterJSON struct {
	Group string `json:"group"`
	Topic string `json:"topic"`
	// Stored is how many messages the brokers that answered store; null when none did.
	Stored *int64 `json:"stored"`
	// Newest is the store time of the newest stored dead letter (epoch ms); null when
	// none is stored or no broker said.
	Newest *int64 `json:"newest"`
	// Failures are the brokers that did not count the topic.
	Failures []cluster.BrokerFailure `json:"failures,omitempty"`
}

// API answers GET /api/v1/dead-letters[?limit=&cursor=&refresh=].
func (h *DeadLetterList) API(c *gin.Context) {
	if h.Service == nil {
		h.Fail(c, errNoCluster())
		return
	}
	limit, after, err := overviewPageQuery(c)
	if err != nil {
		h.Fail(c, err)
		return
	}
	refresh, _ := queryFlag(c.Query("refresh"))
	list, err := h.Service.Overview(c.Request.Context(), refresh)
	if err != nil {
		h.Fail(c, err)
		return
	}
	pg, err := deadletters.PageOverview(list, limit, after)
	if err != nil {
		h.Fail(c, err)
		return
	}
	out := DeadLettersJSON{DeadLetters: make([]DeadLetterJSON, 0, len(pg.Topics)), Total: pg.Total, Next: pg.Next}
	for _, g := range list {
		out.Failures = append(out.Failures, g.Failures...)
	}
	for _, g := range pg.Topics {
		d := DeadLetterJSON{Group: g.Group, Topic: g.Topic, Failures: g.Failures}
		if g.Counted > 0 || len(g.Failures) == 0 {
			d.Stored = &g.Stored
		}
		if !g.Newest.IsZero() {
			ms := g.Newest.UnixMilli()
			d.Newest = &ms
		}
		out.DeadLetters = append(out.DeadLetters, d)
	}
	c.JSON(http.StatusOK, out)
}

// overviewPageQuery is the page of the overview the request asks for (limit, cursor),
// refused as bad input before the overview is counted.
func overviewPageQuery(c *gin.Context) (int, string, error) {
	limit, after, err := pageQuery(c)
	if err == nil && after != "" {
		err = deadletters.CheckOverviewCursor(after)
	}
	return limit, after, err
}

func (h *DeadLetterList) now() time.Time {
	if h.Now != nil {
		return h.Now()
	}
	return time.Now()
}

// deadLettersVM is the overview in l's language: each topic of the page rows with its
// count and newest arrival, or why either is unknown, and every broker that did not say
// of any topic in all, once (whichever page its topics fall on).
func deadLettersVM(l *i18n.Localizer, all, rows []deadletters.GroupDLQ, now time.Time) views.DeadLettersVM {
	vm := views.DeadLettersVM{Configured: true, Total: len(all)}
	var fails []cluster.BrokerFailure
	for _, g := range all {
		fails = append(fails, g.Failures...)
	}
	for _, g := range rows {
		row := views.DeadLetterRow{Group: g.Group, GroupURL: views.GroupURL(g.Group), Topic: g.Topic,
			MessagesURL: views.DeadLetterMessagesURL(g.Topic, g.Newest, now)}
		unknown := g.Counted == 0 && len(g.Failures) > 0
		switch {
		case unknown:
			row.Stored, row.Newest = l.T("dlqs.unknown"), l.T("dlqs.unknown")
		case g.Newest.IsZero() && g.Stored == 0:
			row.Stored, row.Newest = l.Int(0), l.T("dlqs.newest.none")
		case g.Newest.IsZero():
			row.Stored, row.Newest = l.Int(g.Stored), l.T("dlqs.unknown")
		default:
			row.Stored, row.Newest, row.NewestISO = l.Int(g.Stored), views.TimeUTC(g.Newest), views.ISO(g.Newest)
		}
		row.Partial = len(g.Failures) > 0 && !unknown
		vm.Rows = append(vm.Rows, row)
	}
	vm.Failures = sayFailures(l, fails)
	return vm
}
