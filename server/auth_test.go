package server

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"
	"github.com/gin-gonic/gin"
	"golang.org/x/crypto/bcrypt"

	"rmqconsole/auth"
	"rmqconsole/handlers"
	"rmqconsole/store"
)

const testPassword = "correct horse battery"

// testHash is a bcrypt hash of testPassword at the lowest cost, so HTTP tests stay fast;
// the auth package checks that the console itself hashes at cost 12.
var testHash = sync.OnceValue(func() string {
	h, err := bcrypt.GenerateFromPassword([]byte(testPassword), bcrypt.MinCost)
	if err != nil {
		panic(err)
	}
	return string(h)
})

func noEnv(string) string { return "" }

// newAuthApp builds the real console (router, middleware, SQLite file) without a cluster,
// with flags added to a loopback listen address and a fresh data directory.
func newAuthApp(t testing.TB, flags ...string) *App {
	t.Helper()
	args := append([]string{"--listen", "127.0.0.1:0", "--data-dir", t.TempDir()}, flags...)
	cfg, err := ParseConfig(args, noEnv, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	a, err := New(context.Background(), cfg, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(a.Close)
	return a
}

// addUsers creates users (name → role) in the app's database.
func addUsers(t testing.TB, a *App, users map[string]auth.Role) {
	t.Helper()
	for name, role := range users {
		now := time.Now().UnixMilli()
		if err := a.store.CreateUser(context.Background(), &store.User{Name: name, Role: role.String(),
			PasswordHash: testHash(), CreatedAt: now, UpdatedAt: now}); err != nil {
			t.Fatal(err)
		}
	}
}

// sessionCookie signs name in and returns the browser's cookie.
func sessionCookie(t *testing.T, a *App, name string) *http.Cookie {
	t.Helper()
	ns, err := a.sec.auth.StartSession(context.Background(), name, "", "")
	if err != nil {
		t.Fatal(err)
	}
	return &http.Cookie{Name: handlers.SessionCookie, Value: ns.Token}
}

var roleUsers = map[string]auth.Role{"vera": auth.Viewer, "otto": auth.Operator, "ada": auth.Admin}

// outcome is what a caller notices: sent to sign in, refused, or served.
type outcome string

const (
	signIn    outcome = "sign-in"
	forbidden outcome = "forbidden"
	served    outcome = "served"
)

func classify(rec *httptest.ResponseRecorder) outcome {
	switch rec.Code {
	case http.StatusUnauthorized:
		return signIn
	case http.StatusForbidden:
		return forbidden
	case http.StatusSeeOther:
		if strings.HasPrefix(rec.Header().Get("Location"), "/login?next=") {
			return signIn
		}
	}
	return served
}

// expected states the access policy of the issue, independently of the rule table:
// sign-in, the language switch, probes and assets are open; everything else needs a signed-in user; reading
// needs viewer; resets (and any other write) need operator; other users' API tokens
// need admin; so do ACL users and policies (reading them too), deleting a consumer group,
// changing a broker's configuration and setting a topic's decoder.
func expected(method, pattern string, role auth.Role, othersTokens bool) outcome {
	read := method == http.MethodGet || method == http.MethodHead
	adminOnly := pattern == "/acl" || strings.HasPrefix(pattern, "/acl/") || strings.HasPrefix(pattern, "/api/v1/acl/") ||
		!read && (pattern == "/groups/:group/delete" || pattern == "/api/v1/groups/:group" ||
			strings.HasPrefix(pattern, "/brokers/:name/config") || strings.HasPrefix(pattern, "/api/v1/brokers/:name/config") ||
			strings.HasPrefix(pattern, "/topics/:topic/decoder"))
	switch {
	case pattern == "/login" || pattern == "/logout" || pattern == "/language" || pattern == "/healthz" || pattern == "/readyz" || pattern == "/favicon.ico" ||
		strings.HasPrefix(pattern, "/static/"):
		return served
	case role == auth.NoRole:
		return signIn
	case adminOnly && role != auth.Admin:
		return forbidden
	case adminOnly:
		return served
	case strings.Contains(pattern, "/tokens") && othersTokens:
		if role == auth.Admin {
			return served
		}
		return forbidden
	case strings.Contains(pattern, "/tokens"):
		return served
	case method == http.MethodGet || method == http.MethodHead:
		return served
	case role >= auth.Operator:
		return served
	default:
		return forbidden
	}
}

// fillPattern turns a route pattern into a path: :user → user, other params → a value.
func fillPattern(pattern, user string) string {
	segs := strings.Split(pattern, "/")
	for i, s := range segs {
		switch {
		case s == ":user":
			segs[i] = user
		case s == ":id":
			segs[i] = "1"
		case strings.HasPrefix(s, ":"):
			segs[i] = "g-" + s[1:]
		case strings.HasPrefix(s, "*"):
			segs[i] = "x"
		}
	}
	return strings.Join(segs, "/")
}

// Every route registered on the real router × every role → what the caller gets. New
// routes are covered as they are added (the list comes from gin).
func TestEveryRouteByRole(t *testing.T) {
	a := newAuthApp(t)
	addUsers(t, a, roleUsers)
	names := map[auth.Role]string{}
	for name, role := range roleUsers {
		names[role] = name
	}
	routes := a.Routes()
	if len(routes) < 10 {
		t.Fatalf("only %d routes registered", len(routes))
	}
	checked := 0
	for _, rt := range routes {
		for _, role := range []auth.Role{auth.NoRole, auth.Viewer, auth.Operator, auth.Admin} {
			variants := []bool{false}
			if strings.Contains(rt.Path, ":user") {
				variants = []bool{false, true}
			}
			for _, others := range variants {
				user := names[role]
				if others || user == "" {
					user = "vera"
					if role == auth.Viewer {
						user = "otto"
					}
				}
				path := fillPattern(rt.Path, user)
				var body io.Reader
				if rt.Method != http.MethodGet && rt.Method != http.MethodHead {
					body = strings.NewReader("")
				}
				req := newRequest(rt.Method, path, body)
				if body != nil {
					req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
				}
				if role != auth.NoRole {
					// A fresh session each time: POST /logout is one of the routes.
					req.AddCookie(sessionCookie(t, a, names[role]))
				}
				rec := httptest.NewRecorder()
				a.Handler().ServeHTTP(rec, req)
				got := classify(rec)
				want := expected(rt.Method, rt.Path, role, others && role != auth.NoRole)
				if got != want {
					t.Errorf("%s %s as %s: %s (status %d, Location %q), want %s",
						rt.Method, path, role, got, rec.Code, rec.Header().Get("Location"), want)
				}
				if got == forbidden && !strings.Contains(rec.Body.String(), "may not") && !strings.Contains(rec.Body.String(), "Only an admin") {
					t.Errorf("%s %s as %s: 403 without saying what is missing: %.200s", rt.Method, path, role, rec.Body.String())
				}
				checked++
			}
		}
	}
	t.Logf("checked %d route × role requests over %d routes", checked, len(routes))
}

// A route that is not registered is not a way around sign-in either.
func TestUnknownPathsNeedSignInWhenUsersExist(t *testing.T) {
	a := newAuthApp(t)
	addUsers(t, a, roleUsers)
	for _, p := range []string{"/no/such/page", "/api/v1/no-such"} {
		rec := httptest.NewRecorder()
		a.Handler().ServeHTTP(rec, newRequest(http.MethodGet, p, nil))
		if classify(rec) != signIn {
			t.Errorf("anonymous GET %s: %d, want sign-in", p, rec.Code)
		}
	}
	rec := httptest.NewRecorder()
	req := newRequest(http.MethodGet, "/no/such/page", nil)
	req.AddCookie(sessionCookie(t, a, "vera"))
	a.Handler().ServeHTTP(rec, req)
	if rec.Code != http.StatusNotFound {
		t.Errorf("signed-in GET of an unknown page: %d, want 404", rec.Code)
	}
}

// stubResets mounts the access middleware with stand-ins for the reset routes, so the
// refusal and its audit entry are tested whatever state the reset pages are in.
func stubResets(a *App) http.Handler {
	gin.SetMode(gin.ReleaseMode)
	r := gin.New()
	_ = r.SetTrustedProxies(a.trustedProxyList())
	env := &handlers.Env{Log: a.log}
	r.Use(a.def.access(env))
	ok := func(c *gin.Context) {
		c.JSON(http.StatusOK, gin.H{"actor": handlers.Actor(c), "addr": c.ClientIP()})
	}
	r.POST("/api/v1/groups/:group/resets", ok)
	r.POST("/api/v1/groups/:group/reset-preview", ok)
	r.POST("/groups/:group/reset/apply", ok)
	r.GET("/whoami", ok)
	return http.NewCrossOriginProtection().Handler(r)
}

func TestViewerResetIsRefusedAndAudited(t *testing.T) {
	a := newAuthApp(t, "--namesrv", "127.0.0.1:1")
	addUsers(t, a, roleUsers)
	h := stubResets(a)
	ctx := context.Background()

	body := `{"topic":"orders","mode":"latest","reason":"skip backlog"}`
	req := newRequest(http.MethodPost, "/api/v1/groups/billing/resets", strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.AddCookie(sessionCookie(t, a, "vera"))
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	var apiErr handlers.APIError
	json.Unmarshal(rec.Body.Bytes(), &apiErr)
	if rec.Code != http.StatusForbidden || apiErr.Code != "forbidden" ||
		!strings.Contains(apiErr.Error, "viewer") || !strings.Contains(apiErr.Error, "operator") {
		t.Fatalf("viewer reset: %d %s, want 403 naming viewer and operator", rec.Code, rec.Body)
	}
	entries, _, err := a.store.Audit().List(ctx, store.AuditFilter{Group: "billing"})
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 1 {
		t.Fatalf("%d audit entries for the refused reset, want 1", len(entries))
	}
	e := entries[0]
	if e.Status != store.AuditRefused || e.Actor != "vera" || e.Mode != "latest" || e.Reason != "skip backlog" ||
		len(e.Topics) != 1 || e.Topics[0] != "orders" || e.Cluster != "127.0.0.1:1" || !strings.Contains(e.Error.String(), "operator") {
		t.Fatalf("audit entry %+v", e)
	}

	// The page form is refused and audited the same way; its fields are recorded.
	req = newRequest(http.MethodPost, "/groups/billing/reset/apply", strings.NewReader("mode=earliest&topic=orders"))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.AddCookie(sessionCookie(t, a, "vera"))
	rec = httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	if rec.Code != http.StatusForbidden || !strings.Contains(rec.Body.String(), "may not reset consumer offsets") {
		t.Fatalf("viewer reset form: %d %.300s", rec.Code, rec.Body)
	}
	entries, _, _ = a.store.Audit().List(ctx, store.AuditFilter{Group: "billing", Status: store.AuditRefused})
	if len(entries) != 2 || entries[0].Mode != "earliest" {
		t.Fatalf("form refusal not audited: %+v", entries)
	}

	// An operator passes, with their name as the actor.
	for _, p := range []string{"/api/v1/groups/billing/resets", "/api/v1/groups/billing/reset-preview"} {
		req = newRequest(http.MethodPost, p, strings.NewReader(body))
		req.AddCookie(sessionCookie(t, a, "otto"))
		rec = httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code != http.StatusOK || !strings.Contains(rec.Body.String(), `"actor":"otto"`) {
			t.Fatalf("operator %s: %d %s", p, rec.Code, rec.Body)
		}
	}
	if entries, _, _ := a.store.Audit().List(ctx, store.AuditFilter{Group: "billing"}); len(entries) != 2 {
		t.Fatalf("allowed requests wrote audit entries: %d", len(entries))
	}
}

func TestLocalModeActsAsLocalAdmin(t *testing.T) {
	a := newAuthApp(t)
	h := stubResets(a)
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, newRequest(http.MethodPost, "/api/v1/groups/g/resets", strings.NewReader("{}")))
	if rec.Code != http.StatusOK || !strings.Contains(rec.Body.String(), `"actor":"local"`) {
		t.Fatalf("reset in local mode: %d %s, want served as local", rec.Code, rec.Body)
	}
	rec = httptest.NewRecorder()
	a.Handler().ServeHTTP(rec, newRequest(http.MethodGet, "/login", nil))
	if !strings.Contains(rec.Body.String(), `data-testid="login-not-needed"`) {
		t.Fatalf("login page in local mode does not say sign-in is not needed: %.300s", rec.Body)
	}
	rec = httptest.NewRecorder()
	a.Handler().ServeHTTP(rec, newRequest(http.MethodGet, "/tokens", nil))
	if rec.Code != 200 || !strings.Contains(rec.Body.String(), "rmqconsole users add NAME --role admin") {
		t.Fatalf("tokens page in local mode: %d %.300s", rec.Code, rec.Body)
	}

	// A user added while the console runs switches sign-in on at once, and removing
	// the last one does not switch it off again.
	addUsers(t, a, map[string]auth.Role{"late": auth.Admin})
	rec = httptest.NewRecorder()
	a.Handler().ServeHTTP(rec, newRequest(http.MethodGet, "/", nil))
	if classify(rec) != signIn {
		t.Fatalf("after adding a user, anonymous GET / = %d, want sign-in", rec.Code)
	}
	if err := a.sec.auth.RemoveUser(context.Background(), "late"); err != nil {
		t.Fatal(err)
	}
	rec = httptest.NewRecorder()
	a.Handler().ServeHTTP(rec, newRequest(http.MethodGet, "/", nil))
	if classify(rec) != signIn {
		t.Fatalf("after removing the last user, anonymous GET / = %d: the console opened up", rec.Code)
	}
}

func TestNoAuthFlagShowsBannerEverywhere(t *testing.T) {
	a := newAuthApp(t, "--no-auth=true")
	addUsers(t, a, roleUsers)
	rec := httptest.NewRecorder()
	a.Handler().ServeHTTP(rec, newRequest(http.MethodGet, "/", nil))
	if rec.Code != 200 || !strings.Contains(rec.Body.String(), `data-testid="warning-banner"`) {
		t.Fatalf("--no-auth: GET / %d without the warning banner", rec.Code)
	}
}

// browser is a minimal cookie-keeping client of a test server that does not follow
// redirects, so each answer can be looked at.
func browser(t *testing.T) *http.Client {
	jar, _ := cookiejar.New(nil)
	return &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
}

func postForm(t *testing.T, c *http.Client, u string, form url.Values, hdr map[string]string) *http.Response {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, u, strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	res, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { res.Body.Close() })
	return res
}

func get(t *testing.T, c *http.Client, u string) *http.Response {
	t.Helper()
	res, err := c.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { res.Body.Close() })
	return res
}

