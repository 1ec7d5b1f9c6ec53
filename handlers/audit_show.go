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
		h.Fail(c, &UserError{Status: http.StatusNotFound, Code: "not_found", Message: badEntryID(c.Param("id"), err)})
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

// badEntryID says what is wrong with an entry id that is not one.
func badEntryID(s string, err error) string {
	if r := []rune(s); len(r) > 40 {
		s = string(r[:39]) + "…"
	}
	var ne *strconv.NumError
	switch {
	case err == nil: // zero or negative
		return "There is no audit entry #" + s + ": entry ids start at 1. Find the entry in the audit log."
	case errors.As(err, &ne) && errors.Is(ne.Err, strconv.ErrRange):
		return "There is no audit entry #" + s + ": that number is larger than any entry id. Find the entry in the audit log."
	}
	return "Audit entry " + strconv.Quote(s) + " does not exist: an entry id is a whole number such as 42. Find the entry in the audit log."
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
