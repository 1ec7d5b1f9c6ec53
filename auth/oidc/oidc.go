// Package oidc signs people in through an OpenID Connect provider (Keycloak, Okta,
// Entra ID, Google, Dex, ZITADEL …) with the authorization code flow, PKCE (S256), a
// state and a nonce, over github.com/coreos/go-oidc and golang.org/x/oauth2. The ID
// token's name and groups claims make the console user and their role.
package oidc

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	gooidc "github.com/coreos/go-oidc/v3/oidc"
	"golang.org/x/oauth2"

	"rmqconsole/auth"
	"rmqconsole/fault"
)

// CallbackPath is where the provider sends the browser back: the path of the redirect
// URL registered with the provider.
const CallbackPath = "/login/oidc/callback"

// FlowTTL is how long a started sign-in may take at the provider.
const FlowTTL = 10 * time.Minute

// Config says which provider and client to use.
type Config struct {
	// Issuer is the provider's issuer URL, exactly as its discovery document says it.
	Issuer       string
	ClientID     string
	ClientSecret string // empty for a public client (PKCE alone)
	// Scopes are asked for besides openid.
	Scopes []string
	// RedirectURL is CallbackPath on the console's public URL, as registered.
	RedirectURL string
	// NameClaim holds the console user name (default preferred_username); GroupsClaim
	// the groups (default groups), a list or one string.
	NameClaim, GroupsClaim string
	// Roles map groups to console roles.
	Roles auth.GroupRoles
	// Label names the provider on the sign-in button (default: the issuer's host).
	Label string
	// Timeout bounds each call to the provider (default 10s).
	Timeout time.Duration
	// Now is the clock ID tokens are judged by (default time.Now).
	Now func() time.Time
}

// Provider is one configured OpenID provider. Its discovery document is fetched on
// first use and kept once it was read.
type Provider struct {
	cfg    Config
	client *http.Client

	discovering sync.Mutex
	mu          sync.Mutex // guards op and endSession
	op          *gooidc.Provider
	endSession  string
}

