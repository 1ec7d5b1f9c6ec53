package server

import (
	"context"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/gin-gonic/gin"
	"github.com/prometheus/client_golang/prometheus"

	"rmqconsole/cluster"
	"rmqconsole/handlers"
	"rmqconsole/i18n"
	"rmqconsole/resets"
	"rmqconsole/rocketmq"
	"rmqconsole/store"
	"rmqconsole/views"
)

// clusterApp is one configured cluster's part of the console: its RocketMQ client, its
// view of the cluster, the store bound to its name, its reset service and its route
// table with every service bound to them. The console-wide parts (the database, sign-in,
// the metrics registry, the replica) are the App's, shared by every cluster.
type clusterApp struct {
	*App
	cc *ClusterConfig
	// rmq is nil when the cluster has no NameServer (a console started without
	// --namesrv); cluster is nil with it.
	rmq     *rocketmq.Client
	cluster *cluster.Cluster
	// store records this cluster's name on what it writes and reads only its rows.
	store  *store.Store
	resets *resets.Service
	engine *gin.Engine
	// base is the URL prefix of the cluster's pages ("" for the default cluster).
	base handlers.ClusterBase
	// registry registers the cluster's collectors, labelled with its name when the
	// console manages several.
	registry prometheus.Registerer
}

// newClusterApp connects to one configured cluster.
func (a *App) newClusterApp(cc *ClusterConfig) (*clusterApp, error) {
	ca := &clusterApp{App: a, cc: cc, store: a.store.ForCluster(cc.Name), registry: a.metrics().reg}
	if !cc.Default {
		ca.base = handlers.ClusterBase("/c/" + cc.Name)
	}
	if len(a.cfg.Clusters) > 1 {
		ca.registry = prometheus.WrapRegistererWith(prometheus.Labels{"cluster": cc.Name}, a.metrics().reg)
	}
	if len(cc.NameServers) > 0 {
		log := a.log.With("component", "rocketmq")
		if len(a.cfg.Clusters) > 1 {
			log = log.With("cluster", cc.Name)
		}
		var err error
		ca.rmq, err = rocketmq.New(rocketmq.Config{
			NameServer:  joinNameServers(cc.NameServers),
			Timeout:     a.cfg.Timeout,
			Logger:      log,
			Credentials: cc.Credentials,
		})
		if err != nil {
			return nil, err
		}
		ca.onClose(func() { ca.rmq.Close() })
		ca.cluster = cluster.New(ca.rmq, cluster.Options{Proxies: cc.Proxies})
		ca.registry.MustRegister(brokerCalls{ca.rmq}, brokerHealth{ca.cluster})
	}
	return ca, nil
}

// nameServers is the cluster's NameServer list as RocketMQ writes it, for audit entries.
func (a *clusterApp) nameServers() string { return joinNameServers(a.cc.NameServers) }

// several reports whether the console manages more than one cluster.
func (a *App) several() bool { return len(a.clusters) > 1 }

// chrome is the header's cluster tag and switch for this cluster's pages (nil with one
// cluster: the pages look as they always did).
func (a *clusterApp) chrome() *views.ClusterChrome {
	if !a.several() {
		return nil
	}
	ch := &views.ClusterChrome{Name: a.cc.Name, Label: a.cc.Title(), Color: a.cc.Color}
	for _, o := range a.clusters {
		ch.All = append(ch.All, views.ClusterLink{Name: o.cc.Name, Label: o.cc.Title(), Color: o.cc.Color,
			URL: "/c/" + o.cc.Name + "/", Current: o == a})
	}
	return ch
}

// clusterHealthWait bounds how long the overview waits for every cluster's health.
const clusterHealthWait = 3 * time.Second

