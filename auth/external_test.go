package auth

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"rmqconsole/fault"
	"rmqconsole/store"
)

// fakeDirectory stands in for LDAP (the real one is tested in auth/ldap and through the
// console in package server): people by name with their password and groups.
type fakeDirectory struct {
	people map[string]struct {
		password string
		groups   []string
	}
	down  bool
	asked int
}

func (d *fakeDirectory) Name() string { return "ldap://fake" }

func (d *fakeDirectory) Authenticate(_ context.Context, name string, password []byte) (*Identity, error) {
	d.asked++
	if d.down {
		return nil, fault.New(fault.Unavailable, "login.ldap.unavailable", "URL", "ldap://fake", "Error", "connection refused")
	}
	p, ok := d.people[strings.ToLower(name)]
	if !ok || p.password != string(password) {
		return nil, ErrBadCredentials
	}
	groups := GroupRoles{"admins": Admin, "ops": Operator}
	return &Identity{Name: strings.ToLower(name), Groups: p.groups, Role: groups.RoleOf(p.groups), Provider: ProviderLDAP}, nil
}

func newDirectoryService(t *testing.T) (*Service, *store.Store, *fakeDirectory) {
	t.Helper()
	d := &fakeDirectory{people: map[string]struct {
		password string
		groups   []string
	}{
		"lena": {"lena-pass", []string{"admins"}},
		"tess": {"directory-pass", []string{"admins"}},
		"sam":  {"sam-pass", []string{"sales"}},
	}}
	s, st, _ := newService(t, Config{Directory: d, Throttle: ThrottleConfig{UserFree: 3, AddrFree: 100, Base: time.Second, Max: time.Hour, Forget: time.Hour}})
	s.cfg.Audit = st.Audit()
	return s, st, d
}

func TestDirectoryUsersSignInBesideLocalUsers(t *testing.T) {
	s, st, d := newDirectoryService(t)
	ctx := context.Background()
	mustAdd(t, s, "tess", Viewer, "local-pass")

	ns, err := s.Login(ctx, "LENA", []byte("lena-pass"), "10.0.0.1", "")
	if err != nil || ns.Caller.Name != "lena" || ns.Caller.Role != Admin || ns.Provider != ProviderLDAP {
		t.Fatalf("directory sign-in: %+v, %v", ns, err)
	}
	u, err := st.UserByName(ctx, "lena")
	if err != nil || u.Provider != ProviderLDAP || u.Role != "admin" || u.PasswordHash != "" {
		t.Fatalf("user row: %+v, %v", u, err)
	}
	if c, err := s.Session(ctx, ns.Token); err != nil || c.Name != "lena" || c.Role != Admin {
		t.Fatalf("session: %+v, %v", c, err)
	}
	// A local user's password is checked locally: the directory is not asked, and its
	// password for the same name does not work.
	asked := d.asked
	if _, err := s.Login(ctx, "tess", []byte("local-pass"), "10.0.0.1", ""); err != nil {
		t.Fatalf("local user: %v", err)
	}
	if _, err := s.Login(ctx, "tess", []byte("directory-pass"), "10.0.0.1", ""); !errors.Is(err, ErrBadCredentials) {
		t.Fatalf("local user with the directory's password: %v", err)
	}
	if d.asked != asked {
		t.Fatal("the directory was asked about a local user")
	}
	// Someone the directory knows but whose groups give no role.
	if _, err := s.Login(ctx, "sam", []byte("sam-pass"), "10.0.0.1", ""); !fault.Is(err, fault.Refused) {
		t.Fatalf("no role: %v", err)
	}
	// Groups change between sign-ins: the role follows.
	d.people["lena"] = struct {
		password string
		groups   []string
	}{"lena-pass", []string{"ops"}}
	if ns, err := s.Login(ctx, "lena", []byte("lena-pass"), "10.0.0.1", ""); err != nil || ns.Caller.Role != Operator {
		t.Fatalf("after the groups changed: %+v, %v", ns, err)
	}
	// A directory user has no console password to set.
	if _, err := s.SetPassword(ctx, "lena", []byte("new-password")); fault.As(err) == nil || fault.As(err).Code != fault.Invalid || fault.As(err).Field != "name" {
		t.Fatalf("set the password of a directory user: %v", err)
	}
}

// A directory user's groups are kept with the user: a console started afresh on the same
// database (a restart, another replica) gives the user's session and API tokens the
// groups of their latest sign-in, which rights may name.
func TestProviderGroupsOutliveARestart(t *testing.T) {
	s, st, _ := newDirectoryService(t)
	ctx := context.Background()
	ns, err := s.Login(ctx, "lena", []byte("lena-pass"), "10.0.0.1", "")
	if err != nil || !slices.Equal(ns.Caller.Groups, []string{"admins"}) {
		t.Fatalf("sign-in: %+v, %v", ns, err)
	}
	secret, _, err := s.CreateToken(ctx, "lena", "ci", "lena")
	if err != nil {
		t.Fatal(err)
	}
	again := New(st, s.cfg)
	if c, err := again.Session(ctx, ns.Token); err != nil || !slices.Equal(c.Groups, []string{"admins"}) {
		t.Fatalf("session after a restart: %+v, %v", c, err)
	}
	if c, err := again.TokenCaller(ctx, secret); err != nil || !slices.Equal(c.Groups, []string{"admins"}) {
		t.Fatalf("token after a restart: %+v, %v", c, err)
	}
}

