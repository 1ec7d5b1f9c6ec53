package handlers

import (
	"errors"
	"net/http"
	"strings"
	"time"

	"github.com/gin-gonic/gin"

	"rmqconsole/fault"
	"rmqconsole/i18n"
	"rmqconsole/resets"
	"rmqconsole/store"
	"rmqconsole/views"
)

// Apply is POST /groups/{group}/reset/apply: applies the confirmed preview and shows
// what actually happened, linked to its audit entry. A missing confirmation shows the
// preview again (422); a stale preview shows a fresh one (409); neither changes anything.
func (h *Resets) Apply(c *gin.Context) {
	group, in, req, ok := h.readForm(c, true)
	if !ok {
		return
	}
	ctx := c.Request.Context()
	l := i18n.From(ctx)
	entry, err := h.Service.Apply(ctx, resets.Confirmation{PlanID: in.PlanID, Request: req, Confirmed: in.Confirm, Who: who(c)})
	var rej *resets.Rejected
	switch {
	case entry != nil && err != nil: // applied, but the outcome is not recorded
		h.render(c, http.StatusServiceUnavailable, h.page(c, l.T("reset.page.result", "Group", group), "groups"),
			views.ResetResultPage(resetResultVM(l, entry, fault.As(err).Say(l))))
	case fault.Is(err, fault.Invalid):
		errs := fault.All(err)
		vm := h.baseVM(ctx, group, in)
		vm.FieldErrors = fieldErrors(l, errs)
		if p, ok := h.Service.Preview(in.PlanID); ok {
			vm.Preview = h.previewVM(l, p, in)
			vm.Preview.ConfirmError = vm.FieldErrors["confirm"]
		}
		vm.Error = l.T("reset.nothing_changed", "Errors", errs.Say(l))
		h.render(c, http.StatusUnprocessableEntity, h.page(c, l.T("reset.page.preview", "Group", group), "groups"), views.ResetPage(vm.ResetVM))
	case errors.As(err, &rej):
		vm := h.baseVM(ctx, group, in)
		vm.Notice = fault.As(err).Say(l)
		if rej.EntryID > 0 {
			vm.Notice += l.T("reset.recorded_as", "ID", rej.EntryID)
		}
		if rej.Fresh != nil {
			vm.Preview = h.previewVM(l, rej.Fresh, in)
		}
		h.render(c, http.StatusConflict, h.page(c, l.T("reset.page.preview", "Group", group), "groups"), views.ResetPage(vm.ResetVM))
	case err != nil:
		status, code := errorStatus(err)
		vm := h.baseVM(ctx, group, in)
		vm.Error = errorMessage(c, err, code)
		h.render(c, status, h.page(c, l.T("reset.page", "Group", group), "groups"), views.ResetPage(vm.ResetVM))
	default:
		h.render(c, http.StatusOK, h.page(c, l.T("reset.page.result", "Group", group), "groups"), views.ResetResultPage(resetResultVM(l, entry, "")))
	}
}

func resetResultVM(l *i18n.Localizer, e *store.AuditEntry, warning string) views.ResetResultVM {
	return views.ResetResultVM{Group: e.Group, EntryURL: auditURL(e.ID), Action: resetActionText(l, e), Entry: auditEntryVM(l, e), Warning: warning}
}

// resetActionText says who asked what, from the entry.
func resetActionText(l *i18n.Localizer, e *store.AuditEntry) string {
	return l.T("reset.asked", "Actor", e.Actor, "Addr", e.ActorAddr, "Mode", e.Mode,
		"Topics", strings.Join(e.Topics, ", "), "Queues", len(e.Queues()), "Duration", e.Duration.Round(time.Millisecond).String())
}

// ApplyAPI is POST /api/v1/groups/{group}/resets: the preview's fields plus planId and
// "confirm": true. It answers the audit entry; a stale or expired preview answers 409
// with a fresh preview to check and apply.
func (h *Resets) ApplyAPI(c *gin.Context) {
	in, req, ok := h.readAPI(c, true)
	if !ok {
		return
	}
	entry, err := h.Service.Apply(c.Request.Context(), resets.Confirmation{PlanID: in.PlanID, Request: req, Confirmed: in.Confirm, Who: who(c)})
	var rej *resets.Rejected
	switch {
	case entry != nil && err != nil: // applied, but the outcome is not recorded
		c.JSON(http.StatusServiceUnavailable, gin.H{"error": fault.As(err).Msg.String(), "code": "audit_unavailable", "entry": auditEntryJSON(entry)})
	case fault.Is(err, fault.Invalid):
		badResetRequest(c, fault.All(err))
	case errors.As(err, &rej):
		body := conflictJSON{Error: fault.As(err).Msg.String(), Code: "conflict", AuditID: rej.EntryID}
		for _, r := range rej.Reasons {
			body.Reasons = append(body.Reasons, r.String())
		}
		if rej.Fresh != nil {
			pj := planJSON(rej.Fresh, h.Service.ExpiresAt(rej.Fresh))
			body.Preview = &pj
		}
		c.JSON(http.StatusConflict, body)
	case err != nil:
		h.Fail(c, err)
	default:
		c.JSON(http.StatusOK, auditEntryJSON(entry))
	}
}

// conflictJSON is a 409: why the reset was not applied, the audit entry recording it,
// and a fresh preview to check.
type conflictJSON struct {
	Error   string    `json:"error"`
	Code    string    `json:"code"`
	AuditID int64     `json:"auditId,omitempty"`
	Reasons []string  `json:"reasons,omitempty"`
	Preview *PlanJSON `json:"preview,omitempty"`
}
