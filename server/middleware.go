package server

import (
	"log/slog"
	"net/http"
	"runtime/debug"
	"time"

	"github.com/gin-gonic/gin"
)

// requestLog logs one line per request after it is answered.
func requestLog(log *slog.Logger) gin.HandlerFunc {
	return func(c *gin.Context) {
		start := time.Now()
		c.Next()
		status := c.Writer.Status()
		level := slog.LevelInfo
		switch {
		case c.Request.URL.Path == "/healthz" || c.Request.URL.Path == "/readyz":
			level = slog.LevelDebug // probes poll often; their failures show in the probe
		case status >= 500:
			level = slog.LevelError
		}
		log.Log(c.Request.Context(), level, "request",
			"method", c.Request.Method,
			"path", c.Request.URL.Path,
			"status", status,
			"duration", time.Since(start).Round(time.Microsecond),
			"remote", c.ClientIP(),
			"bytes", c.Writer.Size(),
		)
	}
}

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

// securityHeaders sets the headers every answer carries. No inline script anywhere: all
// JavaScript comes from /static.
func securityHeaders() gin.HandlerFunc {
	const csp = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; " +
		"connect-src 'self'; object-src 'none'; base-uri 'self'; form-action 'self'; frame-ancestors 'none'"
	return func(c *gin.Context) {
		h := c.Writer.Header()
		h.Set("Content-Security-Policy", csp)
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Referrer-Policy", "same-origin")
		h.Set("X-Frame-Options", "DENY")
		c.Next()
	}
}
