package server

import (
	"github.com/gin-gonic/gin"

	"rmqconsole/handlers"
)

// groupRoutes registers the pages and API of groups.
func (a *App) groupRoutes(r *gin.Engine, env *handlers.Env) {
}
