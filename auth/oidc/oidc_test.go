package oidc

import (
	"context"
	"fmt"
	"net"
	"net/http/cookiejar"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"rmqconsole/auth"
	"rmqconsole/dev/oidcprovider"
	"rmqconsole/fault"
)

const redirect = "http://127.0.0.1:1" + CallbackPath

var clients atomic.Int64

// newClient registers a client of its own at the test binary's provider (changed by
// edit) and returns the console's side of it.
func newClient(t *testing.T, edit func(*oidcprovider.Client)) (*oidcprovider.Provider, *Provider) {
	t.Helper()
	op, err := oidcprovider.Shared()
	if err != nil {
		t.Fatal(err)
	}
	c := oidcprovider.Client{ID: fmt.Sprintf("console-%d", clients.Add(1)), Secret: "s3cret", RedirectURIs: []string{redirect}}
	if edit != nil {
		edit(&c)
	}
	op.AddClient(c)
	p, err := New(Config{Issuer: op.Issuer, ClientID: c.ID, ClientSecret: "s3cret", RedirectURL: redirect,
		Scopes: []string{"profile", "email", "groups"}, Roles: auth.GroupRoles{"rmq-admins": auth.Admin, "rmq-ops": auth.Operator}})
	if err != nil {
		t.Fatal(err)
	}
	return op, p
}

// signIn starts a sign-in, signs in at the provider's own page as user, and returns the
// flow and what the provider sent the browser back with.
func signIn(t *testing.T, op *oidcprovider.Provider, p *Provider, user, password string) (*Flow, Callback) {
	t.Helper()
	authURL, f, err := p.Start(context.Background(), "/groups")
	if err != nil {
		t.Fatal(err)
	}
	u, _ := url.Parse(authURL)
	if q := u.Query(); q.Get("code_challenge_method") != "S256" || q.Get("nonce") == "" || q.Get("state") != f.State {
		t.Fatalf("authorization request without PKCE S256, nonce or state: %s", authURL)
	}
	jar, _ := cookiejar.New(nil)
	back, err := op.Browse(jar, authURL, user, password)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(back.String(), redirect) {
		t.Fatalf("sent back to %s", back)
	}
	q := back.Query()
	return f, Callback{State: q.Get("state"), Code: q.Get("code"), Error: q.Get("error"), Description: q.Get("error_description")}
}

func TestSignInThroughTheProviderGivesTheMappedRole(t *testing.T) {
	ctx := context.Background()
	op, p := newClient(t, nil)
	for _, c := range []struct {
		user string
		role auth.Role
	}{{"ada", auth.Admin}, {"otto", auth.Operator}, {"nina", auth.NoRole}} {
		f, cb := signIn(t, op, p, c.user, c.user+"-password")
		id, raw, err := p.Finish(ctx, f, cb)
		if err != nil {
			t.Fatalf("%s: %v", c.user, err)
		}
		if id.Name != c.user || id.Role != c.role || id.Provider != auth.ProviderOIDC || raw == "" || f.Next != "/groups" {
			t.Errorf("%s: %+v (next %q)", c.user, id, f.Next)
		}
	}
}

// Each bad way back is refused with its sentence; the caller starts no session.
func TestBadWaysBackAreRefused(t *testing.T) {
	ctx := context.Background()
	op, p := newClient(t, nil)

	// The state that came back is not the one this browser's flow holds.
	f, cb := signIn(t, op, p, "ada", "ada-password")
	g := *f
	g.State = "someone-elses-state"
	assertRefused(t, "state mismatch", p, &g, cb, "login.oidc.state", fault.Invalid)
	// No flow at all (no cookie): the same.
	assertRefused(t, "no flow", p, nil, cb, "login.oidc.state", fault.Invalid)
	// The code is single-use: the right flow after the code was spent is refused by
	// the provider.
	if _, _, err := p.Finish(ctx, f, cb); err != nil {
		t.Fatal(err)
	}
	assertRefused(t, "code used twice", p, f, cb, "login.oidc.exchange", fault.Unavailable)

	// A verifier other than the one whose challenge was sent: the provider refuses the
	// exchange (PKCE).
	f, cb = signIn(t, op, p, "ada", "ada-password")
	g = *f
	g.Verifier = "a-verifier-that-is-not-the-one-whose-challenge-was-sent-00000"
	assertRefused(t, "PKCE verifier", p, &g, cb, "login.oidc.exchange", fault.Unavailable)

	// The token carries the nonce of the flow that asked for it, not of this one.
	f, cb = signIn(t, op, p, "ada", "ada-password")
	g = *f
	g.Nonce = "another-nonce"
	assertRefused(t, "nonce", p, &g, cb, "login.oidc.nonce", fault.Refused)

	// A flow older than FlowTTL.
	f, cb = signIn(t, op, p, "ada", "ada-password")
	f.Expires = time.Now().Add(-time.Second)
	assertRefused(t, "expired flow", p, f, cb, "login.oidc.flow_expired", fault.Invalid)

	// The provider's own refusal comes back as error=.
	f, _ = signIn(t, op, p, "ada", "ada-password")
	assertRefused(t, "provider refusal", p, f, Callback{State: f.State, Error: "access_denied", Description: "user cancelled"},
		"login.oidc.provider_error", fault.Refused)
}

