package auth

import (
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"strings"
)

// Proxy is trusted-proxy mode: a reverse proxy in front of the console signs users in
// and names them in request headers. The headers are believed only on connections from
// the configured proxy addresses; from anywhere else they are ignored.
type Proxy struct {
	Trusted    []netip.Prefix
	UserHeader string
	RoleHeader string
}

// Default header names of trusted-proxy mode.
const (
	DefaultProxyUserHeader = "X-Forwarded-User"
	DefaultProxyRoleHeader = "X-Forwarded-Role"
)

// ParseTrustedProxies reads a comma-separated list of CIDRs or single addresses
// ("10.0.0.0/8, 192.168.1.10").
func ParseTrustedProxies(s string) ([]netip.Prefix, error) {
	var out []netip.Prefix
	for _, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		if strings.Contains(part, "/") {
			p, err := netip.ParsePrefix(part)
			if err != nil {
				return nil, fmt.Errorf("%q is not a CIDR such as 10.0.0.0/8", part)
			}
			out = append(out, p.Masked())
			continue
		}
		a, err := netip.ParseAddr(part)
		if err != nil {
			return nil, fmt.Errorf("%q is not an IP address or CIDR", part)
		}
		a = a.Unmap()
		out = append(out, netip.PrefixFrom(a, a.BitLen()))
	}
	return out, nil
}

// Enabled reports whether any proxy is trusted.
func (p *Proxy) Enabled() bool { return p != nil && len(p.Trusted) > 0 }

// Trusts reports whether the connection's remote address (host:port or host) belongs to
// a trusted proxy.
func (p *Proxy) Trusts(remoteAddr string) bool {
	if !p.Enabled() {
		return false
	}
	host := remoteAddr
	if h, _, err := net.SplitHostPort(remoteAddr); err == nil {
		host = h
	}
	a, err := netip.ParseAddr(host)
	if err != nil {
		return false
	}
	a = a.Unmap()
	for _, pr := range p.Trusted {
		if pr.Contains(a) {
			return true
		}
	}
	return false
}

// Caller returns the user named by the proxy's headers. ok is false when the request did
// not come from a trusted proxy or carries no user header (then other credentials
// apply). A missing role header means viewer; a role that is not one of the three is an
// error, so a misconfigured proxy is noticed instead of guessed at.
func (p *Proxy) Caller(remoteAddr string, h http.Header) (c *Caller, ok bool, err error) {
	if !p.Trusts(remoteAddr) {
		return nil, false, nil
	}
	name := strings.TrimSpace(h.Get(p.UserHeader))
	if name == "" {
		return nil, false, nil
	}
	if err := CheckUserName(name); err != nil {
		return nil, true, fmt.Errorf("proxy header %s: %w", p.UserHeader, err)
	}
	role := Viewer
	if v := h.Get(p.RoleHeader); strings.TrimSpace(v) != "" {
		if role, err = ParseRole(v); err != nil {
			return nil, true, fmt.Errorf("proxy header %s: %w", p.RoleHeader, err)
		}
	}
	return &Caller{Name: name, Role: role, Via: "proxy"}, true, nil
}
