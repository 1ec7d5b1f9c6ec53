package handlers

import (
	"context"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/gin-gonic/gin"

	"rmqconsole/fault"
	"rmqconsole/i18n"
	"rmqconsole/resets"
	"rmqconsole/rights"
	"rmqconsole/store"
	"rmqconsole/views"
)

// SeveralService plans and applies resets of several groups; *resets.Service
// implements it.
type SeveralService interface {
	PlanSeveral(ctx context.Context, r resets.SeveralRequest) (*resets.SeveralPlan, error)
	ApplySeveral(ctx context.Context, c resets.SeveralConfirmation) (*resets.SeveralResult, error)
	ExpiresAt(p *resets.Plan) time.Time
}

// SeveralResets serves the reset of several groups of a topic: its page and its API.
type SeveralResets struct {
	*Env
	// Service is nil when no NameServer is configured.
	Service SeveralService
	// Refusals records requests the caller's rights refuse (nil records none).
	Refusals RightsRefusals
	Now      func() time.Time
}

func (h *SeveralResets) now() time.Time {
	if h.Now != nil {
		return h.Now()
	}
	return time.Now()
}

// severalJSON is the API body of POST /api/v1/resets/preview and /api/v1/resets.
type severalJSON struct {
	resetJSON
	Groups       []string `json:"groups"`
	GroupPattern string   `json:"groupPattern"`
}

// severalRequest reads the input into a request: the mode's fields as for one group,
// checked once (the groups' own refusals are the service's, per group).
func severalRequest(in resetInput, topic string, groups []string, pattern string, now time.Time) (resets.SeveralRequest, fault.List) {
	req, errs := in.request("G", now) // any valid name stands in for the groups
	req.Group = ""
	var kept fault.List
	for _, e := range errs {
		if e.Field != "group" {
			kept.Add(e)
		}
	}
	return resets.SeveralRequest{Topic: strings.TrimSpace(topic), Groups: groups, GroupPattern: pattern, Request: req}, kept
}

// SeveralPlanJSON is a previewed reset of several groups: one preview per group, or why
// that group will not be reset.
type SeveralPlanJSON struct {
	PlanID       string             `json:"planId"`
	Topic        string             `json:"topic"`
	GroupPattern string             `json:"groupPattern,omitempty"`
	Action       string             `json:"action"`
	GroupsMoved  int                `json:"groupsToReset"`
	QueuesMoved  int                `json:"queuesToMove"`
	Refused      int                `json:"groupsRefused"`
	Groups       []SeveralGroupJSON `json:"groups"`
}

// SeveralGroupJSON is one group of a reset of several groups.
type SeveralGroupJSON struct {
	Group   string    `json:"group"`
	Preview *PlanJSON `json:"preview,omitempty"`
	Error   string    `json:"error,omitempty"`
	Code    string    `json:"code,omitempty"`
}

func (h *SeveralResets) planJSON(p *resets.SeveralPlan) SeveralPlanJSON {
	g, q := p.Moves()
	out := SeveralPlanJSON{PlanID: p.ID, Topic: p.Request.Topic, GroupPattern: p.Request.GroupPattern, Action: p.Action().String(),
		GroupsMoved: g, QueuesMoved: q, Refused: p.Refused(), Groups: []SeveralGroupJSON{}}
	for _, gp := range p.Groups {
		j := SeveralGroupJSON{Group: gp.Group}
		if gp.Plan != nil {
			pj := planJSON(gp.Plan, h.Service.ExpiresAt(gp.Plan))
			j.Preview = &pj
		} else {
			j.Error, j.Code = sayErr(i18n.Match("en"), gp.Err), errorCode(gp.Err)
		}
		out.Groups = append(out.Groups, j)
	}
	return out
}

// errorCode is the API code of err: "bad_request" for bad input, else the fault's reason.
func errorCode(err error) string {
	if fault.Is(err, fault.Invalid) {
		return "bad_request"
	}
	if fe := fault.As(err); fe != nil && fe.Reason != "" {
		return fe.Reason
	}
	return "broker_failure"
}

// PreviewAPI is POST /api/v1/resets/preview: one preview per group, changing nothing.
func (h *SeveralResets) PreviewAPI(c *gin.Context) {
	if h.Service == nil {
		h.Fail(c, fault.New(fault.Unavailable, "reset.no_cluster.api").Because("no_cluster"))
		return
	}
	var j severalJSON
	if err := decodeResetBody(c, &j); err != nil {
		if errs, ok := err.(fault.List); ok {
			badResetRequest(c, errs)
			return
		}
		h.Fail(c, err)
		return
	}
	req, errs := severalRequest(j.input(), j.Topic, j.Groups, j.GroupPattern, h.now())
	req.MaySee = groupsSeen(c)
	if len(errs) > 0 {
		badResetRequest(c, errs)
		return
	}
	asked := j.input().asked()
	if !mayResetGroups(c, h.Env, h.Refusals, req.Topic, req.Groups, asked) {
		return
	}
	p, err := h.Service.PlanSeveral(c.Request.Context(), req)
	// A pattern's groups are known once planned; the plan changed nothing.
	if err == nil && !mayResetGroups(c, h.Env, h.Refusals, "", planGroups(p), asked) {
		return
	}
	switch {
	case fault.Is(err, fault.Invalid):
		badResetRequest(c, fault.All(err))
	case err != nil:
		h.Fail(c, err)
	default:
		c.JSON(http.StatusOK, h.planJSON(p))
	}
}

