package handlers

import (
	"context"
	"slices"
	"time"

	"github.com/gin-gonic/gin"

	"rmqconsole/alerts"
	"rmqconsole/auth"
	"rmqconsole/deadletters"
	"rmqconsole/diagnosis"
	"rmqconsole/fault"
	"rmqconsole/groups"
	"rmqconsole/i18n"
	"rmqconsole/lookup"
	"rmqconsole/resets"
	"rmqconsole/rights"
	"rmqconsole/store"
	"rmqconsole/topics"
	"rmqconsole/views"
)

// RightsKey is the gin context key under which the access check stores the caller's
// Rights.
const RightsKey = "rights"

// Rights are what the caller may do to the topics and groups of this cluster: the one
// place handlers ask, whether to show a topic in a list, a reset button, or to act on a
// group a request body names.
type Rights struct {
	Table   *rights.Table
	Caller  *auth.Caller
	Cluster string
}

// CallerRights returns the caller's rights; without any (single-user local mode, no
// rights configured) they allow everything.
func CallerRights(c *gin.Context) Rights {
	v, _ := c.Get(RightsKey)
	r, _ := v.(Rights)
	return r
}

// Allows reports whether the caller may do a to the topic or group name.
func (r Rights) Allows(kind rights.Kind, name string, a rights.Action) bool {
	return r.Table.Allows(r.Caller, r.Cluster, kind, name, a)
}

// Limited reports whether the rules narrow this caller at all: lists then keep only what
// the caller may see.
func (r Rights) Limited() bool { return r.Table.Limits(r.Caller) }

// Refusal is the 403 answered when the caller may not do a to the resource: a sentence
// naming it, the same for pages and the API.
func (r Rights) Refusal(kind rights.Kind, name string, a rights.Action) *fault.Error {
	what := i18n.M("rights.what." + string(a))
	msg := i18n.M("rights.refused", "Cluster", r.Cluster, "What", what, "Kind", i18n.M("rights.kind."+kind.String()), "Name", name)
	if kind == rights.Cluster {
		msg = i18n.M("rights.refused.cluster", "Cluster", r.Cluster, "What", what)
	}
	return &fault.Error{Code: fault.Refused, Reason: "forbidden", Msg: msg}
}

// MayTopic and MayGroup report whether the caller may do a to a topic or a group.
func MayTopic(c *gin.Context, topic string, a rights.Action) bool {
	return CallerRights(c).Allows(rights.Topic, topic, a)
}

// MayGroup: see MayTopic.
func MayGroup(c *gin.Context, group string, a rights.Action) bool {
	return CallerRights(c).Allows(rights.Group, group, a)
}

// visibleTopics is l with only the topics the caller may see; l itself is shared with
// other callers and left as it is.
func visibleTopics(c *gin.Context, l *topics.List) *topics.List {
	r := CallerRights(c)
	if !r.Limited() || l == nil {
		return l
	}
	out := *l
	out.Topics = slices.DeleteFunc(slices.Clone(l.Topics), func(s topics.Summary) bool {
		return !r.Allows(rights.Topic, s.Topic, rights.ReadMetadata)
	})
	return &out
}

// visibleGroups is l with only the groups the caller may see; l is left as it is.
func visibleGroups(c *gin.Context, l *groups.List) *groups.List {
	r := CallerRights(c)
	if !r.Limited() || l == nil {
		return l
	}
	out := *l
	out.Groups = slices.DeleteFunc(slices.Clone(l.Groups), func(s groups.Summary) bool {
		return !r.Allows(rights.Group, s.Group, rights.ReadMetadata)
	})
	return &out
}

// RightsRefusals records a change the caller's rights refused in the audit log, as a
// reset refused for the caller's role is (package resets implements it).
type RightsRefusals interface {
	RefuseRole(ctx context.Context, who resets.Who, group string, asked resets.Asked, why i18n.Message) *store.AuditEntry
}

