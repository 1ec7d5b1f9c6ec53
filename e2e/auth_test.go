package e2e

import (
	"context"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/gorilla/websocket"

	"rmqconsole/dev"
)

const e2ePassword = "e2e password 123"

// addUser runs the real `rmqconsole users add`, password on stdin, against dataDir.
func addUser(t *testing.T, dataDir, name, role string) {
	t.Helper()
	cmd := exec.Command(Binary(t), "users", "add", name, "--role", role)
	cmd.Env = append(os.Environ(), "RMQC_DATA_DIR="+dataDir)
	cmd.Stdin = strings.NewReader(e2ePassword + "\n")
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "Added user "+name) {
		t.Fatalf("users add %s: %v\n%s", name, err, out)
	}
}

// signIn fills the sign-in form the browser is on.
func signIn(t *testing.T, ctx context.Context, name, password string) {
	t.Helper()
	Do(t, ctx, "sign in as "+name,
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="login-form"]`)),
		chromedp.Clear(chromedp.CSS(`#login-name`)),
		chromedp.SendKeys(chromedp.CSS(`#login-name`), name),
		chromedp.SendKeys(chromedp.CSS(`#login-password`), password),
		chromedp.Click(chromedp.CSS(`[data-testid="login-submit"]`)),
	)
}

// fetchResult is a same-origin fetch made by the page, with the browser's cookie.
type fetchResult struct {
	Status int    `json:"status"`
	Body   string `json:"body"`
}

func pageFetch(t *testing.T, ctx context.Context, method, path, jsonBody string) fetchResult {
	t.Helper()
	js := `fetch(` + quoteJS(path) + `, {method: ` + quoteJS(method) + `, headers: {"Content-Type": "application/json"}, body: ` +
		quoteJS(jsonBody) + `}).then(async r => ({status: r.status, body: await r.text()}))`
	return Get(t, ctx, method+" "+path+" from the page", chromedp.Evaluate[fetchResult](js, chromedp.EvalAwaitPromise))
}

