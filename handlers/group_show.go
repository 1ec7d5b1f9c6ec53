package handlers

import (
	"context"
	"net/http"
	"time"

	"github.com/gin-gonic/gin"

	"rmqconsole/groups"
	"rmqconsole/i18n"
	"rmqconsole/rights"
	"rmqconsole/rocketmq"
	"rmqconsole/store"
	"rmqconsole/views"
)

// GroupReader is what the group page needs from package groups.
type GroupReader interface {
	Lookup(ctx context.Context, group string) (*groups.Detail, error)
}

// RebalanceHistory reads stored rebalance events and their daily sums.
type RebalanceHistory interface {
	RebalanceEvents(ctx context.Context, group string, limit int, before time.Time) ([]store.RebalanceEvent, error)
	RebalanceDays(ctx context.Context, group string, since time.Time) ([]store.RebalanceDay, error)
}

// rebalanceDays reads the daily sums of the last groups.CostDays days.
func (h *GroupShow) rebalanceDays(ctx context.Context, group string) ([]store.RebalanceDay, error) {
	if h.Events == nil {
		return nil, nil
	}
	return h.Events.RebalanceDays(ctx, group, groups.CostSince(time.Now()))
}

// GroupShow is /groups/{group} and GET /api/v1/groups/{group}.
type GroupShow struct {
	*Env
	// Groups is nil when no NameServer is configured.
	Groups GroupReader
	Live   LiveGroups
	Events RebalanceHistory
	// Lag is the stored lag history; nil draws only what is watched live.
	Lag      LagHistory
	Sampling LagSampling
	// Alerts are the alert rules; nil shows none.
	Alerts AlertRules
	// Diagnosis is what is wrong now; nil leaves the section out.
	Diagnosis Findings
	// DeadLetters counts the group's retry and dead-letter topics; nil shows none.
	DeadLetters DeadLetterTopics
}

// read returns the group's state: the live watcher's latest when someone is watching
// (no broker call), else a fresh read.
func (h *GroupShow) read(ctx context.Context, group string) (*groups.Detail, *groups.History, []groups.Event, error) {
	if h.Live != nil {
		if s, ok := h.Live.Latest(group); ok {
			return s.Detail, s.History, s.Recent, nil
		}
	}
	d, err := h.Groups.Lookup(ctx, group)
	if err != nil {
		return nil, nil, nil, err
	}
	var recent []groups.Event
	if h.Events != nil {
		stored, err := h.Events.RebalanceEvents(ctx, group, groups.RecentEvents, time.Time{})
		if err != nil {
			h.Log.Warn("read rebalance history", "group", group, "err", err)
		}
		recent = groups.EventsFromStore(stored)
	}
	return d, nil, recent, nil
}

// Show renders the group page.
func (h *GroupShow) Show(c *gin.Context) {
	group, ok := h.groupParam(c)
	if !ok {
		return
	}
	l := i18n.From(c.Request.Context())
	p := h.page(c, l.T("group.title", "Group", views.Cut(group)), "groups")
	if h.Groups == nil {
		h.render(c, http.StatusOK, p, views.GroupPage(views.GroupVM{Group: group, ResetURL: views.GroupURL(group) + "/reset"}))
		return
	}
	d, hist, recent, err := h.read(c.Request.Context(), group)
	if err != nil {
		h.Fail(c, err)
		return
	}
	view := viewOfGroup(CallerRights(c), group)
	d, hist, recent = view.detail(d), view.history(hist), view.events(recent)
	poll := time.Second
	if h.Live != nil {
		poll = h.Live.Interval()
	}
	days, daysErr := h.rebalanceDays(c.Request.Context(), group)
	if daysErr != nil {
		h.Log.Warn("read rebalance days", "group", group, "err", daysErr)
	}
	vm := groupPageVM(l, d, hist, recent, days, daysErr, poll)
	vm.LagChart, vm.Trend = h.lagChart(c, group)
	vm.Diagnosis = groupDiagnosisVM(c, l, h.Diagnosis, group)
	if h.Alerts != nil {
		rules, err := h.Alerts.ForGroup(c.Request.Context(), group)
		if err != nil {
			h.Log.Warn("read alert rules", "group", group, "err", err)
		}
		vm.Alerts = groupAlertsVM(l, group, rules)
	}
	if h.DeadLetters != nil {
		t, err := h.DeadLetters.Topics(c.Request.Context(), group)
		if err == nil && d.Pop != nil {
			t.PopRetry, err = h.DeadLetters.PopRetryTopics(c.Request.Context(), group, popTopics(d))
		}
		vm.DeadLetters = groupDeadLettersIn(l, t, err, time.Now(), d.ClientsUnknown)
	}
	if !MayGroup(c, group, rights.Reset) {
		vm.ResetURL = "" // the caller's rights do not cover resetting this group
	}
	h.render(c, http.StatusOK, p, views.GroupPage(vm))
}

// popTopics are the topics a POP group consumes, each with its own POP retry topic.
func popTopics(d *groups.Detail) []string {
	var out []string
	for _, ts := range d.Topics {
		if !ts.Retry && !rocketmq.IsDLQTopic(ts.Topic) {
			out = append(out, ts.Topic)
		}
	}
	return out
}

// lagChart reads the stored history of the span ?range= asks for, and the trend from
// its newest samples. A store that fails costs the chart its history, not the page.
func (h *GroupShow) lagChart(c *gin.Context, group string) (views.LagChart, views.TrendVM) {
	l := i18n.From(c.Request.Context())
	key, span := lagRange(c.Query("range"))
	if h.Lag == nil {
		return lagChartVM(l, group, key, nil, LagSampling{}, nil), trendVM(l, "", groups.TrendOf(nil, time.Now()), LagSampling{})
	}
	now := time.Now()
	samples, err := h.Lag.LagSamples(c.Request.Context(), group, now.Add(-span), now.Add(time.Second))
	if err != nil {
		h.Log.Warn("read lag history", "group", group, "err", err)
	}
	return lagChartVM(l, group, key, samples, h.Sampling, err), trendVM(l, group, groups.TrendOf(samples, now), h.Sampling)
}

// API answers GET /api/v1/groups/{group}.
func (h *GroupShow) API(c *gin.Context) {
	group, ok := h.groupParam(c)
	if !ok {
		return
	}
	if h.Groups == nil {
		h.Fail(c, errNoCluster())
		return
	}
	d, _, _, err := h.read(c.Request.Context(), group)
	if err != nil {
		h.Fail(c, err)
		return
	}
	c.JSON(http.StatusOK, viewOfGroup(CallerRights(c), group).detail(d))
}
