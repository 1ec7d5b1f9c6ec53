package handlers

import (
	"net/http"
	"net/url"

	"github.com/gin-gonic/gin"

	"rmqconsole/decoder"
	"rmqconsole/i18n"
	"rmqconsole/lookup"
	"rmqconsole/masking"
	"rmqconsole/views"
)

// Body is GET /messages/{id}/body: the whole body as a file, decompressed; with
// part=row, the table row that opens under a search result's row to show it decoded.
func (h *Messages) Body(c *gin.Context) {
	r, ok := h.find(c, c.Query("topic"))
	if !ok {
		return
	}
	m := h.shown(c, r).Message
	if c.Query("part") == "row" {
		h.recordBody(c, m, "row")
		h.renderFragment(c, http.StatusOK, views.MessageBodyRow(h.bodyRowVM(c, i18n.From(c.Request.Context()), m)))
		return
	}
	h.recordBody(c, m, "file")
	name := msgFileUnsafe.ReplaceAllString(m.OffsetMsgID(), "_") + ".body"
	c.Header("Content-Disposition", `attachment; filename="`+name+`"`)
	c.Data(http.StatusOK, "application/octet-stream", m.Body)
}

// bodyRowVM is m's body decoded by its topic's decoder (JSON, text or hex without
// one), cut as the message's page cuts it, with how it was read.
func (h *Messages) bodyRowVM(c *gin.Context, l *i18n.Localizer, m lookup.Message) views.BodyRowVM {
	d := decoder.Decode(m.Message)
	if h.Decoders != nil && !(m.Masked && masking.WholeBody(m.Body)) {
		d = h.Decoders.Decode(h.ClusterName, m.Message)
	}
	text, cut := msgCutText([]byte(d.Text), msgBodyTextShown)
	vm := views.BodyRowVM{
		Text:      text,
		Kind:      string(d.Kind),
		How:       l.Say(d.How),
		Size:      l.N("message.bytes", len(m.Body)),
		DetailURL: msgDetailURLFor(m.OffsetMsgID(), m),
		Download:  "/messages/" + url.PathEscape(m.OffsetMsgID()) + "/body?" + url.Values{"topic": {m.Topic}}.Encode(),
	}
	if d.Problem.ID != "" {
		vm.Problem = l.Say(d.Problem)
	}
	vm.Masked = maskedNote(c, m)
	if cut {
		vm.CutNote = l.N("message.body.cut", len(m.Body))
	}
	return vm
}
