package store

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"gorm.io/gorm"
)

// User is one console user. Role is "viewer", "operator" or "admin" (the schema checks it);
// PasswordHash is a bcrypt hash, empty for a user of an identity provider. Provider says
// how the user signs in: "local" (a password kept here), "ldap" or "oidc". Times are
// Unix milliseconds.
type User struct {
	ID           int64
	Name         string
	Role         string
	PasswordHash string
	Provider     string `gorm:"default:local"`
	// ProviderGroups are the identity provider's groups of the user at their latest
	// sign-in, as a JSON array; read them with Groups.
	ProviderGroups string
	CreatedAt      int64 `gorm:"autoCreateTime:false"`
	UpdatedAt      int64 `gorm:"autoUpdateTime:false"`
}

// Groups are the identity provider's groups of the user at their latest sign-in through
// it; none for a local user.
func (u User) Groups() []string { return decodeGroups(u.ProviderGroups) }

func decodeGroups(text string) []string {
	var gs []string
	if text != "" {
		_ = json.Unmarshal([]byte(text), &gs) // written by SignInExternalUser alone
	}
	return gs
}

func encodeGroups(gs []string) string {
	if len(gs) == 0 {
		return ""
	}
	b, _ := json.Marshal(gs)
	return string(b)
}

// ProviderLocal is the provider of users with a password kept by the console.
const ProviderLocal = "local"

// ErrUserNotFound means no user has that name or id.
var ErrUserNotFound = errors.New("user not found")

// ErrUserExists means a user of that name already exists.
var ErrUserExists = errors.New("user already exists")

// ErrLocalUser means an identity provider named a user that exists with a local
// password: a provider never takes over a local account.
var ErrLocalUser = errors.New("a local user has that name")

// CreateUser adds u and sets its ID.
func (s *Store) CreateUser(ctx context.Context, u *User) error {
	ctx, cancel := s.deadline(ctx)
	defer cancel()
	err := s.DB.WithContext(ctx).Create(u).Error
	if errors.Is(err, gorm.ErrDuplicatedKey) {
		return fmt.Errorf("create user %q: %w", u.Name, ErrUserExists)
	}
	if err != nil {
		return fmt.Errorf("create user %q: %w", u.Name, err)
	}
	return nil
}

// UserByName returns the user called name, or ErrUserNotFound.
func (s *Store) UserByName(ctx context.Context, name string) (*User, error) {
	ctx, cancel := s.deadline(ctx)
	defer cancel()
	var u User
	err := s.DB.WithContext(ctx).Where("name = ?", name).Take(&u).Error
	if errors.Is(err, gorm.ErrRecordNotFound) {
		return nil, fmt.Errorf("user %q: %w", name, ErrUserNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("read user %q: %w", name, err)
	}
	return &u, nil
}

// Users returns every user, by name.
func (s *Store) Users(ctx context.Context) ([]User, error) {
	ctx, cancel := s.deadline(ctx)
	defer cancel()
	var us []User
	if err := s.DB.WithContext(ctx).Order("name").Find(&us).Error; err != nil {
		return nil, fmt.Errorf("list users: %w", err)
	}
	return us, nil
}

// CountUsers returns how many users exist.
func (s *Store) CountUsers(ctx context.Context) (int64, error) {
	ctx, cancel := s.deadline(ctx)
	defer cancel()
	var n int64
	if err := s.DB.WithContext(ctx).Model(&User{}).Count(&n).Error; err != nil {
		return 0, fmt.Errorf("count users: %w", err)
	}
	return n, nil
}

// SetPassword replaces the user's password hash and ends all of their sessions in the
// same transaction, so an old session can never outlive the password it was opened with.
// It returns how many sessions were ended.
func (s *Store) SetPassword(ctx context.Context, name, hash string, now int64) (int64, error) {
	ctx, cancel := s.deadline(ctx)
	defer cancel()
	var ended int64
	err := s.DB.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		var u User
		if err := tx.Where("name = ?", name).Take(&u).Error; err != nil {
			if errors.Is(err, gorm.ErrRecordNotFound) {
				return ErrUserNotFound
			}
			return err
		}
		if err := tx.Model(&u).Updates(map[string]any{"password_hash": hash, "updated_at": now}).Error; err != nil {
			return err
		}
		res := tx.Where("user_id = ?", u.ID).Delete(&Session{})
		ended = res.RowsAffected
		return res.Error
	})
	if err != nil {
		return 0, fmt.Errorf("set password of user %q: %w", name, err)
	}
	return ended, nil
}

// DeleteUser removes the user; the schema removes their sessions and API tokens with it.
func (s *Store) DeleteUser(ctx context.Context, name string) error {
	ctx, cancel := s.deadline(ctx)
	defer cancel()
	res := s.DB.WithContext(ctx).Where("name = ?", name).Delete(&User{})
	if res.Error != nil {
		return fmt.Errorf("remove user %q: %w", name, res.Error)
	}
	if res.RowsAffected == 0 {
		return fmt.Errorf("remove user %q: %w", name, ErrUserNotFound)
	}
	return nil
}

// SignInExternalUser records a user an identity provider vouched for: it creates the
// user at the first sign-in and sets their role and provider at every later one. A
// local user of that name is left alone (ErrLocalUser).
func (s *Store) SignInExternalUser(ctx context.Context, name, role, provider string, groups []string, now int64) (*User, error) {
	var u User
	gs := encodeGroups(groups)
	err := s.DB.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		err := tx.Where("name = ?", name).Take(&u).Error
		if errors.Is(err, gorm.ErrRecordNotFound) {
			u = User{Name: name, Role: role, Provider: provider, ProviderGroups: gs, CreatedAt: now, UpdatedAt: now}
			return tx.Create(&u).Error
		}
		if err != nil {
			return err
		}
		if u.Provider == ProviderLocal || u.Provider == "" {
			return ErrLocalUser
		}
		if u.Role == role && u.Provider == provider && u.ProviderGroups == gs {
			return nil
		}
		u.Role, u.Provider, u.ProviderGroups, u.UpdatedAt = role, provider, gs, now
		return tx.Model(&User{}).Where("id = ?", u.ID).Updates(map[string]any{"role": role, "provider": provider,
			"provider_groups": gs, "updated_at": now}).Error
	})
	if errors.Is(err, gorm.ErrDuplicatedKey) {
		// Another console created the user at the same moment: the next sign-in updates it.
		return s.UserByName(ctx, name)
	}
	if err != nil {
		return nil, fmt.Errorf("sign in %s user %q: %w", provider, name, err)
	}
	return &u, nil
}
