package handlers

import (
	"errors"
	"net/http"
	"strconv"

	"github.com/gin-gonic/gin"

	"rmqconsole/auth"
	"rmqconsole/fault"
	"rmqconsole/i18n"
	"rmqconsole/resets"
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
	if !CallerRights(c).auditVisible(e, h.DefaultCluster) {
		// As if it did not exist: even its group's name is not the caller's to see.
		h.Fail(c, fault.New(fault.NotFound, "audit.no_entry", "ID", id))
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
	vm := auditEntryVM(l, e)
	h.linkUndo(c, e, &vm)
	h.render(c, http.StatusOK, h.page(c, l.T("audit.entry.page", "ID", c.Param("id")), "audit"), views.AuditEntryPage(vm))
}

// linkUndo links an undo and the reset it undoes both ways, and offers the Undo button
// on a reset that can be undone to those who may reset offsets. The undos of an entry
// are found among its group's later entries; if they cannot be read the page is shown
// without those links (the log itself says so on the list).
func (h *Audit) linkUndo(c *gin.Context, e *store.AuditEntry, vm *views.AuditEntryVM) {
	if of := resets.UndoOf(e); of > 0 {
		vm.Undoes = &views.AuditLink{Text: strconv.FormatInt(of, 10), URL: auditURL(of)}
	}
	if !resets.Undoable(e) {
		return
	}
	ours := e.ClusterName == h.Cluster || (e.ClusterName == "" && h.Cluster == h.DefaultCluster)
	if h.CanReset && ours && CallerRole(c).Allows(auth.Operator) {
		vm.UndoURL = resetPath(e.Group) + "/preview"
	}
	for _, id := range h.undos(c, e) {
		vm.UndoneBy = append(vm.UndoneBy, views.AuditLink{Text: strconv.FormatInt(id, 10), URL: auditURL(id)})
	}
}

// undos are the entries that undo e, oldest first: found among its group's later
// entries (none when they cannot be read).
func (h *Audit) undos(c *gin.Context, e *store.AuditEntry) []int64 {
	if !resets.Undoable(e) {
		return nil
	}
	later, _, err := h.Entries.List(c.Request.Context(), store.AuditFilter{Group: e.Group, Since: e.StartedAt, Limit: 1000})
	if err != nil {
		return nil
	}
	var ids []int64
	for i := len(later) - 1; i >= 0; i-- {
		if resets.UndoOf(&later[i]) == e.ID {
			ids = append(ids, later[i].ID)
		}
	}
	return ids
}

// ShowAPI is GET /api/v1/audit/{id}.
func (h *Audit) ShowAPI(c *gin.Context) {
	e, ok := h.entry(c)
	if !ok {
		return
	}
	j := auditEntryJSON(e)
	j.Undoes, j.UndoneBy = resets.UndoOf(e), h.undos(c, e)
	c.JSON(http.StatusOK, j)
}