func readBody(res *http.Response) string {
	b, _ := io.ReadAll(res.Body)
	return string(b)
}

func TestSignInSessionCookieAndSignOut(t *testing.T) {
	a := newAuthApp(t)
	addUsers(t, a, roleUsers)
	srv := httptest.NewServer(a.Handler())
	defer srv.Close()
	c := browser(t)

	// Anonymous: sent to sign in, and back to the page afterwards.
	res := get(t, c, srv.URL+"/tokens?x=1")
	if res.StatusCode != http.StatusSeeOther || res.Header.Get("Location") != "/login?next="+url.QueryEscape("/tokens?x=1") {
		t.Fatalf("anonymous page: %d → %q", res.StatusCode, res.Header.Get("Location"))
	}
	res = postForm(t, c, srv.URL+"/login", url.Values{"name": {"otto"}, "password": {testPassword}, "next": {"/tokens?x=1"}}, nil)
	if res.StatusCode != http.StatusSeeOther || res.Header.Get("Location") != "/tokens?x=1" {
		t.Fatalf("sign-in: %d → %q", res.StatusCode, res.Header.Get("Location"))
	}
	var ck *http.Cookie
	for _, k := range res.Cookies() {
		if k.Name == handlers.SessionCookie {
			ck = k
		}
	}
	if ck == nil || !ck.HttpOnly || ck.SameSite != http.SameSiteLaxMode || ck.Secure || ck.Path != "/" || ck.MaxAge <= 0 {
		t.Fatalf("session cookie %+v: want HttpOnly, SameSite=Lax, Path=/, not Secure over HTTP, with an expiry", ck)
	}
	// The database keeps only a hash of the token.
	var stored int
	a.store.SQL().QueryRow(`SELECT count(*) FROM sessions WHERE token_hash = ?`, ck.Value).Scan(&stored)
	if stored != 0 {
		t.Fatal("session token stored in clear")
	}

	res = get(t, c, srv.URL+"/")
	doc, _ := goquery.NewDocumentFromReader(res.Body)
	if res.StatusCode != 200 || !strings.Contains(doc.Find("nav").Text(), "otto") || doc.Find(`form[action="/logout"]`).Length() != 1 {
		t.Fatalf("signed-in overview: %d, nav %q", res.StatusCode, doc.Find("nav").Text())
	}

	res = postForm(t, c, srv.URL+"/logout", nil, map[string]string{"Origin": srv.URL})
	if res.StatusCode != http.StatusSeeOther || !strings.HasPrefix(res.Header.Get("Location"), "/login") {
		t.Fatalf("logout: %d → %q", res.StatusCode, res.Header.Get("Location"))
	}
	// The old cookie, replayed, is dead on the server too.
	req, _ := http.NewRequest(http.MethodGet, srv.URL+"/", nil)
	req.AddCookie(&http.Cookie{Name: handlers.SessionCookie, Value: ck.Value})
	res, _ = browser(t).Do(req)
	res.Body.Close()
	if res.StatusCode != http.StatusSeeOther {
		t.Fatalf("replayed cookie after logout: %d, want a redirect to sign in", res.StatusCode)
	}
	if !strings.Contains(res.Header.Get("Location"), "reason=ended") {
		t.Fatalf("ended session: Location %q does not say the session ended", res.Header.Get("Location"))
	}
}

