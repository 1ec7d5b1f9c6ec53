package acl

import (
	"fmt"
	"net"
	"regexp"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"rmqconsole/fault"
	"rmqconsole/freetext"
	"rmqconsole/rocketmq"
)

// Limits of what the console sends, checked before any broker is asked.
const (
	// MaxNameLen bounds a user name.
	MaxNameLen = 64
	// MaxPasswordLen bounds a password (it is the secret requests are signed with).
	MaxPasswordLen = 128
	// MaxEntries bounds the entries of one policy.
	MaxEntries = 64
	// MaxSourceIPs bounds the source addresses of one entry.
	MaxSourceIPs = 32
)

// User types and statuses as RocketMQ names them.
const (
	TypeSuper     = "Super"
	TypeNormal    = "Normal"
	StatusEnable  = "enable"
	StatusDisable = "disable"
)

// Policy types, decisions and actions as RocketMQ names them.
var (
	PolicyTypes = []string{"Custom", "Default"}
	Decisions   = []string{"Allow", "Deny"}
	// Actions are those a policy may name ("Any" is refused by brokers).
	Actions = []string{"All", "Pub", "Sub", "Create", "Update", "Delete", "Get", "List"}
	// ResourceTypes are those a resource may name, before the ':'.
	ResourceTypes = []string{"Cluster", "Namespace", "Topic", "Group"}
)

