package server

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"rmqconsole/auth"
	"rmqconsole/dev"
	"rmqconsole/dev/oidcprovider"
	"rmqconsole/handlers"
	"rmqconsole/i18n"
	"rmqconsole/store"
)

// ssoConsole is the real console served on a loopback port of its own (the OpenID
// provider sends the browser back to it), with a browser-like client that does not
// follow redirects.
type ssoConsole struct {
	*App
	URL    string
	client *http.Client
	// startLog is what the console logged while starting.
	startLog string
}

// startSSOConsole listens first, so that flags can name the console's own URL
// ({{URL}} in a flag is replaced by it), then builds and serves the real console.
func startSSOConsole(t *testing.T, flags ...string) *ssoConsole {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	base := "http://" + ln.Addr().String()
	args := []string{"--listen", "127.0.0.1:0", "--data-dir", t.TempDir()}
	for _, f := range flags {
		args = append(args, strings.ReplaceAll(f, "{{URL}}", base))
	}
	cfg, err := ParseConfig(args, noEnv, io.Discard)
	if err != nil {
		ln.Close()
		t.Fatal(err)
	}
	var startLog strings.Builder
	a, err := New(context.Background(), cfg, slog.New(slog.NewTextHandler(&startLog, nil)))
	if err != nil {
		ln.Close()
		t.Fatal(err)
	}
	logged := startLog.String()
	srv := httptest.NewUnstartedServer(a.Handler())
	srv.Listener.Close()
	srv.Listener = ln
	srv.Start()
	t.Cleanup(func() { srv.Close(); a.Close() })
	jar, _ := cookiejar.New(nil)
	return &ssoConsole{App: a, URL: base, startLog: logged, client: &http.Client{Jar: jar,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}}
}

