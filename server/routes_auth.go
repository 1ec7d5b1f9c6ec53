package server

import (
	"github.com/gin-gonic/gin"

	"rmqconsole/handlers"
)

// authRoutes registers sign-in, sign-out and the API token pages.
func (a *clusterApp) authRoutes(r *gin.Engine, env *handlers.Env) {
	required := func(c *gin.Context) bool { return a.sec.signInRequired(c.Request.Context()) }
	login := &handlers.Login{Env: env, Auth: a.sec.auth, SignInRequired: required, Secure: a.secure}
	logout := &handlers.Logout{Env: env, Auth: a.sec.auth, Secure: a.secure}
	tokens := &handlers.Tokens{Env: env, Auth: a.sec.auth}

	r.GET("/login", login.Form)
	r.POST("/login", login.Submit)
	r.POST("/logout", logout.Submit)

	r.GET("/tokens", tokens.Mine)
	r.GET("/users/:user/tokens", tokens.List)
	r.POST("/users/:user/tokens", tokens.Create)
	r.POST("/users/:user/tokens/:id/revoke", tokens.Revoke)
	r.GET("/api/v1/users/:user/tokens", tokens.ListAPI)
	r.POST("/api/v1/users/:user/tokens", tokens.CreateAPI)
	r.DELETE("/api/v1/users/:user/tokens/:id", tokens.RevokeAPI)
}
