package server

import (
	"time"

	"github.com/gin-gonic/gin"

	"rmqconsole/brokers"
	"rmqconsole/handlers"
	"rmqconsole/live"
)

// brokerRoutes registers the pages and API of brokers.
func (a *clusterApp) brokerRoutes(r *gin.Engine, env *handlers.Env) {
	h := &handlers.Brokers{Env: env}
	ws := &handlers.BrokerLive{Env: env, Quota: a.liveViews}
	if a.rmq != nil {
		svc := brokers.New(a.rmq, a.cluster)
		h.Brokers, h.Live = svc, true
		// One poll per watched broker whatever the number of viewers; ten minutes of
		// samples at the poll interval.
		interval := 2 * time.Second
		ws.Hub = live.New(handlers.BrokerFrames(svc, brokers.NewSeries(300, interval)), live.Options{Interval: interval, Timeout: a.cfg.Timeout})
		a.onClose(ws.Hub.Close)
	}
	r.GET("/brokers", h.List)
	r.GET("/brokers/:name", h.Show)
	r.GET("/api/v1/brokers", h.ListAPI)
	r.GET("/api/v1/brokers/:name", h.ShowAPI)
	r.GET("/ws/brokers/:name", ws.Serve)
}
