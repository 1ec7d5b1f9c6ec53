package server

import (
	"context"
	"crypto/tls"
	"log/slog"
	"strings"
	"sync/atomic"

	"github.com/gin-gonic/gin"

	"rmqconsole/auth"
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

// newSecurity builds the access control of the console from its configuration.
func newSecurity(cfg *Config, st *store.Store, log *slog.Logger) (*security, error) {
	s := &security{
		auth: auth.New(st, auth.Config{SessionIdle: cfg.SessionIdle, SessionMax: cfg.SessionMax}),
		proxy: &auth.Proxy{Trusted: cfg.TrustedProxies,
			UserHeader: cfg.ProxyUserHeader, RoleHeader: cfg.ProxyRoleHeader},
		noAuth: cfg.NoAuth,
		log:    log,
	}
	var err error
	if s.tls, err = loadTLS(cfg); err != nil {
		return nil, err
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

// secure reports whether the request arrived over HTTPS (directly, or at a trusted proxy
// that says so), for the cookie's Secure attribute.
func (a *App) secure(c *gin.Context) bool {
	if c.Request.TLS != nil {
		return true
	}
	return a.sec.proxy.Trusts(c.Request.RemoteAddr) && strings.EqualFold(c.GetHeader("X-Forwarded-Proto"), "https")
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
