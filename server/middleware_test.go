package server

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/gin-gonic/gin"

	"rmqconsole/auth"
	"rmqconsole/handlers"
	"rmqconsole/static"
)

// A request the client abandoned is not the console's failure: it is logged as 499 at
// debug, with no ERROR line.
func TestAbandonedRequestIsLoggedAs499(t *testing.T) {
	a, logBuf := newLoggedApp(t, "--no-auth=true")
	ctx, cancel := context.WithCancel(context.Background())
	cancel() // the browser tab was closed
	rec := httptest.NewRecorder()
	a.Handler().ServeHTTP(rec, newRequest(http.MethodGet, "/api/v1/audit", nil).WithContext(ctx))
	log := logBuf.String()
	if !strings.Contains(log, "level=DEBUG msg=request method=GET path=/api/v1/audit status=499") || strings.Contains(log, "level=ERROR") {
		t.Fatalf("abandoned request logged as:\n%s", log)
	}
}

// A cross-origin refusal is answered inside the router: it is in the request log and
// carries the same security headers as every other answer.
func TestCrossOriginRefusalIsLoggedWithCSP(t *testing.T) {
	a, logBuf := newLoggedApp(t)
	addUsers(t, a, roleUsers)
	req := newRequest(http.MethodPost, "/api/v1/groups/billing/resets", strings.NewReader(`{}`))
	req.Header.Set("Origin", "https://evil.example")
	req.Header.Set("Sec-Fetch-Site", "cross-site")
	req.AddCookie(sessionCookie(t, a, "otto"))
	rec := httptest.NewRecorder()
	a.Handler().ServeHTTP(rec, req)
	var e handlers.APIError
	json.Unmarshal(rec.Body.Bytes(), &e)
	if rec.Code != http.StatusForbidden || e.Code != "cross_origin" || !strings.Contains(rec.Header().Get("Content-Security-Policy"), "frame-ancestors 'none'") {
		t.Fatalf("cross-origin post: %d %s, CSP %q", rec.Code, rec.Body, rec.Header().Get("Content-Security-Policy"))
	}
	if !strings.Contains(logBuf.String(), "path=/api/v1/groups/billing/resets status=403") {
		t.Fatalf("the refusal is not in the request log:\n%s", logBuf.String())
	}
}

// Browsers are told to keep to HTTPS only when the console is served over it.
func TestHSTSOnlyUnderTLS(t *testing.T) {
	a := newAuthApp(t)
	tlsSrv := httptest.NewTLSServer(a.Handler())
	defer tlsSrv.Close()
	res, err := tlsSrv.Client().Get(tlsSrv.URL + "/login")
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if hsts := res.Header.Get("Strict-Transport-Security"); !strings.HasPrefix(hsts, "max-age=") {
		t.Fatalf("over TLS: Strict-Transport-Security %q", hsts)
	}
	rec := httptest.NewRecorder()
	a.Handler().ServeHTTP(rec, newRequest(http.MethodGet, "/login", nil))
	if hsts := rec.Header().Get("Strict-Transport-Security"); hsts != "" {
		t.Fatalf("over plain HTTP: Strict-Transport-Security %q", hsts)
	}
}

// What a signed-in user sees is never kept by a browser or proxy cache; assets are.
func TestSignedInPagesAndAPINotCached(t *testing.T) {
	a := newAuthApp(t)
	addUsers(t, a, roleUsers)
	for _, p := range []string{"/", "/audit", "/api/v1/audit", "/api/v1/cluster", "/users/vera/tokens"} {
		req := newRequest(http.MethodGet, p, nil)
		req.AddCookie(sessionCookie(t, a, "vera"))
		rec := httptest.NewRecorder()
		a.Handler().ServeHTTP(rec, req)
		if cc := rec.Header().Get("Cache-Control"); cc != "no-store" {
			t.Errorf("GET %s as vera: %d, Cache-Control %q, want no-store", p, rec.Code, cc)
		}
	}
	rec := httptest.NewRecorder()
	a.Handler().ServeHTTP(rec, newRequest(http.MethodGet, static.URL("app.css"), nil))
	if rec.Code != http.StatusOK || rec.Header().Get("Cache-Control") == "no-store" {
		t.Fatalf("asset: %d, Cache-Control %q", rec.Code, rec.Header().Get("Cache-Control"))
	}
}

