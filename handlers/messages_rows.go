package handlers

import (
	"cmp"
	"net/http"

	"github.com/gin-gonic/gin"

	"rmqconsole/i18n"
	"rmqconsole/lookup"
	"rmqconsole/views"
)

// rows answers GET /messages?<a range search and its cursor>&part=rows: the next piece
// of a long result, which the table appends in place of its last row. Only that piece
// is read from the brokers.
func (h *Messages) rows(c *gin.Context, f *msgSearchForm) {
	piece := views.MessageRowsPiece{PageURL: msgSearchURL("/messages", *f, f.cursor())}
	status := http.StatusOK
	var bad *msgBadForm
	l := i18n.From(c.Request.Context())
	leave, err := h.enterHeavy(c, f)
	if err == nil {
		defer leave()
		q, errs := f.rangeQuery(l, h.now(), false)
		rest := cmp.Or(q.Limit, lookup.RangeLimit)
		q.Limit = min(rest, msgPieceRows)
		var r *lookup.Result
		if len(errs) > 0 {
			bad = msgAlsoTopic(l, errs, f.form.Topic)
		} else if r, err = h.Lookup.ByRange(c.Request.Context(), q); err == nil {
			piece.Rows, piece.More = msgPage(l, *f, q, r, rest)
			piece.Failures = msgFailures(l, r.Failures)
		} else {
			bad, _ = msgInputError(l, err)
		}
	}
	switch {
	case bad != nil: // only a link edited by hand gets here
		status, piece.Error = http.StatusUnprocessableEntity, bad.apiError().Message
	case err != nil:
		status, _ = errorStatus(err)
		piece.Error = msgSearchError(l, err)
	}
	h.renderFragment(c, status, views.MessageRowsFragment(piece))
}
