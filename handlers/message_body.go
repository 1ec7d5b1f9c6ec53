package handlers

import (
	"net/http"

	"github.com/gin-gonic/gin"
)

// Body is GET /messages/{id}/body: the whole body as a file, decompressed.
func (h *Messages) Body(c *gin.Context) {
	r, ok := h.find(c, c.Query("topic"))
	if !ok {
		return
	}
	m := r.Message
	name := msgFileUnsafe.ReplaceAllString(m.OffsetMsgID(), "_") + ".body"
	c.Header("Content-Disposition", `attachment; filename="`+name+`"`)
	c.Data(http.StatusOK, "application/octet-stream", m.Body)
}
