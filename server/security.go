package server

import (
	"context"
	"crypto/tls"
	"fmt"
	"log/slog"
	"strings"
	"sync/atomic"
	"time"

	"github.com/gin-gonic/gin"

	"rmqconsole/auth"
	"rmqconsole/auth/ldap"
	"rmqconsole/auth/oidc"
	"rmqconsole/store"
)

// security is the console's access control: who the caller is (session cookie, API
// token, trusted proxy), whether sign-in is required at all, and TLS.
type security struct {
	auth  *auth.Service
	proxy *auth.Proxy
	// oidc is the OpenID provider people may sign in with (nil: none); an LDAP
	// directory, when configured, is the auth service's.
	oidc   *oidc.Provider
	ldap   *ldap.Directory
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
		proxy: &auth.Proxy{Trusted: cfg.TrustedProxies,
			UserHeader: cfg.ProxyUserHeader, RoleHeader: cfg.ProxyRoleHeader},
		noAuth: cfg.NoAuth,
		log:    log,
	}
	ac := auth.Config{SessionIdle: cfg.SessionIdle, SessionMax: cfg.SessionMax,
		// Sign-ins are the console's, not a cluster's: recorded without a cluster name.
		Audit:         st.Audit(),
		OnRecordError: func(err error) { log.Error("record sign-in in the audit log", "err", err) }}
	var err error
	if cfg.LDAP != nil {
		if s.ldap, err = ldap.New(*cfg.LDAP); err != nil {
			return nil, fmt.Errorf("RMQC_LDAP_URL: %w", err)
		}
		ac.Directory = s.ldap
	}
	if cfg.OIDC != nil {
		if s.oidc, err = oidc.New(*cfg.OIDC); err != nil {
			return nil, fmt.Errorf("RMQC_OIDC_ISSUER: %w", err)
		}
	}
	s.auth = auth.New(st, ac)
	if s.tls, err = loadTLS(cfg); err != nil {
		return nil, err
	}
	return s, nil
}

// discoverOIDC reads the OpenID provider's discovery document at start-up, so a wrong
// issuer is told at once in the log; the console starts either way, and the sign-in
// page tries again and says why when someone uses the provider.
func (s *security) discoverOIDC(ctx context.Context) {
	if s.oidc == nil {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	if _, err := s.oidc.Discover(ctx); err != nil {
		s.log.Warn("OpenID provider not usable: sign-in with it fails until it answers", "issuer", s.oidc.Issuer(), "err", err)
		return
	}
	s.log.Info("OpenID provider ready", "issuer", s.oidc.Issuer())
}

// signInConfigured reports whether anyone can sign in: users exist, a proxy is trusted
// to name them, or an OpenID provider or LDAP directory vouches for them.
func (s *security) signInConfigured(ctx context.Context) (bool, error) {
	if s.proxy.Enabled() || s.oidc != nil || s.ldap != nil {
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

// formTargets is the origin where signing out continues, the OpenID provider's end of
// session ("" without one), for the pages' Content-Security-Policy.
func (s *security) formTargets() string {
	if s.oidc == nil {
		return ""
	}
	return s.oidc.EndSessionOrigin()
}