func TestTamperedIDTokenIsRefused(t *testing.T) {
	op, p := newClient(t, func(c *oidcprovider.Client) { c.TamperIDToken = true })
	f, cb := signIn(t, op, p, "otto", "otto-password")
	assertRefused(t, "tampered token", p, f, cb, "login.oidc.token_invalid", fault.Refused)
}

func TestExpiredIDTokenIsRefused(t *testing.T) {
	op, p := newClient(t, func(c *oidcprovider.Client) { c.IDTokenLifetime = -time.Minute })
	f, cb := signIn(t, op, p, "otto", "otto-password")
	assertRefused(t, "expired token", p, f, cb, "login.oidc.token_expired", fault.Refused)
}

func TestWrongIssuerIsSaid(t *testing.T) {
	op, err := oidcprovider.Shared()
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	nobody := "http://" + ln.Addr().String()
	ln.Close()
	for issuer, id := range map[string]string{
		nobody:            "login.oidc.discovery",       // nothing answers
		op.Issuer + "/":   "login.oidc.issuer_mismatch", // a slash too many: the provider calls itself otherwise
		op.Issuer + "/x/": "login.oidc.discovery",       // no discovery document there
	} {
		p, err := New(Config{Issuer: issuer, ClientID: "c", RedirectURL: redirect, Timeout: 2 * time.Second})
		if err != nil {
			t.Fatal(err)
		}
		_, _, err = p.Start(context.Background(), "/")
		if fe := fault.As(err); fe == nil || fe.Msg.ID != id || fe.Code != fault.Unavailable {
			t.Errorf("issuer %s: %v, want %s", issuer, err, id)
		}
	}
}

func assertRefused(t *testing.T, what string, p *Provider, f *Flow, cb Callback, id string, code fault.Code) {
	t.Helper()
	got, _, err := p.Finish(context.Background(), f, cb)
	if fe := fault.As(err); got != nil || fe == nil || fe.Msg.ID != id || fe.Code != code {
		t.Errorf("%s: identity %+v, error %v; want %s (%s)", what, got, err, id, code)
	}
}

func TestFlowCookieRoundTrip(t *testing.T) {
	f := &Flow{State: "s", Nonce: "n", Verifier: "v", Next: "/groups?x=1", Expires: time.Unix(1700000000, 0).UTC()}
	if g := DecodeFlow(f.Encode()); g == nil || *g != *f {
		t.Fatalf("round trip: %+v", g)
	}
	for _, bad := range []string{"", "%%%", "e30"} { // e30 is {}
		if DecodeFlow(bad) != nil {
			t.Errorf("DecodeFlow(%q) accepted", bad)
		}
	}
}

func TestConfigMistakes(t *testing.T) {
	for _, cfg := range []Config{
		{Issuer: "ftp://x", ClientID: "c", RedirectURL: redirect},
		{Issuer: "https://x", RedirectURL: redirect},
		{Issuer: "https://x", ClientID: "c", RedirectURL: "/login/oidc/callback"},
		{Issuer: "https://x", ClientID: "c", RedirectURL: "https://console.example.org/callback"},
	} {
		if _, err := New(cfg); err == nil {
			t.Errorf("%+v accepted", cfg)
		}
	}
}