// New checks cfg; nothing is fetched yet (see Discover).
func New(cfg Config) (*Provider, error) {
	iu, err := url.Parse(cfg.Issuer)
	if err != nil || (iu.Scheme != "https" && iu.Scheme != "http") || iu.Host == "" {
		return nil, fmt.Errorf("issuer %q is not an http(s) URL", cfg.Issuer)
	}
	if cfg.ClientID == "" {
		return nil, errors.New("no client id")
	}
	ru, err := url.Parse(cfg.RedirectURL)
	if err != nil || (ru.Scheme != "https" && ru.Scheme != "http") || ru.Host == "" {
		return nil, fmt.Errorf("redirect URL %q is not an absolute http(s) URL", cfg.RedirectURL)
	}
	if ru.Path != CallbackPath || ru.RawQuery != "" {
		return nil, fmt.Errorf("redirect URL %q must end in %s, the console's callback", cfg.RedirectURL, CallbackPath)
	}
	if cfg.NameClaim == "" {
		cfg.NameClaim = "preferred_username"
	}
	if cfg.GroupsClaim == "" {
		cfg.GroupsClaim = "groups"
	}
	if cfg.Label == "" {
		cfg.Label = iu.Host
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = 10 * time.Second
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	cfg.Scopes = slices.DeleteFunc(slices.Clone(cfg.Scopes), func(s string) bool { return s == gooidc.ScopeOpenID || s == "" })
	return &Provider{cfg: cfg, client: &http.Client{Timeout: cfg.Timeout}}, nil
}

// Label names the provider for the sign-in button.
func (p *Provider) Label() string { return p.cfg.Label }

// Issuer is the configured issuer URL.
func (p *Provider) Issuer() string { return p.cfg.Issuer }

// Discover fetches the provider's discovery document, once it succeeds. A failure says
// in a sentence why the provider cannot be used (and is tried again next time).
func (p *Provider) Discover(ctx context.Context) (*gooidc.Provider, error) {
	p.mu.Lock()
	op := p.op
	p.mu.Unlock()
	if op != nil {
		return op, nil
	}
	// One discovery at a time; mu is not held meanwhile, so the pages (EndSessionOrigin)
	// never wait for a provider that does not answer.
	p.discovering.Lock()
	defer p.discovering.Unlock()
	p.mu.Lock()
	op = p.op
	p.mu.Unlock()
	if op != nil {
		return op, nil
	}
	ctx, cancel := context.WithTimeout(gooidc.ClientContext(ctx, p.client), p.cfg.Timeout)
	defer cancel()
	op, err := gooidc.NewProvider(ctx, p.cfg.Issuer)
	var mismatch *gooidc.IssuerMismatchError
	switch {
	case errors.As(err, &mismatch):
		return nil, fault.Wrap(err, fault.Unavailable, "login.oidc.issuer_mismatch", "Issuer", p.cfg.Issuer,
			"Discovered", mismatch.Discovered).Because("oidc_discovery")
	case err != nil:
		return nil, fault.Wrap(err, fault.Unavailable, "login.oidc.discovery", "Issuer", p.cfg.Issuer,
			"Error", err.Error()).Because("oidc_discovery")
	}
	var meta struct {
		EndSession string `json:"end_session_endpoint"`
	}
	_ = op.Claims(&meta)
	p.mu.Lock()
	p.op, p.endSession = op, meta.EndSession
	p.mu.Unlock()
	return op, nil
}

// Flow is a sign-in under way, kept in the browser (a cookie) between the redirect to
// the provider and the way back: the state and nonce that must come back, and the PKCE
// verifier that only the console sends.
type Flow struct {
	State    string    `json:"s"`
	Nonce    string    `json:"n"`
	Verifier string    `json:"v"`
	Next     string    `json:"x"`
	Expires  time.Time `json:"e"`
}

// Encode is f as a cookie value.
func (f *Flow) Encode() string {
	b, _ := json.Marshal(f)
	return base64.RawURLEncoding.EncodeToString(b)
}

// DecodeFlow reads a cookie value written by Encode; nil when it is not one.
func DecodeFlow(s string) *Flow {
	b, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil {
		return nil
	}
	var f Flow
	if json.Unmarshal(b, &f) != nil || f.State == "" || f.Nonce == "" || f.Verifier == "" {
		return nil
	}
	return &f
}

func (p *Provider) oauth(op *gooidc.Provider) *oauth2.Config {
	return &oauth2.Config{ClientID: p.cfg.ClientID, ClientSecret: p.cfg.ClientSecret, Endpoint: op.Endpoint(),
		RedirectURL: p.cfg.RedirectURL, Scopes: append([]string{gooidc.ScopeOpenID}, p.cfg.Scopes...)}
}

// Start begins a sign-in: the provider's URL to send the browser to, and the flow to
// keep until it comes back to next.
func (p *Provider) Start(ctx context.Context, next string) (string, *Flow, error) {
	op, err := p.Discover(ctx)
	if err != nil {
		return "", nil, err
	}
	f := &Flow{State: random(), Nonce: random(), Verifier: oauth2.GenerateVerifier(), Next: next,
		Expires: p.cfg.Now().Add(FlowTTL)}
	u := p.oauth(op).AuthCodeURL(f.State, gooidc.Nonce(f.Nonce), oauth2.S256ChallengeOption(f.Verifier))
	return u, f, nil
}

// Callback is what the provider sent the browser back with.
type Callback struct {
	State, Code string
	// Error and Description are the provider's refusal (error, error_description).
	Error, Description string
}

// Finish completes a sign-in: checks that cb belongs to flow f (the state), exchanges
// the code (with the PKCE verifier), verifies the ID token (signature, issuer,
// audience, expiry, nonce) and reads the user's name and groups. It answers the
// identity and the raw ID token (for RP-initiated logout), or a sentence why not.
func (p *Provider) Finish(ctx context.Context, f *Flow, cb Callback) (*auth.Identity, string, error) {
	if f == nil || f.State == "" || subtle.ConstantTimeCompare([]byte(f.State), []byte(cb.State)) != 1 {
		return nil, "", fault.New(fault.Invalid, "login.oidc.state").Because("oidc_state")
	}
	if p.cfg.Now().After(f.Expires) {
		return nil, "", fault.New(fault.Invalid, "login.oidc.flow_expired", "Minutes", int(FlowTTL/time.Minute)).Because("oidc_state")
	}
	if cb.Error != "" {
		return nil, "", fault.New(fault.Refused, "login.oidc.provider_error", "Provider", p.cfg.Label,
			"Error", strings.TrimSpace(cb.Error+" "+cb.Description)).Because("oidc_refused")
	}
	if cb.Code == "" {
		return nil, "", fault.New(fault.Invalid, "login.oidc.no_code", "Provider", p.cfg.Label).Because("oidc_state")
	}
	op, err := p.Discover(ctx)
	if err != nil {
		return nil, "", err
	}
	ctx, cancel := context.WithTimeout(context.WithValue(gooidc.ClientContext(ctx, p.client), oauth2.HTTPClient, p.client), p.cfg.Timeout)
	defer cancel()
	oc := p.oauth(op)
	tok, err := oc.Exchange(ctx, cb.Code, oauth2.VerifierOption(f.Verifier))
	if err != nil {
		return nil, "", fault.Wrap(err, fault.Unavailable, "login.oidc.exchange", "Provider", p.cfg.Label,
			"Error", err.Error()).Because("oidc_exchange")
	}
	raw, _ := tok.Extra("id_token").(string)
	if raw == "" {
		return nil, "", fault.New(fault.Unavailable, "login.oidc.no_id_token", "Provider", p.cfg.Label).Because("oidc_exchange")
	}
	idt, err := op.Verifier(&gooidc.Config{ClientID: p.cfg.ClientID, Now: p.cfg.Now}).Verify(ctx, raw)
	var expired *gooidc.TokenExpiredError
	switch {
	case errors.As(err, &expired):
		return nil, "", fault.Wrap(err, fault.Refused, "login.oidc.token_expired", "Provider", p.cfg.Label,
			"Expiry", expired.Expiry.UTC().Format(time.RFC3339)).Because("oidc_token")
	case err != nil:
		return nil, "", fault.Wrap(err, fault.Refused, "login.oidc.token_invalid", "Provider", p.cfg.Label,
			"Error", err.Error()).Because("oidc_token")
	}
	if subtle.ConstantTimeCompare([]byte(idt.Nonce), []byte(f.Nonce)) != 1 {
		return nil, "", fault.New(fault.Refused, "login.oidc.nonce", "Provider", p.cfg.Label).Because("oidc_token")
	}
	var claims map[string]any
	if err := idt.Claims(&claims); err != nil {
		return nil, "", fault.Wrap(err, fault.Refused, "login.oidc.token_invalid", "Provider", p.cfg.Label,
			"Error", err.Error()).Because("oidc_token")
	}
	// Some providers leave names or groups out of the ID token and give them at userinfo.
	if _, ok := claims[p.cfg.GroupsClaim]; (!ok || claims[p.cfg.NameClaim] == nil) && op.UserInfoEndpoint() != "" {
		if ui, err := op.UserInfo(ctx, oc.TokenSource(ctx, tok)); err == nil && ui.Subject == idt.Subject {
			var more map[string]any
			if ui.Claims(&more) == nil {
				for k, v := range more {
					if _, ok := claims[k]; !ok {
						claims[k] = v
					}
				}
			}
		}
	}
	name, _ := claims[p.cfg.NameClaim].(string)
	if name == "" {
		return nil, "", fault.New(fault.Refused, "login.oidc.no_name", "Provider", p.cfg.Label,
			"Claim", p.cfg.NameClaim).Because("oidc_claims")
	}
	id := &auth.Identity{Name: name, Groups: stringsOf(claims[p.cfg.GroupsClaim]), Provider: auth.ProviderOIDC}
	id.Role = p.cfg.Roles.RoleOf(id.Groups)
	return id, raw, nil
}

// EndSessionURL is where to send the browser to end its session at the provider too
// (RP-initiated logout), then come back to postLogout; "" when the provider does not
// offer it (or was never reached).
func (p *Provider) EndSessionURL(idTokenHint, postLogout string) string {
	p.mu.Lock()
	end := p.endSession
	p.mu.Unlock()
	if end == "" {
		return ""
	}
	u, err := url.Parse(end)
	if err != nil {
		return ""
	}
	q := u.Query()
	q.Set("client_id", p.cfg.ClientID)
	if idTokenHint != "" {
		q.Set("id_token_hint", idTokenHint)
	}
	if postLogout != "" {
		q.Set("post_logout_redirect_uri", postLogout)
	}
	u.RawQuery = q.Encode()
	return u.String()
}

// EndSessionOrigin is the scheme and host of the provider's end_session_endpoint ("" when
// it has none, or was not reached yet): sign-out's form leads there.
func (p *Provider) EndSessionOrigin() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	u, err := url.Parse(p.endSession)
	if p.endSession == "" || err != nil || u.Host == "" {
		return ""
	}
	return u.Scheme + "://" + u.Host
}

// PostLogoutURL is the console's sign-in page on the origin of the redirect URL, where
// the provider sends the browser after RP-initiated logout (register it with the
// provider as a post-logout redirect URI).
func (p *Provider) PostLogoutURL() string {
	u, _ := url.Parse(p.cfg.RedirectURL)
	return u.Scheme + "://" + u.Host + "/login?reason=signed-out"
}

// stringsOf reads a groups claim: a list of strings, or one string.
func stringsOf(v any) []string {
	switch g := v.(type) {
	case string:
		return []string{g}
	case []any:
		var out []string
		for _, x := range g {
			if s, ok := x.(string); ok {
				out = append(out, s)
			}
		}
		return out
	}
	return nil
}

// random is 256 random bits, URL-safe.
func random() string {
	b := make([]byte, 32)
	rand.Read(b)
	return base64.RawURLEncoding.EncodeToString(b)
}
