package handlers

import (
	"context"
	"net/http"
	"net/url"
	"strconv"
	"time"

	"github.com/gin-gonic/gin"

	"rmqconsole/auth"
	"rmqconsole/fault"
	"rmqconsole/i18n"
	"rmqconsole/resets"
	"rmqconsole/store"
	"rmqconsole/views"
)

// ResetService is what the reset pages need; *resets.Service implements it.
type ResetService interface {
	Snapshot(ctx context.Context, group, topic string) (*resets.Snapshot, error)
	Plan(ctx context.Context, req resets.Request) (*resets.Plan, error)
	Preview(id string) (*resets.Plan, bool)
	ExpiresAt(p *resets.Plan) time.Time
	Apply(ctx context.Context, c resets.Confirmation) (*store.AuditEntry, error)
	RefuseInput(ctx context.Context, who resets.Who, group string, asked resets.Asked, errs error) *store.AuditEntry
}

// Resets serves the reset form of a group, its preview and apply, and their API.
type Resets struct {
	*Env
	// Service plans and applies; nil when no NameServer is configured.
	Service ResetService
	// Now is the clock for quick picks and checks; time.Now when nil.
	Now func() time.Time
}

// resetZones are suggested in the time zone field; any IANA name or offset is accepted.
var resetZones = []string{"UTC", "Europe/London", "Europe/Paris", "Europe/Berlin", "Europe/Moscow", "America/New_York",
	"America/Chicago", "America/Denver", "America/Los_Angeles", "America/Sao_Paulo", "Asia/Kolkata", "Asia/Shanghai",
	"Asia/Singapore", "Asia/Tokyo", "Australia/Sydney"}

func resetPath(group string) string { return views.GroupURL(group) + "/reset" }

// Form is GET /groups/{group}/reset: the form, filled from the query (deep links and
// quick picks), above the group's current offsets.
//
// With preview=1 it is the preview of the query's reset (links from a message's page)
// for those who may preview resets; the form, filled, for the others.
func (h *Resets) Form(c *gin.Context) {
	if c.Query("preview") == "1" && CallerRole(c).Allows(auth.Operator) {
		h.Preview(c)
		return
	}
	group := c.Param("group")
	in := resetFormInput(c)
	if in.Mode == "" {
		in.Mode = string(resets.ModeTimestamp)
	}
	vm := h.baseVM(c.Request.Context(), group, in)
	status := http.StatusOK
	if fault.All(vm.err).For("group") != nil {
		status = http.StatusNotFound
	}
	h.render(c, status, h.page(c, i18n.From(c.Request.Context()).T("reset.page", "Group", views.Cut(group)), "groups"), views.ResetPage(vm.ResetVM))
}

type resetPageVM struct {
	views.ResetVM
	err error
}

// baseVM is the page around the form: the group's current offsets, its topics and
// queues, and quick picks relative to now.
func (h *Resets) baseVM(ctx context.Context, group string, in resetInput) resetPageVM {
	l := i18n.From(ctx)
	vm := resetPageVM{ResetVM: views.ResetVM{Group: group, Configured: h.Service != nil, Form: in.form(), Zones: resetZones}}
	vm.QuickPicks = quickPicks(l, group, in, h.now())
	if h.Service == nil {
		return vm
	}
	snap, err := h.Service.Snapshot(ctx, group, "")
	if err != nil {
		vm.err = err
		if fault.Is(err, fault.Invalid) {
			vm.Error = fault.All(err).Say(l)
		} else if s, ok := sayRefusal(l, "", err); ok {
			vm.Error = l.T("reset.offsets_unread.refused", "Refusal", s)
		} else {
			vm.Error = l.T("reset.offsets_unread", "Error", sayErr(l, err))
		}
		return vm
	}
	vm.Topics = snap.Topics
	cur := &views.ResetCurrent{Online: snap.Online, Known: snap.OnlineKnown, Clients: snap.Clients, ReadAt: views.TimeUTC(h.now())}
	for _, f := range snap.Failures {
		cur.Failures = append(cur.Failures, sayFailure(l, "reset.failure.not_shown", f))
	}
	for _, q := range snap.Queues {
		qid := strconv.Itoa(q.Queue.QueueID)
		vm.Queues = append(vm.Queues, views.ResetQueueOption{Topic: q.Queue.Topic, Broker: q.Queue.BrokerName, QueueID: qid})
		link := url.Values{"topic": {q.Queue.Topic}, "brokerName": {q.Queue.BrokerName}, "queueId": {qid},
			"mode": {"offset"}, "offset": {strconv.FormatInt(q.Current, 10)}}
		cur.Rows = append(cur.Rows, views.ResetCurrentRow{
			Topic: q.Queue.Topic, Broker: q.Queue.BrokerName, QueueID: qid,
			Current: views.Thousands(q.Current), Min: views.Thousands(q.Min), Max: views.Thousands(q.Max), Lag: views.Thousands(q.Lag()),
			ResetURL: resetPath(group) + "?" + link.Encode(),
		})
	}
	vm.Current = cur
	return vm
}

