package server

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/gin-gonic/gin"

	"rmqconsole/auth"
	"rmqconsole/handlers"
	"rmqconsole/resets"
)

// access is the middleware that finds who the caller is and applies accessRules: an
// anonymous page request is sent to /login, an anonymous API request gets 401, a caller
// whose role is too low gets 403 (audited for resets).
func (a *clusterApp) access(env *handlers.Env) gin.HandlerFunc {
	return func(c *gin.Context) {
		rule := ruleFor(c.Request.Method, c.FullPath())
		if rule.anonymous {
			c.Next()
			return
		}
		// Pages and API answers show what a signed-in user may see: no cache keeps them.
		c.Header("Cache-Control", "no-store")
		caller, ended, refused := a.identify(c)
		if caller != nil {
			// The cluster may cap the console role (access_rules.go, RoleFor).
			capped := *caller
			capped.Role = a.cc.RoleFor(caller.Name, caller.Role)
			caller = &capped
			c.Set(handlers.ActorKey, caller.Name)
			c.Set(handlers.RoleKey, caller.Role)
		}
		if rule.open {
			c.Next()
			return
		}
		// Asked only here: open routes do not need it, and without users it is a
		// database read.
		if !a.sec.signInRequired(c.Request.Context()) {
			if caller == nil {
				// The one local user may do everything the cluster allows.
				local := &auth.Caller{Name: handlers.Actor(c), Role: a.cc.RoleFor(handlers.Actor(c), auth.Admin)}
				c.Set(handlers.RoleKey, local.Role)
				if !local.Role.Allows(rule.need) {
					a.refuse(c, env, local, rule, rule.need)
					return
				}
			}
			c.Next()
			return
		}
		if refused != "" {
			a.askToSignIn(c, env, refused, false)
			return
		}
		if caller == nil {
			a.askToSignIn(c, env, "", ended)
			return
		}
		need := rule.need
		if rule.others != auth.NoRole && c.Param("user") != caller.Name {
			need = rule.others
		}
		if !caller.Role.Allows(need) {
			a.refuse(c, env, caller, rule, need)
			return
		}
		c.Next()
	}
}

// identify returns the caller named by a trusted proxy, a bearer token or a session
// cookie, in that order; nil when there is none. ended is true when a session cookie
// was sent but its session is over (the cookie is then cleared). refused, when not
// empty, says in a sentence why the credentials sent are not valid: they are refused,
// never ignored.
func (a *App) identify(c *gin.Context) (caller *auth.Caller, ended bool, refused string) {
	ctx := c.Request.Context()
	if pc, ok, perr := a.sec.proxy.Caller(c.Request.RemoteAddr, c.Request.Header); ok {
		if perr != nil {
			a.log.Warn("proxy identity refused", "remote", c.Request.RemoteAddr, "err", perr)
			return nil, false, fmt.Sprintf("The proxy in front of the console sent an identity it cannot accept (%v). Ask its administrator to check the proxy's configuration.", perr)
		}
		return pc, false, ""
	}
	if h := c.GetHeader("Authorization"); h != "" {
		scheme, secret, _ := strings.Cut(h, " ")
		if !strings.EqualFold(scheme, "Bearer") {
			return nil, false, "Send API tokens as Authorization: Bearer TOKEN."
		}
		tc, terr := a.sec.auth.TokenCaller(ctx, strings.TrimSpace(secret))
		if errors.Is(terr, auth.ErrTokenInvalid) {
			return nil, false, "This API token is not valid: it was revoked, its user removed, or it is mistyped. Create a new one on the API tokens page or with rmqconsole tokens create --user NAME."
		}
		if terr != nil {
			a.log.Error("check API token", "err", terr)
			return nil, false, "The console could not check the API token: its database did not answer. Try again."
		}
		return tc, false, ""
	}
	token, cerr := c.Cookie(handlers.SessionCookie)
	if cerr != nil || token == "" {
		return nil, false, ""
	}
	sc, serr := a.sec.auth.Session(ctx, token)
	if errors.Is(serr, auth.ErrSessionEnded) {
		handlers.ClearSessionCookie(c, a.secure(c))
		return nil, true, ""
	}
	if serr != nil {
		a.log.Error("check session", "err", serr)
		return nil, false, "The console could not check your session: its database did not answer. Try again."
	}
	return sc, false, ""
}