// clusterHealth reads every configured cluster's health at once.
func (a *App) clusterHealth(ctx context.Context) []handlers.ClusterHealth {
	ctx, cancel := context.WithTimeout(ctx, clusterHealthWait)
	defer cancel()
	out := make([]handlers.ClusterHealth, len(a.clusters))
	var wg sync.WaitGroup
	for i, ca := range a.clusters {
		out[i] = handlers.ClusterHealth{Name: ca.cc.Name, Label: ca.cc.Title(), Color: ca.cc.Color, Default: ca.cc.Default,
			URL: "/c/" + ca.cc.Name + "/", Health: cluster.Health{Versions: []string{}}}
		if ca.rmq == nil {
			m := i18n.M("cluster.health.no_namesrv")
			out[i].Errors, out[i].Problems = []string{m.String()}, []i18n.Message{m}
			continue
		}
		wg.Go(func() {
			ov, err := ca.cluster.Overview(ctx, ca.rmq)
			if ov != nil {
				out[i].Health = ov.Health()
			}
			if err != nil && ov == nil {
				m := i18n.M("cluster.health.failed", "Error", err.Error())
				out[i].Errors, out[i].Problems = append(out[i].Errors, m.String()), append(out[i].Problems, m)
			}
		})
	}
	wg.Wait()
	return out
}

// dispatch sends a request to its cluster's routes: /c/{name}/... and
// /api/v1/clusters/{name}/... to that cluster's (with the prefix taken off), every other
// path to the default cluster's, so the URLs of a one-cluster console keep working.
func (a *App) dispatch(w http.ResponseWriter, r *http.Request) {
	for _, p := range []struct{ prefix, to string }{{"/c/", "/"}, {"/api/v1/clusters/", "/api/v1/"}} {
		rest, ok := strings.CutPrefix(r.URL.Path, p.prefix)
		if !ok {
			continue
		}
		name, tail, _ := strings.Cut(rest, "/")
		ca := a.byName[name]
		if ca == nil {
			break // the default cluster's routes answer that no such cluster exists
		}
		if p.prefix == "/c/" && !strings.Contains(rest, "/") {
			http.Redirect(w, r, r.URL.Path+"/", http.StatusMovedPermanently) // /c/test → /c/test/
			return
		}
		r2 := r.Clone(r.Context())
		r2.URL.Path = p.to + tail
		if r.URL.RawPath != "" {
			_, rawTail, _ := strings.Cut(strings.TrimPrefix(r.URL.RawPath, p.prefix), "/")
			r2.URL.RawPath = p.to + rawTail
		}
		ca.engine.ServeHTTP(w, r2)
		return
	}
	a.def.engine.ServeHTTP(w, r)
}

// rebaseRedirects rebases the Location and HX-Redirect headers a handler of a cluster
// other than the default sets (handlers redirect to root-relative paths, as they link).
func (a *clusterApp) rebaseRedirects() gin.HandlerFunc {
	return func(c *gin.Context) {
		if a.base != "" {
			c.Writer = &rebasingWriter{ResponseWriter: c.Writer, base: a.base}
		}
		c.Next()
	}
}

type rebasingWriter struct {
	gin.ResponseWriter
	base handlers.ClusterBase
}

func (w *rebasingWriter) WriteHeader(code int) {
	for _, h := range []string{"Location", "HX-Redirect", "HX-Location", "HX-Push-Url"} {
		if v := w.Header().Get(h); v != "" {
			w.Header().Set(h, w.base.URL(v))
		}
	}
	w.ResponseWriter.WriteHeader(code)
}

// notFound answers a path no route has: for /c/{name}/ and /api/v1/clusters/{name}/ of a
// cluster that is not configured, a sentence naming those that are.
func (a *clusterApp) notFound(env *handlers.Env) gin.HandlerFunc {
	return func(c *gin.Context) {
		p := c.Request.URL.Path
		for _, prefix := range []string{"/c/", "/api/v1/clusters/"} {
			if rest, ok := strings.CutPrefix(p, prefix); ok {
				name, _, _ := strings.Cut(rest, "/")
				var names []string
				for _, o := range a.clusters {
					names = append(names, o.cc.Name)
				}
				unknown := i18n.M("cluster.unknown", "Name", name, "Names", strings.Join(names, ", "))
				env.Fail(c, &handlers.UserError{Status: http.StatusNotFound, Code: "cluster_not_found",
					Message: unknown.String(), Say: unknown})
				return
			}
		}
		env.NotFound(c)
	}
}