// A body above MaxRequestBody is refused whole with a sentence, on the API and on pages,
// whether or not its length was announced; before, it was cut and answered 400
// "unexpected EOF".
func TestOversizedBodyIs413(t *testing.T) {
	a := newAuthApp(t, "--namesrv", "127.0.0.1:1")
	addUsers(t, a, roleUsers)
	big := `{"topic":"orders","mode":"latest","reason":"` + strings.Repeat("x", 1<<20) + `"}`
	for _, chunked := range []bool{false, true} {
		req := newRequest(http.MethodPost, "/api/v1/groups/billing/reset-preview", strings.NewReader(big))
		req.Header.Set("Content-Type", "application/json")
		if chunked {
			req.ContentLength = -1
		}
		req.AddCookie(sessionCookie(t, a, "otto"))
		rec := httptest.NewRecorder()
		a.Handler().ServeHTTP(rec, req)
		var e handlers.APIError
		json.Unmarshal(rec.Body.Bytes(), &e)
		if rec.Code != http.StatusRequestEntityTooLarge || e.Code != "too_large" || !strings.Contains(e.Error, "64 KiB") {
			t.Fatalf("1 MB API body (chunked %v): %d %.300s", chunked, rec.Code, rec.Body)
		}
	}
	form := url.Values{"name": {"otto"}, "password": {strings.Repeat("p", 1<<20)}}.Encode()
	req := newRequest(http.MethodPost, "/login", strings.NewReader(form))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	rec := httptest.NewRecorder()
	a.Handler().ServeHTTP(rec, req)
	if rec.Code != http.StatusRequestEntityTooLarge || !strings.Contains(rec.Body.String(), "64 KiB") || !strings.Contains(rec.Body.String(), "<html") {
		t.Fatalf("1 MB sign-in form: %d %.300s", rec.Code, rec.Body)
	}
	// Just under the limit is read whole.
	ok := `{"topic":"orders","mode":"sideways","reason":"` + strings.Repeat("x", MaxRequestBody-100) + `"}`
	if rec := postAs(t, a, "otto", "/api/v1/groups/billing/reset-preview", "application/json", ok); rec.Code != http.StatusBadRequest ||
		!strings.Contains(rec.Body.String(), "sideways") {
		t.Fatalf("body under the limit: %d %.300s", rec.Code, rec.Body)
	}
}

