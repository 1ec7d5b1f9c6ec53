// Package oidcprovider is a real OpenID provider for tests and development, built on
// zitadel/oidc's op package: discovery, the authorization code flow (PKCE S256
// required), signed ID tokens, userinfo and RP-initiated logout, with a sign-in page
// of its own and a session cookie, so signing in again skips the page until the
// session is ended. It listens on loopback on a free port.
//
// It is not part of the console: only tests and `go run ./dev/cmd/oidcdev` import it.
package oidcprovider

import (
	"context"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/zitadel/oidc/v3/pkg/op"
)

// User is a person the provider knows.
type User struct {
	Name     string // preferred_username, and the subject
	Password string
	Email    string
	Groups   []string // the "groups" claim
}

// Client is a relying party registered with the provider.
type Client struct {
	ID string
	// Secret is checked with client_secret_basic or client_secret_post; empty makes a
	// public client (PKCE only).
	Secret                 string
	RedirectURIs           []string
	PostLogoutRedirectURIs []string
	// IDTokenLifetime is how long the ID tokens issued to this client are valid
	// (default 5 minutes); a negative one issues tokens that expired before they
	// were issued.
	IDTokenLifetime time.Duration
	// TamperIDToken makes the token endpoint hand this client ID tokens whose claims
	// were changed after signing (the user made an admin): their signature no longer
	// matches.
	TamperIDToken bool
}

// The users of DefaultUsers, in two groups, and one in none.
var DefaultUsers = []User{
	{Name: "ada", Password: "ada-password", Email: "ada@example.org", Groups: []string{"rmq-admins"}},
	{Name: "otto", Password: "otto-password", Email: "otto@example.org", Groups: []string{"rmq-ops"}},
	{Name: "nina", Password: "nina-password", Email: "nina@example.org", Groups: []string{"sales"}},
}

// Provider is a running OpenID provider.
type Provider struct {
	// Issuer is its issuer URL, http://127.0.0.1:PORT.
	Issuer string
	st     *storage
	srv    *http.Server
	done   chan struct{}
}

// Start runs a provider knowing users on a free loopback port.
func Start(users []User) (*Provider, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		ln.Close()
		return nil, err
	}
	p := &Provider{Issuer: "http://" + ln.Addr().String(), done: make(chan struct{})}
	p.st = newStorage(users, key)
	var cryptoKey [32]byte
	if _, err := rand.Read(cryptoKey[:]); err != nil {
		ln.Close()
		return nil, err
	}
	cfg := &op.Config{
		CryptoKey:                cryptoKey,
		CodeMethodS256:           true,
		AuthMethodPost:           true,
		DefaultLogoutRedirectURI: "/signed-out",
		SupportedScopes:          []string{"openid", "profile", "email", "groups"},
		SupportedClaims:          append(append([]string{}, op.DefaultSupportedClaims...), "groups"),
	}
	prov, err := op.NewProvider(cfg, p.st, op.StaticIssuer(p.Issuer), op.WithAllowInsecure())
	if err != nil {
		ln.Close()
		return nil, fmt.Errorf("OpenID provider: %w", err)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/login", p.login)
	mux.HandleFunc("GET /signed-out", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, `<!doctype html><title>Signed out</title><p id="op-signed-out">You are signed out of the test provider.</p>`)
	})
	mux.Handle("/oauth/token", p.tamper(prov))
	mux.Handle("/", prov)
	p.srv = &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go func() {
		defer close(p.done)
		if err := p.srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			slog.Error("OpenID provider stopped", "err", err)
		}
	}()
	return p, nil
}

// AddClient registers (or replaces) a relying party.
func (p *Provider) AddClient(c Client) {
	p.st.mu.Lock()
	defer p.st.mu.Unlock()
	p.st.clients[c.ID] = &c
}

// SignedIn reports whether user has a session at the provider (signed in and not
// signed out since).
func (p *Provider) SignedIn(user string) bool {
	p.st.mu.Lock()
	defer p.st.mu.Unlock()
	for _, u := range p.st.sessions {
		if u == user {
			return true
		}
	}
	return false
}

// Close stops the provider.
func (p *Provider) Close() {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	p.srv.Shutdown(ctx)
	<-p.done
}

var shared struct {
	once sync.Once
	p    *Provider
	err  error
}

// Shared returns the provider of this test binary, started with DefaultUsers on
// first use. It runs in the test binary's own process and ends with it.
func Shared() (*Provider, error) {
	shared.once.Do(func() { shared.p, shared.err = Start(DefaultUsers) })
	return shared.p, shared.err
}

// randomID is 128 random bits as hex.
func randomID() string {
	b := make([]byte, 16)
	rand.Read(b)
	return hex.EncodeToString(b)
}

// keyID names the signing key in the key set.
func keyID(k *rsa.PrivateKey) string {
	sum := sha256.Sum256(k.PublicKey.N.Bytes())
	return base64.RawURLEncoding.EncodeToString(sum[:8])
}

// Browse acts as a person's browser at the provider for tests without Chromium: it
// follows authURL (a relying party's redirect to the provider), signs in on the
// provider's page as user with password when the page asks, and returns the URL the
// provider then sends the browser to (the relying party's redirect URL with a code and
// the state), without following it. jar keeps the provider's session between calls.
func (p *Provider) Browse(jar http.CookieJar, authURL, user, password string) (*url.URL, error) {
	var back *url.URL
	client := &http.Client{Jar: jar, Timeout: 10 * time.Second,
		CheckRedirect: func(req *http.Request, _ []*http.Request) error {
			if !strings.HasPrefix(req.URL.String(), p.Issuer+"/") {
				back = req.URL
				return http.ErrUseLastResponse
			}
			return nil
		}}
	res, err := client.Get(authURL)
	if err != nil {
		return nil, err
	}
	res.Body.Close()
	if back != nil { // signed in already: no page
		return back, nil
	}
	if res.Request.URL.Path != "/login" {
		return nil, fmt.Errorf("the provider answered %s at %s, not its sign-in page", res.Status, res.Request.URL)
	}
	id := res.Request.URL.Query().Get("authRequestID")
	res, err = client.PostForm(p.Issuer+"/login", url.Values{"authRequestID": {id}, "username": {user}, "password": {password}})
	if err != nil {
		return nil, err
	}
	res.Body.Close()
	if back == nil {
		return nil, fmt.Errorf("the provider did not send the browser back after signing in as %s: %s at %s", user, res.Status, res.Request.URL)
	}
	return back, nil
}
