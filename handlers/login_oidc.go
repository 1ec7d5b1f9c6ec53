package handlers

import (
	"context"
	"net/http"
	"net/url"
	"time"

	"github.com/gin-gonic/gin"

	"rmqconsole/auth"
	"rmqconsole/auth/oidc"
	"rmqconsole/i18n"
	"rmqconsole/store"
	"rmqconsole/views"
)

// Paths and cookies of signing in through an OpenID provider.
const (
	oidcStartPath = "/login/oidc"
	// oidcFlowCookie keeps a sign-in under way (state, nonce, PKCE verifier) between the
	// redirect to the provider and the way back; only the callback reads it.
	oidcFlowCookie = "rmqc_oidc_flow"
	// oidcHintCookie keeps the ID token of an OpenID sign-in for sign-out, which hands
	// it to the provider as id_token_hint; only /logout reads it.
	oidcHintCookie = "rmqc_oidc_hint"
	// maxHintCookie bounds the ID token kept: a browser drops cookies over 4 KB.
	maxHintCookie = 3000
)

// OIDCProvider is what signing in through an OpenID provider needs (*oidc.Provider).
type OIDCProvider interface {
	Label() string
	Start(ctx context.Context, next string) (string, *oidc.Flow, error)
	Finish(ctx context.Context, f *oidc.Flow, cb oidc.Callback) (*auth.Identity, string, error)
}

// ExternalSessions starts sessions for people a provider vouched for, and records
// sign-ins that failed before anyone was named (package auth).
type ExternalSessions interface {
	SignInExternal(ctx context.Context, id auth.Identity, addr, userAgent string) (*auth.NewSession, error)
	RecordSignIn(ctx context.Context, r auth.SignIn) *store.AuditEntry
}

// OIDCSignIn is GET /login/oidc (off to the provider) and GET /login/oidc/callback
// (back from it, signed in or told why not).
type OIDCSignIn struct {
	*Env
	Provider OIDCProvider
	Auth     ExternalSessions
	// Secure reports whether the request came over HTTPS.
	Secure func(*gin.Context) bool
	// LDAP says the sign-in form also takes directory accounts (for the page shown on
	// a failure).
	LDAP bool
}

// Start sends the browser to the provider's sign-in page.
func (h *OIDCSignIn) Start(c *gin.Context) {
	next := SafeNext(c.Query("next"))
	to, flow, err := h.Provider.Start(c.Request.Context(), next)
	if err != nil {
		h.Auth.RecordSignIn(c.Request.Context(), auth.SignIn{Provider: auth.ProviderOIDC, Addr: c.ClientIP(), Err: err})
		h.Log.Warn("OpenID provider not usable", "err", err)
		h.fail(c, next, err)
		return
	}
	http.SetCookie(c.Writer, &http.Cookie{Name: oidcFlowCookie, Value: flow.Encode(), Path: oidcStartPath,
		MaxAge: int(oidc.FlowTTL / time.Second), HttpOnly: true, Secure: h.Secure(c), SameSite: http.SameSiteLaxMode})
	c.Redirect(http.StatusFound, to)
}

// Callback finishes the sign-in the provider sent the browser back from.
func (h *OIDCSignIn) Callback(c *gin.Context) {
	raw, _ := c.Cookie(oidcFlowCookie)
	flow := oidc.DecodeFlow(raw)
	clearCookie(c, oidcFlowCookie, oidcStartPath, h.Secure(c)) // a flow is used once
	next := "/"
	if flow != nil {
		next = SafeNext(flow.Next)
	}
	ctx := c.Request.Context()
	id, idToken, err := h.Provider.Finish(ctx, flow, oidc.Callback{State: c.Query("state"), Code: c.Query("code"),
		Error: c.Query("error"), Description: c.Query("error_description")})
	if err != nil {
		h.Auth.RecordSignIn(ctx, auth.SignIn{Provider: auth.ProviderOIDC, Addr: c.ClientIP(), Err: err})
		h.Log.Info("OpenID sign-in refused", "remote", c.ClientIP(), "err", err)
		h.fail(c, next, err)
		return
	}
	ns, err := h.Auth.SignInExternal(ctx, *id, c.ClientIP(), c.Request.UserAgent())
	if err != nil {
		h.Log.Info("OpenID sign-in refused", "user", id.Name, "groups", id.Groups, "remote", c.ClientIP(), "err", err)
		h.fail(c, next, err)
		return
	}
	h.Log.Info("signed in", "user", ns.Caller.Name, "role", ns.Caller.Role.String(), "provider", auth.ProviderOIDC, "remote", c.ClientIP())
	SetSessionCookie(c, ns.Token, ns.ExpiresAt, h.Secure(c))
	hint := idToken
	if len(hint) > maxHintCookie {
		hint = "-" // too big to keep: sign-out then names only the client
	}
	http.SetCookie(c.Writer, &http.Cookie{Name: oidcHintCookie, Value: hint, Path: "/logout", Expires: ns.ExpiresAt,
		MaxAge: max(1, int(time.Until(ns.ExpiresAt).Seconds())), HttpOnly: true, Secure: h.Secure(c), SameSite: http.SameSiteLaxMode})
	c.Redirect(http.StatusSeeOther, next)
}

// fail shows the sign-in page with the sentence saying why signing in through the
// provider did not work; no session was started.
func (h *OIDCSignIn) fail(c *gin.Context, next string, err error) {
	status, code := errorStatus(err)
	vm := views.LoginVM{Next: next, Error: errorMessage(c, err, code), LDAP: h.LDAP}
	vm.OIDCURL, vm.OIDCLabel = oidcStartPath+"?"+url.Values{"next": {next}}.Encode(), h.Provider.Label()
	h.render(c, status, h.page(c, i18n.From(c.Request.Context()).T("login.title"), ""), views.LoginPage(vm))
}

// clearCookie tells the browser to forget cookie name of path.
func clearCookie(c *gin.Context, name, path string, secure bool) {
	if _, err := c.Cookie(name); err != nil {
		return
	}
	http.SetCookie(c.Writer, &http.Cookie{Name: name, Value: "", Path: path, MaxAge: -1,
		HttpOnly: true, Secure: secure, SameSite: http.SameSiteLaxMode})
}
