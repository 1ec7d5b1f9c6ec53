package server

import (
	"context"

	"github.com/gin-gonic/gin"

	"rmqconsole/deadletters"
	"rmqconsole/groups"
	"rmqconsole/handlers"
)

// groupRoutes registers the pages and API of groups, the live group websocket and
// /metrics, and starts the background lag collector. The overview counts groups too.
func (a *clusterApp) groupRoutes(r *gin.Engine, env *handlers.Env, home *handlers.Home) {
	list := &handlers.GroupsList{Env: env, Lag: a.store}
	show := &handlers.GroupShow{Env: env, Events: a.store, Lag: a.store,
		Sampling: handlers.LagSampling{Every: a.cfg.MetricsInterval, Keep: a.cfg.LagRetention}}
	lagHistory := &handlers.GroupLagHistory{Env: env, History: a.store}
	al := a.alertService()
	a.registry.MustRegister(&alertMetrics{svc: al, log: a.log.With("component", "alerts")})
	show.Alerts = al
	env.Firing, home.Alerts = al.Firing, al
	alertsPage := &handlers.Alerts{Env: env, Rules: al}
	trend := &handlers.GroupTrend{Env: env, History: a.store, Sampling: show.Sampling}
	live := &handlers.GroupLive{Env: env, Quota: a.liveViews}
	history := &handlers.GroupRebalances{Env: env, Events: a.store}
	client := &handlers.GroupClient{Env: env}
	if a.rmq != nil {
		svc := groups.NewService(a.rmq, groups.Options{Log: a.log.With("component", "groups"), Cluster: a.cluster})
		hub := groups.NewLive(svc, groups.LiveOptions{
			Interval: a.cfg.GroupPoll,
			Timeout:  a.cfg.Timeout,
			Renderer: handlers.GroupFrames{Base: a.base},
			Store:    a.store,
			Log:      a.log.With("component", "live-groups"),
			// A name no broker knows starts no watcher, and only so many groups are
			// watched at once: each polls the brokers every tick.
			MaxGroups: a.cfg.LiveGroups,
			Known:     svc.Known,
		})
		a.onClose(hub.Close)
		list.Groups, show.Groups, show.Live, live.Live, home.Groups, client.Clients = svc, svc, hub, hub, svc, svc
		show.DeadLetters = deadletters.New(deadletters.Config{Admin: a.rmq, Cluster: a.cluster})
		a.registry.MustRegister(liveMetrics{hub})
		if a.cfg.MetricsInterval > 0 {
			col := groups.NewLagCollector(svc, a.cfg.MetricsInterval)
			col.PerQueue, col.Groups = a.cfg.MetricsQueues, a.cfg.MetricsGroups
			a.registry.MustRegister(col)
			col.Then(a.whenLeading(groups.NewLagRecorder(a.store, a.cfg.LagRetention, a.log.With("component", "lag-history")).Record))
			col.Then(a.whenLeading(func(ctx context.Context, l *groups.List) { a.evaluateAlerts(ctx, al, l) }))
			a.background(col.Run)
		}
	}

	r.GET("/groups", list.Show)
	r.GET("/groups/:group", show.Show)
	r.GET("/groups/:group/trend", trend.Show)
	r.GET("/groups/:group/clients/:clientId", client.Show)
	r.GET("/ws/groups/:group", live.Serve)
	r.GET("/api/v1/groups", list.API)
	r.GET("/api/v1/groups/:group", show.API)
	r.GET("/api/v1/groups/:group/rebalances", history.API)
	r.GET("/api/v1/groups/:group/lag-history", lagHistory.API)
	r.GET("/api/v1/groups/:group/clients/:clientId", client.API)
	r.GET("/metrics", gin.WrapH(a.metricsHandler()))

	r.GET("/alerts", alertsPage.Show)
	r.POST("/alerts", alertsPage.Create)
	r.POST("/alerts/:id/delete", alertsPage.Delete)
	r.GET("/api/v1/alert-rules", alertsPage.List)
	r.POST("/api/v1/alert-rules", alertsPage.CreateAPI)
	r.DELETE("/api/v1/alert-rules/:id", alertsPage.DeleteAPI)
}

// onClose adds work for Close to do first (stopping background goroutines), in reverse
// order of registration.
func (a *App) onClose(f func()) { a.closers = append(a.closers, f) }

// background runs run in its own goroutine until Close, which cancels its context and
// waits for it to return.
func (a *App) background(run func(ctx context.Context)) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		run(ctx)
	}()
	a.onClose(func() { cancel(); <-done })
}
