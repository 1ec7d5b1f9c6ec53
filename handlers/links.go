package handlers

import (
	"regexp"
	"strings"
)

// ClusterBase is the URL prefix of a cluster's pages ("/c/test"); "" for the default
// cluster, whose pages keep the paths without a prefix. Pages, view models and handlers
// build root-relative URLs ("/groups/x") whatever the cluster; the one place HTML and
// redirects are written rebases them, so no link anywhere has to know the cluster.
type ClusterBase string

// consoleWide are the paths that are the same for every cluster: signing in, users and
// their tokens, assets, probes, /metrics, the language switch, and the cluster switch's
// own /c/ links.
var consoleWide = []string{"/static/", "/favicon.ico", "/login", "/logout", "/tokens", "/users/",
	"/api/v1/users/", "/api/v1/clusters", "/healthz", "/readyz", "/metrics", "/language", "/c/"}

// URL rebases one root-relative URL onto the cluster: /groups/x → /c/test/groups/x,
// /api/v1/groups → /api/v1/clusters/test/groups. Absolute URLs, protocol-relative ones
// and console-wide paths are left as they are.
func (b ClusterBase) URL(u string) string {
	if b == "" || !strings.HasPrefix(u, "/") || strings.HasPrefix(u, "//") {
		return u
	}
	for _, p := range consoleWide {
		if u == strings.TrimSuffix(p, "/") || strings.HasPrefix(u, p) && (strings.HasSuffix(p, "/") || len(u) == len(p) || strings.ContainsAny(u[len(p):len(p)+1], "/?#")) {
			return u
		}
	}
	if rest, ok := strings.CutPrefix(u, "/api/v1/"); ok {
		return "/api/v1/clusters/" + b.Name() + "/" + rest
	}
	if u == "/" {
		return string(b) + "/"
	}
	return string(b) + u
}

// Name is the cluster's name ("" for the default cluster).
func (b ClusterBase) Name() string { return strings.TrimPrefix(string(b), "/c/") }

// attrURL matches a root-relative URL in an attribute: templ writes every attribute in
// double quotes and escapes a quote inside text, so `="/` only starts an attribute value.
var attrURL = regexp.MustCompile(`="(/[^"]*)"`)

// HTML rebases every root-relative URL in the attributes of a rendered page or fragment
// (href, action, hx-get, ws-connect, data-*).
func (b ClusterBase) HTML(page []byte) []byte {
	if b == "" {
		return page
	}
	return attrURL.ReplaceAllFunc(page, func(m []byte) []byte {
		u := string(m[2 : len(m)-1])
		return []byte(`="` + b.URL(u) + `"`)
	})
}
