// Package rights decides which topics and consumer groups a caller may see and act on:
// rules of who × cluster × topic or group name patterns × actions, written in the
// config file beside the clusters. Roles still decide which kind of action a caller may
// take at all (a viewer never resets); rights narrow that to the resources of a team.
//
// With no rules the console behaves as if everyone had every right, as before rights
// existed. Admins always have every right.
package rights

import (
	"path"
	"slices"

	"rmqconsole/auth"
)

// Action is what a caller does to a topic or a group, as the config file names it.
type Action string

// The actions a rule may grant.
const (
	ReadMetadata Action = "read-metadata" // see that the topic or group exists, its figures and settings
	ReadBodies   Action = "read-bodies"   // search, tail and read a topic's messages
	Reset        Action = "reset"         // preview and apply offset resets of a group
	Send         Action = "send"          // send a message to a topic, resend dead letters
	ManageTopics Action = "manage-topics" // create, change and delete topics
	ManageGroups Action = "manage-groups" // change and delete groups' subscription settings
	ManageACL    Action = "manage-acl"    // the cluster's ACL users and policies
	ManageAlerts Action = "manage-alerts" // alert rules of a group
	ReadAudit    Action = "read-audit"    // the audit log
)

// Actions lists every action, in the order the documentation gives them.
var Actions = []Action{ReadMetadata, ReadBodies, Reset, Send, ManageTopics, ManageGroups, ManageACL, ManageAlerts, ReadAudit}

// Kind is the kind of resource an action is on.
type Kind int8

const (
	// Cluster: the action is on the cluster as a whole (ACL, the audit log).
	Cluster Kind = iota
	Topic
	Group
)

// String names the kind as the refusal says it.
func (k Kind) String() string {
	switch k {
	case Topic:
		return "topic"
	case Group:
		return "group"
	}
	return "cluster"
}

// Table holds the rules of the config file. A nil Table has no rules: it allows
// everything.
type Table struct {
	rules []rule
}

type rule struct {
	users, groups, roles []string
	clusters             []string
	topicNames           []string
	groupNames           []string
	actions              []Action
}

// Allows reports whether some rule lets caller do a on the resource of kind named name
// on cluster. The role's own limit (a viewer never resets) is the route's to check;
// this only narrows it. A nil caller is the one local user of a console without sign-in.
func (t *Table) Allows(caller *auth.Caller, cluster string, kind Kind, name string, a Action) bool {
	if t == nil || caller == nil || caller.Role >= auth.Admin {
		return true
	}
	for _, r := range t.rules {
		if slices.Contains(r.actions, a) && r.covers(caller) && matchAny(r.clusters, cluster) && r.names(kind, name) {
			return true
		}
	}
	return false
}

// Limits reports whether rules are configured: with none, lists need no filtering.
func (t *Table) Limits(caller *auth.Caller) bool {
	return t != nil && caller != nil && caller.Role < auth.Admin
}

func (r rule) covers(c *auth.Caller) bool {
	if slices.Contains(r.users, c.Name) || slices.Contains(r.roles, c.Role.String()) {
		return true
	}
	for _, g := range c.Groups {
		if slices.Contains(r.groups, g) {
			return true
		}
	}
	return false
}

func (r rule) names(kind Kind, name string) bool {
	switch kind {
	case Topic:
		return matchAny(r.topicNames, name)
	case Group:
		return matchAny(r.groupNames, name)
	}
	return true
}

// matchAny: an empty list of cluster patterns is every cluster; of topics or groups,
// none (rules name what they grant).
func matchAny(patterns []string, name string) bool {
	for _, p := range patterns {
		if ok, _ := path.Match(p, name); ok {
			return true
		}
	}
	return false
}
