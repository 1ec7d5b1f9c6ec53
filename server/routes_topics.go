package server

import (
	"github.com/gin-gonic/gin"

	"rmqconsole/handlers"
	"rmqconsole/topics"
)

// topicRoutes registers the pages and API of topics.
func (a *App) topicRoutes(r *gin.Engine, env *handlers.Env) {
	h := &handlers.Topics{Env: env}
	if a.rmq != nil {
		h.Topics = topics.New(a.rmq, topics.Options{Cluster: a.cluster})
	}
	r.GET("/topics", h.List)
	r.GET("/topics/:topic", h.Show)
	r.GET("/api/v1/topics", h.ListAPI)
	r.GET("/api/v1/topics/:topic", h.ShowAPI)
}
