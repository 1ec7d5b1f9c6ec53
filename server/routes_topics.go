package server

import (
	"github.com/gin-gonic/gin"

	"rmqconsole/handlers"
	"rmqconsole/topics"
)

// topicRoutes registers the pages and API of topics.
func (a *clusterApp) topicRoutes(r *gin.Engine, env *handlers.Env) {
	h := &handlers.Topics{Env: env}
	if a.rmq != nil {
		svc := topics.New(a.rmq, topics.Options{Cluster: a.cluster, Audit: a.store.Audit(), NameServers: a.nameServers()})
		h.Topics, h.Changes = svc, svc
	}
	r.GET("/topics", h.List)
	r.GET("/topics/:topic", h.Show)
	r.GET("/api/v1/topics", h.ListAPI)
	r.GET("/api/v1/topics/:topic", h.ShowAPI)
	// Changes: operators only (access_rules.go), each audited by the service.
	r.POST("/topics", h.SaveForm)
	r.POST("/topics/:topic", h.SaveForm)
	r.POST("/topics/:topic/delete", h.DeleteForm)
	r.POST("/api/v1/topics", h.SaveAPI)
	r.PUT("/api/v1/topics/:topic", h.UpdateAPI)
	r.DELETE("/api/v1/topics/:topic", h.DeleteAPI)
}
