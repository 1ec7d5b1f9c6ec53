package server

import (
	"github.com/gin-gonic/gin"

	"rmqconsole/handlers"
)

// resetRoutes registers the pages and API of resets and the audit log.
func (a *App) resetRoutes(r *gin.Engine, env *handlers.Env) {
}