// userName is what the console accepts as a user name. RocketMQ itself refuses only a
// blank one, but a name with a ':' or a space cannot be a policy's subject ("User:a:b")
// nor an access key a client configures.
var userName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._@-]*$`)

// CheckUsername checks a user name before any broker is asked.
func CheckUsername(name string) *fault.Error {
	switch {
	case strings.TrimSpace(name) == "":
		return fault.InvalidField("username", "acl.input.username.blank")
	case len(name) > MaxNameLen:
		return fault.InvalidField("username", "acl.input.username.long", "Len", len(name), "Max", MaxNameLen)
	case !userName.MatchString(name):
		return fault.InvalidField("username", "acl.input.username.bad", "Name", freetext.Quote(name))
	}
	return nil
}

func checkPassword(pw string, required bool, errs *fault.List) {
	switch {
	case pw == "" && required:
		errs.Invalid("password", "acl.input.password.missing")
	case pw == "":
	case strings.TrimSpace(pw) == "":
		errs.Invalid("password", "acl.input.password.blank")
	case utf8.RuneCountInString(pw) > MaxPasswordLen:
		errs.Invalid("password", "acl.input.password.long", "Max", MaxPasswordLen)
	case strings.IndexFunc(pw, unicode.IsControl) >= 0:
		errs.Invalid("password", "acl.input.password.control")
	}
}

// canonical returns the value of allowed equal to v ignoring case (RocketMQ matches
// these names case-insensitively), ok false when there is none.
func canonical(v string, allowed []string) (string, bool) {
	i := slices.IndexFunc(allowed, func(a string) bool { return strings.EqualFold(a, v) })
	if i < 0 {
		return v, false
	}
	return allowed[i], true
}

// Subject is the policy subject of a user name: "User:<name>". A subject already
// written that way is returned as it is.
func Subject(s string) string {
	if name, ok := strings.CutPrefix(s, "User:"); ok {
		return "User:" + name
	}
	return "User:" + s
}

// SubjectUser is the user name of a subject.
func SubjectUser(subject string) string { return strings.TrimPrefix(subject, "User:") }

// resourceName is a topic, group, cluster or namespace name, a prefix ending in "*",
// or "*".
var resourceName = regexp.MustCompile(`^([A-Za-z0-9%|_-]{1,255}\*?|\*)$`)

// checkResource checks and canonicalises a resource: "*", or "<Type>:<name>".
func checkResource(r string) (string, *fault.Error) {
	if r == "*" {
		return r, nil
	}
	typ, name, ok := strings.Cut(r, ":")
	t, known := canonical(typ, ResourceTypes)
	switch {
	case strings.TrimSpace(r) == "":
		return r, fault.InvalidField("entries", "acl.input.resource.blank")
	case !ok || !known:
		return r, fault.InvalidField("entries", "acl.input.resource.type", "Resource", freetext.Quote(r), "Types", strings.Join(ResourceTypes, ", "))
	case !resourceName.MatchString(name):
		return r, fault.InvalidField("entries", "acl.input.resource.name", "Resource", freetext.Quote(r))
	}
	return t + ":" + name, nil
}

// PolicyRequest gives a subject the entries of one policy type.
type PolicyRequest struct {
	// Subject is "User:<name>" (a bare name is taken as the user's).
	Subject string `json:"subject"`
	// PolicyType is "Custom" (the default) or "Default".
	PolicyType string                 `json:"policyType,omitempty"`
	Entries    []rocketmq.PolicyEntry `json:"entries"`
}

// check checks and canonicalises r in place.
func (r *PolicyRequest) check() error {
	var errs fault.List
	r.Subject = Subject(strings.TrimSpace(r.Subject))
	if e := CheckUsername(SubjectUser(r.Subject)); e != nil {
		errs.Add(e.On("subject"))
	}
	if r.PolicyType == "" {
		r.PolicyType = "Custom"
	}
	if t, ok := canonical(r.PolicyType, PolicyTypes); ok {
		r.PolicyType = t
	} else {
		errs.Invalid("policyType", "acl.input.policytype", "Type", freetext.Quote(r.PolicyType))
	}
	switch {
	case len(r.Entries) == 0:
		errs.Invalid("entries", "acl.input.entries.none")
	case len(r.Entries) > MaxEntries:
		errs.Invalid("entries", "acl.input.entries.many", "N", len(r.Entries), "Max", MaxEntries)
	}
	seen := map[string]bool{}
	for i := range r.Entries {
		e := &r.Entries[i]
		res, fe := checkResource(strings.TrimSpace(e.Resource))
		if fe != nil {
			errs.Add(fe)
			continue
		}
		e.Resource = res
		if seen[res] {
			errs.Invalid("entries", "acl.input.resource.twice", "Resource", res)
		}
		seen[res] = true
		if len(e.Actions) == 0 {
			errs.Invalid("entries", "acl.input.actions.none", "Resource", res)
		}
		for j, a := range e.Actions {
			if c, ok := canonical(strings.TrimSpace(a), Actions); ok {
				e.Actions[j] = c
			} else {
				errs.Invalid("entries", "acl.input.actions.bad", "Action", freetext.Quote(a), "Resource", res, "Actions", strings.Join(Actions, ", "))
			}
		}
		if d, ok := canonical(strings.TrimSpace(e.Decision), Decisions); ok {
			e.Decision = d
		} else {
			errs.Invalid("entries", "acl.input.decision", "Decision", freetext.Quote(e.Decision), "Resource", res)
		}
		if len(e.SourceIPs) > MaxSourceIPs {
			errs.Invalid("entries", "acl.input.ips.many", "Resource", res, "Max", MaxSourceIPs)
		}
		for j, ip := range e.SourceIPs {
			ip = strings.TrimSpace(ip)
			e.SourceIPs[j] = ip
			if net.ParseIP(ip) == nil {
				if _, _, err := net.ParseCIDR(ip); err != nil {
					errs.Invalid("entries", "acl.input.ips.bad", "IP", freetext.Quote(ip), "Resource", res)
				}
			}
		}
	}
	return errs.Err()
}

// UserRequest creates or updates a user. In an update an empty field is kept.
type UserRequest struct {
	Username   string `json:"username"`
	Password   string `json:"password,omitempty"`
	UserType   string `json:"userType,omitempty"`
	UserStatus string `json:"userStatus,omitempty"`
}

// check checks and canonicalises r in place; create requires a password.
func (r *UserRequest) check(create bool) error {
	var errs fault.List
	if e := CheckUsername(r.Username); e != nil {
		errs.Add(e)
	}
	checkPassword(r.Password, create, &errs)
	if r.UserType != "" {
		if t, ok := canonical(r.UserType, []string{TypeSuper, TypeNormal}); ok {
			r.UserType = t
		} else {
			errs.Invalid("userType", "acl.input.usertype", "Type", freetext.Quote(r.UserType))
		}
	}
	if r.UserStatus != "" {
		if s, ok := canonical(r.UserStatus, []string{StatusEnable, StatusDisable}); ok {
			r.UserStatus = s
		} else {
			errs.Invalid("userStatus", "acl.input.userstatus", "Status", freetext.Quote(r.UserStatus))
		}
	}
	if !create && r.Password == "" && r.UserType == "" && r.UserStatus == "" && len(errs) == 0 {
		errs.Invalid("", "acl.input.user.nothing")
	}
	return errs.Err()
}

// entryText is a policy entry in words as pages and the audit log show it:
// "Allow Pub,Sub from 10.0.0.0/8".
func entryText(e rocketmq.PolicyEntry) string {
	from := "any address"
	if len(e.SourceIPs) > 0 {
		from = strings.Join(e.SourceIPs, ",")
	}
	return fmt.Sprintf("%s %s from %s", e.Decision, strings.Join(e.Actions, ","), from)
}