func TestSessionCookieIsSecureUnderTLS(t *testing.T) {
	a := newAuthApp(t)
	addUsers(t, a, roleUsers)
	srv := httptest.NewTLSServer(a.Handler())
	defer srv.Close()
	c := srv.Client()
	c.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	res := postForm(t, c, srv.URL+"/login", url.Values{"name": {"vera"}, "password": {testPassword}}, nil)
	if res.StatusCode != http.StatusSeeOther {
		t.Fatalf("sign-in over TLS: %d", res.StatusCode)
	}
	var ck *http.Cookie
	for _, k := range res.Cookies() {
		if k.Name == handlers.SessionCookie {
			ck = k
		}
	}
	if ck == nil || !ck.Secure {
		t.Fatalf("session cookie over TLS %+v: want it set, with Secure", ck)
	}
}

func TestSignInFailuresKeepFormAndSlowDown(t *testing.T) {
	a := newAuthApp(t)
	addUsers(t, a, roleUsers)
	srv := httptest.NewServer(a.Handler())
	defer srv.Close()
	c := browser(t)

	res := postForm(t, c, srv.URL+"/login", url.Values{"name": {"vera"}, "password": {""}}, nil)
	if res.StatusCode != http.StatusUnprocessableEntity {
		t.Fatalf("empty password: %d, want 422", res.StatusCode)
	}
	var last *http.Response
	for i := range 6 {
		last = postForm(t, c, srv.URL+"/login", url.Values{"name": {"vera"}, "password": {"wrong password"}}, nil)
		if i < 5 && last.StatusCode != http.StatusUnauthorized {
			t.Fatalf("failure %d: %d, want 401", i+1, last.StatusCode)
		}
		if i == 0 {
			doc, _ := goquery.NewDocumentFromReader(last.Body)
			if v, _ := doc.Find(`input[name="name"]`).Attr("value"); v != "vera" {
				t.Fatalf("the form lost the user name: %q", v)
			}
			if !strings.Contains(doc.Find(`[data-testid="login-error"]`).Text(), "Wrong user name or password") {
				t.Fatal("no error sentence after a wrong password")
			}
		}
	}
	body := readBody(last)
	if last.StatusCode != http.StatusTooManyRequests || last.Header.Get("Retry-After") == "" || !strings.Contains(body, "Too many failed sign-ins") {
		t.Fatalf("6th failure: %d Retry-After=%q, want 429 with a wait", last.StatusCode, last.Header.Get("Retry-After"))
	}
	// Even the right password waits.
	res = postForm(t, c, srv.URL+"/login", url.Values{"name": {"vera"}, "password": {testPassword}}, nil)
	if res.StatusCode != http.StatusTooManyRequests {
		t.Fatalf("right password while throttled: %d", res.StatusCode)
	}
}