// mayResetGroups answers 403, recorded through rec when set, unless the caller may see
// topic and reset every one of groups. It serves requests whose topic and groups are
// known only from their body or from the plan a pattern made.
func mayResetGroups(c *gin.Context, env *Env, rec RightsRefusals, topic string, groups []string, asked resets.Asked) bool {
	r := CallerRights(c)
	if topic != "" && !r.Allows(rights.Topic, topic, rights.ReadMetadata) {
		say := r.Refusal(rights.Topic, topic, rights.ReadMetadata)
		if rec != nil {
			rec.RefuseRole(c.Request.Context(), who(c), "", asked, say.Msg)
		}
		env.Fail(c, say)
		return false
	}
	for _, g := range groups {
		if r.Allows(rights.Group, g, rights.Reset) {
			continue
		}
		say := r.Refusal(rights.Group, g, rights.Reset)
		if rec != nil {
			rec.RefuseRole(c.Request.Context(), who(c), g, asked, say.Msg)
		}
		env.Fail(c, say)
		return false
	}
	return true
}

// planGroups are the groups a plan of several resets names.
func planGroups(p *resets.SeveralPlan) []string {
	out := make([]string, 0, len(p.Groups))
	for _, g := range p.Groups {
		out = append(out, g.Group)
	}
	return out
}

// visibleTopicNames are the names the caller may see, for the topic choices of forms.
func visibleTopicNames(c *gin.Context, names []string) []string {
	r := CallerRights(c)
	if !r.Limited() {
		return names
	}
	return slices.DeleteFunc(slices.Clone(names), func(t string) bool { return !r.Allows(rights.Topic, t, rights.ReadMetadata) })
}

// visibleGroupStates is a message's group states without the groups the caller may
// not see; gs is left as it is (lookup keeps it for the later pages).
func visibleGroupStates(c *gin.Context, gs *lookup.GroupStates) *lookup.GroupStates {
	r := CallerRights(c)
	if !r.Limited() || gs == nil {
		return gs
	}
	out := *gs
	out.States = slices.DeleteFunc(slices.Clone(gs.States), func(s lookup.GroupState) bool {
		return !r.Allows(rights.Group, s.Group, rights.ReadMetadata)
	})
	return &out
}

// visibleDeadLetters keeps the dead-letter topics of the groups the caller may see.
func visibleDeadLetters(c *gin.Context, list []deadletters.GroupDLQ) []deadletters.GroupDLQ {
	r := CallerRights(c)
	if !r.Limited() {
		return list
	}
	return slices.DeleteFunc(slices.Clone(list), func(d deadletters.GroupDLQ) bool {
		return !r.Allows(rights.Group, d.Group, rights.ReadMetadata)
	})
}

// visibleFindings keeps the findings about brokers, NameServers and the groups the
// caller may see.
func visibleFindings(c *gin.Context, fs []diagnosis.Finding) []diagnosis.Finding {
	r := CallerRights(c)
	if !r.Limited() {
		return fs
	}
	return slices.DeleteFunc(slices.Clone(fs), func(f diagnosis.Finding) bool {
		return f.Group != "" && !r.Allows(rights.Group, f.Group, rights.ReadMetadata)
	})
}

// overviewDiagnosisVM is the cluster's findings as the caller may see them.
func overviewDiagnosisVM(c *gin.Context, l *i18n.Localizer, e Findings) views.DiagnosisVM {
	if e == nil {
		return views.DiagnosisVM{}
	}
	return sayFindings(l, func() ([]diagnosis.Finding, time.Time) {
		fs, at := e.Findings()
		return visibleFindings(c, fs), at
	}, e.Unread())
}

// visibleFiring keeps the firing alerts on brokers and on the groups the caller may see.
func visibleFiring(c *gin.Context, firing []alerts.FiringAlert) []alerts.FiringAlert {
	r := CallerRights(c)
	if !r.Limited() {
		return firing
	}
	return slices.DeleteFunc(slices.Clone(firing), func(f alerts.FiringAlert) bool {
		return alerts.Target(f.Rule.Metric) == alerts.TargetGroup && !r.Allows(rights.Group, f.State.Group, rights.ReadMetadata)
	})
}
