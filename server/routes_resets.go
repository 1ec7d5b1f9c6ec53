package server

import (
	"context"
	"time"

	"github.com/gin-gonic/gin"

	"rmqconsole/handlers"
	"rmqconsole/resets"
)

// resetRoutes registers the pages and API of resets and the audit log.
func (a *clusterApp) resetRoutes(r *gin.Engine, env *handlers.Env) {
	h := &handlers.Resets{Env: env}
	if a.rmq != nil {
		h.Service = a.resets
	}
	audit := &handlers.Audit{Env: env, Entries: a.store.Audit(), Cluster: a.cc.Name, CanReset: a.rmq != nil}
	for _, cc := range a.cfg.Clusters {
		if cc.Default {
			audit.DefaultCluster = cc.Name
		}
	}

	r.GET("/groups/:group/reset", h.Form)
	r.POST("/groups/:group/reset/preview", h.Preview)
	r.POST("/groups/:group/reset/apply", h.Apply)
	r.POST("/api/v1/groups/:group/reset-preview", h.PreviewAPI)
	r.POST("/api/v1/groups/:group/resets", h.ApplyAPI)

	// Read-only: no route edits or deletes an audit entry.
	r.GET("/audit", audit.List)
	r.GET("/audit/export", audit.Export)
	r.GET("/audit/:id", audit.Show)
	r.GET("/api/v1/audit", audit.ListAPI)
	r.GET("/api/v1/audit/:id", audit.ShowAPI)
}

// newResetService builds the reset service over the console's cluster and audit log.
func (a *clusterApp) newResetService() *resets.Service {
	log := a.log.With("component", "resets")
	cfg := resets.Config{Audit: a.store.Audit(), NameServers: a.nameServers(), Log: log,
		// Reading an interrupted entry's offsets back at start-up: one round of
		// calls and a retry, however many brokers are frozen.
		RecoverWait: 2 * a.cfg.Timeout}
	if a.rmq != nil {
		cfg.Admin, cfg.Cluster = a.rmq, a.cluster
	}
	if a.replica.shared {
		// A browser may preview on one console and apply on another.
		cfg.Previews = a.store
	}
	addTestHooks(&cfg, log)
	return resets.New(cfg)
}

// markInterruptedResets finishes the audit entries a previous run left pending (it was
// killed between writing an entry and recording the outcome) as interrupted, with the
// offsets found now. A failure is logged: those groups stay locked for resets until a
// later start can mark them.
func (a *clusterApp) markInterruptedResets(ctx context.Context) {
	ctx, cancel := context.WithTimeout(ctx, 60*time.Second)
	defer cancel()
	n, err := a.resets.RecoverInterrupted(ctx)
	if err != nil {
		a.log.Error("mark interrupted resets", "marked", n, "err", err)
		return
	}
	if n > 0 {
		a.log.Warn("marked resets interrupted by the last stop", "entries", n)
	}
}
