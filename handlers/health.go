package handlers

import (
	"context"
	"fmt"
	"net/http"
	"time"

	"github.com/gin-gonic/gin"
)

// Health answers /healthz (the process is alive) and /readyz (the database can be
// written, as the audit log needs before any reset, and at least one NameServer answers).
// /readyz also names this console and the one leading the background work, for
// consoles sharing a database behind a load balancer.
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
	Replica interface {
		// Replica names this console and the one leading the work done once ("" when
		// none holds the lease right now).
		Replica(ctx context.Context) (self, leader string, err error)
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
	status, msg := h.ready(ctx)
	c.String(status, "%s\n%s", msg, h.replicaLine(ctx))
}

func (h *Health) ready(ctx context.Context) (int, string) {
	if err := h.DB.Writable(ctx); err != nil {
		return http.StatusServiceUnavailable, fmt.Sprintf("not ready: %v (resets are refused until it can)", err)
	}
	if h.NameServer == nil {
		return http.StatusServiceUnavailable, "not ready: no NameServer configured (set RMQC_NAMESRV)"
	}
	addr, err := h.NameServer.PingNameServers(ctx)
	if err != nil {
		return http.StatusServiceUnavailable, fmt.Sprintf("not ready: %v", err)
	}
	return http.StatusOK, fmt.Sprintf("ready: database writable, NameServer %s answers", addr)
}

// replicaLine says which console answered and which one leads; it never makes the
// console unready: a replica between leaders still serves pages and resets.
func (h *Health) replicaLine(ctx context.Context) string {
	if h.Replica == nil {
		return ""
	}
	self, leader, err := h.Replica.Replica(ctx)
	switch {
	case err != nil:
		return fmt.Sprintf("replica %s; leader unknown: %v\n", self, err)
	case leader == self:
		return fmt.Sprintf("replica %s, leader (runs lag history, alerts and pruning)\n", self)
	case leader == "":
		return fmt.Sprintf("replica %s, follower; no leader right now (a console takes the lease at its next heartbeat)\n", self)
	default:
		return fmt.Sprintf("replica %s, follower; leader %s\n", self, leader)
	}
}
