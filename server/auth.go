package server

import (
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"github.com/gin-gonic/gin"

	"rmqconsole/auth"
	"rmqconsole/handlers"
	"rmqconsole/store"
)

// security is the console's access control: who the caller is (session cookie, API
// token, trusted proxy), whether sign-in is required at all, and TLS.
type security struct {
	auth   *auth.Service
	proxy  *auth.Proxy
	noAuth bool
	// required latches once users exist (or proxies are trusted): removing the last user
	// while the console runs must not open it to everyone.
	required atomic.Bool
	tls      *tls.Config // nil: plain HTTP
	log      *slog.Logger
}

// parseAuthSettings reads the access-control settings into c (called by ParseConfig).
func parseAuthSettings(c *Config, get func(string) string, bad func(name, reason string) error) error {
	var err error
	for _, d := range []struct {
		name string
		dst  *time.Duration
	}{{"session-idle", &c.SessionIdle}, {"session-max", &c.SessionMax}} {
		if *d.dst, err = time.ParseDuration(get(d.name)); err != nil || *d.dst <= 0 {
			return bad(d.name, "want a positive duration such as 30m or 8h")
		}
	}
	if c.SessionIdle > c.SessionMax {
		return bad("session-idle", fmt.Sprintf("longer than --session-max (%s): a session would end before it could idle out", c.SessionMax))
	}
	if c.TrustedProxies, err = auth.ParseTrustedProxies(get("trusted-proxies")); err != nil {
		return bad("trusted-proxies", err.Error())
	}
	c.ProxyUserHeader, c.ProxyRoleHeader = http.CanonicalHeaderKey(get("proxy-user-header")), http.CanonicalHeaderKey(get("proxy-role-header"))
	if c.ProxyUserHeader == "" {
		return bad("proxy-user-header", "must not be empty")
	}
	if c.ProxyRoleHeader == "" {
		return bad("proxy-role-header", "must not be empty")
	}
	c.TLSCert, c.TLSKey = get("tls-cert"), get("tls-key")
	if (c.TLSCert == "") != (c.TLSKey == "") {
		if c.TLSCert == "" {
			return bad("tls-cert", "--tls-key is set: give the certificate too")
		}
		return bad("tls-key", "--tls-cert is set: give its private key too")
	}
	return nil
}

// newSecurity builds the access control of the console from its configuration.
func newSecurity(cfg *Config, st *store.Store, log *slog.Logger) (*security, error) {
	s := &security{
		auth: auth.New(st, auth.Config{SessionIdle: cfg.SessionIdle, SessionMax: cfg.SessionMax}),
		proxy: &auth.Proxy{Trusted: cfg.TrustedProxies,
			UserHeader: cfg.ProxyUserHeader, RoleHeader: cfg.ProxyRoleHeader},
		noAuth: cfg.NoAuth,
		log:    log,
	}
	if cfg.TLSCert != "" {
		cert, err := tls.LoadX509KeyPair(cfg.TLSCert, cfg.TLSKey)
		if err != nil {
			return nil, fmt.Errorf("load TLS certificate %s and key %s (--tls-cert, --tls-key): %w", cfg.TLSCert, cfg.TLSKey, err)
		}
		s.tls = &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}
	}
	return s, nil
}

// signInConfigured reports whether anyone can sign in: users exist or a proxy is trusted
// to name them.
func (s *security) signInConfigured(ctx context.Context) (bool, error) {
	if s.proxy.Enabled() {
		return true, nil
	}
	return s.auth.HasUsers(ctx)
}

// signInRequired reports whether callers must be signed in. Without users (and without
// --no-auth) the console is in single-user local mode and it listens on loopback only.
func (s *security) signInRequired(ctx context.Context) bool {
	if s.noAuth {
		return false
	}
	if s.required.Load() {
		return true
	}
	ok, err := s.signInConfigured(ctx)
	if err != nil {
		s.log.Error("count users", "err", err)
		return true // fail closed
	}
	if ok {
		s.required.Store(true)
	}
	return ok
}

