package handlers

import (
	"cmp"
	"net/http"

	"github.com/gin-gonic/gin"

	"rmqconsole/fault"
	"rmqconsole/i18n"
	"rmqconsole/lookup"
	"rmqconsole/store"
	"rmqconsole/views"
)

// rows answers GET /messages?<a range search and its cursor>&part=rows: the next piece
// of a long result, which the table appends in place of its last row. Only that piece
// is read from the brokers.
func (h *Messages) rows(c *gin.Context, f *msgSearchForm) {
	piece := views.MessageRowsPiece{PageURL: msgSearchURL("/messages", *f, f.cursor())}
	status := http.StatusOK
	l := i18n.From(c.Request.Context())
	q, err := h.rangeQuery(c, f, false)
	rest := cmp.Or(q.Limit, lookup.RangeLimit)
	q.Limit = min(rest, msgPieceRows)
	var leave func()
	if err == nil {
		leave, err = h.enterHeavy(c)
	}
	if err == nil {
		defer leave()
		var r *lookup.Result
		mk := h.masker(c)
		mq := q
		mq.Filter = maskedFilter(mk, q.Filter)
		if r, err = h.Lookup.ByRange(c.Request.Context(), mq); err == nil {
			maskMessages(mk, r.Messages)
			piece.Rows, piece.More = msgPage(l, *f, q, r, rest)
			piece.Failures = msgFailures(l, r.Failures)
			h.recordList(c, store.ReadListMode, f.form.Topic, "page", len(piece.Rows))
		}
	}
	switch {
	case fault.Is(err, fault.Invalid): // only a link edited by hand gets here
		status, piece.Error = http.StatusUnprocessableEntity, fault.As(err).Say(l)
	case err != nil:
		status, _ = errorStatus(err)
		piece.Error = msgSearchError(l, err)
	}
	h.renderFragment(c, status, views.MessageRowsFragment(piece))
}
