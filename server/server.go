package server

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"sync"
	"syscall"
	"time"

	"rmqconsole/i18n"
	"rmqconsole/live"
	"rmqconsole/store"
)

// Main runs the console with the given arguments and returns the process exit code.
func Main(args []string) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	return run(ctx, args, os.Getenv, os.Stdout, os.Stderr)
}

func run(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) int {
	// Subcommands work on the same configuration (flags after the subcommand's own).
	if len(args) > 0 {
		switch args[0] {
		case "audit":
			return auditCommand(ctx, args[1:], getenv, stdout, stderr)
		case "users":
			return usersCommand(ctx, args[1:], getenv, os.Stdin, stdout, stderr)
		case "tokens":
			return tokensCommand(ctx, args[1:], getenv, stdout, stderr)
		}
	}
	cfg, err := ParseConfig(args, getenv, stderr)
	if isHelp(err) {
		return 0
	}
	if err != nil {
		fmt.Fprintf(stderr, "rmqconsole: %s\n", cliSay(i18n.FromEnv(getenv), err))
		return 2
	}
	log := newLogger(cfg, stderr)
	app, err := New(ctx, cfg, log)
	if err != nil {
		fmt.Fprintf(stderr, "rmqconsole: %v\n", err)
		return 1
	}
	defer app.Close()
	if err := app.ListenAndServe(ctx); err != nil {
		fmt.Fprintf(stderr, "rmqconsole: %v\n", err)
		return 1
	}
	// Said once everything is closed, so a stop by Ctrl-C or SIGTERM ends on a plain
	// last line rather than on "shutting down".
	app.Close()
	log.Info("stopped")
	return 0
}

// App is a configured console: its database, its clusters and its HTTP handler.
type App struct {
	cfg   *Config
	log   *slog.Logger
	store *store.Store
	// clusters are the configured clusters' parts of the console, in the
	// configuration's order; def is the default one, byName finds one by name.
	clusters []*clusterApp
	def      *clusterApp
	byName   map[string]*clusterApp
	handler  http.Handler
	warning  string
	// metricsReg is the console's Prometheus registry (metrics.go).
	metricsReg *consoleMetrics
	// closers stop the areas' background work; Close runs them first.
	closers []func()
	sec     *security // access control (security.go, access.go)
	// replica is this console among those sharing the database, and whether it leads
	// the work done once (replica.go).
	replica *replica
	// liveViews counts each user's open live pages, on every cluster's group and
	// broker pages alike.
	liveViews *live.Quota

	closeOnce sync.Once
}

// New opens the database, connects the services and builds the routes.
func New(ctx context.Context, cfg *Config, log *slog.Logger) (*App, error) {
	a := &App{cfg: cfg, log: log, liveViews: live.NewQuota(cfg.LiveViewsPerUser)}
	st, err := store.Open(ctx, cfg.DB)
	if err != nil {
		return nil, fmt.Errorf("RMQC_DB: %w", err)
	}
	st.SetTimeout(cfg.DBTimeout)
	a.store = st
	a.replica = a.newReplica()
	// The listen address is judged after opening the database: whether users exist
	// decides whether a public address is allowed.
	if a.sec, err = newSecurity(cfg, st, log); err == nil {
		err = a.checkListenAddress(ctx)
	}
	if err != nil {
		st.Close()
		return nil, err
	}
	a.onClose(a.sec.auth.Close) // writes the failed sign-ins it only counted
	a.sec.discoverOIDC(ctx)
	// Rows written before clusters had names are the default cluster's: the one the
	// console then talked to.
	st.SetDefaultCluster(cfg.DefaultCluster().Name)
	if err := st.ClaimUnnamedRows(ctx); err != nil {
		st.Close()
		return nil, fmt.Errorf("RMQC_DB: %w", err)
	}
	a.byName = map[string]*clusterApp{}
	for i := range cfg.Clusters {
		ca, err := a.newClusterApp(&cfg.Clusters[i])
		if err != nil {
			a.Close()
			return nil, err
		}
		a.clusters = append(a.clusters, ca)
		a.byName[ca.cc.Name] = ca
		if ca.cc.Default {
			a.def = ca
		}
	}
	for _, ca := range a.clusters {
		ca.svc = ca.newServices()
		ca.markInterruptedResets(ctx) // before serving: a reset left pending by the last run is over
		ca.reconcileWhileLeading()
	}
	a.pruneRebalanceHistory()
	a.streamAudit()
	for _, ca := range a.clusters {
		ca.engine = ca.routes()
	}
	a.handler = wrapHandler(http.HandlerFunc(a.dispatch))
	// After every leader job is registered.
	if err := a.replica.start(ctx); err != nil {
		a.Close()
		return nil, fmt.Errorf("RMQC_DB: %w", err)
	}
	return a, nil
}

