package handlers

import (
	"net/http"

	"github.com/gin-gonic/gin"
)

// Topics is GET /api/v1/topics[?system=true]: every topic with its queue counts and
// brokers; retry, dead-letter and system topics only when asked.
func (h *Messages) Topics(c *gin.Context) {
	if h.Lookup == nil {
		h.Fail(c, msgNoCluster)
		return
	}
	system := c.Query("system") == "true" || c.Query("system") == "1"
	topics, fails, err := h.Lookup.Topics(c.Request.Context(), system)
	if err != nil {
		h.Fail(c, err)
		return
	}
	j := TopicsJSON{Topics: make([]TopicJSON, 0, len(topics)), Errors: msgBrokerErrorsJSON(fails)}
	for _, t := range topics {
		j.Topics = append(j.Topics, TopicJSON{Topic: t.Name, ReadQueues: t.ReadQueues, WriteQueues: t.WriteQueues, Brokers: t.Brokers, System: t.System})
	}
	c.JSON(http.StatusOK, j)
}
