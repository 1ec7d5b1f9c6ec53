package server

import (
	"net/http"
	"slices"
	"strings"

	"rmqconsole/auth"
	"rmqconsole/brokers"
	"rmqconsole/subgroups"
)

// modeACLChange is the audit mode of an ACL change refused for the caller's role: the
// access check runs before the request says which change it is.
const modeACLChange = "acl-change"

// accessRule says what role a route needs. Rules are tried in order; the first whose
// methods and path match decides.
type accessRule struct {
	methods []string // nil: any method
	// path is a gin route pattern; parameter names do not matter (":group" matches
	// ":name"). With prefix, every pattern that starts with it matches too.
	path   string
	prefix bool
	// open routes need no sign-in at all.
	open bool
	// anonymous routes do not even look at credentials: assets and probes are asked
	// for often and show nothing personal, so they cost no database read.
	anonymous bool
	need      auth.Role
	// others, when set, is the role needed when the :user parameter names someone other
	// than the caller.
	others auth.Role
	// audited: a refused attempt is written to the audit log (through the resets
	// service, the one place that records refusals).
	audited bool
	// mode is the audit mode a refused attempt of a change other than a reset is
	// recorded with ("" for resets, whose form says its mode).
	mode string
	// what the route does, for the refusal message ("reset consumer offsets").
	what string
}

var (
	reads  = []string{http.MethodGet, http.MethodHead}
	writes = []string{http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete}
)

// accessRules is the one table of who may do what.
var accessRules = []accessRule{
	// Reachable without signing in: signing in and out, probes, assets.
	{path: "/login", open: true},
	{path: "/login/oidc", open: true},
	{path: "/login/oidc/callback", open: true},
	{path: "/logout", open: true},
	{path: "/language", open: true}, // the sign-in page has the language switch too
	{path: "/healthz", open: true, anonymous: true},
	{path: "/readyz", open: true, anonymous: true},
	{path: "/static/", prefix: true, open: true, anonymous: true},
	{path: "/favicon.ico", open: true, anonymous: true},

	// Offset resets, previews included, need an operator. A refused apply is audited; a
	// refused preview is not: it would have changed nothing, so nothing was attempted.
	{methods: writes, path: "/groups/:group/reset/apply", need: auth.Operator, audited: true, what: "reset consumer offsets"},
	{methods: writes, path: "/api/v1/groups/:group/resets", need: auth.Operator, audited: true, what: "reset consumer offsets"},
	{methods: writes, path: "/groups/:group/reset", prefix: true, need: auth.Operator, what: "preview offset resets"},
	{methods: writes, path: "/api/v1/groups/:group/reset-preview", need: auth.Operator, what: "preview offset resets"},

	// Resending dead letters sends messages to the cluster.
	{methods: writes, path: "/messages/resend", need: auth.Operator, what: "resend dead letters"},
	{methods: writes, path: "/messages/:id/resend", need: auth.Operator, what: "resend dead letters"},
	{methods: writes, path: "/api/v1/messages/resend", need: auth.Operator, what: "resend dead letters"},
	{methods: writes, path: "/api/v1/messages/:id/resend", need: auth.Operator, what: "resend dead letters"},

	// A message consumed again on one client of a group: an operator's change.
	{methods: writes, path: "/messages/:id/consume-directly", need: auth.Operator, what: "consume a message again on a client"},
	{methods: writes, path: "/api/v1/messages/:id/consume-directly", need: auth.Operator, what: "consume a message again on a client"},

	// Consumer groups' subscription settings: creating and changing them is an operator's,
	// as topics and resets are; deleting a group, which can drop its committed offsets
	// for good, is an admin's (an operator can stop a group reversibly: consumeEnable).
	{methods: writes, path: "/groups/:group/delete", need: auth.Admin, audited: true, mode: subgroups.ModeDelete, what: "delete consumer groups"},
	{methods: writes, path: "/api/v1/groups/:group", need: auth.Admin, audited: true, mode: subgroups.ModeDelete, what: "delete consumer groups"},
	{methods: writes, path: "/groups/:group/settings/apply", need: auth.Operator, audited: true, mode: subgroups.ModeUpdate, what: "change consumer group settings"},
	{methods: writes, path: "/api/v1/groups/:group/config", need: auth.Operator, audited: true, mode: subgroups.ModeUpdate, what: "change consumer group settings"},

	// ACL 2.0 users and policies: admins only, reading included (who may do what on the
	// cluster is itself sensitive).
	{methods: writes, path: "/acl/apply", need: auth.Admin, audited: true, mode: modeACLChange, what: "manage ACL users and policies"},
	{methods: writes, path: "/acl/delete", need: auth.Admin, audited: true, mode: modeACLChange, what: "manage ACL users and policies"},
	{methods: writes, path: "/api/v1/acl/", prefix: true, need: auth.Admin, audited: true, mode: modeACLChange, what: "manage ACL users and policies"},
	{path: "/acl", prefix: true, need: auth.Admin, what: "manage ACL users and policies"},
	{path: "/api/v1/acl/", prefix: true, need: auth.Admin, what: "manage ACL users and policies"},

	// Brokers' configuration: admins change it; reading it (drift included) is a viewer's.
	{methods: writes, path: "/brokers/:name/config/apply", need: auth.Admin, audited: true, mode: brokers.ModeConfigUpdate, what: "change broker configuration"},
	{methods: writes, path: "/brokers/:name/config/", prefix: true, need: auth.Admin, what: "change broker configuration"},
	{methods: writes, path: "/api/v1/brokers/:name/config", need: auth.Admin, audited: true, mode: brokers.ModeConfigUpdate, what: "change broker configuration"},
	{methods: writes, path: "/api/v1/brokers/:name/config-preview", need: auth.Admin, what: "change broker configuration"},

	// API tokens: every signed-in user manages their own; an admin, anyone's.
	{path: "/tokens", need: auth.Viewer},
	{path: "/users/:user/tokens", prefix: true, need: auth.Viewer, others: auth.Admin, what: "manage the API tokens of other users"},
	{path: "/api/v1/users/:user/tokens", prefix: true, need: auth.Viewer, others: auth.Admin, what: "manage the API tokens of other users"},

	// Everything else: reading needs a viewer; any other action an operator.
	{methods: reads, path: "/", prefix: true, need: auth.Viewer, what: "read this page"},
	{path: "/", prefix: true, need: auth.Operator, what: "change anything"},
}

