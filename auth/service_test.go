package auth

import (
	"context"
	"errors"
	"net/http"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/crypto/bcrypt"

	"rmqconsole/fault"
	"rmqconsole/store"
)

// clock is a test clock the service reads through Config.Now.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *clock) Add(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

// newService opens a fresh SQLite file and a service over it. Tests use the lowest bcrypt
// cost to stay fast; TestPasswordsAreBcryptCost12 checks the real default.
func newService(t *testing.T, cfg Config) (*Service, *store.Store, *clock) {
	t.Helper()
	st := openStore(t)
	clk := &clock{t: time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)}
	if cfg.BcryptCost == 0 {
		cfg.BcryptCost = bcrypt.MinCost
	}
	cfg.Now = clk.Now
	return New(st, cfg), st, clk
}

func openStore(t *testing.T) *store.Store {
	t.Helper()
	st, err := store.Open(context.Background(), filepath.Join(t.TempDir(), "console.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

func mustAdd(t *testing.T, s *Service, name string, role Role, pw string) {
	t.Helper()
	if _, err := s.AddUser(context.Background(), name, role, []byte(pw)); err != nil {
		t.Fatalf("add %s: %v", name, err)
	}
}

func TestPasswordsAreBcryptCost12AndLongOnesRefused(t *testing.T) {
	st := openStore(t)
	s := New(st, Config{}) // the defaults, as the console runs
	ctx := context.Background()
	mustAdd(t, s, "alice", Admin, "correct horse")
	u, err := st.UserByName(ctx, "alice")
	if err != nil {
		t.Fatal(err)
	}
	if cost, err := bcrypt.Cost([]byte(u.PasswordHash)); err != nil || cost != 12 {
		t.Fatalf("stored hash has cost %d (%v), want 12", cost, err)
	}
	if strings.Contains(u.PasswordHash, "correct horse") {
		t.Fatal("password stored in clear")
	}
	long := strings.Repeat("x", 73)
	if _, err := s.AddUser(ctx, "bob", Viewer, []byte(long)); !fault.Is(err, fault.Invalid) || !strings.Contains(err.Error(), "72") {
		t.Fatalf("73-byte password: %v, want a refusal naming the 72-byte limit", err)
	}
	if _, err := s.AddUser(ctx, "bob", Viewer, []byte(strings.Repeat("x", 72))); err != nil {
		t.Fatalf("72-byte password refused: %v", err)
	}
	if _, err := s.SetPassword(ctx, "alice", []byte(long)); !fault.Is(err, fault.Invalid) {
		t.Fatalf("passwd with 73 bytes: %v, want refusal", err)
	}
}

func TestAddUserValidates(t *testing.T) {
	s, _, _ := newService(t, Config{})
	ctx := context.Background()
	for _, tc := range []struct {
		name, pw string
		role     Role
	}{
		{"", "password1", Viewer},
		{"has space", "password1", Viewer},
		{"x/../y", "password1", Viewer},
		{"ok", "short", Viewer},
		{"ok", "password1", NoRole},
	} {
		if _, err := s.AddUser(ctx, tc.name, tc.role, []byte(tc.pw)); !fault.Is(err, fault.Invalid) {
			t.Errorf("AddUser(%q, %v, %q) = %v, want it refused as invalid", tc.name, tc.role, tc.pw, err)
		}
	}
	mustAdd(t, s, "carol", Viewer, "password1")
	if _, err := s.AddUser(ctx, "carol", Admin, []byte("password2")); !errors.Is(err, store.ErrUserExists) {
		t.Fatalf("second carol: %v, want ErrUserExists", err)
	}
}

func TestLoginStartsSessionWithRole(t *testing.T) {
	s, _, _ := newService(t, Config{})
	ctx := context.Background()
	mustAdd(t, s, "olga", Operator, "password1")

	if _, err := s.Login(ctx, "olga", []byte("password2"), "10.0.0.1", "ua"); !errors.Is(err, ErrBadCredentials) {
		t.Fatalf("wrong password: %v", err)
	}
	if _, err := s.Login(ctx, "nobody", []byte("password1"), "10.0.0.1", "ua"); !errors.Is(err, ErrBadCredentials) {
		t.Fatalf("unknown user: %v (must look the same as a wrong password)", err)
	}
	ns, err := s.Login(ctx, "olga", []byte("password1"), "10.0.0.1", "ua")
	if err != nil {
		t.Fatal(err)
	}
	c, err := s.Session(ctx, ns.Token)
	if err != nil {
		t.Fatal(err)
	}
	if c.Name != "olga" || c.Role != Operator || c.Via != "session" {
		t.Fatalf("session caller %+v", c)
	}
	if _, err := s.Session(ctx, ns.Token+"x"); !errors.Is(err, ErrSessionEnded) {
		t.Fatalf("altered token: %v", err)
	}
	if err := s.Logout(ctx, ns.Token); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Session(ctx, ns.Token); !errors.Is(err, ErrSessionEnded) {
		t.Fatalf("after logout: %v", err)
	}
}

func TestSessionIdleAndAbsoluteExpiry(t *testing.T) {
	s, st, clk := newService(t, Config{SessionIdle: 30 * time.Minute, SessionMax: 2 * time.Hour})
	ctx := context.Background()
	mustAdd(t, s, "vic", Viewer, "password1")

	// Idle: unused for longer than 30 min ends it, and the row is gone.
	ns, err := s.StartSession(ctx, "vic", "", "")
	if err != nil {
		t.Fatal(err)
	}
	clk.Add(29 * time.Minute)
	if _, err := s.Session(ctx, ns.Token); err != nil {
		t.Fatalf("used after 29 min idle: %v", err)
	}
	clk.Add(29 * time.Minute) // 29 min after the last use: still alive
	if _, err := s.Session(ctx, ns.Token); err != nil {
		t.Fatalf("activity did not extend the idle limit: %v", err)
	}
	clk.Add(31 * time.Minute)
	if _, err := s.Session(ctx, ns.Token); !errors.Is(err, ErrSessionEnded) {
		t.Fatalf("after 31 min idle: %v, want ErrSessionEnded", err)
	}
	if n, _ := s.SessionCount(ctx, "vic"); n != 0 {
		t.Fatalf("%d sessions left after idle expiry, want the row deleted", n)
	}

	// Absolute: in use every 20 min, it still ends 2 h after sign-in.
	ns, err = s.StartSession(ctx, "vic", "", "")
	if err != nil {
		t.Fatal(err)
	}
	for elapsed := 20 * time.Minute; elapsed < 2*time.Hour; elapsed += 20 * time.Minute {
		clk.Add(20 * time.Minute)
		if _, err := s.Session(ctx, ns.Token); err != nil {
			t.Fatalf("active session ended after %s: %v", elapsed, err)
		}
	}
	clk.Add(20 * time.Minute)
	if _, err := s.Session(ctx, ns.Token); !errors.Is(err, ErrSessionEnded) {
		t.Fatalf("session older than SessionMax: %v", err)
	}

	// A sign-in sweeps sessions that ended without being looked at.
	old, _ := s.StartSession(ctx, "vic", "", "")
	clk.Add(3 * time.Hour)
	if _, err := s.StartSession(ctx, "vic", "", ""); err != nil {
		t.Fatal(err)
	}
	if _, err := st.SessionByTokenHash(ctx, hashSecret(old.Token)); !errors.Is(err, store.ErrSessionNotFound) {
		t.Fatalf("ended session not swept at the next sign-in: %v", err)
	}
}

func TestPasswordChangeAndRemovalEndSessions(t *testing.T) {
	s, _, _ := newService(t, Config{})
	ctx := context.Background()
	mustAdd(t, s, "pat", Operator, "password1")
	mustAdd(t, s, "quinn", Viewer, "password1")
	a, _ := s.StartSession(ctx, "pat", "", "")
	b, _ := s.StartSession(ctx, "pat", "", "")
	other, _ := s.StartSession(ctx, "quinn", "", "")

	ended, err := s.SetPassword(ctx, "pat", []byte("password2"))
	if err != nil || ended != 2 {
		t.Fatalf("SetPassword ended %d sessions (%v), want 2", ended, err)
	}
	for _, ns := range []*NewSession{a, b} {
		if _, err := s.Session(ctx, ns.Token); !errors.Is(err, ErrSessionEnded) {
			t.Fatalf("session survived password change: %v", err)
		}
	}
	if _, err := s.Session(ctx, other.Token); err != nil {
		t.Fatalf("another user's session ended: %v", err)
	}
	if _, err := s.Login(ctx, "pat", []byte("password1"), "a", ""); !errors.Is(err, ErrBadCredentials) {
		t.Fatalf("old password still works: %v", err)
	}
	c, err := s.Login(ctx, "pat", []byte("password2"), "a", "")
	if err != nil {
		t.Fatalf("new password: %v", err)
	}
	secret, _, err := s.CreateToken(ctx, "pat", "ci", "pat")
	if err != nil {
		t.Fatal(err)
	}

	if err := s.RemoveUser(ctx, "pat"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Session(ctx, c.Token); !errors.Is(err, ErrSessionEnded) {
		t.Fatalf("session survived removal: %v", err)
	}
	if _, err := s.TokenCaller(ctx, secret); !errors.Is(err, ErrTokenInvalid) {
		t.Fatalf("token survived removal: %v", err)
	}
	if err := s.RemoveUser(ctx, "pat"); !errors.Is(err, store.ErrUserNotFound) {
		t.Fatalf("removing twice: %v", err)
	}
	if _, err := s.SetPassword(ctx, "pat", []byte("password3")); !errors.Is(err, store.ErrUserNotFound) {
		t.Fatalf("passwd of a removed user: %v", err)
	}
}

func TestLoginThrottledPerUserAndPerAddress(t *testing.T) {
	s, _, clk := newService(t, Config{Throttle: ThrottleConfig{UserFree: 3, AddrFree: 6, Base: time.Second, Max: time.Minute, Forget: time.Hour}})
	ctx := context.Background()
	mustAdd(t, s, "tess", Viewer, "password1")
	mustAdd(t, s, "uma", Viewer, "password1")

	for i := 0; i < 3; i++ {
		if _, err := s.Login(ctx, "tess", []byte("wrong-pass"), "10.0.0.1", ""); !errors.Is(err, ErrBadCredentials) {
			t.Fatalf("failure %d: %v", i+1, err)
		}
	}
	// Fourth attempt right away from that address, even with the right password: refused
	// without checking.
	_, err := s.Login(ctx, "tess", []byte("password1"), "10.0.0.1", "")
	var th *ThrottledError
	if !errors.As(err, &th) || !fault.Is(err, fault.Busy) || th.Wait <= 0 || th.Wait > time.Second {
		t.Fatalf("after 3 failures: %v, want throttled for ≤1 s", err)
	}
	// Nobody else is slowed by them: not tess from her own address, not other users.
	if _, err := s.Login(ctx, "tess", []byte("password1"), "10.0.0.2", ""); err != nil {
		t.Fatalf("tess from another address slowed by the failures of 10.0.0.1: %v", err)
	}
	if _, err := s.Login(ctx, "uma", []byte("password1"), "10.0.0.1", ""); err != nil {
		t.Fatalf("uma slowed by tess's failures: %v", err)
	}
	clk.Add(time.Second)
	if _, err := s.Login(ctx, "tess", []byte("wrong-pass"), "10.0.0.1", ""); !errors.Is(err, ErrBadCredentials) {
		t.Fatalf("after waiting: %v", err)
	}
	// The wait doubles with each further failure.
	if _, err := s.Login(ctx, "tess", []byte("password1"), "10.0.0.1", ""); !errors.As(err, &th) || th.Wait <= time.Second {
		t.Fatalf("5th failure: %v, want a wait over 1 s", err)
	}
	clk.Add(2 * time.Second)
	if _, err := s.Login(ctx, "tess", []byte("password1"), "10.0.0.1", ""); err != nil {
		t.Fatalf("right password after the wait: %v", err)
	}
	// Success forgets the user's failures.
	for i := 0; i < 3; i++ {
		s.Login(ctx, "tess", []byte("wrong-pass"), "10.0.0.9", "")
	}
	if _, err := s.Login(ctx, "tess", []byte("wrong-pass"), "10.0.0.9", ""); !errors.As(err, &th) {
		t.Fatalf("counting did not restart from zero after success: %v", err)
	}

	// Per address: one address spraying many user names is slowed too.
	clk.Add(time.Hour + time.Second)
	for i := range 6 {
		name := "spray" + string(rune('a'+i))
		if _, err := s.Login(ctx, name, []byte("wrong-pass"), "192.0.2.7", ""); !errors.Is(err, ErrBadCredentials) {
			t.Fatalf("spray %d: %v", i, err)
		}
	}
	if _, err := s.Login(ctx, "uma", []byte("password1"), "192.0.2.7", ""); !errors.As(err, &th) {
		t.Fatalf("7th attempt from one address: %v, want throttled", err)
	}
	if _, err := s.Login(ctx, "uma", []byte("password1"), "192.0.2.8", ""); err != nil {
		t.Fatalf("another address slowed: %v", err)
	}
}

func TestConcurrentGuessesCannotSlipPastTheThrottle(t *testing.T) {
	s, _, _ := newService(t, Config{Throttle: ThrottleConfig{UserFree: 3, AddrFree: 100, Base: time.Minute, Max: time.Hour, Forget: time.Hour}})
	mustAdd(t, s, "wes", Viewer, "password1")
	var wg sync.WaitGroup
	var mu sync.Mutex
	checked := 0
	for range 20 {
		wg.Go(func() {
			_, err := s.Login(context.Background(), "wes", []byte("wrong-pass"), "10.1.1.1", "")
			if errors.Is(err, ErrBadCredentials) {
				mu.Lock()
				checked++
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	if checked != 3 {
		t.Fatalf("%d of 20 parallel guesses were checked, want exactly 3", checked)
	}
}

func TestAPITokens(t *testing.T) {
	s, st, clk := newService(t, Config{})
	ctx := context.Background()
	mustAdd(t, s, "xena", Operator, "password1")
	mustAdd(t, s, "yuri", Viewer, "password1")

	secret, tok, err := s.CreateToken(ctx, "xena", "ci-deploy", "admin1")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(secret, TokenPrefix) || len(secret) < 40 || !strings.HasPrefix(tok.Hint, secret[:8]) {
		t.Fatalf("secret %q hint %q", secret, tok.Hint)
	}
	// Only the hash is stored.
	var n int
	if err := st.SQL().QueryRow(`SELECT count(*) FROM api_tokens WHERE token_hash = ? OR token_hash = ?`, secret, hashSecret(secret)).Scan(&n); err != nil || n != 1 {
		t.Fatalf("lookup by hash found %d (%v)", n, err)
	}
	var clear int
	st.SQL().QueryRow(`SELECT count(*) FROM api_tokens WHERE token_hash = ?`, secret).Scan(&clear)
	if clear != 0 {
		t.Fatal("token stored in clear")
	}

	c, err := s.TokenCaller(ctx, secret)
	if err != nil || c.Name != "xena" || c.Role != Operator || c.Via != "token" {
		t.Fatalf("TokenCaller = %+v, %v", c, err)
	}
	clk.Add(2 * time.Minute)
	s.TokenCaller(ctx, secret)
	list, _ := s.Tokens(ctx, "xena")
	if len(list) != 1 || list[0].LastUsedAt.IsZero() || list[0].CreatedBy != "admin1" {
		t.Fatalf("token list %+v", list)
	}
	if list, _ := s.Tokens(ctx, "yuri"); len(list) != 0 {
		t.Fatalf("yuri sees %d tokens", len(list))
	}
	for _, bad := range []string{"", "rmqc_", "Bearer " + secret, secret[:len(secret)-1], strings.TrimPrefix(secret, TokenPrefix)} {
		if _, err := s.TokenCaller(ctx, bad); !errors.Is(err, ErrTokenInvalid) {
			t.Errorf("TokenCaller(%q) = %v, want ErrTokenInvalid", bad, err)
		}
	}
	// A revoke scoped to another user does not reach xena's token.
	if _, err := s.RevokeToken(ctx, "yuri", tok.ID); !errors.Is(err, store.ErrTokenNotFound) {
		t.Fatalf("revoke through yuri: %v", err)
	}
	if _, err := s.TokenCaller(ctx, secret); err != nil {
		t.Fatalf("token stopped working after a refused revoke: %v", err)
	}
	r, err := s.RevokeToken(ctx, "xena", tok.ID)
	if err != nil || !r.Revoked() {
		t.Fatalf("revoke: %+v %v", r, err)
	}
	if _, err := s.TokenCaller(ctx, secret); !errors.Is(err, ErrTokenInvalid) {
		t.Fatalf("revoked token: %v", err)
	}
	if _, _, err := s.CreateToken(ctx, "xena", "  ", "x"); !fault.Is(err, fault.Invalid) {
		t.Fatalf("blank name: %v", err)
	}
	if _, _, err := s.CreateToken(ctx, "nobody", "ci", "x"); !errors.Is(err, store.ErrUserNotFound) {
		t.Fatalf("token for unknown user: %v", err)
	}
}

func TestProxyHeadersOnlyFromTrustedAddresses(t *testing.T) {
	nets, err := ParseTrustedProxies("10.9.0.0/16, 192.0.2.1")
	if err != nil {
		t.Fatal(err)
	}
	p := &Proxy{Trusted: nets, UserHeader: DefaultProxyUserHeader, RoleHeader: DefaultProxyRoleHeader}
	h := http.Header{}
	h.Set("X-Forwarded-User", "zoe")
	h.Set("X-Forwarded-Role", "Operator")

	for _, tc := range []struct {
		remote string
		ok     bool
	}{
		{"10.9.3.4:5555", true},
		{"192.0.2.1:80", true},
		{"[::ffff:192.0.2.1]:80", true},
		{"192.0.2.2:80", false},
		{"127.0.0.1:9999", false},
		{"garbage", false},
	} {
		c, ok, err := p.Caller(tc.remote, h)
		if err != nil || ok != tc.ok {
			t.Errorf("from %s: ok=%v err=%v, want ok=%v", tc.remote, ok, err, tc.ok)
			continue
		}
		if ok && (c.Name != "zoe" || c.Role != Operator || c.Via != "proxy") {
			t.Errorf("from %s: caller %+v", tc.remote, c)
		}
	}
	h.Del("X-Forwarded-Role")
	if c, ok, _ := p.Caller("10.9.0.1:1", h); !ok || c.Role != Viewer {
		t.Fatalf("no role header: %+v, want viewer", c)
	}
	h.Set("X-Forwarded-Role", "root")
	if _, ok, err := p.Caller("10.9.0.1:1", h); !ok || err == nil {
		t.Fatalf("unknown role from proxy: ok=%v err=%v, want an error", ok, err)
	}
	if _, ok, _ := p.Caller("10.9.0.1:1", http.Header{}); ok {
		t.Fatal("no user header: treated as a proxy identity")
	}
	if _, err := ParseTrustedProxies("10.0.0.0/33"); err == nil {
		t.Fatal("bad CIDR accepted")
	}
}

func TestParseRole(t *testing.T) {
	for in, want := range map[string]Role{"viewer": Viewer, " OPERATOR ": Operator, "admin": Admin} {
		if r, err := ParseRole(in); err != nil || r != want {
			t.Errorf("ParseRole(%q) = %v, %v", in, r, err)
		}
	}
	for _, in := range []string{"", "root", "anonymous"} {
		if _, err := ParseRole(in); err == nil {
			t.Errorf("ParseRole(%q) accepted", in)
		}
	}
	if !Admin.Allows(Operator) || Viewer.Allows(Operator) || !Operator.Allows(Operator) || NoRole.Allows(Viewer) {
		t.Fatal("role order wrong")
	}
}
