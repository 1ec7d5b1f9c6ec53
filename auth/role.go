// Package auth decides who is calling the console and what they may do: users with
// bcrypt passwords and one of three roles, server-side browser sessions, API bearer
// tokens, login throttling, and identities asserted by a trusted reverse proxy.
//
// Secrets (session cookies, API tokens) are random, shown once, and stored only as
// SHA-256 hashes, so a copy of the database does not let anyone sign in.
package auth

import (
	"fmt"
	"strconv"
	"strings"
)

// Role is what a caller may do. Roles are ordered: each may do everything the one below
// it may.
type Role int8

const (
	// NoRole is the zero value: not signed in.
	NoRole Role = iota
	// Viewer reads everything: cluster, messages, groups, audit log.
	Viewer
	// Operator may also preview and apply offset resets, and any other write action.
	Operator
	// Admin may also manage the API tokens of other users.
	Admin
)

var roleNames = [...]string{NoRole: "", Viewer: "viewer", Operator: "operator", Admin: "admin"}

// String returns the role's name as users type it ("viewer", "operator", "admin").
func (r Role) String() string {
	if r < 0 || int(r) >= len(roleNames) {
		return fmt.Sprintf("role(%d)", int8(r))
	}
	if r == NoRole {
		return "anonymous"
	}
	return roleNames[r]
}

// Allows reports whether a caller with role r may do what needs role need.
func (r Role) Allows(need Role) bool { return r >= need }

// ParseRole reads a role name, ignoring case and surrounding space.
func ParseRole(s string) (Role, error) {
	s = strings.ToLower(strings.TrimSpace(s))
	for r, name := range roleNames {
		if name != "" && name == s {
			return Role(r), nil
		}
	}
	return NoRole, invalid("role", "auth.role.unknown", "Role", strconv.Quote(s))
}