// Failed sign-ins slow down the user name at that address, and the address only well
// above that: people behind one address are not locked out by one person's typos.
func TestSignInThrottledPerUserAndAddress(t *testing.T) {
	a := newAuthApp(t)
	// Enough failures from one address that a per-address count at the old threshold
	// (20) would make the next sign-in wait far longer than this test runs.
	names := []string{"u1", "u2", "u3", "u4", "u5", "u6"}
	users := map[string]auth.Role{"otto": auth.Operator}
	for _, n := range names {
		users[n] = auth.Viewer
	}
	addUsers(t, a, users)
	login := func(name, password string) int {
		req := newRequest(http.MethodPost, "/login", strings.NewReader(url.Values{"name": {name}, "password": {password}}.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.RemoteAddr = "198.51.100.20:5000"
		rec := httptest.NewRecorder()
		a.Handler().ServeHTTP(rec, req)
		return rec.Code
	}
	for _, n := range names {
		for range auth.DefaultThrottle.UserFree {
			if code := login(n, "wrong password"); code != http.StatusUnauthorized {
				t.Fatalf("failed sign-in of %s: %d, want 401", n, code)
			}
		}
		// Right away (the first wait is DefaultThrottle.Base): that name from this
		// address is slowed down.
		if code := login(n, testPassword); code != http.StatusTooManyRequests {
			t.Fatalf("%s after %d failures from this address: %d, want 429", n, auth.DefaultThrottle.UserFree, code)
		}
	}
	if code := login("otto", testPassword); code != http.StatusSeeOther {
		t.Fatalf("otto from the same address after %d failures of others: %d, want signed in", len(names)*auth.DefaultThrottle.UserFree, code)
	}
}

// Every page asks for its assets and the favicon: those requests are logged at debug,
// as the page requests are; the favicon is served, not a 404.
func TestAssetRequestsAreLoggedAtDebug(t *testing.T) {
	a, logBuf := newLoggedApp(t, "--no-auth=true")
	for _, path := range []string{static.URL("app.css"), "/favicon.ico", "/api/v1/audit"} {
		rec := httptest.NewRecorder()
		a.Handler().ServeHTTP(rec, newRequest(http.MethodGet, path, nil))
		if rec.Code != http.StatusOK {
			t.Errorf("%s: %d, want 200", path, rec.Code)
		}
	}
	log := logBuf.String()
	for _, path := range []string{static.URL("app.css"), "/favicon.ico"} {
		if !strings.Contains(log, "level=DEBUG msg=request method=GET path="+path+" ") {
			t.Errorf("%s is not logged at debug:\n%s", path, log)
		}
	}
	if !strings.Contains(log, "level=DEBUG msg=request method=GET path=/api/v1/audit ") {
		t.Errorf("a page request answered in time is not logged at debug:\n%s", log)
	}
}

// At the default level (info) the request log shows only what needs a look: a request
// the console failed (5xx) and a slow one. A page answered in time, a 4xx (the caller's
// mistake, which the answer explains), a probe and a websocket held open for minutes
// are logged at debug, so `make run` keeps its ready line on screen.
func TestRequestLogShowsFailuresAndSlowRequestsOnly(t *testing.T) {
	serve := func(slow time.Duration, req *http.Request) string {
		t.Helper()
		logBuf := &syncWriter{w: &bytes.Buffer{}}
		r := gin.New()
		r.Use(requestLog(slog.New(slog.NewTextHandler(logBuf, &slog.HandlerOptions{Level: slog.LevelInfo})), slow))
		r.GET("/groups", func(c *gin.Context) { c.String(http.StatusOK, "page") })
		r.GET("/healthz", func(c *gin.Context) { c.String(http.StatusOK, "ok") })
		r.GET("/ws/groups/g", func(c *gin.Context) { c.String(http.StatusOK, "") })
		r.POST("/resets", func(c *gin.Context) { c.String(http.StatusUnprocessableEntity, "form mistake") })
		r.GET("/boom", func(c *gin.Context) { c.String(http.StatusInternalServerError, "failed") })
		r.ServeHTTP(httptest.NewRecorder(), req)
		return logBuf.String()
	}
	get := func(path string) *http.Request { return httptest.NewRequest(http.MethodGet, path, nil) }
	websocket := get("/ws/groups/g")
	websocket.Header.Set("Connection", "Upgrade")
	websocket.Header.Set("Upgrade", "websocket")

	for name, req := range map[string]*http.Request{
		"a page answered in time": get("/groups"),
		"a form mistake (422)":    httptest.NewRequest(http.MethodPost, "/resets", nil),
		"a missing page (404)":    get("/nope"),
	} {
		if log := serve(time.Hour, req); log != "" {
			t.Errorf("%s is logged at info:\n%s", name, log)
		}
	}
	if log := serve(time.Hour, get("/boom")); !strings.Contains(log, "level=ERROR msg=request method=GET path=/boom status=500 ") {
		t.Errorf("a 500 is not logged at error:\n%s", log)
	}
	// Every request takes longer than a nanosecond: each is slow here.
	if log := serve(time.Nanosecond, get("/groups")); !strings.Contains(log, "level=INFO msg=request method=GET path=/groups status=200 ") {
		t.Errorf("a slow request is not logged at info:\n%s", log)
	}
	for name, req := range map[string]*http.Request{"a probe": get("/healthz"), "a websocket": websocket} {
		if log := serve(time.Nanosecond, req); log != "" {
			t.Errorf("%s is logged at info for its duration:\n%s", name, log)
		}
	}
}
