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
		limit, after, err := pageQuery(c)
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
	vm := views.DeadLettersVM{Configured: true, Count: l.N("dlqs.count", len(all))}
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
