package server

import (
	"context"
	"time"
)

// pruneEvery is how often old rebalance events are deleted after the first pruning at
// start.
const pruneEvery = time.Hour

// pruneRebalanceHistory deletes rebalance events older than --rebalance-retention, at
// start and then hourly (on the leading console when several share the database), so a
// console watching busy groups for months keeps a bounded database. The audit log is
// never pruned.
func (a *App) pruneRebalanceHistory() {
	if a.cfg.RebalanceRetention <= 0 {
		return
	}
	a.leaderOnly(func(ctx context.Context) {
		t := time.NewTicker(pruneEvery)
		defer t.Stop()
		for {
			n, err := a.store.PruneRebalanceEvents(ctx, time.Now().Add(-a.cfg.RebalanceRetention))
			switch {
			case err != nil && ctx.Err() == nil:
				a.log.Error("prune rebalance history", "err", err)
			case n > 0:
				a.log.Info("pruned rebalance history", "events", n, "retention", a.cfg.RebalanceRetention)
			}
			select {
			case <-ctx.Done():
				return
			case <-t.C:
			}
		}
	})
}
