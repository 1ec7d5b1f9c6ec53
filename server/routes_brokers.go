package server

import (
	"github.com/gin-gonic/gin"

	"rmqconsole/brokers"
	"rmqconsole/handlers"
)

// brokerRoutes registers the pages and API of brokers.
func (a *App) brokerRoutes(r *gin.Engine, env *handlers.Env) {
	h := &handlers.Brokers{Env: env}
	if a.rmq != nil {
		h.Brokers = brokers.New(a.rmq, a.cluster)
	}
	r.GET("/brokers", h.List)
	r.GET("/brokers/:name", h.Show)
	r.GET("/api/v1/brokers", h.ListAPI)
	r.GET("/api/v1/brokers/:name", h.ShowAPI)
}
