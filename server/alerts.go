package server

import (
	"context"

	"rmqconsole/alerts"
	"rmqconsole/groups"
)

// alertService starts the alert sender (which also sends what a previous run left
// pending) and returns the service; rules are evaluated at each read of the collector.
func (a *App) alertService() *alerts.Service {
	opts := alerts.Options{Log: a.log.With("component", "alerts"), Cluster: joinNameServers(a.cfg.NameServers), Retry: a.cfg.AlertRetry,
		Lang: a.cfg.AlertLang}
	svc := alerts.NewService(a.store, opts)
	a.leaderOnly(svc.Run) // one console sends, however many share the database
	return svc
}

// evaluateAlerts applies the rules to one read of every group.
func (a *App) evaluateAlerts(ctx context.Context, svc *alerts.Service, l *groups.List) {
	obs := make([]alerts.Observation, 0, len(l.Groups))
	for _, g := range l.Groups {
		if !g.System {
			obs = append(obs, alerts.Observation{Group: g.Group, Lag: g.TotalLag, LagTimeMs: g.MaxLagTimeMs})
		}
	}
	if err := svc.Evaluate(ctx, l.CheckedAt, obs); err != nil && ctx.Err() == nil {
		a.log.Error("evaluate alert rules", "err", err)
	}
}