// askToSignIn answers a request without valid credentials: 401 JSON for the API, a
// redirect to the sign-in page (back here afterwards) for pages.
func (a *clusterApp) askToSignIn(c *gin.Context, env *handlers.Env, why string, ended bool) {
	defer c.Abort()
	if isMachinePath(c.Request.URL.Path) {
		if why == "" {
			why = "Sign in first: send an API token as Authorization: Bearer TOKEN (create one on the API tokens page, or with rmqconsole tokens create --user NAME)."
		}
		c.Header("WWW-Authenticate", `Bearer realm="rmqconsole"`)
		env.Fail(c, &handlers.UserError{Status: http.StatusUnauthorized, Code: "unauthenticated", Message: why})
		return
	}
	if why != "" {
		env.Fail(c, &handlers.UserError{Status: http.StatusUnauthorized, Code: "unauthenticated", Message: why})
		return
	}
	// Come back to the page the user was on: for htmx that is the page, not the fragment.
	next := "/"
	if c.Request.Method == http.MethodGet || c.Request.Method == http.MethodHead {
		next = a.base.URL(c.Request.URL.RequestURI()) // back to this cluster's page
	}
	if cur := c.GetHeader("HX-Current-URL"); cur != "" {
		if u, err := url.Parse(cur); err == nil {
			next = u.RequestURI()
		}
	}
	login := "/login?next=" + url.QueryEscape(handlers.SafeNext(next))
	if ended {
		login += "&reason=ended"
	}
	if c.GetHeader("HX-Request") == "true" {
		c.Header("HX-Redirect", login)
		c.Status(http.StatusUnauthorized)
		return
	}
	c.Redirect(http.StatusSeeOther, login)
}

// refuse answers 403 with what the role lacks. A refused apply of a reset is recorded
// through the resets service, which bounds and rate-limits what refusals store.
func (a *clusterApp) refuse(c *gin.Context, env *handlers.Env, caller *auth.Caller, rule accessRule, need auth.Role) {
	defer c.Abort()
	msg := fmt.Sprintf("Your role, %s, may not %s: that needs %s. Ask an admin for the %s role.", caller.Role, rule.what, need, need)
	if a.several() {
		msg = fmt.Sprintf("Your role on cluster %s, %s, may not %s: that needs %s.", a.cc.Name, caller.Role, rule.what, need)
		if capped := a.cc.RoleFor(caller.Name, auth.Admin); capped < need {
			msg += " This cluster's configuration allows you at most " + capped.String() + "."
		} else {
			msg += " Ask an admin for the " + need.String() + " role."
		}
	}
	if rule.others != auth.NoRole && need == rule.others {
		msg = fmt.Sprintf("Only an admin may %s. Your own tokens are at /users/%s/tokens.", rule.what, caller.Name)
	}
	a.log.Warn("refused", "user", caller.Name, "role", caller.Role.String(), "method", c.Request.Method,
		"path", c.Request.URL.Path, "needs", need.String())
	if rule.audited {
		a.resets.RefuseRole(c.Request.Context(), resets.Who{Actor: caller.Name, Addr: c.ClientIP()}, firstParam(c),
			handlers.ResetAsked(c), msg)
	}
	env.Fail(c, &handlers.UserError{Status: http.StatusForbidden, Code: "forbidden", Message: msg})
}

// firstParam is the first route parameter (the group of reset routes), whatever its name.
func firstParam(c *gin.Context) string {
	if len(c.Params) == 0 {
		return ""
	}
	return c.Params[0].Value
}

// isMachinePath reports whether programs rather than people call p (the JSON API and
// the Prometheus endpoint): they get 401 and a WWW-Authenticate header, not a sign-in
// page.
func isMachinePath(p string) bool { return strings.HasPrefix(p, "/api/") || p == "/metrics" }