func TestSignInNeverRedirectsOffSite(t *testing.T) {
	for in, want := range map[string]string{
		"":                     "/",
		"/groups/g?x=1":        "/groups/g?x=1",
		"//evil.example/":      "/",
		"/\\evil.example":      "/",
		"https://evil.example": "/",
		"javascript:alert(1)":  "/",
		"/login?next=/x":       "/",
	} {
		if got := handlers.SafeNext(in); got != want {
			t.Errorf("SafeNext(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestBearerTokens(t *testing.T) {
	a := newAuthApp(t)
	addUsers(t, a, roleUsers)
	h := a.Handler()
	do := func(method, path, bearer, body string) *httptest.ResponseRecorder {
		req := newRequest(method, path, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		if bearer != "" {
			req.Header.Set("Authorization", "Bearer "+bearer)
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		return rec
	}
	// otto creates a token for himself through the API with a session...
	req := newRequest(http.MethodPost, "/api/v1/users/otto/tokens", strings.NewReader(`{"name":"ci"}`))
	req.Header.Set("Content-Type", "application/json")
	req.AddCookie(sessionCookie(t, a, "otto"))
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	var created handlers.CreatedTokenJSON
	if err := json.Unmarshal(rec.Body.Bytes(), &created); rec.Code != http.StatusCreated || err != nil || !strings.HasPrefix(created.Secret, "rmqc_") {
		t.Fatalf("create token: %d %s", rec.Code, rec.Body)
	}
	if rec.Header().Get("Cache-Control") != "no-store" {
		t.Error("token answer may be cached")
	}
	// ...which then works alone, with otto's role.
	rec = do(http.MethodGet, "/api/v1/users/otto/tokens", created.Secret, "")
	var list handlers.TokensJSON
	if json.Unmarshal(rec.Body.Bytes(), &list); rec.Code != 200 || len(list.Tokens) != 1 || list.Tokens[0].Name != "ci" {
		t.Fatalf("list with bearer: %d %s", rec.Code, rec.Body)
	}
	if strings.Contains(rec.Body.String(), created.Secret) {
		t.Fatal("token list shows the secret")
	}
	if rec := do(http.MethodGet, "/api/v1/users/vera/tokens", created.Secret, ""); rec.Code != http.StatusForbidden {
		t.Fatalf("operator token on another user's tokens: %d, want 403", rec.Code)
	}
	// Wrong or malformed credentials are refused, not ignored.
	for _, bad := range []string{"rmqc_nope", "nope"} {
		rec := do(http.MethodGet, "/api/v1/users/otto/tokens", bad, "")
		var e handlers.APIError
		json.Unmarshal(rec.Body.Bytes(), &e)
		if rec.Code != http.StatusUnauthorized || e.Code != "unauthenticated" || rec.Header().Get("WWW-Authenticate") == "" {
			t.Fatalf("bad token %q: %d %s", bad, rec.Code, rec.Body)
		}
	}
	// An admin revokes it; it stops working at once.
	adaSecret, _, err := a.sec.auth.CreateToken(context.Background(), "ada", "admin-cli", "test")
	if err != nil {
		t.Fatal(err)
	}
	path := "/api/v1/users/otto/tokens/" + strconv.FormatInt(created.Token.ID, 10)
	if rec := do(http.MethodDelete, path, adaSecret, ""); rec.Code != 200 {
		t.Fatalf("admin revokes otto's token: %d %s", rec.Code, rec.Body)
	}
	if rec := do(http.MethodGet, "/api/v1/users/otto/tokens", created.Secret, ""); rec.Code != http.StatusUnauthorized {
		t.Fatalf("revoked token: %d, want 401", rec.Code)
	}
	// Probes and assets do not look at credentials at all (no database read per asset).
	if rec := do(http.MethodGet, "/healthz", "rmqc_nope", ""); rec.Code != 200 {
		t.Fatalf("probe with a bad token: %d, want 200", rec.Code)
	}
	// Anonymous API callers (and Prometheus) get 401, not a sign-in page.
	rec = do(http.MethodGet, "/api/v1/cluster", "", "")
	if rec.Code != http.StatusUnauthorized || !strings.HasPrefix(rec.Header().Get("Content-Type"), "application/json") {
		t.Fatalf("anonymous API: %d %s", rec.Code, rec.Header().Get("Content-Type"))
	}
	if rec := do(http.MethodGet, "/metrics", "", ""); rec.Code != http.StatusUnauthorized || rec.Header().Get("WWW-Authenticate") == "" {
		t.Fatalf("anonymous /metrics: %d, want 401 with WWW-Authenticate", rec.Code)
	}
}

func TestTrustedProxyOnlyFromConfiguredAddress(t *testing.T) {
	a := newAuthApp(t, "--trusted-proxies", "10.1.2.3", "--namesrv", "127.0.0.1:1")
	h := stubResets(a)
	call := func(remote, method, path string, hdr map[string]string) *httptest.ResponseRecorder {
		req := newRequest(method, path, strings.NewReader(`{"mode":"latest"}`))
		req.RemoteAddr = remote
		req.Header.Set("Content-Type", "application/json")
		for k, v := range hdr {
			req.Header.Set(k, v)
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		return rec
	}
	ident := map[string]string{"X-Forwarded-User": "paula", "X-Forwarded-Role": "operator", "X-Forwarded-For": "203.0.113.9"}
	rec := call("10.1.2.3:40000", http.MethodPost, "/api/v1/groups/g/resets", ident)
	if rec.Code != 200 || !strings.Contains(rec.Body.String(), `"actor":"paula"`) || !strings.Contains(rec.Body.String(), `"addr":"203.0.113.9"`) {
		t.Fatalf("from the proxy: %d %s, want paula from 203.0.113.9", rec.Code, rec.Body)
	}
	// The same headers from anywhere else are ignored: no identity, and X-Forwarded-For
	// is not believed either.
	rec = call("10.1.2.4:40000", http.MethodGet, "/whoami", ident)
	if rec.Code != http.StatusSeeOther {
		t.Fatalf("headers from a non-proxy: %d %s, want a redirect to sign in", rec.Code, rec.Body)
	}
	rec = call("10.1.2.4:40000", http.MethodPost, "/api/v1/groups/g/resets", ident)
	if rec.Code != http.StatusUnauthorized {
		t.Fatalf("reset with forged headers: %d, want 401", rec.Code)
	}
	// A viewer via the proxy is refused, and the audit records the client's address.
	rec = call("10.1.2.3:40000", http.MethodPost, "/api/v1/groups/g/resets", map[string]string{"X-Forwarded-User": "vic", "X-Forwarded-For": "198.51.100.4"})
	if rec.Code != http.StatusForbidden {
		t.Fatalf("proxy viewer reset: %d", rec.Code)
	}
	es, _, _ := a.store.Audit().List(context.Background(), store.AuditFilter{Actor: "vic"})
	if len(es) != 1 || es[0].ActorAddr != "198.51.100.4" {
		t.Fatalf("audit of proxy viewer: %+v", es)
	}
	// A role the console does not know is an error, not a guess.
	rec = call("10.1.2.3:40000", http.MethodGet, "/whoami", map[string]string{"X-Forwarded-User": "paula", "X-Forwarded-Role": "superuser"})
	if rec.Code != http.StatusUnauthorized {
		t.Fatalf("unknown proxy role: %d", rec.Code)
	}
}

// A browser posting a form from another origin is refused before any handler runs;
// the same request from the console's own pages (htmx included) goes through.
func TestCrossOriginPostsRefusedSameOriginServed(t *testing.T) {
	a := newAuthApp(t)
	addUsers(t, a, roleUsers)
	console := httptest.NewServer(a.Handler())
	defer console.Close()
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, `<form method="post" action="`+console.URL+`/logout"><button>win a prize</button></form>`)
	}))
	defer other.Close()

	c := browser(t)
	if res := postForm(t, c, console.URL+"/login", url.Values{"name": {"otto"}, "password": {testPassword}}, nil); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("sign-in: %d", res.StatusCode)
	}
	// What a browser sends when the other site's form is submitted.
	for _, hdr := range []map[string]string{
		{"Origin": other.URL, "Sec-Fetch-Site": "cross-site"},
		{"Origin": other.URL, "Sec-Fetch-Site": "same-site"}, // same host, other port
		{"Origin": other.URL},                                // a browser without Fetch Metadata
	} {
		res := postForm(t, c, console.URL+"/logout", nil, hdr)
		if res.StatusCode != http.StatusForbidden {
			t.Fatalf("cross-origin logout with %v: %d, want 403", hdr, res.StatusCode)
		}
		res = postForm(t, c, console.URL+"/users/otto/tokens", url.Values{"name": {"evil"}}, hdr)
		if res.StatusCode != http.StatusForbidden {
			t.Fatalf("cross-origin token creation with %v: %d, want 403", hdr, res.StatusCode)
		}
	}
	if ts, _ := a.sec.auth.Tokens(context.Background(), "otto"); len(ts) != 0 {
		t.Fatalf("a cross-origin post created %d tokens", len(ts))
	}
	if res := get(t, c, console.URL+"/"); res.StatusCode != 200 {
		t.Fatalf("a refused cross-origin logout signed the user out: %d", res.StatusCode)
	}
	// Same origin, as htmx sends it: served, as a fragment.
	res := postForm(t, c, console.URL+"/users/otto/tokens", url.Values{"name": {"deploy"}},
		map[string]string{"Origin": console.URL, "Sec-Fetch-Site": "same-origin", "HX-Request": "true"})
	body := readBody(res)
	if res.StatusCode != 200 || !strings.Contains(body, `data-testid="token-secret"`) || strings.Contains(body, "<html") ||
		!strings.HasPrefix(strings.TrimSpace(body), `<section id="tokens"`) {
		t.Fatalf("same-origin htmx post: %d %.300s, want only the tokens section", res.StatusCode, body)
	}
	// A refused name comes back in the section too (htmx swaps only 2xx answers), next
	// to the field; without htmx it is a 422 page that keeps what was typed.
	res = postForm(t, c, console.URL+"/users/otto/tokens", url.Values{"name": {"   "}},
		map[string]string{"Origin": console.URL, "Sec-Fetch-Site": "same-origin", "HX-Request": "true"})
	body = readBody(res)
	if res.StatusCode != 200 || !strings.Contains(body, `data-testid="token-error"`) || strings.Contains(body, "<h1") {
		t.Fatalf("refused name over htmx: %d %.300s", res.StatusCode, body)
	}
	res = postForm(t, c, console.URL+"/users/otto/tokens", url.Values{"name": {"   "}}, map[string]string{"Origin": console.URL})
	body = readBody(res)
	if res.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(body, `data-testid="token-error"`) || !strings.Contains(body, "<html") {
		t.Fatalf("refused name without htmx: %d, want the 422 page", res.StatusCode)
	}
}

// Every page carries the headers of the issue; pages of this area have no inline script
// or style, so the CSP holds without exceptions.
func TestSecurityHeadersAndNoInlineScript(t *testing.T) {
	a := newAuthApp(t)
	addUsers(t, a, roleUsers)
	for _, tc := range []struct {
		path string
		ck   *http.Cookie
	}{{"/login", nil}, {"/users/ada/tokens", sessionCookie(t, a, "ada")}, {"/", sessionCookie(t, a, "vera")}} {
		req := newRequest(http.MethodGet, tc.path, nil)
		if tc.ck != nil {
			req.AddCookie(tc.ck)
		}
		rec := httptest.NewRecorder()
		a.Handler().ServeHTTP(rec, req)
		if rec.Code != 200 {
			t.Fatalf("GET %s: %d", tc.path, rec.Code)
		}
		csp := rec.Header().Get("Content-Security-Policy")
		if !strings.Contains(csp, "script-src 'self'") || strings.Contains(csp, "unsafe-inline") || !strings.Contains(csp, "frame-ancestors 'none'") {
			t.Errorf("GET %s: CSP %q", tc.path, csp)
		}
		if rec.Header().Get("X-Content-Type-Options") != "nosniff" || rec.Header().Get("Referrer-Policy") == "" {
			t.Errorf("GET %s: headers %v", tc.path, rec.Header())
		}
		doc, _ := goquery.NewDocumentFromReader(bytes.NewReader(rec.Body.Bytes()))
		doc.Find("script").Each(func(_ int, s *goquery.Selection) {
			if _, ok := s.Attr("src"); !ok {
				t.Errorf("GET %s: inline script %q", tc.path, s.Text())
			}
		})
		if n := doc.Find("[style], style").Length(); n > 0 {
			t.Errorf("GET %s: %d inline styles", tc.path, n)
		}
		doc.Find("[onclick], [onload], [onsubmit]").Each(func(_ int, s *goquery.Selection) {
			t.Errorf("GET %s: inline event handler on <%s>", tc.path, goquery.NodeName(s))
		})
	}
}

func TestStartupOnPublicAddressNeedsUsers(t *testing.T) {
	dir := t.TempDir()
	var out, errb bytes.Buffer
	code := run(context.Background(), []string{"--listen", "0.0.0.0:0", "--data-dir", dir}, noEnv, &out, &errb)
	msg := errb.String()
	if code != 1 || strings.Count(strings.TrimSpace(msg), "\n") != 0 || !strings.Contains(msg, "rmqconsole users add NAME --role admin") {
		t.Fatalf("public address without users: exit %d, %q; want one line saying how to add users", code, msg)
	}
	if code := usersCommand(context.Background(), []string{"add", "root", "--role", "admin", "--data-dir", dir}, noEnv,
		strings.NewReader(testPassword+"\n"), &out, &errb); code != 0 {
		t.Fatalf("users add: %d %s", code, errb.String())
	}
	cfg, err := ParseConfig([]string{"--listen", "0.0.0.0:0", "--data-dir", dir}, noEnv, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	a, err := New(context.Background(), cfg, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatalf("public address with a user: %v", err)
	}
	a.Close()
	cfg, _ = ParseConfig([]string{"--listen", "0.0.0.0:0", "--data-dir", t.TempDir(), "--trusted-proxies", "10.0.0.0/8"}, noEnv, io.Discard)
	a, err = New(context.Background(), cfg, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatalf("public address behind a trusted proxy: %v", err)
	}
	a.Close()
}

func TestAuthSettingsValidated(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--session-idle", "soon"}, "--session-idle"},
		{[]string{"--session-idle", "48h", "--session-max", "24h"}, "--session-idle"},
		{[]string{"--trusted-proxies", "10.0.0.0/40"}, "--trusted-proxies"},
		{[]string{"--tls-cert", "c.pem"}, "--tls-key"},
		{[]string{"--tls-key", "k.pem"}, "--tls-cert"},
	} {
		_, err := ParseConfig(tc.args, noEnv, io.Discard)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("ParseConfig(%v) = %v, want an error naming %s", tc.args, err, tc.want)
		}
	}
	cfg, err := ParseConfig([]string{"--data-dir", t.TempDir(), "--tls-cert", filepath.Join(t.TempDir(), "none.pem"), "--tls-key", "none.key"}, noEnv, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := New(context.Background(), cfg, slog.New(slog.DiscardHandler)); err == nil || !strings.Contains(err.Error(), "--tls-cert") {
		t.Fatalf("missing certificate: %v, want an error naming --tls-cert", err)
	}
}
