package auth

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"time"
	"unicode"
	"unicode/utf8"

	"golang.org/x/crypto/bcrypt"

	"rmqconsole/freetext"
	"rmqconsole/store"
)

// Store is what the service needs from the database (package store implements it).
type Store interface {
	CreateUser(ctx context.Context, u *store.User) error
	UserByName(ctx context.Context, name string) (*store.User, error)
	Users(ctx context.Context) ([]store.User, error)
	CountUsers(ctx context.Context) (int64, error)
	SetPassword(ctx context.Context, name, hash string, now int64) (int64, error)
	DeleteUser(ctx context.Context, name string) error
	SignInExternalUser(ctx context.Context, name, role, provider string, groups []string, now int64) (*store.User, error)

	CreateSession(ctx context.Context, s *store.Session) error
	SessionByTokenHash(ctx context.Context, hash string) (*store.SessionUser, error)
	TouchSession(ctx context.Context, id, now int64) error
	DeleteSession(ctx context.Context, tokenHash string) error
	DeleteExpiredSessions(ctx context.Context, now, idleBefore int64) (int64, error)
	CountSessions(ctx context.Context, userID int64) (int64, error)

	CreateAPIToken(ctx context.Context, t *store.APIToken) error
	APITokenByHash(ctx context.Context, hash string) (*store.APITokenUser, error)
	APITokens(ctx context.Context, userName string) ([]store.APITokenUser, error)
	RevokeAPIToken(ctx context.Context, id int64, userName string, now int64) (*store.APITokenUser, error)
	TouchAPIToken(ctx context.Context, id, now int64) error
}

// Config tunes the service. Zero fields take the defaults.
type Config struct {
	// SessionIdle ends a session not used for this long (default 8h).
	SessionIdle time.Duration
	// SessionMax ends a session this long after sign-in, however active (default 24h).
	SessionMax time.Duration
	// BcryptCost is the password hashing cost (default 12).
	BcryptCost int
	// Throttle slows sign-in after failures (default DefaultThrottle).
	Throttle ThrottleConfig
	// Now is the clock (default time.Now); tests move it.
	Now func() time.Time
	// Directory, when set, checks the passwords of users who are not local (LDAP).
	Directory Directory
	// Audit, when set, records every sign-in, successful or not; OnRecordError hears
	// of a record that could not be written (sign-in goes on either way).
	Audit         AuditLog
	OnRecordError func(error)
}

// Defaults for Config.
const (
	DefaultSessionIdle = 8 * time.Hour
	DefaultSessionMax  = 24 * time.Hour
	DefaultBcryptCost  = 12
)

// Password limits: bcrypt reads only the first 72 bytes, so longer passwords are refused
// rather than silently cut.
const (
	MinPasswordLen = 8
	MaxPasswordLen = 72
)

// touchEvery limits session and token bookkeeping writes to one a minute each.
const touchEvery = time.Minute

// Service manages users, sessions and API tokens.
type Service struct {
	st        Store
	cfg       Config
	throttle  *throttle
	dummyHash func() []byte
	// failures bounds the failed sign-ins recorded one by one (signins.go).
	failures *failureLimiter
	// proxySeen is when each proxy-named user was last seen (signins.go).
	proxySeen *proxySeen
	// groups are each externally signed-in user's provider groups (external.go).
}