// checkListenAddress refuses a non-loopback address unless users can sign in (users
// exist, or a proxy is trusted to name them) or sign-in is explicitly turned off: an ops
// console that can reset offsets must not be open to whoever finds its port.
func (a *App) checkListenAddress(ctx context.Context) error {
	host, _, _ := net.SplitHostPort(a.cfg.Listen)
	if a.cfg.NoAuth {
		a.warning = "Sign-in is turned off (--no-auth) and this console listens on " + a.cfg.Listen + ": anyone who can reach it can reset offsets."
		return nil
	}
	if isLoopback(host) {
		return nil
	}
	ok, err := a.sec.signInConfigured(ctx)
	if err != nil {
		return err
	}
	if !ok {
		return fmt.Errorf("refusing to listen on %s without users: add one with `rmqconsole users add NAME --role admin` (same --db), listen on 127.0.0.1, or pass --no-auth (RMQC_NO_AUTH=true) to serve everyone without sign-in", a.cfg.Listen)
	}
	return nil
}

func isLoopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// wrapHandler wraps the console's whole handler. The console uses its handler as it is;
// the HTTP tests check every API answer against the API document through it
// (withAPIContract).
var wrapHandler = func(h http.Handler) http.Handler { return h }

// Handler is the console's whole HTTP handler (used by tests through httptest).
func (a *App) Handler() http.Handler { return a.handler }

// ListenAndServe serves until ctx is cancelled, then shuts down gracefully.
func (a *App) ListenAndServe(ctx context.Context) error {
	ln, err := net.Listen("tcp", a.cfg.Listen)
	if err != nil {
		return fmt.Errorf("listen on %s (--listen): %w", a.cfg.Listen, err)
	}
	return a.Serve(ctx, ln)
}

// Serve serves on ln until ctx is cancelled.
func (a *App) Serve(ctx context.Context, ln net.Listener) error {
	srv := &http.Server{
		Handler:           a.handler,
		ReadHeaderTimeout: 10 * time.Second,
		IdleTimeout:       a.cfg.HTTPIdleTimeout,
		ErrorLog:          slog.NewLogLogger(a.log.Handler(), slog.LevelWarn),
		// No ReadTimeout or WriteTimeout: see limits.go for how bodies and writes are bounded.
	}
	scheme := "http://"
	if a.sec.tls != nil {
		srv.TLSConfig = a.sec.tls
		ln = tls.NewListener(ln, a.sec.tls)
		scheme = "https://"
	}
	a.log.Info("rmqconsole listening", "url", scheme+ln.Addr().String(), "namesrv", joinNameServers(a.cfg.NameServers), "db", store.Redacted(a.cfg.DB), "replica", a.store.Replica(),
		"credentials", a.cfg.Credentials)
	if a.several() {
		for _, ca := range a.clusters {
			a.log.Info("cluster", "name", ca.cc.Name, "default", ca.cc.Default, "namesrv", ca.nameServers(), "credentials", ca.cc.Credentials,
				"url", scheme+ln.Addr().String()+"/c/"+ca.cc.Name+"/")
		}
	}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	a.log.Info("shutting down")
	shutdownCtx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	err := srv.Shutdown(shutdownCtx)
	if serveErr := <-errc; !errors.Is(serveErr, http.ErrServerClosed) && err == nil {
		err = serveErr
	}
	return err
}

// Close releases the database and broker connections. Closing twice does nothing more.
func (a *App) Close() {
	a.closeOnce.Do(a.close)
}

func (a *App) close() {
	for i := len(a.closers) - 1; i >= 0; i-- {
		a.closers[i]()
	}
	// The hubs have closed their viewers: let each live page hear why before the exit.
	if !a.liveViews.Drain(2 * time.Second) {
		a.log.Warn("some live views were still open when the console stopped")
	}
	if a.store != nil {
		a.store.Close()
	}
}

func joinNameServers(ns []string) string { return strings.Join(ns, ";") }
