package handlers

import (
	"context"
	"net/http"
	"time"

	"github.com/gin-gonic/gin"
)

// Health answers /healthz (the process is alive) and /readyz (the database can be
// written, as the audit log needs before any reset, and at least one NameServer answers).
type Health struct {
	DB interface {
		// Writable fails when the database cannot take a write (read-only, full).
		Writable(context.Context) error
	}
	NameServer interface {
		// PingNameServers returns the first NameServer that answered, or an error naming
		// every failure.
		PingNameServers(ctx context.Context) (string, error)
	}
}

// Live is /healthz.
func (h *Health) Live(c *gin.Context) {
	c.String(http.StatusOK, "ok\n")
}

// Ready is /readyz.
func (h *Health) Ready(c *gin.Context) {
	ctx, cancel := context.WithTimeout(c.Request.Context(), 3*time.Second)
	defer cancel()
	if err := h.DB.Writable(ctx); err != nil {
		c.String(http.StatusServiceUnavailable, "not ready: %v (resets are refused until it can)\n", err)
		return
	}
	if h.NameServer == nil {
		c.String(http.StatusServiceUnavailable, "not ready: no NameServer configured (set RMQC_NAMESRV)\n")
		return
	}
	addr, err := h.NameServer.PingNameServers(ctx)
	if err != nil {
		c.String(http.StatusServiceUnavailable, "not ready: %v\n", err)
		return
	}
	c.String(http.StatusOK, "ready: database writable, NameServer %s answers\n", addr)
}
