package store

import (
	"context"
	"errors"
	"fmt"

	"gorm.io/gorm"
)

// Session is a signed-in browser. TokenHash is the hex SHA-256 of the cookie's random
// token; the token itself is never stored. Times are Unix milliseconds.
type Session struct {
	ID         int64
	TokenHash  string
	UserID     int64
	CreatedAt  int64 `gorm:"autoCreateTime:false"`
	LastSeenAt int64
	ExpiresAt  int64 // absolute end, whatever the activity
	RemoteAddr string
	UserAgent  string
}

// SessionUser is a session joined with its user.
type SessionUser struct {
	Session Session `gorm:"embedded;embeddedPrefix:s_"`
	User    User    `gorm:"embedded;embeddedPrefix:u_"`
}

// ErrSessionNotFound means no session has that token.
var ErrSessionNotFound = errors.New("session not found")

// CreateSession stores s and sets its ID.
func (s *Store) CreateSession(ctx context.Context, sess *Session) error {
	ctx, cancel := s.deadline(ctx)
	defer cancel()
	if err := s.DB.WithContext(ctx).Create(sess).Error; err != nil {
		return fmt.Errorf("create session for user %d: %w", sess.UserID, err)
	}
	return nil
}

// SessionByTokenHash returns the session with that token hash and its user, or
// ErrSessionNotFound. It does not judge expiry: the caller does, with its own clock.
func (s *Store) SessionByTokenHash(ctx context.Context, hash string) (*SessionUser, error) {
	ctx, cancel := s.deadline(ctx)
	defer cancel()
	var su SessionUser
	err := s.DB.WithContext(ctx).Raw(`
		SELECT s.id AS s_id, s.token_hash AS s_token_hash, s.user_id AS s_user_id,
		       s.created_at AS s_created_at, s.last_seen_at AS s_last_seen_at,
		       s.expires_at AS s_expires_at, s.remote_addr AS s_remote_addr, s.user_agent AS s_user_agent,
		       u.id AS u_id, u.name AS u_name, u.role AS u_role, u.password_hash AS u_password_hash, u.provider AS u_provider,
		       u.provider_groups AS u_provider_groups,
		       u.created_at AS u_created_at, u.updated_at AS u_updated_at
		FROM sessions s JOIN users u ON u.id = s.user_id
		WHERE s.token_hash = ?`, hash).Scan(&su).Error
	if err != nil {
		return nil, fmt.Errorf("read session: %w", err)
	}
	if su.Session.ID == 0 {
		return nil, ErrSessionNotFound
	}
	return &su, nil
}

// TouchSession records activity on a session.
func (s *Store) TouchSession(ctx context.Context, id, now int64) error {
	ctx, cancel := s.deadline(ctx)
	defer cancel()
	if err := s.DB.WithContext(ctx).Model(&Session{}).Where("id = ?", id).Update("last_seen_at", now).Error; err != nil {
		return fmt.Errorf("touch session %d: %w", id, err)
	}
	return nil
}

// DeleteSession ends the session with that token hash, if there is one (logout, or
// found expired).
func (s *Store) DeleteSession(ctx context.Context, tokenHash string) error {
	ctx, cancel := s.deadline(ctx)
	defer cancel()
	if err := s.DB.WithContext(ctx).Where("token_hash = ?", tokenHash).Delete(&Session{}).Error; err != nil {
		return fmt.Errorf("delete session: %w", err)
	}
	return nil
}

// DeleteExpiredSessions removes sessions past their absolute end or idle since before
// idleBefore, and returns how many.
func (s *Store) DeleteExpiredSessions(ctx context.Context, now, idleBefore int64) (int64, error) {
	ctx, cancel := s.deadline(ctx)
	defer cancel()
	res := s.DB.WithContext(ctx).Where("expires_at <= ? OR last_seen_at < ?", now, idleBefore).Delete(&Session{})
	if res.Error != nil {
		return 0, fmt.Errorf("delete expired sessions: %w", res.Error)
	}
	return res.RowsAffected, nil
}

// CountSessions returns how many sessions the user has (expired ones included until
// they are swept).
func (s *Store) CountSessions(ctx context.Context, userID int64) (int64, error) {
	ctx, cancel := s.deadline(ctx)
	defer cancel()
	var n int64
	if err := s.DB.WithContext(ctx).Model(&Session{}).Where("user_id = ?", userID).Count(&n).Error; err != nil {
		return 0, fmt.Errorf("count sessions of user %d: %w", userID, err)
	}
	return n, nil
}

