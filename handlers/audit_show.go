package handlers

import (
	"errors"
	"net/http"
	"strconv"

	"github.com/gin-gonic/gin"

	"rmqconsole/store"
	"rmqconsole/views"
)

// entry reads the entry named by :id; a bad id is answered 404 like a missing entry.
func (h *Audit) entry(c *gin.Context) (*store.AuditEntry, bool) {
	id, err := strconv.ParseInt(c.Param("id"), 10, 64)
	if err != nil || id <= 0 {
		h.Fail(c, &UserError{Status: http.StatusNotFound, Code: "not_found",
			Message: "Audit entry " + strconv.Quote(c.Param("id")) + " does not exist: entry ids are numbers. Find the entry in the audit log."})
		return nil, false
	}
	e, err := h.Entries.Get(c.Request.Context(), id)
	if errors.Is(err, store.ErrAuditNotFound) {
		h.Fail(c, &UserError{Status: http.StatusNotFound, Code: "not_found",
			Message: "There is no audit entry #" + c.Param("id") + ". Find the entry in the audit log."})
		return nil, false
	}
	if err != nil {
		h.Fail(c, err)
		return nil, false
	}
	return e, true
}

// Show is GET /audit/{id}: one reset with every queue's before, target and after.
func (h *Audit) Show(c *gin.Context) {
	e, ok := h.entry(c)
	if !ok {
		return
	}
	h.render(c, http.StatusOK, h.page(c, "Audit entry #"+c.Param("id"), "audit"), views.AuditEntryPage(auditEntryVM(e)))
}

// ShowAPI is GET /api/v1/audit/{id}.
func (h *Audit) ShowAPI(c *gin.Context) {
	e, ok := h.entry(c)
	if !ok {
		return
	}
	c.JSON(http.StatusOK, auditEntryJSON(e))
}