// quickPicks fill the time with recent moments, in the zone of the form.
func quickPicks(l *i18n.Localizer, group string, in resetInput, now time.Time) []views.ResetQuickPick {
	loc, err := resets.LoadZone(in.TimeZone)
	if err != nil {
		loc = time.UTC
	}
	local := now.In(loc)
	midnight := time.Date(local.Year(), local.Month(), local.Day(), 0, 0, 0, 0, loc)
	picks := []struct {
		label string
		at    time.Time
	}{
		{l.T("reset.pick.15m"), now.Add(-15 * time.Minute)},
		{l.T("reset.pick.1h"), now.Add(-time.Hour)},
		{l.T("reset.pick.6h"), now.Add(-6 * time.Hour)},
		{l.T("reset.pick.24h"), now.Add(-24 * time.Hour)},
		{l.T("reset.pick.today"), midnight},
		{l.T("reset.pick.yesterday"), midnight.AddDate(0, 0, -1)},
	}
	out := make([]views.ResetQuickPick, len(picks))
	form := in.form() // the zone defaults to UTC there
	for i, p := range picks {
		f := form
		f.Mode, f.Timestamp = "timestamp", p.at.In(loc).Format(time.DateTime)
		out[i] = views.ResetQuickPick{Label: p.label, URL: resetPath(group) + "?" + f.Values().Encode()}
	}
	return out
}

// previewVM shows a plan, with the request in hidden fields for the apply form.
func (h *Resets) previewVM(l *i18n.Localizer, p *resets.Plan, in resetInput) *views.ResetPreview {
	pv := &views.ResetPreview{
		PlanID: p.ID, PlanHash: p.Hash, Action: l.Say(p.Action()), PlannedAt: views.TimeUTC(p.At),
		Queues: len(p.Queues), Changes: p.Changes(), Reconsumed: views.Thousands(p.Reconsumed()), Skipped: views.Thousands(p.Skipped()),
	}
	for _, w := range p.Warnings {
		pv.Warnings = append(pv.Warnings, l.Say(w))
	}
	for _, f := range p.Failures {
		pv.Failures = append(pv.Failures, sayFailure(l, "reset.failure.not_in_preview", f))
	}
	for _, b := range p.Brokers {
		pv.Brokers = append(pv.Brokers, views.ResetBrokerRow{Name: b.Name, Addr: b.Addr, Version: resets.VersionText(b.Version),
			Method: string(b.Method), Explain: l.Say(b.Method.Explain())})
	}
	for _, q := range p.Queues {
		row := views.ResetPreviewRow{
			Topic: q.Queue.Topic, Broker: q.Queue.BrokerName, QueueID: strconv.Itoa(q.Queue.QueueID),
			Current: views.Thousands(q.Current), Target: views.Thousands(q.Target), Min: views.Thousands(q.Min),
			Max: views.Thousands(q.Max), LagAfter: views.Thousands(q.LagAfter()), Delta: strconv.FormatInt(q.Delta(), 10), Note: l.SayText(q.Note),
		}
		switch d := q.Delta(); {
		case d < 0:
			row.DeltaWord, row.DeltaClass = l.T("reset.delta.back", "N", views.Thousands(-d)), "delta-back"
		case d > 0:
			row.DeltaWord, row.DeltaClass = l.T("reset.delta.skip", "N", views.Thousands(d)), "delta-skip"
		default:
			row.DeltaWord, row.DeltaClass = l.T("reset.delta.none"), "muted"
		}
		pv.Rows = append(pv.Rows, row)
	}
	f := in.form()
	pv.Hidden = []views.HiddenField{
		{Name: "topic", Value: f.Topic}, {Name: "mode", Value: f.Mode}, {Name: "timestamp", Value: f.Timestamp},
		{Name: "tz", Value: f.TimeZone}, {Name: "brokerName", Value: f.BrokerName}, {Name: "queueId", Value: f.QueueID},
		{Name: "offset", Value: f.Offset}, {Name: "shift", Value: f.Shift}, {Name: "auditId", Value: f.AuditID}, {Name: "fromGroup", Value: f.FromGroup},
		{Name: "msgId", Value: f.MsgID}, {Name: "skip", Value: skipValue(f.Skip)},
		{Name: "reason", Value: f.Reason},
		{Name: "planId", Value: p.ID},
	}
	return pv
}
