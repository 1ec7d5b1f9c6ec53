package oidcprovider

import (
	"context"
	"crypto/rsa"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	jose "github.com/go-jose/go-jose/v4"
	"github.com/zitadel/oidc/v3/pkg/oidc"
	"github.com/zitadel/oidc/v3/pkg/op"
)

// storage keeps everything in memory: the provider lives as long as its test binary.
type storage struct {
	key *rsa.PrivateKey
	kid string

	mu       sync.Mutex
	users    map[string]User
	clients  map[string]*Client
	requests map[string]*authRequest // by id
	codes    map[string]string       // code → request id
	tokens   map[string]accessToken  // by id
	// sessions are the provider's own browser sessions: cookie value → user name.
	sessions map[string]string
}

type accessToken struct {
	subject, clientID string
	scopes            []string
	expires           time.Time
}

func newStorage(users []User, key *rsa.PrivateKey) *storage {
	s := &storage{key: key, kid: keyID(key), users: map[string]User{}, clients: map[string]*Client{},
		requests: map[string]*authRequest{}, codes: map[string]string{}, tokens: map[string]accessToken{},
		sessions: map[string]string{}}
	for _, u := range users {
		s.users[u.Name] = u
	}
	return s
}

// authRequest is one authorization request, from /authorize until its code is exchanged.
type authRequest struct {
	id       string
	req      oidc.AuthRequest
	subject  string
	authTime time.Time
	done     bool
}

func (a *authRequest) GetID() string                      { return a.id }
func (a *authRequest) GetACR() string                     { return "" }
func (a *authRequest) GetAMR() []string                   { return []string{"pwd"} }
func (a *authRequest) GetAudience() []string              { return []string{a.req.ClientID} }
func (a *authRequest) GetAuthTime() time.Time             { return a.authTime }
func (a *authRequest) GetClientID() string                { return a.req.ClientID }
func (a *authRequest) GetNonce() string                   { return a.req.Nonce }
func (a *authRequest) GetRedirectURI() string             { return a.req.RedirectURI }
func (a *authRequest) GetResponseType() oidc.ResponseType { return a.req.ResponseType }
func (a *authRequest) GetResponseMode() oidc.ResponseMode { return a.req.ResponseMode }
func (a *authRequest) GetScopes() []string                { return a.req.Scopes }
func (a *authRequest) GetState() string                   { return a.req.State }
func (a *authRequest) GetSubject() string                 { return a.subject }
func (a *authRequest) Done() bool                         { return a.done }
func (a *authRequest) GetCodeChallenge() *oidc.CodeChallenge {
	if a.req.CodeChallenge == "" {
		return nil
	}
	return &oidc.CodeChallenge{Challenge: a.req.CodeChallenge, Method: a.req.CodeChallengeMethod}
}

var errNotFound = errors.New("not found")

// CreateAuthRequest keeps a new request. PKCE with S256 is required of every client,
// so a relying party that forgets it is refused here.
func (s *storage) CreateAuthRequest(_ context.Context, req *oidc.AuthRequest, _ string) (op.AuthRequest, error) {
	if req.CodeChallenge == "" || req.CodeChallengeMethod != oidc.CodeChallengeMethodS256 {
		return nil, oidc.ErrInvalidRequest().WithDescription("this provider requires PKCE with code_challenge_method S256")
	}
	if req.Nonce == "" {
		return nil, oidc.ErrInvalidRequest().WithDescription("this provider requires a nonce")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	a := &authRequest{id: randomID(), req: *req}
	s.requests[a.id] = a
	return a, nil
}

func (s *storage) AuthRequestByID(_ context.Context, id string) (op.AuthRequest, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	a, ok := s.requests[id]
	if !ok {
		return nil, fmt.Errorf("auth request %s: %w", id, errNotFound)
	}
	return a, nil
}

func (s *storage) AuthRequestByCode(_ context.Context, code string) (op.AuthRequest, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	a, ok := s.requests[s.codes[code]]
	if !ok {
		return nil, fmt.Errorf("code: %w", errNotFound)
	}
	return a, nil
}

func (s *storage) SaveAuthCode(_ context.Context, id, code string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.codes[code] = id
	return nil
}

// DeleteAuthRequest ends a request once its code is exchanged: a code works once.
func (s *storage) DeleteAuthRequest(_ context.Context, id string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.requests, id)
	for code, rid := range s.codes {
		if rid == id {
			delete(s.codes, code)
		}
	}
	return nil
}

