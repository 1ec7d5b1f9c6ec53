package handlers

import (
	"errors"
	"net/http"
	"strings"
	"time"

	"github.com/gin-gonic/gin"

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
	ctx, l := c.Request.Context(), tr(c)
	entry, err := h.Service.Apply(ctx, resets.Confirmation{PlanID: in.PlanID, Request: req, Confirmed: in.Confirm, Who: who(c)})
	var ie resets.InputErrors
	var ce *resets.ConflictError
	var fe *resets.FinishError
	switch {
	case errors.As(err, &ie):
		vm := h.baseVM(ctx, group, in)
		vm.FieldErrors = fieldErrors(l, ie)
		if p, ok := h.Service.Preview(in.PlanID); ok {
			vm.Preview = h.previewVM(l, p, in)
			vm.Preview.ConfirmError = vm.FieldErrors["confirm"]
		}
		vm.Error = l.T("reset.nothing_changed", "Errors", sayInputErrors(l, ie))
		h.render(c, http.StatusUnprocessableEntity, h.page(c, l.T("reset.page.preview", "Group", group), "groups"), views.ResetPage(vm.ResetVM))
	case errors.As(err, &ce):
		vm := h.baseVM(ctx, group, in)
		vm.Notice = ce.Message
		if ce.Say.ID != "" {
			vm.Notice = l.Say(ce.Say)
		}
		if ce.EntryID > 0 {
			vm.Notice += l.T("reset.recorded_as", "ID", ce.EntryID)
		}
		if ce.Fresh != nil {
			vm.Preview = h.previewVM(l, ce.Fresh, in)
		}
		h.render(c, http.StatusConflict, h.page(c, l.T("reset.page.preview", "Group", group), "groups"), views.ResetPage(vm.ResetVM))
	case errors.As(err, &fe):
		h.render(c, http.StatusServiceUnavailable, h.page(c, l.T("reset.page.result", "Group", group), "groups"),
			views.ResetResultPage(resetResultVM(l, fe.Entry, fe.Error())))
	case err != nil:
		status, _ := errorStatus(err)
		vm := h.baseVM(ctx, group, in)
		vm.Error = err.Error()
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
	var ie resets.InputErrors
	var ce *resets.ConflictError
	var fe *resets.FinishError
	switch {
	case errors.As(err, &ie):
		badResetRequest(c, ie)
	case errors.As(err, &ce):
		body := conflictJSON{Error: ce.Message, Code: "conflict", AuditID: ce.EntryID, Reasons: ce.Reasons}
		if ce.Fresh != nil {
			pj := planJSON(ce.Fresh, h.Service.ExpiresAt(ce.Fresh))
			body.Preview = &pj
		}
		c.JSON(http.StatusConflict, body)
	case errors.As(err, &fe):
		ej := auditEntryJSON(fe.Entry)
		c.JSON(http.StatusServiceUnavailable, gin.H{"error": fe.Error(), "code": "audit_unavailable", "entry": ej})
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