// A directory that does not answer is a sentence, not a wrong password, and does not
// count towards slowing the user down.
func TestDirectoryDownIsNotAFailedGuess(t *testing.T) {
	s, _, d := newDirectoryService(t)
	ctx := context.Background()
	d.down = true
	for range 5 {
		if _, err := s.Login(ctx, "lena", []byte("lena-pass"), "10.0.0.2", ""); !fault.Is(err, fault.Unavailable) {
			t.Fatalf("directory down: %v", err)
		}
	}
	d.down = false
	if _, err := s.Login(ctx, "lena", []byte("lena-pass"), "10.0.0.2", ""); err != nil {
		t.Fatalf("after the directory came back: %v (the outage was counted as failures)", err)
	}
	// Wrong directory passwords are throttled like local ones.
	for range 3 {
		s.Login(ctx, "lena", []byte("wrong"), "10.0.0.3", "")
	}
	var th *ThrottledError
	if _, err := s.Login(ctx, "lena", []byte("lena-pass"), "10.0.0.3", ""); !errors.As(err, &th) {
		t.Fatalf("after 3 wrong directory passwords: %v, want throttled", err)
	}
}

// Every sign-in goes into the audit log with its provider; failures beyond a few per
// address and minute are counted in one entry; the chain holds.
func TestSignInsAreRecordedInTheAuditLog(t *testing.T) {
	s, st, _ := newDirectoryService(t)
	ctx := context.Background()
	mustAdd(t, s, "tess", Viewer, "local-pass")
	s.Login(ctx, "tess", []byte("local-pass"), "10.0.0.1", "")
	s.Login(ctx, "lena", []byte("lena-pass"), "10.0.0.1", "")
	for range FailuresPerWindow + 2 {
		s.Login(ctx, "nobody", []byte("guess"), "192.0.2.9", "")
	}
	s.ProxySignIn(ctx, &Caller{Name: "pat", Role: Viewer}, "10.9.9.9")
	s.ProxySignIn(ctx, &Caller{Name: "pat", Role: Viewer}, "10.9.9.9") // the same session: not again
	s.Close()                                                          // writes the count of the failures not recorded one by one

	es, _, err := st.Audit().List(ctx, store.AuditFilter{Kind: store.AuditKindSignIns, Limit: 100})
	if err != nil {
		t.Fatal(err)
	}
	type rec struct{ actor, provider, outcome, status string }
	var got []rec
	for _, e := range es {
		var p struct{ Provider, Outcome string }
		json.Unmarshal(e.Params, &p)
		got = append(got, rec{e.Actor, p.Provider, p.Outcome, string(e.Status)})
	}
	want := map[rec]int{
		{"tess", "local", "signed_in", "applied"}:       1,
		{"lena", "ldap", "signed_in", "applied"}:        1,
		{"nobody", "ldap", "wrong_password", "refused"}: 3, // then throttled: the clock stands still
		{"nobody", "ldap", "throttled", "refused"}:      FailuresPerWindow - 3,
		{"", "ldap", "counted", "refused"}:              1,
		{"pat", "proxy", "signed_in", "applied"}:        1,
	}
	count := map[rec]int{}
	for _, r := range got {
		count[r]++
	}
	for r, n := range want {
		if count[r] != n {
			t.Errorf("%+v recorded %d times, want %d (all: %+v)", r, count[r], n, got)
		}
	}
	if len(got) != 1+1+FailuresPerWindow+1+1 {
		t.Errorf("%d sign-in entries, want %d: %+v", len(got), FailuresPerWindow+4, got)
	}
	// Sign-ins are not changes: the default list leaves them out.
	if changes, _, _ := st.Audit().List(ctx, store.AuditFilter{}); len(changes) != 0 {
		t.Errorf("the list of changes shows %d sign-ins", len(changes))
	}
	if rep, err := st.Audit().Verify(ctx); err != nil || !rep.Intact {
		t.Fatalf("chain: %+v, %v", rep, err)
	}
}

func TestParseGroupRoles(t *testing.T) {
	g, err := ParseGroupRoles(" rmq-admins=admin, rmq-ops = operator ,*=viewer,a=b=admin")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		groups []string
		want   Role
	}{
		{nil, Viewer},
		{[]string{"sales"}, Viewer},
		{[]string{"rmq-ops"}, Operator},
		{[]string{"rmq-ops", "rmq-admins"}, Admin},
		{[]string{"a=b"}, Admin}, // the last = separates the role
	} {
		if r := g.RoleOf(c.groups); r != c.want {
			t.Errorf("RoleOf(%v) = %v, want %v", c.groups, r, c.want)
		}
	}
	if (GroupRoles{"a": Admin}).RoleOf([]string{"b"}) != NoRole {
		t.Error("a group not mapped gave a role")
	}
	for _, bad := range []string{"rmq-admins", "=admin", "rmq-admins=root"} {
		if _, err := ParseGroupRoles(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}
