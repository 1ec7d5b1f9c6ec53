package handlers

import (
	"net/http"
	"net/url"

	"github.com/gin-gonic/gin"

	"rmqconsole/i18n"
	"rmqconsole/lookup"
	"rmqconsole/views"
)

// messageGroupsURL is the message page the request asked for (its topic kept), for the
// links that page its groups.
func messageGroupsURL(c *gin.Context) string {
	u := c.Request.URL.Path
	if t := c.Query("topic"); t != "" {
		u += "?" + url.Values{"topic": {t}}.Encode()
	}
	return u
}

// messageGroupsQuery is the page of a message's groups the request asks for (limit,
// cursor), refused as bad input before the message or its groups are read.
func messageGroupsQuery(c *gin.Context) (int, string, error) {
	limit, after, err := pageQuery(c)
	if err == nil {
		err = lookup.CheckGroupsCursor(after)
	}
	return limit, after, err
}

// messageGroupsPage is the page of states the request asks for (limit, cursor), the
// groups with trouble first, as rows and the links that page them.
func messageGroupsPage(c *gin.Context, states []lookup.GroupState) ([]views.GroupConsumeRow, views.Pager, error) {
	l := i18n.From(c.Request.Context())
	limit, after, err := messageGroupsQuery(c)
	if err != nil {
		return nil, views.Pager{}, err
	}
	pg, err := lookup.PageGroups(states, limit, after)
	if err != nil {
		return nil, views.Pager{}, err
	}
	var rows []views.GroupConsumeRow
	for _, g := range pg.States {
		rows = append(rows, msgGroupRow(l, g))
	}
	p := views.Pager{ID: "message-groups", CountID: "message.groups.count", Total: pg.Total, Shown: shownThrough(c, len(pg.States))}
	base := messageGroupsURL(c)
	if pg.Next != "" {
		p.NextURL = listPageURL(base, limit, pg.Next, p.Shown, false)
		p.MoreURL = listPageURL(base, limit, pg.Next, p.Shown, true)
	}
	if after != "" {
		p.FirstURL = base
	}
	return rows, p, nil
}

// messageGroupRows answers the More row of a message's groups: the next rows alone,
// without the message's body, trace or forms.
func (h *Messages) messageGroupRows(c *gin.Context, r *lookup.IDResult) {
	gs, err := h.messageGroups(c, r, h.shown(c, r))
	if err != nil {
		h.Fail(c, err)
		return
	}
	rows, p, err := messageGroupsPage(c, gs.States)
	if err != nil {
		h.Fail(c, err)
		return
	}
	h.renderFragment(c, http.StatusOK, views.MessageGroupRowsFragment(rows, p))
}

// messageGroups is the message's group states as seen (r as the caller may read it)
// tells them: read afresh for the first page, and for the pages after (a cursor) cut
// from the copy lookup keeps, so that paging asks no broker again and no row moves
// between pages. They are judged on the stored message, as the broker does.
func (h *Messages) messageGroups(c *gin.Context, r, seen *lookup.IDResult) (*lookup.GroupStates, error) {
	read := h.Lookup.Groups
	if c.Query("cursor") != "" {
		read = h.Lookup.KeptGroups
	}
	gs, err := read(c.Request.Context(), r.Message, r.Failures...)
	return visibleGroupStates(c, maskedGroups(r.Message, seen.Message, gs)), err
}