// accessRule says what role a route needs. Rules are tried in order; the first whose
// methods and path match decides.
type accessRule struct {
	methods []string // nil: any method
	// path is a gin route pattern; parameter names do not matter (":group" matches
	// ":name"). With prefix, every pattern that starts with it matches too.
	path   string
	prefix bool
	// open routes need no sign-in at all.
	open bool
	// anonymous routes do not even look at credentials: assets and probes are asked
	// for often and show nothing personal, so they cost no database read.
	anonymous bool
	need      auth.Role
	// others, when set, is the role needed when the :user parameter names someone other
	// than the caller.
	others auth.Role
	// audited: a refused attempt is written to the audit log.
	audited bool
	// what the route does, for the refusal message ("reset consumer offsets").
	what string
}

var (
	reads  = []string{http.MethodGet, http.MethodHead}
	writes = []string{http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete}
)

// accessRules is the one table of who may do what.
var accessRules = []accessRule{
	// Reachable without signing in: signing in and out, probes, assets.
	{path: "/login", open: true},
	{path: "/logout", open: true},
	{path: "/healthz", open: true, anonymous: true},
	{path: "/readyz", open: true, anonymous: true},
	{path: "/static/", prefix: true, open: true, anonymous: true},

	// Offset resets, previews included, need an operator; a refusal is audited.
	{methods: writes, path: "/groups/:group/reset", prefix: true, need: auth.Operator, audited: true, what: "reset consumer offsets"},
	{methods: writes, path: "/api/v1/groups/:group/reset-preview", need: auth.Operator, audited: true, what: "preview offset resets"},
	{methods: writes, path: "/api/v1/groups/:group/resets", need: auth.Operator, audited: true, what: "reset consumer offsets"},

	// API tokens: every signed-in user manages their own; an admin, anyone's.
	{path: "/tokens", need: auth.Viewer},
	{path: "/users/:user/tokens", prefix: true, need: auth.Viewer, others: auth.Admin, what: "manage the API tokens of other users"},
	{path: "/api/v1/users/:user/tokens", prefix: true, need: auth.Viewer, others: auth.Admin, what: "manage the API tokens of other users"},

	// Everything else: reading needs a viewer; any other action an operator.
	{methods: reads, path: "/", prefix: true, need: auth.Viewer, what: "read this page"},
	{path: "/", prefix: true, need: auth.Operator, what: "change anything"},
}

func init() {
	for i := range accessRules {
		accessRules[i].path = normalizePattern(accessRules[i].path)
	}
}

// normalizePattern drops parameter names: "/groups/:group/reset" → "/groups/:/reset".
func normalizePattern(p string) string {
	segs := strings.Split(p, "/")
	for i, s := range segs {
		switch {
		case strings.HasPrefix(s, ":"):
			segs[i] = ":"
		case strings.HasPrefix(s, "*"):
			segs[i] = "*"
		}
	}
	return strings.Join(segs, "/")
}

// ruleFor returns the rule for a request method and the route pattern gin matched ("" for
// an unknown path, which is judged by the catch-all rules).
func ruleFor(method, pattern string) accessRule {
	p := normalizePattern(pattern)
	if p == "" {
		p = "/"
	}
	for _, r := range accessRules {
		if r.methods != nil && !slices.Contains(r.methods, method) {
			continue
		}
		if p == r.path || (r.prefix && strings.HasPrefix(p, r.path)) {
			return r
		}
	}
	return accessRules[len(accessRules)-1]
}

