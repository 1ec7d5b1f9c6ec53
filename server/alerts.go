package server

import (
	"context"

	"rmqconsole/alerts"
	"rmqconsole/groups"
)

// alertService starts the alert sender (which also sends what a previous run left
// pending) and returns the service; rules are evaluated at each read of the collector.
func (a *clusterApp) alertService() *alerts.Service {
	opts := alerts.Options{Log: a.log.With("component", "alerts"), Cluster: a.nameServers(), Retry: a.cfg.AlertRetry,
		Lang: a.cfg.AlertLang}
	if a.several() {
		opts.ClusterName = a.cc.Name
	}
	svc := alerts.NewService(a.store, opts)
	if a.cc.Default {
		// One console sends, however many share the database, and one sender sends
		// every cluster's notifications: under the console-wide lease.
		a.App.leaderOnly(svc.Run)
	}
	return svc
}

// evaluateAlerts applies the rules to one read of every group.
func (a *clusterApp) evaluateAlerts(ctx context.Context, svc *alerts.Service, l *groups.List) {
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
