package server

import (
	"github.com/gin-gonic/gin"

	"rmqconsole/deadletters"
	"rmqconsole/handlers"
	"rmqconsole/lookup"
)

// messageRoutes registers the pages and API of messages.
func (a *clusterApp) messageRoutes(r *gin.Engine, env *handlers.Env) {
	h := &handlers.Messages{Env: env, Heavy: handlers.NewHeavyGate(a.cfg.MaxHeavyQueries),
		Decoders: a.cfg.Decoders, ClusterName: a.cc.Name}
	a.registry.MustRegister(heavyMetrics{h.Heavy})
	dl := &handlers.DeadLetters{Env: env}
	dlq := &handlers.DeadLetterList{Env: env}
	if a.rmq != nil {
		h.Lookup = lookup.New(a.rmq, lookup.Options{Cluster: a.cluster,
			Direct: a.rmq, Audit: a.store.Audit(), ClusterName: a.nameServers()})
		svc := deadletters.New(deadletters.Config{Admin: a.rmq, Cluster: a.cluster, Finder: h.Lookup,
			Audit: a.store.Audit(), NameServers: a.nameServers()})
		dl.Service, dlq.Service = svc, svc
	}
	r.GET("/messages", h.Search)
	r.GET("/messages/export", h.Export)
	r.GET("/messages/:id", h.Show)
	r.GET("/messages/:id/body", h.Body)
	r.GET("/api/v1/messages", h.API)
	r.GET("/api/v1/messages/:id", h.ShowAPI)
	r.GET("/api/v1/messages/:id/trace", h.TraceAPI)

	// Every group's dead-letter topic, newest arrivals first.
	r.GET("/dead-letters", dlq.Show)

	// Dead letters back to their original topics: one, or all a search showed.
	r.POST("/messages/resend", dl.ResendAll)
	r.POST("/messages/:id/resend", dl.Resend)
	r.POST("/api/v1/messages/resend", dl.ResendAllAPI)
	r.POST("/api/v1/messages/:id/resend", dl.ResendAPI)

	// One message consumed again on one client of a group.
	r.POST("/messages/:id/consume-directly", h.ConsumeDirectly)
	r.POST("/api/v1/messages/:id/consume-directly", h.ConsumeDirectlyAPI)
}