func init() {
	for i := range accessRules {
		accessRules[i].path = normalizePattern(accessRules[i].path)
	}
}

// normalizePattern drops parameter names: "/groups/:group/reset" → "/groups/:/reset".
func normalizePattern(p string) string {
	segs := strings.Split(p, "/")
	for i, s := range segs {
		switch {
		case strings.HasPrefix(s, ":"):
			segs[i] = ":"
		case strings.HasPrefix(s, "*"):
			segs[i] = "*"
		}
	}
	return strings.Join(segs, "/")
}

// ruleFor returns the rule for a request method and the route pattern gin matched ("" for
// an unknown path, which is judged by the catch-all rules).
func ruleFor(method, pattern string) accessRule {
	p := normalizePattern(pattern)
	if p == "" {
		p = "/"
	}
	for _, r := range accessRules {
		if r.methods != nil && !slices.Contains(r.methods, method) {
			continue
		}
		if p == r.path || (r.prefix && strings.HasPrefix(p, r.path)) {
			return r
		}
	}
	return accessRules[len(accessRules)-1]
}

// RoleFor caps a user's console role on this cluster: a cluster may let an operator of
// the console only read it.
func (c *ClusterConfig) RoleFor(user string, role auth.Role) auth.Role {
	limit, ok := c.UserRoles[user]
	if !ok {
		limit = c.MaxRole
	}
	if limit != auth.NoRole && limit < role {
		return limit
	}
	return role
}
