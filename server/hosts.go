package server

import (
	"net"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strings"

	"github.com/gin-gonic/gin"

	"rmqconsole/handlers"
	"rmqconsole/i18n"
)

// A page of another site can reach a console without users by DNS rebinding: its name
// is made to resolve to the console's address, so the browser treats the console as that
// site (same origin, Origin and Host both naming it) and its cross-origin protection
// sees nothing wrong. The Host header still names the other site: the console answers
// only the names it is reached by.

// hostRule says which Host names the console answers.
type hostRule struct {
	// listen is the host of the listen address (as hostOnly gives it), a name or an
	// address the console answers; listenAny is set when it is unspecified ("",
	// 0.0.0.0, ::): the console then answers every address.
	listen    string
	listenIP  net.IP
	listenAny bool
	// allowed are the names (or addresses) of RMQC_ALLOWED_HOSTS.
	allowed []string
}

// newHostRule is the rule of a console listening on listen (host:port) and given the
// names allowed.
func newHostRule(listen string, allowed []string) hostRule {
	r := hostRule{listen: hostOnly(listen), allowed: allowed}
	r.listenIP = net.ParseIP(r.listen)
	r.listenAny = r.listen == "" || r.listenIP != nil && r.listenIP.IsUnspecified()
	return r
}

// parseAllowedHosts reads RMQC_ALLOWED_HOSTS: host names or addresses separated by
// commas, each optionally with a port, or a URL whose host is taken (the console's public
// URL, as people type it).
func parseAllowedHosts(s string) ([]string, i18n.Message) {
	var out []string
	for _, e := range strings.Split(s, ",") {
		e = strings.TrimSpace(e)
		if e == "" {
			continue
		}
		h := e
		if strings.Contains(h, "://") {
			u, err := url.Parse(h)
			if err != nil || u.Hostname() == "" {
				return nil, i18n.M("cli.config.reason.allowed_hosts", "Entry", e)
			}
			h = u.Host
		}
		h = hostOnly(h)
		if ip := net.ParseIP(h); ip != nil {
			h = ip.String()
		} else if !hostName.MatchString(h) {
			return nil, i18n.M("cli.config.reason.allowed_hosts", "Entry", e)
		}
		out = append(out, h)
	}
	return out, i18n.Message{}
}

// maxHostName is the longest DNS name: a longer Host is cut when the refusal names it.
const maxHostName = 253

// hostName is a DNS name as browsers send it in Host (lower case, no trailing dot).
var hostName = regexp.MustCompile(`^[a-z0-9_]([a-z0-9_-]*[a-z0-9_])?(\.[a-z0-9_]([a-z0-9_-]*[a-z0-9_])?)*$`)

// hostOnly is a Host header's host, lower case, without port, brackets or trailing dot.
func hostOnly(hostport string) string {
	h := hostport
	if host, _, err := net.SplitHostPort(hostport); err == nil {
		h = host
	}
	h = strings.TrimSuffix(strings.Trim(h, "[]"), ".")
	return strings.ToLower(h)
}

// serves reports whether the console answers requests naming host (a Host header).
// Loopback names and addresses are always its own: a browser resolves localhost itself,
// so no other site can rebind it. An address is never rebound
// either (rebinding needs a name to resolve), so the console answers every address it
// listens on. Other names must be listed.
func (r hostRule) serves(hostport string) bool {
	h := hostOnly(hostport)
	if h == "" || h == "localhost" {
		return true // "": HTTP/1.0 without Host, which no browser sends
	}
	if ip := net.ParseIP(h); ip != nil {
		if ip.IsLoopback() || r.listenAny || ip.Equal(r.listenIP) {
			return true
		}
		h = ip.String()
	}
	return h == r.listen || slices.Contains(r.allowed, h)
}

// knownHost refuses, before any handler, a request naming a host the console does not
// serve (421 with a sentence; JSON for the API). Without sign-in the check always holds:
// the console is then open to whoever reaches it. With sign-in it holds once
// RMQC_ALLOWED_HOSTS names the hosts; until then any host is answered, as before, since
// a rebinding page holds none of the console's credentials (its cookie is bound to the
// console's name, and tokens are never sent by a browser on its own).
func (a *clusterApp) knownHost(env *handlers.Env) gin.HandlerFunc {
	rule := newHostRule(a.cfg.Listen, a.cfg.AllowedHosts)
	return func(c *gin.Context) {
		if rule.serves(c.Request.Host) {
			c.Next()
			return
		}
		if len(rule.allowed) == 0 && a.sec.signInRequired(c.Request.Context()) {
			c.Next()
			return
		}
		host := hostOnly(c.Request.Host)
		if len(host) > maxHostName {
			host = host[:maxHostName] + "…"
		}
		a.log.Warn("refused a request for a host the console does not serve", "host", host, "method", c.Request.Method,
			"path", c.Request.URL.Path, "remote", c.Request.RemoteAddr)
		say := i18n.M("access.unknown_host", "Host", host)
		env.Fail(c, &handlers.UserError{Status: http.StatusMisdirectedRequest, Code: "unknown_host", Message: say.String(), Say: say})
		c.Abort()
	}
}
