package e2e

import (
	"context"
	"encoding/json"
	"fmt"
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

	"github.com/apache/rocketmq-client-go/v2/primitive"
	"github.com/chromedp/chromedp"
	"github.com/gorilla/websocket"

	"rmqconsole/dev"
	"rmqconsole/dev/rmqclient"
	"rmqconsole/rocketmq"
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
	Do(t, ctx, "fill the sign-in form as "+name,
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="login-form"]`)),
		chromedp.Clear(chromedp.CSS(`#login-name`)),
		chromedp.SendKeys(chromedp.CSS(`#login-name`), name),
		chromedp.SendKeys(chromedp.CSS(`#login-password`), password),
	)
	// Waits for the page the sign-in leads to, whole: a node looked up while a long
	// page (a list of hundreds of groups) is still being read can vanish under a click.
	submit(t, ctx, "sign in as "+name, `[data-testid="login-submit"]`, "body")
}

// fetchResult is a same-origin fetch made by the page, with the browser's cookie.
type fetchResult struct {
	Status int    `json:"status"`
	Body   string `json:"body"`
}

func pageFetch(t *testing.T, ctx context.Context, method, path, jsonBody string) fetchResult {
	t.Helper()
	opts := `{method: ` + quoteJS(method)
	if jsonBody != "" {
		opts += `, headers: {"Content-Type": "application/json"}, body: ` + quoteJS(jsonBody)
	}
	js := `fetch(` + quoteJS(path) + `, ` + opts + `}).then(async r => ({status: r.status, body: await r.text()}))`
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

// offlineGroupWithBacklog makes a topic with n messages and a consumer group, not
// online, whose committed offsets are 0 on every queue: a backlog of n to skip.
func offlineGroupWithBacklog(t *testing.T, cl *dev.Cluster, n int) (topic, group string) {
	t.Helper()
	topic, group = dev.UniqueName("auth-t"), dev.UniqueName("auth-g")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	const queues = 2
	if err := cl.CreateTopic(ctx, topic, queues); err != nil {
		t.Fatal(err)
	}
	p := rmqclient.StartProducer(t, cl.NameServer, "")
	for i := range n {
		if r, err := p.SendSync(ctx, primitive.NewMessage(topic, []byte(fmt.Sprintf("backlog %d", i)))); err != nil || r.Status != primitive.SendOK {
			t.Fatalf("send: %v %v", r, err)
		}
	}
	c, err := rocketmq.New(rocketmq.Config{NameServer: cl.NameServer, Timeout: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	for _, b := range cl.Brokers {
		if err := c.UpdateSubscriptionGroup(ctx, b.Addr, rocketmq.SubscriptionGroupConfig{GroupName: group, ConsumeEnable: true}); err != nil {
			t.Fatal(err)
		}
		for q := range queues {
			if err := c.UpdateConsumerOffset(ctx, b.Addr, group, rocketmq.MessageQueue{Topic: topic, BrokerName: b.Name, QueueID: q}, 0); err != nil {
				t.Fatal(err)
			}
		}
	}
	return topic, group
}

// A viewer and an operator in a real browser, on the real reset pages: sign-in comes
// back to the page asked for, the viewer's preview is refused with a sentence and her
// apply audited as refused, the operator's is applied, a form posted from another site is refused,
// and signing out ends the session.
func TestSignInRolesAndSignOutInBrowser(t *testing.T) {
	cl := dev.RequireCluster(t)
	dir := t.TempDir()
	addUser(t, dir, "vera", "viewer")
	addUser(t, dir, "otto", "operator")
	topic, group := offlineGroupWithBacklog(t, cl, 8)
	con := StartConsole(t, "RMQC_NAMESRV="+cl.NameServer, "RMQC_DATA_DIR="+dir)
	ctx := Browser(t)
	resetPage := "/groups/" + group + "/reset?topic=" + url.QueryEscape(topic) + "&mode=latest&reason=skip+the+backlog"

	// Anonymous: the sign-in page, remembering the page asked for.
	Do(t, ctx, "open the reset form anonymously", chromedp.Navigate(con.URL+resetPage),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="login-form"]`)))
	if u := location(t, ctx); u.Path != "/login" || u.Query().Get("next") != resetPage {
		t.Fatalf("anonymous visitor sent to %s, want /login?next=%s", u, resetPage)
	}
	signIn(t, ctx, "vera", "not her password")
	Do(t, ctx, "see the refusal", chromedp.WaitVisible(chromedp.CSS(`[data-testid="login-error"]`)))
	if v := Get(t, ctx, "name kept", chromedp.Value(chromedp.CSS(`#login-name`))); v != "vera" {
		t.Errorf("after a wrong password the form shows name %q, want vera", v)
	}

	// The viewer signs in, lands on the reset form she asked for, and may read it.
	signIn(t, ctx, "vera", e2ePassword)
	Do(t, ctx, "land on the reset form", chromedp.WaitVisible(chromedp.CSS(`[data-testid="reset-form"]`)))
	if u := location(t, ctx); u.RequestURI() != resetPage {
		t.Errorf("after sign-in the browser is at %s, want %s", u.RequestURI(), resetPage)
	}
	if nav := Get(t, ctx, "nav", chromedp.Text(chromedp.CSS(`[data-testid="nav"]`))); !strings.Contains(nav, "vera") {
		t.Errorf("the header does not show who is signed in: %q", nav)
	}
	// Her preview is refused, saying why; it would have changed nothing, so it is not an
	// audit event. Her apply is a denied attempt, and is.
	Do(t, ctx, "ask for a preview", chromedp.Click(chromedp.CSS(`[data-testid="preview-button"]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="error"]`)))
	refusal := Get(t, ctx, "read the refusal", chromedp.Text(chromedp.CSS(`[data-testid="error"]`)))
	if !strings.Contains(refusal, "403") || !strings.Contains(refusal, "viewer") || !strings.Contains(refusal, "operator") {
		t.Fatalf("viewer's reset answered %q, want 403 naming viewer and operator", refusal)
	}
	var audit struct {
		Entries []struct {
			Status, Actor, Group, Mode, Reason string
			Topics                             []string
		} `json:"entries"`
	}
	readAudit := func() {
		t.Helper()
		res := pageFetch(t, ctx, "GET", "/api/v1/audit?actor=vera&status=refused&group="+url.QueryEscape(group), "")
		if err := json.Unmarshal([]byte(res.Body), &audit); err != nil || res.Status != 200 {
			t.Fatalf("audit of the refused reset: %d %s", res.Status, res.Body)
		}
	}
	if readAudit(); len(audit.Entries) != 0 {
		t.Fatalf("a refused preview was audited: %+v", audit.Entries)
	}
	res := pageFetch(t, ctx, "POST", "/api/v1/groups/"+url.PathEscape(group)+"/resets",
		`{"topic":"`+topic+`","mode":"latest","reason":"skip the backlog","planId":"p","confirm":true}`)
	if res.Status != http.StatusForbidden {
		t.Fatalf("viewer's apply: %d %s", res.Status, res.Body)
	}
	if readAudit(); len(audit.Entries) != 1 {
		t.Fatalf("viewer's refused apply: %d audit entries, want 1", len(audit.Entries))
	}
	if e := audit.Entries[0]; e.Mode != "latest" || e.Reason != "skip the backlog" || len(e.Topics) != 1 || e.Topics[0] != topic {
		t.Errorf("refused entry %+v does not record what was asked", e)
	}

	// Signing out ends the session: the next page asks to sign in again.
	Do(t, ctx, "sign out", chromedp.Navigate(con.URL+"/"),
		chromedp.Click(chromedp.CSS(`form[action="/logout"] button`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="login-notice"]`)))
	Do(t, ctx, "reopen the reset form", chromedp.Navigate(con.URL+resetPage),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="login-form"]`)))

	// The operator previews and applies the same reset.
	signIn(t, ctx, "otto", e2ePassword)
	Do(t, ctx, "preview as operator",
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="reset-form"]`)),
		chromedp.Click(chromedp.CSS(`[data-testid="preview-button"]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="apply-form"]`)),
		chromedp.Click(chromedp.CSS(`[data-testid="confirm"]`)),
		chromedp.Click(chromedp.CSS(`[data-testid="apply"]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="result-status"]`)),
	)
	if st := Get(t, ctx, "result", chromedp.Text(chromedp.CSS(`[data-testid="result-status"]`))); st != "applied" {
		t.Fatalf("operator's reset ended %q, want applied", st)
	}
	res = pageFetch(t, ctx, "GET", "/api/v1/audit?actor=otto&group="+url.QueryEscape(group), "")
	if !strings.Contains(res.Body, `"status":"applied"`) {
		t.Fatalf("operator's reset not audited as applied by otto: %s", res.Body)
	}

	// A token made through the page's htmx form (a same-origin htmx POST) is shown once
	// and works.
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
	if n := Get(t, ctx, "count headings", chromedp.Evaluate[int](`document.querySelectorAll("h1").length`)); n != 1 {
		t.Errorf("after creating a token the page has %d headings: the swap nested a page in the page", n)
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
	if res := pageFetch(t, ctx, "GET", "/api/v1/groups", ""); res.Status != http.StatusUnauthorized {
		t.Fatalf("API after sign-out: %d, want 401", res.Status)
	}
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
