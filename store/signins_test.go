package store

import (
	"context"
	"errors"
	"slices"
	"testing"
)

// A user of an identity provider is created at the first sign-in, gets the role and the
// groups of every later one (read back with their sessions and tokens, by another
// console on the same database too), and never takes over a local user.
func TestSignInExternalUser(t *testing.T) {
	eachDB(t, func(t *testing.T, db testDB) {
		s, ctx := db.open(t), context.Background()
		u, err := s.SignInExternalUser(ctx, "lena", "admin", "ldap", []string{"payments", "cn=ops,ou=groups"}, 1)
		if err != nil || u.ID == 0 || u.Provider != "ldap" || u.Role != "admin" || u.PasswordHash != "" ||
			!slices.Equal(u.Groups(), []string{"payments", "cn=ops,ou=groups"}) {
			t.Fatalf("first sign-in: %+v (groups %q), %v", u, u.Groups(), err)
		}
		u, err = s.SignInExternalUser(ctx, "lena", "operator", "oidc", []string{"orders"}, 2)
		if err != nil || u.Role != "operator" || u.Provider != "oidc" || u.UpdatedAt != 2 {
			t.Fatalf("later sign-in: %+v, %v", u, err)
		}
		if got, _ := s.UserByName(ctx, "lena"); got.Role != "operator" || got.Provider != "oidc" || !slices.Equal(got.Groups(), []string{"orders"}) {
			t.Fatalf("stored: %+v", got)
		}
		if err := s.CreateSession(ctx, &Session{TokenHash: "lena-s", UserID: u.ID, CreatedAt: 2, LastSeenAt: 2, ExpiresAt: 1 << 41}); err != nil {
			t.Fatal(err)
		}
		if err := s.CreateAPIToken(ctx, &APIToken{UserID: u.ID, Name: "ci", TokenHash: "lena-t", Hint: "rmq_le", CreatedBy: "lena", CreatedAt: 2}); err != nil {
			t.Fatal(err)
		}
		other := s
		if db.dialect == Postgres {
			other = db.open(t) // a second console on the same database
		}
		if su, err := other.SessionByTokenHash(ctx, "lena-s"); err != nil || !slices.Equal(su.User.Groups(), []string{"orders"}) {
			t.Fatalf("session's user groups: %+v, %v", su, err)
		}
		if tu, err := other.APITokenByHash(ctx, "lena-t"); err != nil || !slices.Equal(tu.UserGroups(), []string{"orders"}) {
			t.Fatalf("token's user groups: %+v, %v", tu, err)
		}
		// Signed in again in no group: the groups go.
		if _, err := s.SignInExternalUser(ctx, "lena", "operator", "oidc", nil, 3); err != nil {
			t.Fatal(err)
		}
		if tu, _ := other.APITokenByHash(ctx, "lena-t"); tu == nil || len(tu.UserGroups()) != 0 {
			t.Fatalf("groups after a sign-in in none: %+v", tu)
		}
		if err := s.CreateUser(ctx, &User{Name: "tess", Role: "viewer", PasswordHash: "x", CreatedAt: 1, UpdatedAt: 1}); err != nil {
			t.Fatal(err)
		}
		if got, _ := s.UserByName(ctx, "tess"); got.Provider != ProviderLocal {
			t.Fatalf("a user added with a password is %q, want local", got.Provider)
		}
		if _, err := s.SignInExternalUser(ctx, "tess", "admin", "oidc", []string{"x"}, 3); !errors.Is(err, ErrLocalUser) {
			t.Fatalf("provider over a local user: %v", err)
		}
		if got, _ := s.UserByName(ctx, "tess"); got.Role != "viewer" || got.Provider != ProviderLocal {
			t.Fatalf("the local user changed: %+v", got)
		}
		if err := s.DB.Exec(`UPDATE users SET provider = 'kerberos' WHERE name = 'tess'`).Error; err == nil {
			t.Fatal("the schema took an unknown provider")
		}
	})
}

// Sign-ins are listed apart from changes, whatever the cluster, and both together.
func TestAuditKindsListSignInsApart(t *testing.T) {
	eachDB(t, func(t *testing.T, db testDB) {
		s, ctx := db.open(t), context.Background()
		s.SetDefaultCluster("prod")
		rec := func(log *AuditLog, mode, actor string) {
			t.Helper()
			if err := log.Record(ctx, &AuditEntry{Actor: actor, Mode: mode, Group: "g", Status: AuditRefused}); err != nil {
				t.Fatal(err)
			}
		}
		rec(s.ForCluster("prod").Audit(), "latest", "ann")
		rec(s.ForCluster("test").Audit(), "latest", "bob")
		rec(s.Audit(), SignInMode, "cid")
		count := func(f AuditFilter) int {
			t.Helper()
			es, _, err := s.Audit().List(ctx, f)
			if err != nil {
				t.Fatal(err)
			}
			return len(es)
		}
		for _, c := range []struct {
			f    AuditFilter
			want int
		}{
			{AuditFilter{}, 2},
			{AuditFilter{Cluster: "prod"}, 1},
			{AuditFilter{Cluster: "test"}, 1},
			{AuditFilter{Kind: AuditKindSignIns}, 1},
			{AuditFilter{Kind: AuditKindSignIns, Cluster: "test"}, 1},
			{AuditFilter{Kind: AuditKindAll}, 3},
			{AuditFilter{Kind: AuditKindAll, Cluster: "test"}, 2},
			{AuditFilter{Kind: AuditKindAll, Cluster: "test", Actor: "cid"}, 1},
		} {
			if got := count(c.f); got != c.want {
				t.Errorf("%+v lists %d, want %d", c.f, got, c.want)
			}
		}
	})
}

// A database from before identity providers upgrades in place: its users are local.
func TestUpgradeFromBeforeProvidersKeepsUsersLocal(t *testing.T) {
	eachDB(t, func(t *testing.T, db testDB) {
		old := openAtVersion(t, db, 11)
		if err := old.DB.Exec(`INSERT INTO users (name, role, password_hash, created_at, updated_at) VALUES ('ann', 'admin', 'h', 1, 1)`).Error; err != nil {
			t.Fatal(err)
		}
		old.Close()
		s := db.open(t)
		u, err := s.UserByName(context.Background(), "ann")
		if err != nil || u.Provider != ProviderLocal || u.PasswordHash != "h" {
			t.Fatalf("after the upgrade: %+v, %v", u, err)
		}
	})
}
