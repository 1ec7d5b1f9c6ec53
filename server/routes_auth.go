package server

import (
	"github.com/gin-gonic/gin"

	"rmqconsole/auth/oidc"
	"rmqconsole/handlers"
)

// authRoutes registers sign-in, sign-out and the API token pages.
func (a *clusterApp) authRoutes(r *gin.Engine, env *handlers.Env) {
	required := func(c *gin.Context) bool { return a.sec.signInRequired(c.Request.Context()) }
	login := &handlers.Login{Env: env, Auth: a.sec.auth, SignInRequired: required, Secure: a.secure, LDAP: a.sec.ldap != nil}
	logout := &handlers.Logout{Env: env, Auth: a.sec.auth, Secure: a.secure}
	tokens := &handlers.Tokens{Env: env, Auth: a.sec.auth}

	r.GET("/login", login.Form)
	r.POST("/login", login.Submit)
	r.POST("/logout", logout.Submit)
	if p := a.sec.oidc; p != nil {
		login.OIDCLabel = p.Label()
		logout.EndSession = func(hint string) string { return p.EndSessionURL(hint, p.PostLogoutURL()) }
		sso := &handlers.OIDCSignIn{Env: env, Provider: p, Auth: a.sec.auth, Secure: a.secure, LDAP: a.sec.ldap != nil}
		r.GET("/login/oidc", sso.Start)
		r.GET(oidc.CallbackPath, sso.Callback)
	}

	r.GET("/tokens", tokens.Mine)
	r.GET("/users/:user/tokens", tokens.List)
	r.POST("/users/:user/tokens", tokens.Create)
	r.POST("/users/:user/tokens/:id/revoke", tokens.Revoke)
	r.GET("/api/v1/users/:user/tokens", tokens.ListAPI)
	r.POST("/api/v1/users/:user/tokens", tokens.CreateAPI)
	r.DELETE("/api/v1/users/:user/tokens/:id", tokens.RevokeAPI)
}
