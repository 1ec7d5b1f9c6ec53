package handlers

import (
	"github.com/gin-gonic/gin"

	"rmqconsole/auth"
	"rmqconsole/fault"
	"rmqconsole/i18n"
	"rmqconsole/rights"
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
