package handlers

import (
	"errors"
	"net/http"
	"strconv"

	"github.com/gin-gonic/gin"

	"rmqconsole/fault"
	"rmqconsole/i18n"
	"rmqconsole/store"
	"rmqconsole/views"
)

// entry reads the entry named by :id; a bad id is answered 404 like a missing entry.
func (h *Audit) entry(c *gin.Context) (*store.AuditEntry, bool) {
	id, err := strconv.ParseInt(c.Param("id"), 10, 64)
	if err != nil || id <= 0 {
		h.Fail(c, badEntryID(c.Param("id"), err))
		return nil, false
	}
	e, err := h.Entries.Get(c.Request.Context(), id)
	if err != nil {
		h.Fail(c, err)
		return nil, false
	}
	return e, true
}

// badEntryID says what is wrong with an entry id that is not one: no entry has it.
func badEntryID(s string, err error) *fault.Error {
	if r := []rune(s); len(r) > 40 {
		s = string(r[:39]) + "…"
	}
	var ne *strconv.NumError
	switch {
	case err == nil: // zero or negative
		return fault.New(fault.NotFound, "audit.no_entry.below_one", "ID", s)
	case errors.As(err, &ne) && errors.Is(ne.Err, strconv.ErrRange):
		return fault.New(fault.NotFound, "audit.no_entry.too_large", "ID", s)
	}
	return fault.New(fault.NotFound, "audit.no_entry.not_number", "ID", strconv.Quote(s))
}

// Show is GET /audit/{id}: one reset with every queue's before, target and after.
func (h *Audit) Show(c *gin.Context) {
	e, ok := h.entry(c)
	if !ok {
		return
	}
	l := i18n.From(c.Request.Context())
	h.render(c, http.StatusOK, h.page(c, l.T("audit.entry.page", "ID", c.Param("id")), "audit"), views.AuditEntryPage(auditEntryVM(l, e)))
}

// ShowAPI is GET /api/v1/audit/{id}.
func (h *Audit) ShowAPI(c *gin.Context) {
	e, ok := h.entry(c)
	if !ok {
		return
	}
	c.JSON(http.StatusOK, auditEntryJSON(e))
}
