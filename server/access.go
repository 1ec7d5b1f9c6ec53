package server

import (
	"errors"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/gin-gonic/gin"

	"rmqconsole/auth"
	"rmqconsole/fault"
	"rmqconsole/handlers"
	"rmqconsole/i18n"
	"rmqconsole/resets"
	"rmqconsole/rights"
)

// access is the middleware that finds who the caller is and applies the route's access
// rule (access_rules.go): an
// anonymous page request is sent to /login, an anonymous API request gets 401, a caller
// whose role is too low gets 403 (audited for resets).
func (a *clusterApp) access(env *handlers.Env) gin.HandlerFunc {
	return func(c *gin.Context) {
		rule := a.rules.ruleFor(c.Request.Method, c.FullPath())
		if rule.anonymous {
			c.Next()
			return
		}
		// Pages and API answers show what a signed-in user may see: no cache keeps them.
		c.Header("Cache-Control", "no-store")
		caller, ended, refused, unchecked := a.identify(c)
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
		if unchecked != nil {
			// The credentials could not be checked: the console is at fault, not the
			// caller, who is told so rather than asked to sign in again.
			env.Fail(c, unchecked)
			c.Abort()
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
		if refused.ID != "" {
			a.askToSignIn(c, env, refused, false)
			return
		}
		if caller == nil {
			a.askToSignIn(c, env, i18n.Message{}, ended)
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
		if !a.rightsAllow(c, env, caller, rule) {
			return
		}
		c.Next()
	}
}

// rightsAllow applies the rights of the config file (package rights) to the topic and
// the group the request names in its path (:topic, :group) or query (topic=, group=),
// and to actions on the cluster as a whole (ACL, the audit log). The caller's rights
// are kept in the context for handlers that learn the resource later (a request body,
// a message's topic) and for lists and buttons. A refused change is audited, as a reset
// refused for the role is; a refused read is not (nothing was attempted).
func (a *clusterApp) rightsAllow(c *gin.Context, env *handlers.Env, caller *auth.Caller, rule accessRule) bool {
	r := handlers.Rights{Table: a.cfg.Rights, Caller: caller, Cluster: a.cc.Name, Refusals: a.svc.resets}
	c.Set(handlers.RightsKey, r)
	if !r.Limited() || rule.action == "" {
		return true
	}
	kind, name, action, ok := deniedResource(c, r, rule.action)
	if rule.limitedRefused != "" {
		kind, name, action, ok = rights.Cluster, "", "limited", false
	}
	if ok {
		return true
	}
	defer c.Abort()
	say := r.Refusal(kind, name, action)
	if rule.limitedRefused != "" {
		say = &fault.Error{Code: fault.Refused, Reason: "forbidden", Msg: i18n.M(rule.limitedRefused)}
	}
	a.log.Warn("refused by rights", "user", caller.Name, "method", c.Request.Method, "path", c.Request.URL.Path,
		"kind", kind.String(), "name", name, "action", string(action))
	if c.Request.Method != http.MethodGet && c.Request.Method != http.MethodHead {
		group, asked := "", resets.Asked{Mode: rule.mode, Params: map[string]string{"path": c.Request.URL.Path}}
		if kind == rights.Group {
			group = name
		}
		if rule.action == rights.Reset && rule.mode == "" {
			asked = handlers.ResetAsked(c)
		} else if asked.Mode == "" {
			asked.Mode = "rights-" + string(rule.action)
		}
		a.svc.resets.RefuseRole(c.Request.Context(), resets.Who{Actor: caller.Name, Addr: c.ClientIP()}, group, asked, say.Msg)
	}
	env.Fail(c, say)
	return false
}

// groupActions are done to a group: the topic a request names beside is only read.
// The others are done to a topic, and a group named beside is only read.
var groupActions = []rights.Action{rights.Reset, rights.ManageGroups, rights.ManageAlerts}

// deniedResource finds what the request names that the caller may not touch: ok is
// true when there is nothing.
func deniedResource(c *gin.Context, r handlers.Rights, action rights.Action) (rights.Kind, string, rights.Action, bool) {
	if action == rights.ManageACL || action == rights.ReadAudit {
		return rights.Cluster, "", action, r.Allows(rights.Cluster, "", action)
	}
	onGroup := slices.Contains(groupActions, action)
	for _, res := range []struct {
		kind rights.Kind
		name string
		own  bool
	}{
		{rights.Group, c.Param("group"), onGroup}, {rights.Group, c.Query("group"), onGroup},
		{rights.Topic, c.Param("topic"), !onGroup}, {rights.Topic, c.Query("topic"), !onGroup},
	} {
		if res.name == "" {
			continue
		}
		need := action
		if !res.own {
			need = rights.ReadMetadata
		}
		if !r.Allows(res.kind, res.name, need) {
			return res.kind, res.name, need, false
		}
	}
	return rights.Cluster, "", "", true
}

// identify returns the caller named by a trusted proxy, a bearer token or a session
// cookie, in that order; nil when there is none. ended is true when a session cookie
// was sent but its session is over (the cookie is then cleared). refused, when not
// empty, says in a sentence why the credentials sent are not valid: they are refused,
// never ignored. unchecked is set when they could not be checked (the database failed:
// 503 when it is unavailable).
func (a *App) identify(c *gin.Context) (caller *auth.Caller, ended bool, refused i18n.Message, unchecked error) {
	ctx := c.Request.Context()
	if pc, ok, perr := a.sec.proxy.Caller(c.Request.RemoteAddr, c.Request.Header); ok {
		if perr != nil {
			a.log.Warn("proxy identity refused", "remote", c.Request.RemoteAddr, "err", perr)
			a.sec.auth.RecordSignIn(ctx, auth.SignIn{Provider: auth.ProviderProxy, Name: c.GetHeader(a.sec.proxy.UserHeader),
				Addr: c.ClientIP(), Err: fault.Wrap(perr, fault.Refused, "access.proxy_refused", "Error", perr.Error())})
			return nil, false, i18n.M("access.proxy_refused", "Error", perr.Error()), nil
		}
		a.sec.auth.ProxySignIn(ctx, pc, c.ClientIP())
		return pc, false, i18n.Message{}, nil
	}
	if h := c.GetHeader("Authorization"); h != "" {
		scheme, secret, _ := strings.Cut(h, " ")
		if !strings.EqualFold(scheme, "Bearer") {
			return nil, false, i18n.M("access.bearer"), nil
		}
		tc, terr := a.sec.auth.TokenCaller(ctx, strings.TrimSpace(secret))
		if errors.Is(terr, auth.ErrTokenInvalid) {
			return nil, false, i18n.M("access.token_invalid"), nil
		}
		if terr != nil {
			a.log.Error("check API token", "err", terr)
			return nil, false, i18n.Message{}, handlers.StoreFailure(terr, i18n.M("access.token_unchecked"))
		}
		return tc, false, i18n.Message{}, nil
	}
	token, cerr := c.Cookie(handlers.SessionCookie)
	if cerr != nil || token == "" {
		return nil, false, i18n.Message{}, nil
	}
	sc, serr := a.sec.auth.Session(ctx, token)
	if errors.Is(serr, auth.ErrSessionEnded) {
		handlers.ClearSessionCookie(c, a.secure(c))
		return nil, true, i18n.Message{}, nil
	}
	if serr != nil {
		a.log.Error("check session", "err", serr)
		return nil, false, i18n.Message{}, handlers.StoreFailure(serr, i18n.M("access.session_unchecked"))
	}
	return sc, false, i18n.Message{}, nil
}

// askToSignIn answers a request without valid credentials: 401 JSON for the API, a
// redirect to the sign-in page (back here afterwards) for pages.
func (a *clusterApp) askToSignIn(c *gin.Context, env *handlers.Env, why i18n.Message, ended bool) {
	defer c.Abort()
	if isMachinePath(c.Request.URL.Path) {
		if why.ID == "" {
			why = i18n.M("access.sign_in_first")
		}
		c.Header("WWW-Authenticate", `Bearer realm="rmqconsole"`)
		env.Fail(c, unauthenticated(why))
		return
	}
	if why.ID != "" {
		env.Fail(c, unauthenticated(why))
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

// unauthenticated refuses a request without valid credentials (401), saying why.
func unauthenticated(why i18n.Message) error {
	return &fault.Error{Code: fault.Refused, Reason: handlers.ReasonUnauthenticated, Msg: why}
}

// refuse answers 403 with what the role lacks. A refused apply of a reset is recorded
// through the resets service, which bounds and rate-limits what refusals store.
func (a *clusterApp) refuse(c *gin.Context, env *handlers.Env, caller *auth.Caller, rule accessRule, need auth.Role) {
	defer c.Abort()
	role, what, needs := i18n.M("role."+caller.Role.String()), i18n.M(rule.what), i18n.M("role."+need.String())
	say := i18n.M("access.role_refused", "Role", role, "What", what, "Need", needs)
	if a.several() {
		say = i18n.M("access.role_refused_on_cluster", "Cluster", a.cc.Name, "Role", role, "What", what, "Need", needs)
		if capped := a.cc.RoleFor(caller.Name, auth.Admin); capped < need {
			say = i18n.M("access.role_capped_on_cluster", "Cluster", a.cc.Name, "Role", role, "What", what, "Need", needs,
				"Max", i18n.M("role."+capped.String()))
		}
	}
	if rule.others != auth.NoRole && need == rule.others {
		say = i18n.M("access.admin_only", "What", i18n.M(rule.what), "User", caller.Name)
	}
	a.log.Warn("refused", "user", caller.Name, "role", caller.Role.String(), "method", c.Request.Method,
		"path", c.Request.URL.Path, "needs", need.String())
	if rule.audited {
		group, asked := firstParam(c), handlers.ResetAsked(c)
		if rule.mode != "" {
			group, asked = c.Param("group"), resets.Asked{Mode: rule.mode, Params: map[string]string{"path": c.Request.URL.Path}}
		}
		a.svc.resets.RefuseRole(c.Request.Context(), resets.Who{Actor: caller.Name, Addr: c.ClientIP()}, group, asked, say)
	}
	env.Fail(c, &fault.Error{Code: fault.Refused, Reason: "forbidden", Msg: say})
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
