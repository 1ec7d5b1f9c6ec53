package server

import (
	"net/http"

	"github.com/gin-gonic/gin"

	"rmqconsole/auth/oidc"
	"rmqconsole/handlers"
)

// authRoutes are sign-in, sign-out and the API token pages.
func (a *clusterApp) authRoutes(env *handlers.Env) []route {
	required := func(c *gin.Context) bool { return a.sec.signInRequired(c.Request.Context()) }
	login := &handlers.Login{Env: env, Auth: a.sec.auth, SignInRequired: required, Secure: a.secure, LDAP: a.sec.ldap != nil}
	logout := &handlers.Logout{Env: env, Auth: a.sec.auth, Secure: a.secure}
	tokens := &handlers.Tokens{Env: env, Auth: a.sec.auth}
	routes := []route{
		{http.MethodGet, "/login", login.Form, public},
		{http.MethodPost, "/login", login.Submit, public},
		{http.MethodPost, "/logout", logout.Submit, public},

		{http.MethodGet, "/tokens", tokens.Mine, read},
		{http.MethodGet, "/users/:user/tokens", tokens.List, ownTokens},
		{http.MethodPost, "/users/:user/tokens", tokens.Create, ownTokens},
		{http.MethodPost, "/users/:user/tokens/:id/revoke", tokens.Revoke, ownTokens},
		{http.MethodGet, "/api/v1/users/:user/tokens", tokens.ListAPI, ownTokens},
		{http.MethodPost, "/api/v1/users/:user/tokens", tokens.CreateAPI, ownTokens},
		{http.MethodDelete, "/api/v1/users/:user/tokens/:id", tokens.RevokeAPI, ownTokens},
	}
	if p := a.sec.oidc; p != nil {
		login.OIDCLabel = p.Label()
		logout.EndSession = func(hint string) string { return p.EndSessionURL(hint, p.PostLogoutURL()) }
		sso := &handlers.OIDCSignIn{Env: env, Provider: p, Auth: a.sec.auth, Secure: a.secure, LDAP: a.sec.ldap != nil}
		routes = append(routes,
			route{http.MethodGet, "/login/oidc", sso.Start, public},
			route{http.MethodGet, oidc.CallbackPath, sso.Callback, public})
	}
	return routes
}
