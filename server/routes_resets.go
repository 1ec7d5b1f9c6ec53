package server

import (
	"context"
	"net/http"
	"time"

	"rmqconsole/handlers"
	"rmqconsole/rights"
)

// resetRoutes are the pages and API of resets, previews included, and the audit log
// (read-only: no route edits or deletes an audit entry).
func (a *clusterApp) resetRoutes(env *handlers.Env) []route {
	h := &handlers.Resets{Env: env}
	several := &handlers.SeveralResets{Env: env, Refusals: a.svc.resets}
	if a.rmq != nil {
		h.Service, several.Service = a.svc.resets, a.svc.resets
	}
	audit := &handlers.Audit{Env: env, Entries: a.store.Audit(), Cluster: a.cc.Name, DefaultCluster: a.cfg.DefaultCluster().Name,
		CanReset: a.rmq != nil}
	return []route{
		{http.MethodGet, "/groups/:group/reset", h.Form, read.on(rights.Reset)},
		{http.MethodPost, "/groups/:group/reset/preview", h.Preview, resetPreview},
		{http.MethodPost, "/groups/:group/reset/apply", h.Apply, resetApply},
		{http.MethodPost, "/api/v1/groups/:group/reset-preview", h.PreviewAPI, resetPreview},
		{http.MethodPost, "/api/v1/groups/:group/resets", h.ApplyAPI, resetApply},
		{http.MethodGet, "/messages/:id/reset", h.FromMessage, read},
		{http.MethodGet, "/topics/:topic/resets", several.Form, read.on(rights.Reset)},
		{http.MethodPost, "/topics/:topic/resets/preview", several.Preview, resetPreview},
		{http.MethodPost, "/topics/:topic/resets/apply", several.Apply, resetApply},
		{http.MethodPost, "/api/v1/resets/preview", several.PreviewAPI, resetPreview},
		{http.MethodPost, "/api/v1/resets", several.ApplyAPI, resetApply},

		{http.MethodGet, "/audit", audit.List, read.on(rights.ReadAudit)},
		{http.MethodGet, "/audit/export", audit.Export, read.on(rights.ReadAudit)},
		{http.MethodGet, "/audit/:id", audit.Show, read.on(rights.ReadAudit)},
		{http.MethodGet, "/api/v1/audit", audit.ListAPI, read.on(rights.ReadAudit)},
		{http.MethodGet, "/api/v1/audit/:id", audit.ShowAPI, read.on(rights.ReadAudit)},
	}
}

// markInterruptedResets finishes the audit entries a previous run left pending (it was
// killed between writing an entry and recording the outcome) as interrupted, with the
// offsets found now. A failure is logged: those groups stay locked for resets until a
// later start can mark them.
func (a *clusterApp) markInterruptedResets(ctx context.Context) {
	ctx, cancel := context.WithTimeout(ctx, 60*time.Second)
	defer cancel()
	n, err := a.svc.resets.RecoverInterrupted(ctx)
	if err != nil {
		a.log.Error("mark interrupted resets", "marked", n, "err", err)
		return
	}
	if n > 0 {
		a.log.Warn("marked resets interrupted by the last stop", "entries", n)
	}
}
