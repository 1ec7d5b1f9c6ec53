package server

import (
	"github.com/gin-gonic/gin"

	"rmqconsole/handlers"
)

// messageRoutes registers the pages and API of messages.
func (a *App) messageRoutes(r *gin.Engine, env *handlers.Env) {
}
