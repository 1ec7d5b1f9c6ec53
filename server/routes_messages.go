package server

import (
	"github.com/gin-gonic/gin"

	"rmqconsole/handlers"
	"rmqconsole/lookup"
)

// messageRoutes registers the pages and API of messages.
func (a *App) messageRoutes(r *gin.Engine, env *handlers.Env) {
	h := &handlers.Messages{Env: env, Heavy: handlers.NewHeavyGate(a.cfg.MaxHeavyQueries)}
	if a.rmq != nil {
		h.Lookup = lookup.New(a.rmq, lookup.Options{Cluster: a.cluster})
	}
	r.GET("/messages", h.Search)
	r.GET("/messages/export", h.Export)
	r.GET("/messages/:id", h.Show)
	r.GET("/messages/:id/body", h.Body)
	r.GET("/api/v1/messages", h.API)
	r.GET("/api/v1/messages/:id", h.ShowAPI)
}