// SeveralResultJSON is an applied reset of several groups: the summary entry and each
// group's outcome.
type SeveralResultJSON struct {
	Summary AuditEntryJSON       `json:"summary"`
	Groups  []SeveralOutcomeJSON `json:"groups"`
}

// SeveralOutcomeJSON is how one group went: its audit entry, or why it was not reset.
type SeveralOutcomeJSON struct {
	Group   string `json:"group"`
	AuditID int64  `json:"auditId,omitempty"`
	Status  string `json:"status"`
	Error   string `json:"error,omitempty"`
}

// ApplyAPI is POST /api/v1/resets: applies the preview named by planId, group by group.
func (h *SeveralResets) ApplyAPI(c *gin.Context) {
	if h.Service == nil {
		h.Fail(c, fault.New(fault.Unavailable, "reset.no_cluster.api").Because("no_cluster"))
		return
	}
	var j struct {
		PlanID  string `json:"planId"`
		Confirm bool   `json:"confirm"`
		Reason  string `json:"reason"`
	}
	if err := decodeResetBody(c, &j); err != nil {
		if errs, ok := err.(fault.List); ok {
			badResetRequest(c, errs)
			return
		}
		h.Fail(c, err)
		return
	}
	res, err := h.Service.ApplySeveral(c.Request.Context(), resets.SeveralConfirmation{PlanID: j.PlanID, Confirmed: j.Confirm,
		Reason: strings.TrimSpace(j.Reason), Who: who(c), May: h.mayReset(c)})
	switch {
	case fault.Is(err, fault.Invalid):
		badResetRequest(c, fault.All(err))
		return
	case fault.Is(err, fault.Conflict):
		c.JSON(http.StatusConflict, conflictJSON{Error: fault.As(err).Msg.String(), Code: "conflict"})
		return
	case err != nil && (res == nil || res.Summary == nil) && (res == nil || len(res.Groups) == 0):
		h.Fail(c, err)
		return
	}
	out := SeveralResultJSON{Groups: severalOutcomes(res)}
	if res.Summary != nil {
		out.Summary = auditEntryJSON(res.Summary)
	}
	status := http.StatusOK
	if err != nil { // applied, but the summary is not recorded
		status = http.StatusServiceUnavailable
	}
	c.JSON(status, out)
}

// severalOutcomes are the groups' outcomes as the API answers them.
func severalOutcomes(res *resets.SeveralResult) []SeveralOutcomeJSON {
	out := []SeveralOutcomeJSON{}
	if res == nil {
		return out
	}
	for _, g := range res.Groups {
		j := SeveralOutcomeJSON{Group: g.Group, Status: string(store.AuditRefused)}
		if g.Entry != nil {
			j.AuditID, j.Status = g.Entry.ID, string(g.Entry.Status)
		}
		if g.Err != nil {
			j.Error = sayErr(i18n.Match("en"), g.Err)
		}
		out = append(out, j)
	}
	return out
}

// severalForm reads the page's form.
func severalForm(c *gin.Context) (resetInput, views.SeveralResetVM) {
	in := resetFormInput(c)
	vm := views.SeveralResetVM{Topic: c.Param("topic"), Groups: c.PostForm("groups"), Pattern: c.PostForm("groupPattern"),
		Mode: in.Mode, Timestamp: in.Timestamp, Shift: in.Shift, MsgID: in.MsgID, Skip: in.Skip, Reason: in.Reason}
	return in, vm
}

// Form is GET /topics/{topic}/resets: the form.
func (h *SeveralResets) Form(c *gin.Context) {
	l := i18n.From(c.Request.Context())
	vm := views.SeveralResetVM{Topic: c.Param("topic"), Mode: c.Query("mode"), Pattern: c.Query("groupPattern")}
	h.render(c, http.StatusOK, h.page(c, l.T("resets.several.title", "Topic", views.Cut(vm.Topic)), "topics"), views.SeveralResetPage(vm))
}