// New returns a service over st.
func New(st Store, cfg Config) *Service {
	if cfg.SessionIdle <= 0 {
		cfg.SessionIdle = DefaultSessionIdle
	}
	if cfg.SessionMax <= 0 {
		cfg.SessionMax = DefaultSessionMax
	}
	if cfg.BcryptCost == 0 {
		cfg.BcryptCost = DefaultBcryptCost
	}
	if cfg.Throttle == (ThrottleConfig{}) {
		cfg.Throttle = DefaultThrottle
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	s := &Service{st: st, cfg: cfg, throttle: newThrottle(cfg.Throttle), failures: newFailureLimiter(FailureWindow),
		proxySeen: &proxySeen{users: map[string]time.Time{}}}
	// Unknown user names are checked against this hash, so a wrong name takes as long
	// as a wrong password and sign-in does not reveal which names exist. Made on first
	// use: it costs as much as a sign-in.
	s.dummyHash = sync.OnceValue(func() []byte {
		h, _ := bcrypt.GenerateFromPassword([]byte("not a password of anyone"), cfg.BcryptCost)
		return h
	})
	return s
}

// User is a console user as the service shows it (never with its hash).
type User struct {
	Name string
	Role Role
	// Provider is how the user signs in: ProviderLocal, ProviderLDAP or ProviderOIDC.
	Provider  string
	CreatedAt time.Time
	UpdatedAt time.Time
}

// Caller is who is making a request.
type Caller struct {
	Name string
	Role Role
	// Via says how the caller was recognised: "session", "token" or "proxy" (local mode
	// makes no Caller).
	Via string
	// Groups are the identity provider's groups of the user at their latest sign-in
	// through it (rights may name them); none for local users.
	Groups []string
}

// CheckUserName accepts 1 to 64 letters, digits and . _ @ - (names appear in URLs, in the
// audit log and in proxy headers).
func CheckUserName(name string) error {
	if err := textInvalid(freetext.UserName, name); err != nil {
		return err
	}
	if name == "" || utf8.RuneCountInString(name) > 64 {
		return invalid("name", "auth.user.name_length")
	}
	for _, r := range name {
		if !(unicode.IsLetter(r) || unicode.IsDigit(r) || r == '.' || r == '_' || r == '@' || r == '-') {
			return invalid("name", "auth.user.name_chars", "Name", strconv.Quote(name), "Char", strconv.QuoteRune(r))
		}
	}
	return nil
}

// CheckPassword enforces the length limits.
func CheckPassword(password []byte) error {
	switch {
	case len(password) > MaxPasswordLen:
		return invalid("password", "auth.password.too_long", "Len", len(password), "Max", MaxPasswordLen)
	case utf8.RuneCount(password) < MinPasswordLen:
		return invalid("password", "auth.password.too_short", "Min", MinPasswordLen)
	}
	return nil
}

func (s *Service) now() time.Time { return s.cfg.Now() }

// AddUser creates a user with a bcrypt hash of password.
func (s *Service) AddUser(ctx context.Context, name string, role Role, password []byte) (*User, error) {
	if err := CheckUserName(name); err != nil {
		return nil, err
	}
	if role < Viewer || role > Admin {
		return nil, invalid("role", "auth.role.missing")
	}
	if err := CheckPassword(password); err != nil {
		return nil, err
	}
	hash, err := bcrypt.GenerateFromPassword(password, s.cfg.BcryptCost)
	if err != nil {
		return nil, fmt.Errorf("hash password of %q: %w", name, err)
	}
	now := s.now().UnixMilli()
	u := &store.User{Name: name, Role: role.String(), PasswordHash: string(hash), CreatedAt: now, UpdatedAt: now}
	if err := s.st.CreateUser(ctx, u); err != nil {
		return nil, err
	}
	return toUser(u), nil
}

// SetPassword replaces a user's password and signs out all of their sessions. It returns
// how many sessions ended.
func (s *Service) SetPassword(ctx context.Context, name string, password []byte) (int64, error) {
	if err := CheckPassword(password); err != nil {
		return 0, err
	}
	if u, err := s.st.UserByName(ctx, name); err == nil && !isLocal(u) {
		return 0, invalid("name", "auth.user.external_password", "Name", name, "Provider", providerLabel(u.Provider))
	}
	hash, err := bcrypt.GenerateFromPassword(password, s.cfg.BcryptCost)
	if err != nil {
		return 0, fmt.Errorf("hash password of %q: %w", name, err)
	}
	return s.st.SetPassword(ctx, name, string(hash), s.now().UnixMilli())
}

// RemoveUser deletes a user with their sessions and API tokens.
func (s *Service) RemoveUser(ctx context.Context, name string) error {
	return s.st.DeleteUser(ctx, name)
}

// Users lists every user by name.
func (s *Service) Users(ctx context.Context) ([]User, error) {
	us, err := s.st.Users(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]User, 0, len(us))
	for i := range us {
		out = append(out, *toUser(&us[i]))
	}
	return out, nil
}

// UserByName returns one user, or an error wrapping store.ErrUserNotFound, or an
// Invalid *fault.Error for a name no user can have (CheckUserName), before the store is asked.
func (s *Service) UserByName(ctx context.Context, name string) (*User, error) {
	if err := CheckUserName(name); err != nil {
		return nil, err
	}
	u, err := s.st.UserByName(ctx, name)
	if err != nil {
		return nil, err
	}
	return toUser(u), nil
}