// complete marks a request as signed in by user.
func (s *storage) complete(id, user string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	a, ok := s.requests[id]
	if !ok {
		return fmt.Errorf("auth request %s: %w", id, errNotFound)
	}
	a.subject, a.authTime, a.done = user, time.Now(), true
	return nil
}

func (s *storage) CreateAccessToken(_ context.Context, req op.TokenRequest) (string, time.Time, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	id, exp := randomID(), time.Now().Add(5*time.Minute)
	t := accessToken{subject: req.GetSubject(), scopes: req.GetScopes(), expires: exp}
	if a, ok := req.(*authRequest); ok {
		t.clientID = a.GetClientID()
	}
	s.tokens[id] = t
	return id, exp, nil
}

func (s *storage) CreateAccessAndRefreshTokens(context.Context, op.TokenRequest, string) (string, string, time.Time, error) {
	return "", "", time.Time{}, errors.New("refresh tokens are not issued")
}

func (s *storage) TokenRequestByRefreshToken(context.Context, string) (op.RefreshTokenRequest, error) {
	return nil, op.ErrInvalidRefreshToken
}

// TerminateSession is RP-initiated logout: the user's sessions at the provider end.
func (s *storage) TerminateSession(_ context.Context, user, _ string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	for k, u := range s.sessions {
		if u == user {
			delete(s.sessions, k)
		}
	}
	return nil
}

func (s *storage) RevokeToken(_ context.Context, token, _, _ string) *oidc.Error {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.tokens, token)
	return nil
}

func (s *storage) GetRefreshTokenInfo(context.Context, string, string) (string, string, error) {
	return "", "", op.ErrInvalidRefreshToken
}

// signingKey and publicKey are the one RSA key pair.
type signingKey struct {
	kid string
	key *rsa.PrivateKey
}

func (k signingKey) SignatureAlgorithm() jose.SignatureAlgorithm { return jose.RS256 }
func (k signingKey) Key() any                                    { return k.key }
func (k signingKey) ID() string                                  { return k.kid }

type publicKey struct{ signingKey }

func (k publicKey) Algorithm() jose.SignatureAlgorithm { return jose.RS256 }
func (k publicKey) Use() string                        { return "sig" }
func (k publicKey) Key() any                           { return &k.key.PublicKey }

func (s *storage) SigningKey(context.Context) (op.SigningKey, error) {
	return signingKey{kid: s.kid, key: s.key}, nil
}

func (s *storage) SignatureAlgorithms(context.Context) ([]jose.SignatureAlgorithm, error) {
	return []jose.SignatureAlgorithm{jose.RS256}, nil
}

func (s *storage) KeySet(context.Context) ([]op.Key, error) {
	return []op.Key{publicKey{signingKey{kid: s.kid, key: s.key}}}, nil
}

func (s *storage) GetClientByClientID(_ context.Context, id string) (op.Client, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	c, ok := s.clients[id]
	if !ok {
		return nil, fmt.Errorf("client %q: %w", id, errNotFound)
	}
	return client{c}, nil
}

func (s *storage) AuthorizeClientIDSecret(_ context.Context, id, secret string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	c, ok := s.clients[id]
	if !ok || c.Secret == "" || c.Secret != secret {
		return errors.New("wrong client id or secret")
	}
	return nil
}

// SetUserinfoFromScopes is deprecated in op; SetUserinfoFromRequest fills ID tokens.
func (s *storage) SetUserinfoFromScopes(context.Context, *oidc.UserInfo, string, string, []string) error {
	return nil
}

// SetUserinfoFromRequest puts the user's claims in the ID token.
func (s *storage) SetUserinfoFromRequest(_ context.Context, info *oidc.UserInfo, req op.IDTokenRequest, scopes []string) error {
	return s.userinfo(info, req.GetSubject(), scopes)
}

