package server

import (
	"net/http"

	"github.com/gin-gonic/gin"

	"rmqconsole/fault"
	"rmqconsole/handlers"
	"rmqconsole/static"
)

// route is one row of a route table: what it answers, its handler, and who may call it.
type route struct {
	method, path string
	handle       gin.HandlerFunc
	access       accessRule
}

// routes is the console's route table, built once per configured cluster with the
// cluster's services (App.dispatch picks the table by the path's cluster): the
// middleware every request passes, then each area's table (routes_<area>.go).
func (a *clusterApp) routes() *gin.Engine {
	gin.SetMode(gin.ReleaseMode)
	r := gin.New()
	r.HandleMethodNotAllowed = true
	_ = r.SetTrustedProxies(a.trustedProxyList()) // validated by the configuration
	env := &handlers.Env{Log: a.log, Warning: a.warning, Base: a.base, Cluster: a.chrome(), Firing: a.svc.alerts.Firing, FiringNow: a.svc.alerts.FiringNow}
	r.Use(recovery(a.log), requestLog(a.log, slowRequest), securityHeaders(a.secure, a.sec.formTargets), a.rebaseRedirects())
	r.Use(handlers.Localize) // the language of every answer, refusals included
	r.Use(a.httpMetrics())   // request counts and times for /metrics (metrics.go)
	// Deadlines on request bodies and on every write of an answer (limits.go).
	r.Use(ioDeadlines(a.cfg.HTTPReadTimeout, a.cfg.HTTPWriteTimeout))
	// Only the host names the console serves are answered (hosts.go), and cross-origin
	// protection covers every state-changing route: a page of another site, under its
	// own name or rebound to the console's address, is refused before any handler.
	r.Use(a.knownHost(env), crossOrigin(env), bodyLimit(env, func(c *gin.Context) int64 { return a.rules.ruleFor(c.Request.Method, c.FullPath()).body }))
	r.Use(a.access(env)) // who the caller is and what they may do (access.go)

	a.rules = accessRules{}
	for _, table := range [][]route{a.consoleRoutes(env), a.messageRoutes(env), a.groupRoutes(env), a.topicRoutes(env),
		a.brokerRoutes(env), a.resetRoutes(env), a.manageRoutes(env), a.authRoutes(env)} {
		for _, rt := range table {
			r.Handle(rt.method, rt.path, rt.handle)
			a.rules.add(rt.method, rt.path, rt.access)
		}
	}
	r.NoRoute(a.notFound(env))
	r.NoMethod(func(c *gin.Context) {
		env.Fail(c, fault.New(fault.Invalid, "error.method_not_allowed", "Method", c.Request.Method, "Path", c.Request.URL.Path).
			Because(handlers.ReasonMethodNotAllowed))
	})
	return r
}

// consoleRoutes are the console's own: probes, assets, the language switch, the
// overview, the API's document and /metrics.
func (a *clusterApp) consoleRoutes(env *handlers.Env) []route {
	health := &handlers.Health{DB: a.store, Replica: a.replica}
	if a.rmq != nil {
		health.NameServer = a.rmq
	}
	home := &handlers.Home{Env: env, Clusters: a.clusterHealth, Alerts: a.svc.alerts}
	if s := a.svc; s.brokers != nil {
		home.Overview, home.Groups = s.brokers.Overview, s.groups
	}
	if a.svc.diagnosis != nil {
		home.Diagnosis = a.svc.diagnosis
	}
	docs := &handlers.APIDocs{Env: env}
	return []route{
		{http.MethodGet, "/healthz", health.Live, probe},
		{http.MethodGet, "/readyz", health.Ready, probe},
		{http.MethodGet, static.Prefix + "*path", gin.WrapH(static.Handler()), probe},
		{http.MethodGet, "/favicon.ico", gin.WrapF(static.Favicon), probe},
		{http.MethodPost, "/language", handlers.SwitchLanguage, public}, // the sign-in page has it too

		{http.MethodGet, "/", home.Show, read},
		{http.MethodGet, "/api/v1/cluster", home.API, read},
		{http.MethodGet, "/api/v1/clusters", home.ClustersAPI, read},
		{http.MethodGet, "/api", docs.Show, read},
		{http.MethodGet, "/api/v1/openapi.json", docs.Document, read},
		{http.MethodGet, "/metrics", gin.WrapH(a.metricsHandler()), metrics},
	}
}

// Routes lists every route registered on the console's router (every cluster's has the
// same), for tests that must cover all of them (such as the route × role access table).
func (a *App) Routes() gin.RoutesInfo { return a.def.engine.Routes() }