// do sends a request and reads the answer whole.
func (c *ssoConsole) do(t *testing.T, method, target string, form url.Values) (*http.Response, string) {
	t.Helper()
	if strings.HasPrefix(target, "/") {
		target = c.URL + target
	}
	var body io.Reader
	if form != nil {
		body = strings.NewReader(form.Encode())
	}
	req, _ := http.NewRequest(method, target, body)
	if form != nil {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	if strings.HasPrefix(target, c.URL) {
		req.Header.Set("Sec-Fetch-Site", "same-origin") // as a browser on the console's own page
	}
	res, err := c.client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res, string(b)
}

// caller is who the browser's session cookie says it is (nil: not signed in).
func (c *ssoConsole) caller(t *testing.T) *auth.Caller {
	t.Helper()
	u, _ := url.Parse(c.URL)
	for _, ck := range c.client.Jar.Cookies(u) {
		if ck.Name == handlers.SessionCookie {
			who, err := c.sec.auth.Session(context.Background(), ck.Value)
			if err == nil {
				return who
			}
		}
	}
	return nil
}

// signIns are the sign-in entries of the audit log as GET /api/v1/audit?kind=sign-in
// answers them, newest first: "actor provider outcome status".
func (c *ssoConsole) signIns(t *testing.T) []string {
	t.Helper()
	res, body := c.do(t, http.MethodGet, "/api/v1/audit?kind=sign-in", nil)
	if res.StatusCode != http.StatusOK {
		t.Fatalf("audit of sign-ins: %d %s", res.StatusCode, body)
	}
	var out struct {
		Entries []struct {
			Actor, Status string
			Params        struct{ Provider, Outcome string }
		}
	}
	if err := json.Unmarshal([]byte(body), &out); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range out.Entries {
		got = append(got, strings.TrimSpace(fmt.Sprintf("%s %s %s %s", e.Actor, e.Params.Provider, e.Params.Outcome, e.Status)))
	}
	return got
}

// storedSignIns are the same read from the database, for a browser not signed in.
func (c *ssoConsole) storedSignIns(t *testing.T) []string {
	t.Helper()
	es, _, err := c.store.Audit().List(context.Background(), store.AuditFilter{Kind: store.AuditKindSignIns})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range es {
		var p struct{ Provider, Outcome string }
		json.Unmarshal(e.Params, &p)
		got = append(got, strings.TrimSpace(fmt.Sprintf("%s %s %s %s", e.Actor, p.Provider, p.Outcome, e.Status)))
	}
	return got
}

func writeSecret(t *testing.T, secret string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "secret")
	if err := os.WriteFile(p, []byte(secret+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func ldapFlags(t *testing.T, l *dev.LDAP) []string {
	return []string{"--ldap-url", l.URL(), "--ldap-start-tls", "true", "--ldap-ca-file", l.CAFile,
		"--ldap-bind-dn", dev.LDAPServiceDN, "--ldap-bind-password-file", writeSecret(t, dev.LDAPServicePassword),
		"--ldap-user-base", dev.LDAPPeopleBase, "--ldap-roles", "rmq-admins=admin,rmq-ops=operator"}
}

// Directory accounts sign in with the ordinary form and get their groups' role; a wrong
// password reads as a local one does; every attempt is on /audit.
func TestLDAPSignInThroughTheForm(t *testing.T) {
	l := dev.RequireLDAP(t)
	c := startSSOConsole(t, ldapFlags(t, l)...)
	addUsers(t, c.App, map[string]auth.Role{"vera": auth.Viewer})
	en := i18n.Match("en")

	_, page := c.do(t, http.MethodGet, "/login", nil)
	if !strings.Contains(page, `data-testid="login-ldap"`) {
		t.Error("the sign-in page does not say directory accounts sign in there")
	}
	wrong := en.T("login.wrong")
	for _, who := range []string{"omar", "vera", "nobody"} {
		res, body := c.do(t, http.MethodPost, "/login", url.Values{"name": {who}, "password": {"not-the-password"}})
		if res.StatusCode != http.StatusUnauthorized || !strings.Contains(body, wrong) || c.caller(t) != nil {
			t.Errorf("%s with a wrong password: %d, want 401 with %q and no session", who, res.StatusCode, wrong)
		}
	}
	res, body := c.do(t, http.MethodPost, "/login", url.Values{"name": {"sam"}, "password": {"sam-password"}})
	if res.StatusCode != http.StatusForbidden || !strings.Contains(body, "sales") || c.caller(t) != nil {
		t.Errorf("sam, in no group with a role: %d %s", res.StatusCode, body)
	}
	res, _ = c.do(t, http.MethodPost, "/login", url.Values{"name": {"omar"}, "password": {"omar-password"}, "next": {"/groups"}})
	if who := c.caller(t); res.StatusCode != http.StatusSeeOther || res.Header.Get("Location") != "/groups" || who == nil || who.Name != "omar" || who.Role != auth.Operator {
		t.Fatalf("omar: %d to %q as %+v, want an operator session", res.StatusCode, res.Header.Get("Location"), who)
	}
	// The signed-in operator reads the record of it.
	got := c.signIns(t)
	want := []string{"omar ldap signed_in applied", "sam ldap refused refused", "nobody ldap wrong_password refused",
		"vera local wrong_password refused", "omar ldap wrong_password refused"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("sign-ins on the audit log:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	_, list := c.do(t, http.MethodGet, "/audit?kind=sign-in", nil)
	if !strings.Contains(list, ">LDAP<") || !strings.Contains(list, `value="sign-in" selected`) {
		t.Error("/audit?kind=sign-in does not show the sign-ins with their provider")
	}
	if _, changes := c.do(t, http.MethodGet, "/api/v1/audit", nil); strings.Contains(changes, `"sign-in"`) {
		t.Error("the list of changes shows sign-ins")
	}
	es, _, _ := c.store.Audit().List(context.Background(), store.AuditFilter{Kind: store.AuditKindSignIns, Limit: 1})
	res, entry := c.do(t, http.MethodGet, fmt.Sprintf("/audit/%d", es[0].ID), nil)
	if res.StatusCode != http.StatusOK || !strings.Contains(entry, "Signed in with LDAP, as operator: a session was started.") {
		t.Errorf("the entry of omar's sign-in: %d\n%s", res.StatusCode, entry)
	}
}

// With the directory down, its accounts cannot sign in: a sentence naming it and 503,
// no session; local users still can.
func TestLDAPDownIsASentenceAndNoSession(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	down := "ldap://" + ln.Addr().String()
	ln.Close()
	c := startSSOConsole(t, "--ldap-url", down, "--ldap-user-dn", "uid={user},"+dev.LDAPPeopleBase, "--ldap-roles", "rmq-ops=operator", "--ldap-timeout", "2s")
	addUsers(t, c.App, map[string]auth.Role{"vera": auth.Viewer})
	res, body := c.do(t, http.MethodPost, "/login", url.Values{"name": {"omar"}, "password": {"omar-password"}})
	if res.StatusCode != http.StatusServiceUnavailable || !strings.Contains(body, "The LDAP directory at "+down) || c.caller(t) != nil {
		t.Fatalf("directory down: %d, no sentence naming %s or a session\n%s", res.StatusCode, down, body)
	}
	c.do(t, http.MethodPost, "/login", url.Values{"name": {"vera"}, "password": {testPassword}})
	if who := c.caller(t); who == nil || who.Name != "vera" {
		t.Fatalf("a local user could not sign in while the directory is down: %+v", who)
	}
	if got := c.signIns(t); len(got) != 2 || got[1] != "omar ldap unavailable refused" {
		t.Errorf("sign-ins: %q", got)
	}
}

var oidcClients atomic.Int64

// oidcConsole registers a client of its own at the test binary's OpenID provider and
// starts a console that signs in through it.
func oidcConsole(t *testing.T, edit func(*oidcprovider.Client), flags ...string) (*ssoConsole, *oidcprovider.Provider) {
	t.Helper()
	op, err := oidcprovider.Shared()
	if err != nil {
		t.Fatal(err)
	}
	id := fmt.Sprintf("console-http-%d", oidcClients.Add(1))
	var c *ssoConsole
	args := append([]string{"--oidc-issuer", op.Issuer, "--oidc-client-id", id, "--oidc-client-secret-file", writeSecret(t, "s3cret"),
		"--oidc-redirect-url", "{{URL}}/login/oidc/callback", "--oidc-scopes", "openid profile groups",
		"--oidc-roles", "rmq-admins=admin,rmq-ops=operator", "--oidc-label", "Test IdP"}, flags...)
	c = startSSOConsole(t, args...)
	client := oidcprovider.Client{ID: id, Secret: "s3cret", RedirectURIs: []string{c.URL + "/login/oidc/callback"},
		PostLogoutRedirectURIs: []string{c.URL + "/login?reason=signed-out"}}
	if edit != nil {
		edit(&client)
	}
	op.AddClient(client)
	return c, op
}

// oidcRoundTrip clicks "Sign in with", signs in on the provider's page and follows the
// provider back to the console: the console's answer to the callback.
func oidcRoundTrip(t *testing.T, c *ssoConsole, op *oidcprovider.Provider, user string, edit func(*url.URL)) (*http.Response, string) {
	t.Helper()
	res, _ := c.do(t, http.MethodGet, "/login/oidc?next=%2Fgroups", nil)
	if res.StatusCode != http.StatusFound || !strings.HasPrefix(res.Header.Get("Location"), op.Issuer+"/authorize?") {
		t.Fatalf("sign-in button: %d to %q, want the provider", res.StatusCode, res.Header.Get("Location"))
	}
	back, err := op.Browse(c.client.Jar, res.Header.Get("Location"), user, user+"-password")
	if err != nil {
		t.Fatal(err)
	}
	if edit != nil {
		edit(back)
	}
	return c.do(t, http.MethodGet, back.String(), nil)
}

// Signing in through the provider's own page ends on the console, signed in with the
// role of the user's groups; signing out ends the provider's session too.
func TestOIDCSignInAndSignOut(t *testing.T) {
	c, op := oidcConsole(t, nil)
	_, page := c.do(t, http.MethodGet, "/login?next=%2Fgroups", nil)
	if !strings.Contains(page, "Sign in with Test IdP") || !strings.Contains(page, `href="/login/oidc?next=%2Fgroups"`) {
		t.Fatalf("the sign-in page has no provider button:\n%s", page)
	}
	res, _ := oidcRoundTrip(t, c, op, "otto", nil)
	if who := c.caller(t); res.StatusCode != http.StatusSeeOther || res.Header.Get("Location") != "/groups" || who == nil || who.Name != "otto" || who.Role != auth.Operator {
		t.Fatalf("back from the provider: %d to %q as %+v, want an operator session on /groups", res.StatusCode, res.Header.Get("Location"), who)
	}
	if !op.SignedIn("otto") {
		t.Fatal("the provider has no session for otto")
	}
	// Sign-out ends the console's session, then the provider's (RP-initiated logout),
	// which sends the browser back to the sign-in page.
	res, _ = c.do(t, http.MethodPost, "/logout", url.Values{})
	to := res.Header.Get("Location")
	if res.StatusCode != http.StatusSeeOther || !strings.HasPrefix(to, op.Issuer+"/end_session?") || !strings.Contains(to, "id_token_hint=") || c.caller(t) != nil {
		t.Fatalf("sign-out: %d to %q", res.StatusCode, to)
	}
	res, _ = c.do(t, http.MethodGet, to, nil)
	if res.StatusCode != http.StatusFound || res.Header.Get("Location") != c.URL+"/login?reason=signed-out" || op.SignedIn("otto") {
		t.Fatalf("the provider's end of session: %d to %q (signed in there: %v)", res.StatusCode, res.Header.Get("Location"), op.SignedIn("otto"))
	}
	// ada, an admin at the provider, reads every sign-in.
	oidcRoundTrip(t, c, op, "ada", nil)
	if got := c.signIns(t); strings.Join(got, "|") != "ada oidc signed_in applied|otto oidc signed_in applied" {
		t.Errorf("sign-ins: %q", got)
	}
}

// A state that is not the browser's, a tampered or an expired ID token, a user whose
// groups give no role: each a sentence, no session, and a refused sign-in on the log.
func TestOIDCBadWaysBackStartNoSession(t *testing.T) {
	t.Run("state", func(t *testing.T) {
		c, op := oidcConsole(t, nil)
		res, body := oidcRoundTrip(t, c, op, "ada", func(u *url.URL) {
			q := u.Query()
			q.Set("state", "not-the-state-this-browser-started")
			u.RawQuery = q.Encode()
		})
		assertNoSession(t, c, res, body, http.StatusBadRequest, i18n.Match("en").T("login.oidc.state"))
		if got := c.storedSignIns(t); len(got) != 1 || got[0] != "oidc refused refused" {
			t.Errorf("sign-ins: %q", got)
		}
	})
	t.Run("tampered", func(t *testing.T) {
		c, op := oidcConsole(t, func(cl *oidcprovider.Client) { cl.TamperIDToken = true })
		res, body := oidcRoundTrip(t, c, op, "otto", nil)
		assertNoSession(t, c, res, body, http.StatusForbidden, "The ID token from Test IdP is not valid")
	})
	t.Run("expired", func(t *testing.T) {
		c, op := oidcConsole(t, func(cl *oidcprovider.Client) { cl.IDTokenLifetime = -2 * 60e9 })
		res, body := oidcRoundTrip(t, c, op, "otto", nil)
		assertNoSession(t, c, res, body, http.StatusForbidden, "The ID token from Test IdP expired at")
	})
	t.Run("no role", func(t *testing.T) {
		c, op := oidcConsole(t, nil)
		res, body := oidcRoundTrip(t, c, op, "nina", nil)
		assertNoSession(t, c, res, body, http.StatusForbidden, "none of your groups (sales) gives a role")
		if got := c.storedSignIns(t); len(got) != 1 || got[0] != "nina oidc refused refused" {
			t.Errorf("sign-ins: %q", got)
		}
	})
}

// A wrong issuer: the sign-in button answers a sentence saying so; nothing else breaks.
func TestOIDCWrongIssuerIsSaidOnTheSignInPage(t *testing.T) {
	op, err := oidcprovider.Shared()
	if err != nil {
		t.Fatal(err)
	}
	c := startSSOConsole(t, "--oidc-issuer", op.Issuer+"/", "--oidc-client-id", "x", "--oidc-redirect-url", "{{URL}}/login/oidc/callback",
		"--oidc-roles", "*=viewer")
	if !strings.Contains(c.startLog, "OpenID provider not usable") || !strings.Contains(c.startLog, op.Issuer+"/") {
		t.Errorf("start-up did not say the provider is not usable:\n%s", c.startLog)
	}
	res, body := c.do(t, http.MethodGet, "/login/oidc", nil)
	assertNoSession(t, c, res, body, http.StatusServiceUnavailable, "calls itself "+op.Issuer)
}

func assertNoSession(t *testing.T, c *ssoConsole, res *http.Response, body string, status int, sentence string) {
	t.Helper()
	if res.StatusCode != status || !strings.Contains(body, sentence) || !strings.Contains(body, `data-testid="login-error"`) {
		t.Errorf("%d, want %d with %q on the sign-in page:\n%s", res.StatusCode, status, sentence, body)
	}
	if who := c.caller(t); who != nil {
		t.Errorf("signed in as %+v", who)
	}
}

// Wrong directory passwords slow sign-in down exactly as wrong local ones: after the
// same number of failures, the same answer.
func TestLDAPWrongPasswordsAreThrottledAsLocalOnes(t *testing.T) {
	l := dev.RequireLDAP(t)
	c := startSSOConsole(t, ldapFlags(t, l)...)
	addUsers(t, c.App, map[string]auth.Role{"vera": auth.Viewer})
	answers := map[string][]int{}
	for who, password := range map[string]string{"lena": "lena-password", "vera": testPassword} {
		for range auth.DefaultThrottle.UserFree + 1 {
			res, _ := c.do(t, http.MethodPost, "/login", url.Values{"name": {who}, "password": {"not-the-password"}})
			answers[who] = append(answers[who], res.StatusCode)
		}
		res, body := c.do(t, http.MethodPost, "/login", url.Values{"name": {who}, "password": {password}})
		if res.StatusCode != http.StatusTooManyRequests || res.Header.Get("Retry-After") == "" || !strings.Contains(body, "Too many failed sign-ins") {
			t.Errorf("%s's right password after %d failures: %d, want 429 with Retry-After", who, auth.DefaultThrottle.UserFree+1, res.StatusCode)
		}
	}
	if fmt.Sprint(answers["lena"]) != fmt.Sprint(answers["vera"]) {
		t.Errorf("a directory user's failures were answered %v, a local user's %v", answers["lena"], answers["vera"])
	}
}