// access is the middleware that finds who the caller is and applies accessRules: an
// anonymous page request is sent to /login, an anonymous API request gets 401, a caller
// whose role is too low gets 403 (audited for resets).
func (a *App) access(env *handlers.Env) gin.HandlerFunc {
	return func(c *gin.Context) {
		rule := ruleFor(c.Request.Method, c.FullPath())
		if rule.anonymous {
			c.Next()
			return
		}
		caller, ended, refused := a.identify(c)
		if caller != nil {
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
				c.Set(handlers.RoleKey, auth.Admin) // the one local user may do everything
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
func (a *App) askToSignIn(c *gin.Context, env *handlers.Env, why string, ended bool) {
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
		next = c.Request.URL.RequestURI()
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

// refuse answers 403 with what the role lacks, and audits refused resets.
func (a *App) refuse(c *gin.Context, env *handlers.Env, caller *auth.Caller, rule accessRule, need auth.Role) {
	defer c.Abort()
	msg := fmt.Sprintf("Your role, %s, may not %s: that needs %s. Ask an admin for the %s role.", caller.Role, rule.what, need, need)
	if rule.others != auth.NoRole && need == rule.others {
		msg = fmt.Sprintf("Only an admin may %s. Your own tokens are at /users/%s/tokens.", rule.what, caller.Name)
	}
	a.log.Warn("refused", "user", caller.Name, "role", caller.Role.String(), "method", c.Request.Method,
		"path", c.Request.URL.Path, "needs", need.String())
	if rule.audited {
		a.recordRefusedReset(c, caller, msg)
	}
	env.Fail(c, &handlers.UserError{Status: http.StatusForbidden, Code: "forbidden", Message: msg})
}

// recordRefusedReset writes a reset attempt refused for lack of role to the audit log,
// with what was asked as far as the request says it. The caller is answered 403 either
// way; a failed write is logged.
func (a *App) recordRefusedReset(c *gin.Context, caller *auth.Caller, why string) {
	params := requestParams(c)
	str := func(k string) string { s, _ := params[k].(string); return s }
	e := &store.AuditEntry{
		Status:    store.AuditRefused,
		Actor:     caller.Name,
		ActorAddr: c.ClientIP(),
		Cluster:   joinNameServers(a.cfg.NameServers),
		Group:     firstParam(c),
		Mode:      str("mode"),
		Reason:    str("reason"),
		Error:     why,
	}
	if t := str("topic"); t != "" {
		e.Topics = []string{t}
	}
	params["_request"] = c.Request.Method + " " + c.Request.URL.Path
	e.Params, _ = json.Marshal(params)
	if err := a.store.Audit().Record(c.Request.Context(), e); err != nil {
		a.log.Error("audit refused reset", "user", caller.Name, "group", e.Group, "err", err)
	}
}

// requestParams reads what a refused request asked for: its JSON object or form fields.
func requestParams(c *gin.Context) map[string]any {
	out := map[string]any{}
	body, _ := io.ReadAll(http.MaxBytesReader(c.Writer, c.Request.Body, 64<<10))
	if strings.HasPrefix(c.ContentType(), "application/json") {
		if json.Unmarshal(body, &out) == nil {
			return out
		}
		return map[string]any{}
	}
	if vals, err := url.ParseQuery(string(body)); err == nil {
		for k, v := range vals {
			if len(v) == 1 {
				out[k] = v[0]
			} else {
				out[k] = v
			}
		}
	}
	return out
}

// firstParam is the first route parameter (the group of reset routes), whatever its name.
func firstParam(c *gin.Context) string {
	if len(c.Params) == 0 {
		return ""
	}
	return c.Params[0].Value
}

// secure reports whether the request arrived over HTTPS (directly, or at a trusted proxy
// that says so), for the cookie's Secure attribute.
func (a *App) secure(c *gin.Context) bool {
	if c.Request.TLS != nil {
		return true
	}
	return a.sec.proxy.Trusts(c.Request.RemoteAddr) && strings.EqualFold(c.GetHeader("X-Forwarded-Proto"), "https")
}

// isMachinePath reports whether programs rather than people call p (the JSON API and
// the Prometheus endpoint): they get 401 and a WWW-Authenticate header, not a sign-in
// page.
func isMachinePath(p string) bool { return strings.HasPrefix(p, "/api/") || p == "/metrics" }

// authRoutes registers sign-in, sign-out and the API token pages.
func (a *App) authRoutes(r *gin.Engine, env *handlers.Env) {
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

// trustedProxyList is the proxy list in gin's form, so c.ClientIP() believes
// X-Forwarded-For only from trusted proxies (gin's default believes everyone).
func (a *App) trustedProxyList() []string {
	var out []string
	for _, p := range a.cfg.TrustedProxies {
		out = append(out, p.String())
	}
	return out
}

// Routes lists every route registered on the console's router, for tests that must cover
// all of them (such as the route × role access table).
func (a *App) Routes() gin.RoutesInfo { return a.engine.Routes() }
