package auth

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"rmqconsole/fault"
	"rmqconsole/i18n"
	"rmqconsole/store"
)

// How a person signed in, as the audit log records it.
const (
	ProviderLocal = store.ProviderLocal // a password the console keeps
	ProviderLDAP  = "ldap"
	ProviderOIDC  = "oidc"
	ProviderProxy = "proxy" // a trusted reverse proxy's headers
)

// Identity is a person an identity provider (an LDAP directory, an OpenID provider)
// vouched for, with the console role their groups give.
type Identity struct {
	// Name is the user name the provider gives (the directory's uid, a claim).
	Name string
	// Groups are the groups the provider says the person is in.
	Groups []string
	// Role is the highest role any of Groups gives; NoRole when none does.
	Role     Role
	Provider string
}

// Directory checks a user name and password against an identity provider (LDAP).
type Directory interface {
	// Authenticate answers the person the name and password belong to, ErrBadCredentials
	// when they are wrong, or a *fault.Error when the directory could not be asked.
	Authenticate(ctx context.Context, name string, password []byte) (*Identity, error)
	// Name says which directory it is, for logs ("ldap://dc1.example.org:389").
	Name() string
}

// GroupRoles maps an identity provider's group names to console roles. The group "*"
// gives its role to everyone the provider vouches for.
type GroupRoles map[string]Role

// ParseGroupRoles reads "group=role" pairs separated by commas, as in
// "rmq-admins=admin,rmq-ops=operator,*=viewer". A group name may hold "=": the last one
// separates the role.
func ParseGroupRoles(s string) (GroupRoles, error) {
	out := GroupRoles{}
	for _, pair := range strings.Split(s, ",") {
		pair = strings.TrimSpace(pair)
		if pair == "" {
			continue
		}
		i := strings.LastIndex(pair, "=")
		if i <= 0 {
			return nil, fmt.Errorf("%q is not group=role (for example rmq-admins=admin)", pair)
		}
		group := strings.TrimSpace(pair[:i])
		role, err := ParseRole(pair[i+1:])
		if err != nil {
			return nil, fmt.Errorf("group %q: %w", group, err)
		}
		out[group] = role
	}
	return out, nil
}

// RoleOf is the highest role that any of groups (or "*") gives, NoRole when none does.
func (g GroupRoles) RoleOf(groups []string) Role {
	best := g["*"]
	for _, name := range groups {
		if r := g[name]; r > best {
			best = r
		}
	}
	return best
}

// String writes g back as ParseGroupRoles reads it, in group order.
func (g GroupRoles) String() string {
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(g)) {
		parts = append(parts, k+"="+g[k].String())
	}
	return strings.Join(parts, ",")
}

// SignInExternal starts a session for a person an OpenID provider vouched for, and
// records the sign-in. The user is created at their first sign-in; their role is set
// from their groups at every sign-in.
func (s *Service) SignInExternal(ctx context.Context, id Identity, addr, userAgent string) (*NewSession, error) {
	ns, err := s.signInExternal(ctx, id, addr, userAgent)
	s.RecordSignIn(ctx, SignIn{Provider: id.Provider, Name: id.Name, Addr: addr, Groups: id.Groups, Role: id.Role, Err: err})
	return ns, err
}

func (s *Service) signInExternal(ctx context.Context, id Identity, addr, userAgent string) (*NewSession, error) {
	if err := CheckUserName(id.Name); err != nil {
		return nil, fault.Wrap(err, fault.Refused, "login.external.bad_name", "Provider", providerLabel(id.Provider),
			"Name", strconv.Quote(id.Name)).Because("bad_name")
	}
	if id.Role == NoRole {
		groups := strings.Join(id.Groups, ", ")
		if groups == "" {
			return nil, fault.New(fault.Refused, "login.external.no_groups", "Name", id.Name,
				"Provider", providerLabel(id.Provider)).Because("no_role")
		}
		return nil, fault.New(fault.Refused, "login.external.no_role", "Name", id.Name,
			"Provider", providerLabel(id.Provider), "Groups", groups).Because("no_role")
	}
	u, err := s.st.SignInExternalUser(ctx, id.Name, id.Role.String(), id.Provider, id.Groups, s.now().UnixMilli())
	if errors.Is(err, store.ErrLocalUser) {
		return nil, fault.Wrap(err, fault.Refused, "login.external.local_user", "Name", id.Name,
			"Provider", providerLabel(id.Provider)).Because("local_user")
	}
	if err != nil {
		return nil, err
	}
	ns, err := s.startSession(ctx, u, addr, userAgent)
	if ns != nil {
		ns.Caller.Via, ns.Provider, ns.Caller.Groups = "session", id.Provider, u.Groups()
	}
	return ns, err
}

// providerLabel names a provider in a sentence: "LDAP", "OpenID Connect".
func providerLabel(p string) i18n.Message { return i18n.M("login.provider." + p) }