// APIToken is a bearer token for the JSON API, owned by one user and acting with that
// user's role. TokenHash is the hex SHA-256 of the secret; Hint is its first characters,
// enough to tell tokens apart in a list. Times are Unix milliseconds; 0 means never.
type APIToken struct {
	ID         int64
	UserID     int64
	Name       string
	TokenHash  string
	Hint       string
	CreatedBy  string
	CreatedAt  int64 `gorm:"autoCreateTime:false"`
	LastUsedAt int64
	RevokedAt  int64
}

// TableName keeps GORM on the migration's table name.
func (APIToken) TableName() string { return "api_tokens" }

// APITokenUser is a token joined with its owner's name and role.
type APITokenUser struct {
	APIToken
	UserName string
	UserRole string
	// UserProviderGroups are the owner's provider groups (a JSON array); read them with
	// UserGroups.
	UserProviderGroups string
}

// UserGroups are the token owner's identity provider groups at their latest sign-in.
func (t APITokenUser) UserGroups() []string { return decodeGroups(t.UserProviderGroups) }

// ErrTokenNotFound means no token has that id (for that user) or that secret.
var ErrTokenNotFound = errors.New("API token not found")

// CreateAPIToken stores t and sets its ID.
func (s *Store) CreateAPIToken(ctx context.Context, t *APIToken) error {
	ctx, cancel := s.deadline(ctx)
	defer cancel()
	if err := s.DB.WithContext(ctx).Create(t).Error; err != nil {
		return fmt.Errorf("create API token %q for user %d: %w", t.Name, t.UserID, err)
	}
	return nil
}

const tokenUserSelect = `SELECT t.*, u.name AS user_name, u.role AS user_role, u.provider_groups AS user_provider_groups
	FROM api_tokens t JOIN users u ON u.id = t.user_id`

// APITokenByHash returns the token with that secret hash (revoked or not), or
// ErrTokenNotFound.
func (s *Store) APITokenByHash(ctx context.Context, hash string) (*APITokenUser, error) {
	ctx, cancel := s.deadline(ctx)
	defer cancel()
	var rows []APITokenUser
	if err := s.DB.WithContext(ctx).Raw(tokenUserSelect+` WHERE t.token_hash = ?`, hash).Scan(&rows).Error; err != nil {
		return nil, fmt.Errorf("read API token: %w", err)
	}
	if len(rows) == 0 {
		return nil, ErrTokenNotFound
	}
	return &rows[0], nil
}

// APITokens lists tokens, newest first: those of the named user, or everyone's when
// userName is "".
func (s *Store) APITokens(ctx context.Context, userName string) ([]APITokenUser, error) {
	ctx, cancel := s.deadline(ctx)
	defer cancel()
	q := tokenUserSelect
	var args []any
	if userName != "" {
		q += ` WHERE u.name = ?`
		args = append(args, userName)
	}
	var rows []APITokenUser
	if err := s.DB.WithContext(ctx).Raw(q+` ORDER BY t.id DESC`, args...).Scan(&rows).Error; err != nil {
		return nil, fmt.Errorf("list API tokens: %w", err)
	}
	return rows, nil
}

// RevokeAPIToken marks a token revoked. With userName set, only a token of that user
// matches (so a URL naming one user cannot reach another's token).
func (s *Store) RevokeAPIToken(ctx context.Context, id int64, userName string, now int64) (*APITokenUser, error) {
	ctx, cancel := s.deadline(ctx)
	defer cancel()
	var out *APITokenUser
	err := s.DB.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		q := tokenUserSelect + ` WHERE t.id = ?`
		args := []any{id}
		if userName != "" {
			q += ` AND u.name = ?`
			args = append(args, userName)
		}
		var rows []APITokenUser
		if err := tx.Raw(q, args...).Scan(&rows).Error; err != nil {
			return err
		}
		if len(rows) == 0 {
			return ErrTokenNotFound
		}
		out = &rows[0]
		if out.RevokedAt != 0 {
			return nil // already revoked: keep the first time
		}
		out.RevokedAt = now
		return tx.Model(&APIToken{}).Where("id = ?", id).Update("revoked_at", now).Error
	})
	if err != nil {
		return nil, fmt.Errorf("revoke API token %d: %w", id, err)
	}
	return out, nil
}

// TouchAPIToken records a use of the token.
func (s *Store) TouchAPIToken(ctx context.Context, id, now int64) error {
	ctx, cancel := s.deadline(ctx)
	defer cancel()
	if err := s.DB.WithContext(ctx).Model(&APIToken{}).Where("id = ?", id).Update("last_used_at", now).Error; err != nil {
		return fmt.Errorf("touch API token %d: %w", id, err)
	}
	return nil
}
