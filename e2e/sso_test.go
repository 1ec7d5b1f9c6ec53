package e2e

import (
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"rmqconsole/dev"
	"rmqconsole/dev/oidcprovider"
)

// In Chromium: a person signs in through the OpenID provider's own sign-in page and
// lands on the console with the role of their groups; signing out ends the provider's
// session too, so the next sign-in asks for the password again; a directory account
// signs in with the console's own form. Each sign-in shows on /audit.
func TestSignInThroughTheProviderAndTheDirectory(t *testing.T) {
	ctx := Browser(t)
	l := dev.RequireLDAP(t)
	op, err := oidcprovider.Shared()
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := strconv.Itoa(ln.Addr().(*net.TCPAddr).Port)
	ln.Close()
	base := "http://127.0.0.1:" + port
	op.AddClient(oidcprovider.Client{ID: "console-e2e", Secret: "e2e-secret", RedirectURIs: []string{base + "/login/oidc/callback"},
		PostLogoutRedirectURIs: []string{base + "/login?reason=signed-out"}})
	dir := t.TempDir()
	secret, bindPassword := filepath.Join(dir, "oidc-secret"), filepath.Join(dir, "ldap-password")
	os.WriteFile(secret, []byte("e2e-secret\n"), 0o600)
	os.WriteFile(bindPassword, []byte(dev.LDAPServicePassword+"\n"), 0o600)
	c := StartConsole(t, "RMQC_LISTEN=127.0.0.1:"+port,
		"RMQC_OIDC_ISSUER="+op.Issuer, "RMQC_OIDC_CLIENT_ID=console-e2e", "RMQC_OIDC_CLIENT_SECRET_FILE="+secret,
		"RMQC_OIDC_REDIRECT_URL="+base+"/login/oidc/callback", "RMQC_OIDC_SCOPES=openid profile email groups",
		"RMQC_OIDC_ROLES=rmq-admins=admin,rmq-ops=operator", "RMQC_OIDC_LABEL=Example SSO",
		"RMQC_LDAP_URL="+l.URL(), "RMQC_LDAP_START_TLS=true", "RMQC_LDAP_CA_FILE="+l.CAFile,
		"RMQC_LDAP_BIND_DN="+dev.LDAPServiceDN, "RMQC_LDAP_BIND_PASSWORD_FILE="+bindPassword,
		"RMQC_LDAP_USER_BASE="+dev.LDAPPeopleBase, "RMQC_LDAP_GROUP_BASE="+dev.LDAPGroupBase,
		"RMQC_LDAP_ROLES=rmq-admins=admin,rmq-ops=operator")
	if !strings.Contains(c.Log(), "OpenID provider ready") {
		t.Fatalf("the console did not say the provider is ready:\n%s", c.Log())
	}
	audit := c.URL + "/audit?kind=sign-in"

	// Through the provider's own page.
	providerSignIn := func(user string) {
		t.Helper()
		Do(t, ctx, "sign in with the provider as "+user,
			chromedp.Navigate(c.URL+"/login?next="+"%2Faudit%3Fkind%3Dsign-in"),
			chromedp.WaitVisible(chromedp.CSS(`[data-testid="login-oidc"]`)),
			chromedp.Click(chromedp.CSS(`[data-testid="login-oidc"]`)),
			chromedp.WaitVisible(chromedp.CSS(`#op-login`)),
			chromedp.SendKeys(chromedp.CSS(`#op-username`), user),
			chromedp.SendKeys(chromedp.CSS(`#op-password`), user+"-password"),
			chromedp.Click(chromedp.CSS(`#op-submit`)),
			chromedp.WaitVisible(chromedp.CSS(`[data-testid="audit-entries"]`)),
		)
	}
	Do(t, ctx, "open the sign-in page", chromedp.Navigate(c.URL+"/login"), chromedp.WaitVisible(chromedp.CSS(`[data-testid="login-oidc"]`)))
	if label := TextNow(t, ctx, "provider button", `[data-testid="login-oidc"]`); label != "Sign in with Example SSO" {
		t.Errorf("provider button: %q", label)
	}
	Screenshot(t, ctx, "sso-login")
	providerSignIn("ada")
	if got := location(t, ctx).String(); got != audit {
		t.Fatalf("after signing in at the provider: on %s, want %s", got, audit)
	}
	Screenshot(t, ctx, "sso-audit-signins")
	row := TextNow(t, ctx, "newest sign-in", `[data-testid="audit-entries"] tbody tr`)
	if !strings.Contains(row, "ada") || !strings.Contains(row, "OpenID Connect") || !strings.Contains(row, "as admin") {
		t.Errorf("newest sign-in row: %q, want ada through OpenID Connect as admin", row)
	}
	// An admin may manage another user's tokens: the mapped role is in force.
	if r := pageFetch(t, ctx, "GET", "/api/v1/users/otto/tokens", ""); r.Status == 403 {
		t.Errorf("ada, mapped to admin, was refused an admin's page: %s", r.Body)
	}

	// Sign out: the console, then the provider; back on the sign-in page.
	Do(t, ctx, "sign out", chromedp.Click(chromedp.CSS(`form[action="/logout"] button`)))
	waitLocation(t, ctx, c.URL+"/login")
	if u := location(t, ctx); u.Host != "127.0.0.1:"+port || u.Path != "/login" || op.SignedIn("ada") {
		t.Fatalf("after signing out: on %s, signed in at the provider: %v", u, op.SignedIn("ada"))
	}
	// The provider asks again (its session ended): otto signs in, an operator.
	providerSignIn("otto")
	if r := pageFetch(t, ctx, "GET", "/api/v1/users/ada/tokens", ""); r.Status != 403 {
		t.Errorf("otto, mapped to operator, managed another user's tokens: %d", r.Status)
	}
	Do(t, ctx, "sign out", chromedp.Click(chromedp.CSS(`form[action="/logout"] button`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="login-form"]`)))

	// A directory account with the console's own form.
	Do(t, ctx, "open the sign-in page", chromedp.Navigate(c.URL+"/login?next=%2Faudit%3Fkind%3Dsign-in"))
	signIn(t, ctx, "lena", "lena-password")
	Do(t, ctx, "land on the audit log", chromedp.WaitVisible(chromedp.CSS(`[data-testid="audit-entries"]`)))
	row = TextNow(t, ctx, "newest sign-in", `[data-testid="audit-entries"] tbody tr`)
	if !strings.Contains(row, "lena") || !strings.Contains(row, "LDAP") || !strings.Contains(row, "as admin") {
		t.Errorf("newest sign-in row: %q, want lena through LDAP as admin", row)
	}
}