// HasUsers reports whether any user exists (if none, the console runs in single-user
// local mode).
func (s *Service) HasUsers(ctx context.Context) (bool, error) {
	n, err := s.st.CountUsers(ctx)
	return n > 0, err
}

// NewSession is a session just started: Token goes into the cookie and nowhere else.
type NewSession struct {
	Token     string
	ExpiresAt time.Time
	Caller    Caller
	// Provider is how the user signed in (ProviderLocal, ProviderLDAP, ProviderOIDC).
	Provider string
}

// isLocal reports whether u signs in with a password the console keeps.
func isLocal(u *store.User) bool { return u.Provider == "" || u.Provider == ProviderLocal }

// Login checks a user name and password and starts a session, and records the attempt
// in the audit log. A local user's password is checked here; any other name, with a
// Directory configured, against the directory. After repeated failures for the user
// name or the address it refuses (Busy, its cause a *ThrottledError) before checking
// anything. A wrong name and a wrong password both answer ErrBadCredentials, whichever
// checked it.
func (s *Service) Login(ctx context.Context, name string, password []byte, addr, userAgent string) (*NewSession, error) {
	// A name the free-text rule refuses is no user's: said as such, without counting
	// as a failed sign-in or reaching the store.
	if err := textInvalid(freetext.UserName, name); err != nil {
		return nil, err
	}
	ns, provider, err := s.login(ctx, name, password, addr, userAgent)
	rec := SignIn{Provider: provider, Name: name, Addr: addr, Err: err}
	if ns != nil {
		rec.Name, rec.Role = ns.Caller.Name, ns.Caller.Role
	}
	s.RecordSignIn(ctx, rec)
	return ns, err
}

// login is Login without the record; it also says which provider checked the password.
func (s *Service) login(ctx context.Context, name string, password []byte, addr, userAgent string) (*NewSession, string, error) {
	provider := ProviderLocal
	if wait := s.throttle.begin(s.now(), name, addr); wait > 0 {
		if u, err := s.st.UserByName(ctx, name); s.cfg.Directory != nil && (err != nil || !isLocal(u)) {
			provider = ProviderLDAP
		}
		return nil, provider, throttled(wait)
	}
	u, err := s.st.UserByName(ctx, name)
	switch {
	case err == nil && isLocal(u):
		if len(password) > MaxPasswordLen {
			return nil, provider, ErrBadCredentials // bcrypt would refuse it; no stored password is this long
		}
		if err := bcrypt.CompareHashAndPassword([]byte(u.PasswordHash), password); err != nil {
			return nil, provider, ErrBadCredentials
		}
		s.throttle.succeed(name, addr)
		ns, err := s.startSession(ctx, u, addr, userAgent)
		if ns != nil {
			ns.Provider = ProviderLocal
		}
		return ns, provider, err
	case err != nil && !errors.Is(err, store.ErrUserNotFound):
		return nil, provider, fmt.Errorf("sign in %q: %w", name, err)
	case s.cfg.Directory != nil:
		// Not a local user: a user of the directory, or nobody.
		id, err := s.cfg.Directory.Authenticate(ctx, name, password)
		if errors.Is(err, ErrBadCredentials) {
			return nil, ProviderLDAP, ErrBadCredentials
		}
		if err != nil {
			// The directory did not answer: that was no guess at a password.
			s.throttle.undo(name, addr)
			return nil, ProviderLDAP, err
		}
		s.throttle.succeed(name, addr)
		ns, err := s.signInExternal(ctx, *id, addr, userAgent)
		return ns, ProviderLDAP, err
	default:
		_ = bcrypt.CompareHashAndPassword(s.dummyHash(), password)
		return nil, provider, ErrBadCredentials
	}
}

// StartSession starts a session for a user without a password check (for tools and
// tests that already know who the user is).
func (s *Service) StartSession(ctx context.Context, name, addr, userAgent string) (*NewSession, error) {
	u, err := s.st.UserByName(ctx, name)
	if err != nil {
		return nil, err
	}
	return s.startSession(ctx, u, addr, userAgent)
}