// Preview is POST /topics/{topic}/resets/preview: every group's preview and the one
// confirmation. Bad input re-renders the form (422).
func (h *SeveralResets) Preview(c *gin.Context) {
	ctx := c.Request.Context()
	l := i18n.From(ctx)
	in, vm := severalForm(c)
	title := h.page(c, l.T("resets.several.title", "Topic", views.Cut(vm.Topic)), "topics")
	if h.Service == nil {
		vm.Error = l.T("reset.no_cluster")
		h.render(c, http.StatusServiceUnavailable, title, views.SeveralResetPage(vm))
		return
	}
	groups := strings.FieldsFunc(vm.Groups, func(r rune) bool { return r == '\n' || r == ',' || r == '\r' || r == ' ' })
	req, errs := severalRequest(in, vm.Topic, groups, strings.TrimSpace(vm.Pattern), h.now())
	req.MaySee = groupsSeen(c)
	var p *resets.SeveralPlan
	var err error
	if len(errs) == 0 {
		if !mayResetGroups(c, h.Env, h.Refusals, req.Topic, req.Groups, in.asked()) {
			return
		}
		p, err = h.Service.PlanSeveral(ctx, req)
		if err == nil && !mayResetGroups(c, h.Env, h.Refusals, "", planGroups(p), in.asked()) {
			return
		}
		errs = fault.All(err)
		if !fault.Is(err, fault.Invalid) {
			errs = nil
		}
	}
	switch {
	case len(errs) > 0:
		vm.FieldErrors = fieldErrors(l, errs)
		vm.Error = l.T("reset.nothing_changed", "Errors", errs.Say(l))
		h.render(c, http.StatusUnprocessableEntity, title, views.SeveralResetPage(vm))
		return
	case err != nil:
		status, _ := errorStatus(err)
		vm.Error = l.T("reset.preview_failed", "Error", sayErr(l, err))
		h.render(c, status, title, views.SeveralResetPage(vm))
		return
	}
	pv := &views.SeveralPreviewVM{PlanID: p.ID, Action: l.Say(p.Action())}
	for _, g := range p.Groups {
		row := views.SeveralRowVM{Group: g.Group, GroupURL: views.GroupURL(g.Group)}
		if g.Plan == nil {
			row.Refused = l.T("resets.several.refused", "Why", sayErr(l, g.Err))
		} else {
			pv.CanApply = true
			row.Moves = l.T("resets.several.moves", "Changes", g.Plan.Changes(), "Queues", len(g.Plan.Queues))
			for _, w := range g.Plan.Warnings {
				row.Warnings = append(row.Warnings, l.Say(w))
			}
		}
		pv.Rows = append(pv.Rows, row)
	}
	vm.Preview = pv
	h.render(c, http.StatusOK, title, views.SeveralResetPage(vm))
}

// Apply is POST /topics/{topic}/resets/apply: applies the previews group by group and
// shows each group's outcome with the summary entry.
func (h *SeveralResets) Apply(c *gin.Context) {
	ctx := c.Request.Context()
	l := i18n.From(ctx)
	vm := views.SeveralResetVM{Topic: c.Param("topic"), Reason: c.PostForm("reason")}
	title := h.page(c, l.T("resets.several.title", "Topic", views.Cut(vm.Topic)), "topics")
	if h.Service == nil {
		vm.Error = l.T("reset.no_cluster")
		h.render(c, http.StatusServiceUnavailable, title, views.SeveralResetPage(vm))
		return
	}
	in := resetFormInput(c)
	res, err := h.Service.ApplySeveral(ctx, resets.SeveralConfirmation{PlanID: in.PlanID,
		Confirmed: in.Confirm, Reason: strings.TrimSpace(in.Reason), Who: who(c), May: h.mayReset(c)})
	if res == nil {
		status, _ := errorStatus(err)
		if fault.Is(err, fault.Invalid) {
			status = http.StatusUnprocessableEntity
		}
		vm.Error = sayErr(l, err)
		h.render(c, status, title, views.SeveralResetPage(vm))
		return
	}
	r := &views.SeveralResultVM{}
	if res.Summary != nil {
		r.Summary = l.T("resets.several.done", "ID", res.Summary.ID)
		r.SummaryURL = h.Base.URL(auditURL(res.Summary.ID))
		if len(res.Summary.Error) > 0 {
			r.Error = l.SayText(res.Summary.Error)
		}
	}
	for _, o := range severalOutcomes(res) {
		row := views.SeveralOutcomeVM{Group: o.Group, Status: o.Status, Error: o.Error}
		if o.AuditID > 0 {
			row.EntryID, row.EntryURL = strconv.FormatInt(o.AuditID, 10), h.Base.URL(auditURL(o.AuditID))
		}
		r.Rows = append(r.Rows, row)
	}
	vm.Result = r
	status := http.StatusOK
	if err != nil {
		vm.Error = sayErr(l, err)
		status = http.StatusServiceUnavailable
	}
	h.render(c, status, title, views.SeveralResetPage(vm))
}

// mayReset is the check ApplySeveral makes of every group of the preview it applies: a
// preview id may have been made by someone with wider rights. A refusal is recorded.
func (h *SeveralResets) mayReset(c *gin.Context) func(group string) error {
	r := CallerRights(c)
	if !r.Limited() {
		return nil
	}
	return func(group string) error {
		if r.Allows(rights.Group, group, rights.Reset) {
			return nil
		}
		say := r.Refusal(rights.Group, group, rights.Reset)
		if h.Refusals != nil {
			h.Refusals.RefuseRole(c.Request.Context(), who(c), group, resets.Asked{Params: map[string]string{"planId": c.PostForm("planId")}}, say.Msg)
		}
		return say
	}
}
