package auth

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"rmqconsole/freetext"
	"rmqconsole/store"
)

// TokenPrefix starts every API token, so a leaked one is easy to recognise (and to
// search for in logs and repositories).
const TokenPrefix = "rmqc_"

// Token is an API token as listed (never with its secret).
type Token struct {
	ID        int64     `json:"id"`
	Name      string    `json:"name"`
	User      string    `json:"user"`
	Role      string    `json:"role"`
	Hint      string    `json:"hint"`
	CreatedBy string    `json:"createdBy"`
	CreatedAt time.Time `json:"createdAt"`
	// LastUsedAt and RevokedAt are zero when it never happened.
	LastUsedAt time.Time `json:"lastUsedAt,omitzero"`
	RevokedAt  time.Time `json:"revokedAt,omitzero"`
}

// Revoked reports whether the token no longer works.
func (t *Token) Revoked() bool { return !t.RevokedAt.IsZero() }

// CheckTokenName accepts 1 to 64 printable characters: a label such as "ci-deploy".
func CheckTokenName(name string) error {
	if err := textInvalid(freetext.TokenName, name); err != nil {
		return err
	}
	if strings.TrimSpace(name) == "" || utf8.RuneCountInString(name) > 64 {
		return invalid("name", "auth.token.name_length")
	}
	for _, r := range name {
		if !unicode.IsPrint(r) {
			return invalid("name", "auth.token.name_chars")
		}
	}
	return nil
}

// CreateToken makes an API token for user, acting with that user's role. The secret is
// returned once and only its hash is kept.
func (s *Service) CreateToken(ctx context.Context, user, name, createdBy string) (secret string, _ *Token, _ error) {
	if err := CheckTokenName(name); err != nil {
		return "", nil, err
	}
	if err := CheckUserName(user); err != nil {
		return "", nil, err
	}
	u, err := s.st.UserByName(ctx, user)
	if err != nil {
		return "", nil, err
	}
	secret, hash, err := newSecret(TokenPrefix)
	if err != nil {
		return "", nil, err
	}
	t := &store.APIToken{UserID: u.ID, Name: strings.TrimSpace(name), TokenHash: hash,
		Hint: secret[:len(TokenPrefix)+4] + "…", CreatedBy: createdBy, CreatedAt: s.now().UnixMilli()}
	if err := s.st.CreateAPIToken(ctx, t); err != nil {
		return "", nil, err
	}
	return secret, toToken(&store.APITokenUser{APIToken: *t, UserName: u.Name, UserRole: u.Role}), nil
}

// Tokens lists the user's tokens, newest first; every user's when user is "".
func (s *Service) Tokens(ctx context.Context, user string) ([]Token, error) {
	if user != "" {
		if err := CheckUserName(user); err != nil {
			return nil, err
		}
	}
	rows, err := s.st.APITokens(ctx, user)
	if err != nil {
		return nil, err
	}
	out := make([]Token, 0, len(rows))
	for i := range rows {
		out = append(out, *toToken(&rows[i]))
	}
	return out, nil
}

// RevokeToken stops a token from working. With user set, only that user's token
// matches; otherwise the error wraps store.ErrTokenNotFound.
func (s *Service) RevokeToken(ctx context.Context, user string, id int64) (*Token, error) {
	if user != "" {
		if err := CheckUserName(user); err != nil {
			return nil, err
		}
	}
	row, err := s.st.RevokeAPIToken(ctx, id, user, s.now().UnixMilli())
	if err != nil {
		return nil, err
	}
	return toToken(row), nil
}

// TokenCaller returns the caller of a bearer token, or ErrTokenInvalid when it is
// unknown or revoked.
func (s *Service) TokenCaller(ctx context.Context, secret string) (*Caller, error) {
	if !strings.HasPrefix(secret, TokenPrefix) {
		return nil, ErrTokenInvalid
	}
	row, err := s.st.APITokenByHash(ctx, hashSecret(secret))
	if errors.Is(err, store.ErrTokenNotFound) {
		return nil, ErrTokenInvalid
	}
	if err != nil {
		return nil, err
	}
	if row.RevokedAt != 0 {
		return nil, ErrTokenInvalid
	}
	role, err := ParseRole(row.UserRole)
	if err != nil {
		return nil, fmt.Errorf("user %q: %w", row.UserName, err)
	}
	now := s.now()
	if now.Sub(time.UnixMilli(row.LastUsedAt)) >= touchEvery {
		if err := s.st.TouchAPIToken(ctx, row.ID, now.UnixMilli()); err != nil {
			return nil, err
		}
	}
	// A token acts with its user's rights, provider groups included.
	return &Caller{Name: row.UserName, Role: role, Via: "token", Groups: row.UserGroups()}, nil
}

func toToken(r *store.APITokenUser) *Token {
	t := &Token{ID: r.ID, Name: r.Name, User: r.UserName, Role: r.UserRole, Hint: r.Hint,
		CreatedBy: r.CreatedBy, CreatedAt: time.UnixMilli(r.CreatedAt).UTC()}
	if r.LastUsedAt != 0 {
		t.LastUsedAt = time.UnixMilli(r.LastUsedAt).UTC()
	}
	if r.RevokedAt != 0 {
		t.RevokedAt = time.UnixMilli(r.RevokedAt).UTC()
	}
	return t
}
