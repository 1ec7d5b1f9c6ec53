package server

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"runtime/debug"
	"time"

	"github.com/gin-gonic/gin"

	"rmqconsole/fault"
	"rmqconsole/handlers"
	"rmqconsole/static"
)

// requestLog logs one line per request after it is answered, at a level that keeps an
// info log to what needs a look: a failure of the console (5xx) at error, a request
// slower than slow (slowRequest) at info, and every other request at debug. A 4xx is the
// caller's mistake and its answer says so; a request the client abandoned is logged as
// 499, nobody read the answer. A websocket is left out of "slow": its duration is how
// long the page stayed open.
func requestLog(log *slog.Logger, slow time.Duration) gin.HandlerFunc {
	return func(c *gin.Context) {
		start := time.Now()
		c.Next()
		took := time.Since(start)
		status := c.Writer.Status()
		if errors.Is(c.Request.Context().Err(), context.Canceled) {
			status = statusClientClosed
		}
		level := slog.LevelDebug
		switch {
		case c.Request.URL.Path == "/healthz" || c.Request.URL.Path == "/readyz":
			// probes poll often; their failures show in the probe
		case status >= 500:
			level = slog.LevelError
		case took > slow && !c.IsWebsocket() && !static.Quiet(c.Request.URL.Path):
			// an asset's time is the network's: the page that asked for it shows
			level = slog.LevelInfo
		}
		if !log.Enabled(c.Request.Context(), level) {
			return
		}
		log.Log(c.Request.Context(), level, "request",
			"method", c.Request.Method,
			"path", c.Request.URL.Path,
			"status", status,
			"duration", took.Round(time.Microsecond),
			"remote", c.ClientIP(),
			"bytes", c.Writer.Size(),
		)
	}
}

// slowRequest is how long an answer may take before its request is logged at info: a
// second is what a person notices waiting for a page, and the requests that take longer
// are the ones an operator looks for (a broker that does not answer within its share of
// the deadline, a time-range search over many messages, a long export). It is fixed: a
// longer one hides exactly those, and with RMQC_LOG_LEVEL=debug every request is logged.
const slowRequest = time.Second

// recovery turns a panic into a logged stack trace and a plain 500 page: the browser
// never sees the trace.
func recovery(log *slog.Logger) gin.HandlerFunc {
	return func(c *gin.Context) {
		defer func() {
			if v := recover(); v != nil {
				if v == http.ErrAbortHandler {
					panic(v)
				}
				log.Error("panic serving request", "method", c.Request.Method, "path", c.Request.URL.Path,
					"panic", v, "stack", string(debug.Stack()))
				if !c.Writer.Written() {
					c.Header("Content-Type", "text/plain; charset=utf-8")
					c.String(http.StatusInternalServerError, "Internal error. The console logged the details; please report what you were doing.\n")
				}
				c.Abort()
			}
		}()
		c.Next()
	}
}

// statusClientClosed is nginx's 499: the client went away before it was answered.
const statusClientClosed = 499

// securityHeaders sets the headers every answer carries. No inline script anywhere: all
// JavaScript comes from /static. Over HTTPS (directly, or at a trusted proxy) browsers
// are also told to use nothing else for a year (HSTS).
//
// formTargets, when set, names origins besides the console's own that a form may lead
// to (browsers apply form-action to the redirects after a submission too): the OpenID
// provider, where signing out goes on.
func securityHeaders(secure func(*gin.Context) bool, formTargets func() string) gin.HandlerFunc {
	const csp = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; " +
		"connect-src 'self'; object-src 'none'; base-uri 'self'; form-action 'self'%s; frame-ancestors 'none'"
	return func(c *gin.Context) {
		h := c.Writer.Header()
		more := ""
		if formTargets != nil {
			if o := formTargets(); o != "" {
				more = " " + o
			}
		}
		h.Set("Content-Security-Policy", fmt.Sprintf(csp, more))
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Referrer-Policy", "same-origin")
		h.Set("X-Frame-Options", "DENY")
		if secure(c) {
			h.Set("Strict-Transport-Security", "max-age=31536000")
		}
		c.Next()
	}
}

// crossOrigin refuses state-changing requests sent by another site's page (the standard
// library's CrossOriginProtection) before any handler runs. It runs inside the router, so
// the refusal is logged, counted and carries the security headers like any answer.
//
// CrossOriginProtection lets a request with neither Origin nor Sec-Fetch-Site through:
// scripts send neither. A browser signed in with the session cookie sends one of them on
// every write, except an old browser posting another site's form, where only SameSite
// would stand in the way; so a write carrying the cookie must say it comes from the
// console's own page. API tokens are not sent by browsers on their own and are left as
// they are.
func crossOrigin(env *handlers.Env) gin.HandlerFunc {
	cop := http.NewCrossOriginProtection()
	refuse := func(c *gin.Context, id string) {
		env.Fail(c, fault.New(fault.Refused, id).Because("cross_origin"))
		c.Abort()
	}
	return func(c *gin.Context) {
		r := c.Request
		if err := cop.Check(r); err != nil {
			refuse(c, "access.cross_origin")
			return
		}
		if !safeMethod(r.Method) && r.Header.Get("Origin") == "" && r.Header.Get("Sec-Fetch-Site") == "" && sessionAuthenticated(r) {
			refuse(c, "access.no_origin")
			return
		}
		c.Next()
	}
}

// safeMethod reports whether a method only reads (CrossOriginProtection's safe methods).
func safeMethod(m string) bool {
	return m == http.MethodGet || m == http.MethodHead || m == http.MethodOptions
}

// sessionAuthenticated reports whether a request would be signed in by its session
// cookie: it carries one and no API token (a token wins, access.go).
func sessionAuthenticated(r *http.Request) bool {
	ck, err := r.Cookie(handlers.SessionCookie)
	return err == nil && ck.Value != "" && r.Header.Get("Authorization") == ""
}

// MaxRequestBody is the largest request body the console accepts (README documents it):
// every form and API body is a few fields, and a larger one is refused whole (413) before
// any handler reads a cut copy of it.
const MaxRequestBody = 64 << 10

// bodyLimit answers 413 to a request whose body is larger than MaxRequestBody, or than
// the route's own limit (routeMax, from its access rule) for a form that takes a file. Smaller
// bodies are read here, so handlers (and the audit of a refused reset) see all of it or
// nothing.
func bodyLimit(env *handlers.Env, routeMax func(c *gin.Context) int64) gin.HandlerFunc {
	return func(c *gin.Context) {
		body := c.Request.Body
		if body == nil || body == http.NoBody {
			c.Next()
			return
		}
		limit := int64(MaxRequestBody)
		if n := routeMax(c); n > 0 {
			limit = n // a route that takes a file says how big
		}
		tooLarge := fault.New(fault.Invalid, "error.too_large", "KiB", limit>>10).Because(handlers.ReasonTooLarge)
		if c.Request.ContentLength > limit {
			c.Header("Connection", "close") // the rest of the body is not read
			env.Fail(c, tooLarge)
			c.Abort()
			return
		}
		b, err := io.ReadAll(io.LimitReader(body, limit+1))
		switch {
		case int64(len(b)) > limit:
			c.Header("Connection", "close")
			env.Fail(c, tooLarge)
			c.Abort()
			return
		case err != nil:
			env.Fail(c, fault.Wrap(err, fault.Invalid, "error.bad_body", "Error", err.Error()).Because("bad_body"))
			c.Abort()
			return
		}
		c.Request.Body = io.NopCloser(bytes.NewReader(b))
		c.Next()
	}
}
