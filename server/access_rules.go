package server

import (
	"net/http"
	"strings"

	"rmqconsole/auth"
	"rmqconsole/brokers"
	"rmqconsole/decoding"
	"rmqconsole/rights"
	"rmqconsole/subgroups"
)

// modeACLChange is the audit mode of an ACL change refused for the caller's role: the
// access check runs before the request says which change it is.
const modeACLChange = "acl-change"

// accessRule says who may call a route. Every route of the route tables (routes*.go)
// carries its rule beside it; a path no route matches is judged by forUnknown.
type accessRule struct {
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
	// what is the catalogue's words for what the route does, for the refusal
	// ("access.what.reset": reset consumer offsets).
	what string
	// body is the largest request body the route takes; 0 is MaxRequestBody.
	body int64
	// action is what the route does to the topic or group its path or query names, as
	// the rights of the config file grant it (access.go checks it). Every route naming
	// a topic or group has one (TestEveryRouteNamingATopicOrGroupHasAnAction).
	action rights.Action
	// limitedRefused, when set, refuses the route to callers whose rights are limited,
	// with this sentence of the catalogues: what it touches is known only to the
	// service, or spans every topic and group.
	limitedRefused string
}

// on is r for a route doing a.
func (r accessRule) on(a rights.Action) accessRule {
	r.action = a
	return r
}

// The rules of the route tables.
var (
	// public: reachable without signing in (signing in and out, the language switch).
	public = accessRule{open: true}
	// probe: assets and probes, without even looking at credentials.
	probe = accessRule{open: true, anonymous: true}
	// read: reading needs a viewer.
	read = accessRule{need: auth.Viewer, what: "access.what.read", action: rights.ReadMetadata}
	// metrics: the Prometheus endpoint names every group and topic, so a caller whose
	// rights are limited to some of them is refused it.
	metrics = accessRule{need: auth.Viewer, what: "access.what.read", action: rights.ReadMetadata, limitedRefused: "rights.metrics.limited"}
	// readBodies: reading a topic's messages (search, tail) needs a viewer too.
	readBodies = read.on(rights.ReadBodies)
	// change: any other action needs an operator.
	change = accessRule{need: auth.Operator, what: "access.what.change"}
	// ownTokens: every signed-in user manages their own API tokens; an admin, anyone's.
	ownTokens = accessRule{need: auth.Viewer, others: auth.Admin, what: "access.what.others_tokens"}
	// resetApply: resetting offsets needs an operator, and a refused attempt is audited.
	resetApply = accessRule{need: auth.Operator, audited: true, what: "access.what.reset", action: rights.Reset}
	// resetPreview: a preview needs an operator too; a refused one is not audited: it
	// would have changed nothing, so nothing was attempted.
	resetPreview = accessRule{need: auth.Operator, what: "access.what.preview_resets", action: rights.Reset}
	// resend: resending dead letters sends messages to the cluster. Which topic they go
	// back to is known only once the service has read them, so a caller whose rights
	// are limited to some topics is refused (limitedRefused) rather than let through.
	resend = accessRule{need: auth.Operator, what: "access.what.resend", action: rights.Send, limitedRefused: "rights.resend.limited"}
	// consumeAgain: a message consumed again on one client of a group.
	consumeAgain = accessRule{need: auth.Operator, what: "access.what.consume_directly", action: rights.Reset}

	// Consumer groups' subscription settings: creating and changing them is an
	// operator's, as topics and resets are; deleting a group, which can drop its
	// committed offsets for good, is an admin's (an operator can stop a group
	// reversibly: consumeEnable).
	groupSettings = accessRule{need: auth.Operator, audited: true, mode: subgroups.ModeUpdate, what: "access.what.group_settings", action: rights.ManageGroups}
	groupDelete   = accessRule{need: auth.Admin, audited: true, mode: subgroups.ModeDelete, what: "access.what.group_delete", action: rights.ManageGroups}
	// ACL 2.0 users and policies are an admin's, reading included (who may do what on
	// the cluster is itself sensitive); a refused change is audited, a refused read or
	// preview is not.
	aclRead   = accessRule{need: auth.Admin, what: "access.what.acl", action: rights.ManageACL}
	aclChange = accessRule{need: auth.Admin, audited: true, mode: modeACLChange, what: "access.what.acl", action: rights.ManageACL}
	// Brokers' configuration: admins change it (a refused apply is audited); reading it,
	// drift included, is a viewer's.
	brokerConfigPreview = accessRule{need: auth.Admin, what: "access.what.broker_config"}
	brokerConfigApply   = accessRule{need: auth.Admin, audited: true, mode: brokers.ModeConfigUpdate, what: "access.what.broker_config"}
	// How a topic's bodies are read is an admin's, as the config file is the operator's;
	// the form carries a descriptor set or .proto file, twice (base64 beside the upload)
	// at most.
	topicDecoder = accessRule{need: auth.Admin, body: 3 * decoding.MaxSource, what: "access.what.topic_decoder", action: rights.ManageTopics}
)

// forUnknown is the rule of a path no route matches (it is answered 404 or 405): reading
// needs a viewer, anything else an operator, so an unknown path is no way around
// sign-in.
func forUnknown(method string) accessRule {
	if method == http.MethodGet || method == http.MethodHead {
		return read
	}
	return change
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

// accessRules are the rules of a route table, by method and route pattern.
type accessRules map[string]accessRule

func (rs accessRules) add(method, pattern string, r accessRule) {
	rs[method+" "+normalizePattern(pattern)] = r
}

// ruleFor returns the rule of the route gin matched for a request method and route
// pattern ("" for an unknown path).
func (rs accessRules) ruleFor(method, pattern string) accessRule {
	if r, ok := rs[method+" "+normalizePattern(pattern)]; ok && pattern != "" {
		return r
	}
	return forUnknown(method)
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
