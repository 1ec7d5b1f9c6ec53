package handlers

import "testing"

func TestClusterBaseRebasesRootRelativeURLs(t *testing.T) {
	b := ClusterBase("/c/test")
	for in, want := range map[string]string{
		"/":                        "/c/test/",
		"/groups/orders-cg?x=1":    "/c/test/groups/orders-cg?x=1",
		"/ws/groups/g":             "/c/test/ws/groups/g",
		"/api/v1/groups/g/resets":  "/api/v1/clusters/test/groups/g/resets",
		"/audit?group=g":           "/c/test/audit?group=g",
		"/static/app.css?v=1":      "/static/app.css?v=1",
		"/login?next=%2F":          "/login?next=%2F",
		"/logout":                  "/logout",
		"/tokens":                  "/tokens",
		"/tokensmith":              "/c/test/tokensmith",
		"/users/alice/tokens":      "/users/alice/tokens",
		"/c/prod/groups":           "/c/prod/groups",
		"/metrics":                 "/metrics",
		"//cdn.example.com/x.js":   "//cdn.example.com/x.js",
		"https://example.com/":     "https://example.com/",
		"/api/v1/clusters":         "/api/v1/clusters",
		"/api/v1/users/bob/tokens": "/api/v1/users/bob/tokens",
	} {
		if got := b.URL(in); got != want {
			t.Errorf("%s → %s, want %s", in, got, want)
		}
	}
	if got := ClusterBase("").URL("/groups"); got != "/groups" {
		t.Errorf("default cluster: %s", got)
	}
	// A quote in text is written &#34; by templ: only attribute values are rebased.
	page := `<a href="/groups/g">g</a><form action="/groups/g/reset/preview" hx-post="/groups/g/reset/preview"><p>&#34;/x&#34;</p><link href="/static/app.css">`
	want := `<a href="/c/test/groups/g">g</a><form action="/c/test/groups/g/reset/preview" hx-post="/c/test/groups/g/reset/preview"><p>&#34;/x&#34;</p><link href="/static/app.css">`
	if got := string(b.HTML([]byte(page))); got != want {
		t.Errorf("HTML:\n got %s\nwant %s", got, want)
	}
}