func quoteJS(s string) string {
	r := strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`)
	return `"` + r.Replace(s) + `"`
}

// waitLocation waits until the browser has navigated to a URL starting with prefix.
func waitLocation(t *testing.T, ctx context.Context, prefix string) {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for {
		tctx, cancel := context.WithTimeout(ctx, 2*time.Second)
		loc, err := chromedp.Run(tctx, chromedp.Location())
		cancel()
		if err == nil && strings.HasPrefix(loc, prefix) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("browser at %q (%v), want %s…", loc, err, prefix)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func location(t *testing.T, ctx context.Context) *url.URL {
	t.Helper()
	u, err := url.Parse(Get(t, ctx, "location", chromedp.Location()))
	if err != nil {
		t.Fatal(err)
	}
	return u
}

// A viewer and an operator in a real browser: sign-in comes back to the page asked for,
// the viewer's reset is refused with a sentence, the operator's is let through, a form
// posted from another site is refused, and signing out ends the session.
func TestSignInRolesAndSignOutInBrowser(t *testing.T) {
	cl := dev.RequireCluster(t)
	dir := t.TempDir()
	addUser(t, dir, "vera", "viewer")
	addUser(t, dir, "otto", "operator")
	con := StartConsole(t, "RMQC_NAMESRV="+cl.NameServer, "RMQC_DATA_DIR="+dir)
	ctx := Browser(t)
	group := dev.UniqueName("auth-group")
	preview := "/api/v1/groups/" + group + "/reset-preview"
	resetBody := `{"topic":"","mode":"latest","reason":"browser test"}`

	// Anonymous: the sign-in page, remembering the page asked for.
	Do(t, ctx, "open a group anonymously", chromedp.Navigate(con.URL+"/groups/"+group),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="login-form"]`)))
	if u := location(t, ctx); u.Path != "/login" || u.Query().Get("next") != "/groups/"+group {
		t.Fatalf("anonymous visitor sent to %s, want /login?next=/groups/%s", u, group)
	}
	signIn(t, ctx, "vera", "not her password")
	Do(t, ctx, "see the refusal", chromedp.WaitVisible(chromedp.CSS(`[data-testid="login-error"]`)))
	if v := Get(t, ctx, "name kept", chromedp.Value(chromedp.CSS(`#login-name`))); v != "vera" {
		t.Errorf("after a wrong password the form shows name %q, want vera", v)
	}

	// The viewer signs in and lands on the page she asked for.
	signIn(t, ctx, "vera", e2ePassword)
	Do(t, ctx, "land on the group page", chromedp.WaitVisible(chromedp.CSS(`form[action="/logout"]`)))
	if u := location(t, ctx); u.Path != "/groups/"+group {
		t.Errorf("after sign-in the browser is at %s, want /groups/%s", u, group)
	}
	if nav := Get(t, ctx, "nav", chromedp.Text(chromedp.CSS(`[data-testid="nav"]`))); !strings.Contains(nav, "vera") {
		t.Errorf("the header does not show who is signed in: %q", nav)
	}
	// Her reset is refused, saying why.
	res := pageFetch(t, ctx, "POST", preview, resetBody)
	if res.Status != http.StatusForbidden || !strings.Contains(res.Body, "viewer") || !strings.Contains(res.Body, "operator") {
		t.Fatalf("viewer's reset preview: %d %s, want 403 naming viewer and operator", res.Status, res.Body)
	}

	// Signing out ends the session: the next page asks to sign in again.
	Do(t, ctx, "sign out", chromedp.Click(chromedp.CSS(`form[action="/logout"] button`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="login-notice"]`)))
	Do(t, ctx, "reopen the overview", chromedp.Navigate(con.URL+"/"),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="login-form"]`)))
	if res := pageFetch(t, ctx, "POST", preview, resetBody); res.Status != http.StatusUnauthorized {
		t.Fatalf("reset after sign-out: %d, want 401", res.Status)
	}

	// The operator: the reset gets past access control.
	signIn(t, ctx, "otto", e2ePassword)
	Do(t, ctx, "land on the overview", chromedp.WaitVisible(chromedp.CSS(`form[action="/logout"]`)))
	res = pageFetch(t, ctx, "POST", preview, resetBody)
	if res.Status == http.StatusUnauthorized || res.Status == http.StatusForbidden {
		t.Fatalf("operator's reset preview refused: %d %s", res.Status, res.Body)
	}
	t.Logf("operator's reset preview answered %d: %.200s", res.Status, res.Body)

	// A token made through the page's htmx form (a same-origin htmx POST) is shown once.
	Do(t, ctx, "create an API token",
		chromedp.Navigate(con.URL+"/tokens"),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="token-create"]`)),
		chromedp.SendKeys(chromedp.CSS(`#token-name`), "e2e-script"),
		chromedp.Click(chromedp.CSS(`[data-testid="token-create"] button`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="token-secret"]`)),
	)
	secret := Get(t, ctx, "read the token", chromedp.Text(chromedp.CSS(`[data-testid="token-secret"]`)))
	if u := location(t, ctx); u.Path != "/users/otto/tokens" {
		t.Errorf("token page at %s", u)
	}
	req, _ := http.NewRequest(http.MethodGet, con.URL+"/api/v1/users/otto/tokens", nil)
	req.Header.Set("Authorization", "Bearer "+strings.TrimSpace(secret))
	if r, err := http.DefaultClient.Do(req); err != nil || r.StatusCode != 200 {
		t.Fatalf("the token shown does not work: %v %v", r, err)
	} else {
		r.Body.Close()
	}

	// A form on another site that posts to the console is refused, and otto stays
	// signed in.
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		io.WriteString(w, `<!DOCTYPE html><title>prize</title><form method="post" action="`+con.URL+`/logout">`+
			`<button id="win">Win a prize</button></form>`)
	}))
	defer other.Close()
	Do(t, ctx, "submit the other site's form", chromedp.Navigate(other.URL),
		chromedp.Click(chromedp.CSS(`#win`)),
	)
	waitLocation(t, ctx, con.URL+"/logout")
	body := Get(t, ctx, "refusal", chromedp.Text(chromedp.CSS(`body`)))
	if !strings.Contains(body, "cross-origin") {
		t.Errorf("cross-site post answered %q, want a cross-origin refusal", body)
	}
	Do(t, ctx, "still signed in", chromedp.Navigate(con.URL+"/"),
		chromedp.WaitVisible(chromedp.CSS(`form[action="/logout"]`)))

	Do(t, ctx, "sign out", chromedp.Click(chromedp.CSS(`form[action="/logout"] button`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="login-notice"]`)))
}

// The live group websocket keeps gorilla's same-origin check behind sign-in: another
// site's page cannot open it with the user's cookie.
func TestWebsocketRefusesOtherOrigins(t *testing.T) {
	cl := dev.RequireCluster(t)
	dir := t.TempDir()
	addUser(t, dir, "vera", "viewer")
	con := StartConsole(t, "RMQC_NAMESRV="+cl.NameServer, "RMQC_DATA_DIR="+dir)

	jar, _ := cookiejar.New(nil)
	c := &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	res, err := c.PostForm(con.URL+"/login", url.Values{"name": {"vera"}, "password": {e2ePassword}})
	if err != nil || res.StatusCode != http.StatusSeeOther {
		t.Fatalf("sign in: %v %v", res, err)
	}
	res.Body.Close()
	u, _ := url.Parse(con.URL)
	cookie := jar.Cookies(u)
	if len(cookie) == 0 {
		t.Fatal("no session cookie")
	}
	wsURL := "ws://" + u.Host + "/ws/groups/" + dev.UniqueName("auth-ws")
	dial := func(origin string, withCookie bool) int {
		h := http.Header{}
		h.Set("Origin", origin)
		if withCookie {
			h.Set("Cookie", cookie[0].String())
		}
		conn, resp, err := websocket.DefaultDialer.Dial(wsURL, h)
		if err == nil {
			conn.Close()
			return http.StatusSwitchingProtocols
		}
		if resp == nil {
			t.Fatalf("dial %s: %v", wsURL, err)
		}
		return resp.StatusCode
	}
	if got := dial("http://evil.example", true); got != http.StatusForbidden {
		t.Errorf("websocket from another origin with the user's cookie: %d, want 403", got)
	}
	if got := dial(con.URL, false); got == http.StatusSwitchingProtocols {
		t.Errorf("websocket without a session was opened")
	}
	if got := dial(con.URL, true); got != http.StatusSwitchingProtocols {
		t.Errorf("same-origin websocket of a signed-in viewer: %d, want 101", got)
	}
}