func (s *Service) startSession(ctx context.Context, u *store.User, addr, userAgent string) (*NewSession, error) {
	role, err := ParseRole(u.Role)
	if err != nil {
		return nil, fmt.Errorf("user %q: %w", u.Name, err)
	}
	token, hash, err := newSecret("")
	if err != nil {
		return nil, err
	}
	now := s.now()
	expires := now.Add(s.cfg.SessionMax)
	// The browser's own words, kept to tell sessions apart: a header may carry bytes
	// that are not UTF-8, so what the free-text rule refuses is kept escaped, and the
	// cut falls between characters.
	userAgent = freetext.Shown(userAgent)
	if r := []rune(userAgent); len(r) > 256 {
		userAgent = string(r[:256])
	}
	sess := &store.Session{TokenHash: hash, UserID: u.ID, CreatedAt: now.UnixMilli(), LastSeenAt: now.UnixMilli(),
		ExpiresAt: expires.UnixMilli(), RemoteAddr: addr, UserAgent: userAgent}
	// Sweep ended sessions now and then: sign-in is rare enough to carry the cost.
	if _, err := s.st.DeleteExpiredSessions(ctx, now.UnixMilli(), now.Add(-s.cfg.SessionIdle).UnixMilli()); err != nil {
		return nil, err
	}
	if err := s.st.CreateSession(ctx, sess); err != nil {
		return nil, err
	}
	return &NewSession{Token: token, ExpiresAt: expires,
		Caller: Caller{Name: u.Name, Role: role, Via: "session"}}, nil
}

// Session returns the caller of a session cookie's token, or ErrSessionEnded when the
// session is unknown, idle for longer than SessionIdle or older than SessionMax (an
// ended session is deleted).
func (s *Service) Session(ctx context.Context, token string) (*Caller, error) {
	if token == "" {
		return nil, ErrSessionEnded
	}
	hash := hashSecret(token)
	su, err := s.st.SessionByTokenHash(ctx, hash)
	if errors.Is(err, store.ErrSessionNotFound) {
		return nil, ErrSessionEnded
	}
	if err != nil {
		return nil, err
	}
	now := s.now()
	last := time.UnixMilli(su.Session.LastSeenAt)
	if !now.Before(time.UnixMilli(su.Session.ExpiresAt)) || now.Sub(last) > s.cfg.SessionIdle {
		if err := s.st.DeleteSession(ctx, hash); err != nil {
			return nil, err
		}
		return nil, ErrSessionEnded
	}
	role, err := ParseRole(su.User.Role)
	if err != nil {
		return nil, fmt.Errorf("user %q: %w", su.User.Name, err)
	}
	if now.Sub(last) >= touchEvery {
		if err := s.st.TouchSession(ctx, su.Session.ID, now.UnixMilli()); err != nil {
			return nil, err
		}
	}
	return &Caller{Name: su.User.Name, Role: role, Via: "session", Groups: su.User.Groups()}, nil
}

// Logout ends the session of a cookie's token. An unknown token is not an error: the
// caller is signed out either way.
func (s *Service) Logout(ctx context.Context, token string) error {
	if token == "" {
		return nil
	}
	return s.st.DeleteSession(ctx, hashSecret(token))
}

// SessionCount returns how many sessions the user has open.
func (s *Service) SessionCount(ctx context.Context, name string) (int64, error) {
	u, err := s.st.UserByName(ctx, name)
	if err != nil {
		return 0, err
	}
	return s.st.CountSessions(ctx, u.ID)
}

func toUser(u *store.User) *User {
	role, _ := ParseRole(u.Role)
	provider := u.Provider
	if provider == "" {
		provider = ProviderLocal
	}
	return &User{Name: u.Name, Role: role, Provider: provider, CreatedAt: time.UnixMilli(u.CreatedAt).UTC(), UpdatedAt: time.UnixMilli(u.UpdatedAt).UTC()}
}

// newSecret returns a random 256-bit secret (with prefix) and its hash for storage.
func newSecret(prefix string) (secret, hash string, err error) {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		return "", "", fmt.Errorf("generate secret: %w", err)
	}
	secret = prefix + base64.RawURLEncoding.EncodeToString(b)
	return secret, hashSecret(secret), nil
}

// hashSecret is SHA-256: the secrets are 256 random bits, so a slow hash adds nothing
// and a fast one keeps every request cheap.
func hashSecret(secret string) string {
	sum := sha256.Sum256([]byte(secret))
	return hex.EncodeToString(sum[:])
}
