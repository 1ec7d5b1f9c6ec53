package store

import (
	"context"
	"errors"
	"testing"
)

// A session or token made by one console is found by another sharing the database;
// removing the user takes both away, and a duplicate user name is told apart.
func TestSessionsAndTokensAcrossHandles(t *testing.T) {
	eachDB(t, func(t *testing.T, db testDB) {
		ctx := context.Background()
		s := db.open(t)
		u := &User{Name: "alice", Role: "admin", PasswordHash: "x", CreatedAt: 1, UpdatedAt: 1}
		if err := s.CreateUser(ctx, u); err != nil || u.ID == 0 {
			t.Fatalf("create user: id %d, %v", u.ID, err)
		}
		if err := s.CreateUser(ctx, &User{Name: "alice", Role: "viewer", PasswordHash: "y"}); !errors.Is(err, ErrUserExists) {
			t.Fatalf("duplicate user: %v, want ErrUserExists", err)
		}
		sess := &Session{TokenHash: "h1", UserID: u.ID, CreatedAt: 1, LastSeenAt: 1, ExpiresAt: 1 << 41}
		if err := s.CreateSession(ctx, sess); err != nil {
			t.Fatal(err)
		}
		tok := &APIToken{UserID: u.ID, Name: "ci", TokenHash: "t1", Hint: "rmq_ab", CreatedBy: "alice", CreatedAt: 1}
		if err := s.CreateAPIToken(ctx, tok); err != nil {
			t.Fatal(err)
		}
		other := s
		if db.dialect == Postgres {
			other = db.open(t) // a second console on the same database
		}
		su, err := other.SessionByTokenHash(ctx, "h1")
		if err != nil || su.User.Name != "alice" || su.Session.ExpiresAt != 1<<41 {
			t.Fatalf("session from the other console: %+v, %v", su, err)
		}
		tu, err := other.APITokenByHash(ctx, "t1")
		if err != nil || tu.UserName != "alice" || tu.UserRole != "admin" || tu.Hint != "rmq_ab" {
			t.Fatalf("token from the other console: %+v, %v", tu, err)
		}
		if _, err := other.RevokeAPIToken(ctx, tok.ID, "alice", 5); err != nil {
			t.Fatal(err)
		}
		if tu, _ := s.APITokenByHash(ctx, "t1"); tu == nil || tu.RevokedAt != 5 {
			t.Fatalf("revocation not seen by the first console: %+v", tu)
		}
		if err := other.DeleteUser(ctx, "alice"); err != nil {
			t.Fatal(err)
		}
		if _, err := s.SessionByTokenHash(ctx, "h1"); !errors.Is(err, ErrSessionNotFound) {
			t.Fatalf("session of a removed user: %v", err)
		}
		if _, err := s.APITokenByHash(ctx, "t1"); !errors.Is(err, ErrTokenNotFound) {
			t.Fatalf("token of a removed user: %v", err)
		}
	})
}