func (s *storage) SetUserinfoFromToken(_ context.Context, info *oidc.UserInfo, tokenID, subject, _ string) error {
	s.mu.Lock()
	t, ok := s.tokens[tokenID]
	s.mu.Unlock()
	if !ok || time.Now().After(t.expires) {
		return errors.New("access token is not valid")
	}
	return s.userinfo(info, subject, t.scopes)
}

func (s *storage) userinfo(info *oidc.UserInfo, subject string, scopes []string) error {
	s.mu.Lock()
	u, ok := s.users[subject]
	s.mu.Unlock()
	if !ok {
		return fmt.Errorf("user %q: %w", subject, errNotFound)
	}
	info.Subject = u.Name
	if slices.Contains(scopes, oidc.ScopeProfile) {
		info.PreferredUsername, info.Name = u.Name, u.Name
	}
	if slices.Contains(scopes, oidc.ScopeEmail) {
		info.Email, info.EmailVerified = u.Email, true
	}
	if slices.Contains(scopes, "groups") {
		info.AppendClaims("groups", u.Groups)
	}
	return nil
}

func (s *storage) SetIntrospectionFromToken(_ context.Context, resp *oidc.IntrospectionResponse, tokenID, subject, clientID string) error {
	s.mu.Lock()
	t, ok := s.tokens[tokenID]
	s.mu.Unlock()
	if !ok || time.Now().After(t.expires) {
		return nil
	}
	resp.Active, resp.Subject, resp.ClientID, resp.Scope = true, subject, clientID, t.scopes
	return nil
}

func (s *storage) GetPrivateClaimsFromScopes(context.Context, string, string, []string) (map[string]any, error) {
	return nil, nil
}

func (s *storage) GetKeyByIDAndClientID(context.Context, string, string) (*jose.JSONWebKey, error) {
	return nil, errors.New("JWT profile is not supported")
}

func (s *storage) ValidateJWTProfileScopes(_ context.Context, _ string, scopes []string) ([]string, error) {
	return scopes, nil
}

func (s *storage) Health(context.Context) error { return nil }

// client is a registered Client as op sees it: a confidential web application
// (public when it has no secret) using the code flow.
type client struct{ c *Client }

func (c client) GetID() string                       { return c.c.ID }
func (c client) RedirectURIs() []string              { return c.c.RedirectURIs }
func (c client) PostLogoutRedirectURIs() []string    { return c.c.PostLogoutRedirectURIs }
func (c client) ApplicationType() op.ApplicationType { return op.ApplicationTypeWeb }
func (c client) AuthMethod() oidc.AuthMethod {
	if c.c.Secret == "" {
		return oidc.AuthMethodNone
	}
	return oidc.AuthMethodBasic
}
func (c client) ResponseTypes() []oidc.ResponseType {
	return []oidc.ResponseType{oidc.ResponseTypeCode}
}
func (c client) GrantTypes() []oidc.GrantType        { return []oidc.GrantType{oidc.GrantTypeCode} }
func (c client) LoginURL(id string) string           { return "/login?authRequestID=" + id }
func (c client) AccessTokenType() op.AccessTokenType { return op.AccessTokenTypeBearer }
func (c client) IDTokenLifetime() time.Duration {
	if c.c.IDTokenLifetime == 0 {
		return 5 * time.Minute
	}
	return c.c.IDTokenLifetime
}
func (c client) DevMode() bool { return false }
func (c client) RestrictAdditionalIdTokenScopes() func([]string) []string {
	return func(s []string) []string { return s }
}
func (c client) RestrictAdditionalAccessTokenScopes() func([]string) []string {
	return func(s []string) []string { return s }
}
func (c client) IsScopeAllowed(scope string) bool { return scope == "groups" }

// IDTokenUserinfoClaimsAssertion puts profile, email and groups in the ID token itself.
func (c client) IDTokenUserinfoClaimsAssertion() bool { return true }
func (c client) ClockSkew() time.Duration             { return 0 }
