package server

import (
	"context"
	"net/http"

	"github.com/gin-gonic/gin"

	"rmqconsole/cluster"
	"rmqconsole/handlers"
	"rmqconsole/static"
)

// routes is the console's one route table, built once per configured cluster with the
// services bound to it (App.dispatch picks the table by the path's cluster).
func (a *clusterApp) routes() *gin.Engine {
	gin.SetMode(gin.ReleaseMode)
	r := gin.New()
	r.HandleMethodNotAllowed = true
	_ = r.SetTrustedProxies(a.trustedProxyList()) // validated by the configuration
	env := &handlers.Env{Log: a.log, Warning: a.warning, Base: a.base, Cluster: a.chrome()}
	r.Use(recovery(a.log), requestLog(a.log, slowRequest), securityHeaders(a.secure, a.sec.formTargets), a.rebaseRedirects())
	r.Use(handlers.Localize) // the language of every answer, refusals included
	r.Use(a.httpMetrics())   // request counts and times for /metrics (metrics.go)
	// Deadlines on request bodies and on every write of an answer (limits.go).
	r.Use(ioDeadlines(a.cfg.HTTPReadTimeout, a.cfg.HTTPWriteTimeout))
	// Only the host names the console serves are answered (hosts.go), and cross-origin
	// protection covers every state-changing route: a page of another site, under its
	// own name or rebound to the console's address, is refused before any handler.
	r.Use(a.knownHost(env), crossOrigin(env), bodyLimit(env))

	r.Use(a.access(env)) // who the caller is and what they may do (access.go)
	health := &handlers.Health{DB: a.store, Replica: a.replica}
	if a.rmq != nil {
		health.NameServer = a.rmq
	}
	home := &handlers.Home{Env: env, Overview: a.overview(), Clusters: a.clusterHealth}

	r.GET("/healthz", health.Live)
	r.GET("/readyz", health.Ready)
	r.GET(static.Prefix+"*path", gin.WrapH(static.Handler()))
	r.GET("/favicon.ico", gin.WrapF(static.Favicon))
	r.POST("/language", handlers.SwitchLanguage)

	r.GET("/", home.Show)
	r.GET("/api/v1/cluster", home.API)
	r.GET("/api/v1/clusters", home.ClustersAPI)
	docs := &handlers.APIDocs{Env: env}
	r.GET("/api", docs.Show)
	r.GET("/api/v1/openapi.json", docs.Document)

	// Each area registers its pages and API in its own file (routes_<area>.go).
	a.messageRoutes(r, env)
	a.groupRoutes(r, env, home)
	a.topicRoutes(r, env)
	a.brokerRoutes(r, env)
	a.resetRoutes(r, env)
	a.manageRoutes(r, env)
	a.authRoutes(r, env)

	r.NoRoute(a.notFound(env))
	r.NoMethod(func(c *gin.Context) {
		env.Fail(c, &handlers.UserError{Status: http.StatusMethodNotAllowed, Code: "method_not_allowed",
			Message: c.Request.Method + " is not allowed on " + c.Request.URL.Path + "."})
	})
	return r
}

// overview returns the cluster overview reader, or nil without a cluster.
func (a *clusterApp) overview() func(context.Context) (*cluster.Overview, error) {
	if a.rmq == nil {
		return nil
	}
	return func(ctx context.Context) (*cluster.Overview, error) { return a.cluster.Overview(ctx, a.rmq) }
}

// Routes lists every route registered on the console's router (every cluster's has the
// same), for tests that must cover all of them (such as the route × role access table).
func (a *App) Routes() gin.RoutesInfo { return a.def.engine.Routes() }
