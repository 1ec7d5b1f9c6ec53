package handlers

import (
	"context"
	"fmt"
	"maps"
	"net/url"
	"slices"
	"strings"
	"sync"
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
	"rmqconsole/rocketmq"
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
	// Refusals records the changes these rights refuse in the audit log; nil records
	// nothing.
	Refusals RightsRefusals
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

// refuseChange answers the 403 of a change the caller's rights refuse, for a topic or
// group the request names in its body (the access check records those named in its
// path), and writes the refusal to the audit log as the access check does.
func refuseChange(c *gin.Context, env *Env, kind rights.Kind, name string, a rights.Action) {
	recordRefusal(c, kind, name, a)
	env.Fail(c, CallerRights(c).Refusal(kind, name, a))
}

// recordRefusal writes the refusal of refuseChange to the audit log.
func recordRefusal(c *gin.Context, kind rights.Kind, name string, a rights.Action) {
	r := CallerRights(c)
	say := r.Refusal(kind, name, a)
	if r.Refusals != nil {
		group, asked := "", resets.Asked{Mode: "rights-" + string(a), Params: map[string]string{"path": c.Request.URL.Path}}
		switch kind {
		case rights.Group:
			group = name
		case rights.Topic:
			asked.Topic = name
		}
		r.Refusals.RefuseRole(c.Request.Context(), who(c), group, asked, say.Msg)
	}
}

// groupsSeen says which groups the caller may see, for a service's sentence that lists
// groups; nil when the caller's rights do not narrow them.
func groupsSeen(c *gin.Context) func(group string) bool {
	r := CallerRights(c)
	if !r.Limited() {
		return nil
	}
	return func(g string) bool { return r.Allows(rights.Group, g, rights.ReadMetadata) }
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
// caller may see; a kept finding whose evidence names a topic of the group the caller
// may not see has its evidence withheld, as the group's page leaves that topic out.
func visibleFindings(c *gin.Context, fs []diagnosis.Finding) []diagnosis.Finding {
	r := CallerRights(c)
	if !r.Limited() {
		return fs
	}
	out := slices.DeleteFunc(slices.Clone(fs), func(f diagnosis.Finding) bool {
		return f.Group != "" && !r.Allows(rights.Group, f.Group, rights.ReadMetadata)
	})
	for i, f := range out {
		v := viewOfGroup(r, f.Group)
		for _, t := range f.Topics {
			v.shows(t)
		}
		if n := v.hiddenCount(); n > 0 {
			out[i] = withheld(f, n)
		}
	}
	return out
}

// withheld is f with its evidence replaced by a sentence saying why it is not shown, and
// its action led to the group's own page or reset form rather than a topic's.
func withheld(f diagnosis.Finding, hidden int) diagnosis.Finding {
	f.Evidence = i18n.M("rights.evidence_withheld", "Count", i18n.Count(hidden))
	f.Topics = nil
	if u, err := url.Parse(f.Action); err == nil {
		q := u.Query()
		q.Del("topic")
		u.RawQuery = q.Encode()
		f.Action = u.String()
	}
	return f
}

// overviewDiagnosisVM is the cluster's findings as the caller may see them.
func overviewDiagnosisVM(c *gin.Context, l *i18n.Localizer, e Findings) views.DiagnosisVM {
	if e == nil {
		return views.DiagnosisVM{}
	}
	return sayFindings(l, func() ([]diagnosis.Finding, time.Time) {
		fs, at := e.Findings()
		return visibleFindings(c, fs), at
	}, visibleUnread(c, e.Unread()))
}

// visibleUnread keeps what the diagnosis could not read but the reads of the locks of
// groups the caller may not see: they name the group.
func visibleUnread(c *gin.Context, us []diagnosis.Unread) []diagnosis.Unread {
	r := CallerRights(c)
	if !r.Limited() {
		return us
	}
	return slices.DeleteFunc(slices.Clone(us), func(u diagnosis.Unread) bool {
		return u.What == diagnosis.UnreadLocks && !r.Allows(rights.Group, u.Subject, rights.ReadMetadata)
	})
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

// groupTopicVisible reports whether the caller may see topic named in group's detail:
// the group's own retry and dead-letter topics go with the group (which the caller may
// read, or they would not be here); a POP retry topic goes with the topic it revives;
// any other topic needs its metadata right. hidden is the topic counted when it is not.
func (r Rights) groupTopicVisible(group, topic string) (ok bool, hidden string) {
	if topic == rocketmq.RetryTopic(group) || topic == rocketmq.DLQTopic(group) {
		return true, ""
	}
	if t, pop := rocketmq.PopRetryTopicOf(topic, group); pop {
		topic = t
	}
	return r.Allows(rights.Topic, topic, rights.ReadMetadata), topic
}

// groupView filters a group's detail, its live history and its rebalance events down
// to the topics the caller may see. It is the one place the group page, its API, its
// live frames, its clients and its rebalance history leave out another team's topics:
// each copies what it changes, as the detail is shared with other viewers.
type groupView struct {
	r      Rights
	group  string
	hidden map[string]bool
}

// viewOfGroup is the filter of group for the caller; nil when their rights do not
// narrow what they see.
func viewOfGroup(r Rights, group string) *groupView {
	if !r.Limited() {
		return nil
	}
	return &groupView{r: r, group: group, hidden: map[string]bool{}}
}

func (v *groupView) shows(topic string) bool {
	ok, name := v.r.groupTopicVisible(v.group, topic)
	if !ok {
		v.hidden[name] = true
	}
	return ok
}

func (v *groupView) subscriptions(subs []groups.Subscription) []groups.Subscription {
	return slices.DeleteFunc(slices.Clone(subs), func(s groups.Subscription) bool { return !v.shows(s.Topic) })
}

// detail is d without the queues, topics, subscriptions and assignment rows of topics
// the caller may not see, and without the lock warnings of those queues (they name
// them). The totals stay the group's: they name no topic.
func (v *groupView) detail(d *groups.Detail) *groups.Detail {
	if v == nil || d == nil {
		return d
	}
	out := *d
	out.Queues = slices.DeleteFunc(slices.Clone(d.Queues), func(q groups.QueueLag) bool { return !v.shows(q.Topic) })
	out.Topics = slices.DeleteFunc(slices.Clone(d.Topics), func(t groups.TopicSummary) bool { return !v.shows(t.Topic) })
	out.Assignment.Queues = slices.DeleteFunc(slices.Clone(d.Assignment.Queues), func(q groups.AssignedQueue) bool { return !v.shows(q.Topic) })
	out.Clients = slices.Clone(d.Clients)
	for i := range out.Clients {
		out.Clients[i].Subscriptions = v.subscriptions(out.Clients[i].Subscriptions)
	}
	out.Blocked = nil
	for _, q := range out.Queues {
		if q.Lock != nil && q.Lock.Warning != nil {
			out.Blocked = append(out.Blocked, q.Lock.Warning)
		}
	}
	out.HiddenTopics = len(v.hidden)
	return &out
}

// client is ci without the subscriptions, queues and consume figures of topics the
// caller may not see, and without the reported properties that name one.
func (v *groupView) client(ci *groups.ClientInfo) *groups.ClientInfo {
	if v == nil || ci == nil {
		return ci
	}
	out := *ci
	out.Subscriptions = v.subscriptions(ci.Subscriptions)
	out.Queues = slices.DeleteFunc(slices.Clone(ci.Queues), func(q groups.ProcessQueue) bool { return !v.shows(q.Topic) })
	out.PopQueues = slices.DeleteFunc(slices.Clone(ci.PopQueues), func(q groups.PopQueue) bool { return !v.shows(q.Topic) })
	out.Topics = slices.DeleteFunc(slices.Clone(ci.Topics), func(t groups.TopicConsume) bool { return !v.shows(t.Topic) })
	if len(v.hidden) > 0 {
		out.Properties = maps.Clone(ci.Properties)
		maps.DeleteFunc(out.Properties, func(_, value string) bool { return v.namesHidden(value) })
	}
	if out.Jstack != "" && v.namesHidden(out.Jstack) {
		out.Jstack, out.JstackWithheld = "", true
	}
	out.HiddenTopics = len(v.hidden)
	return &out
}

// namesHidden reports whether text names a topic the filter has left out so far.
func (v *groupView) namesHidden(text string) bool {
	for t := range v.hidden {
		if strings.Contains(text, t) {
			return true
		}
	}
	return false
}

// hiddenCount is how many topics the filter has left out so far.
func (v *groupView) hiddenCount() int {
	if v == nil {
		return 0
	}
	return len(v.hidden)
}

// events are the rebalance events without the moves of queues of hidden topics.
func (v *groupView) events(es []groups.Event) []groups.Event {
	if v == nil {
		return es
	}
	return slices.DeleteFunc(slices.Clone(es), func(e groups.Event) bool { return e.Topic != "" && !v.shows(e.Topic) })
}

// history is the live lag history without the queues of hidden topics.
func (v *groupView) history(h *groups.History) *groups.History {
	if v == nil || h == nil {
		return h
	}
	out := *h
	out.Queues = maps.Clone(h.Queues)
	maps.DeleteFunc(out.Queues, func(mq rocketmq.MessageQueue, _ []float64) bool { return !v.shows(mq.Topic) })
	return &out
}

// update is a live tick as the caller may see it.
func (v *groupView) update(u *groups.Update) *groups.Update {
	if v == nil || u == nil {
		return u
	}
	out := *u
	out.Detail = v.detail(u.Detail)
	out.Events, out.Recent = v.events(u.Events), v.events(u.Recent)
	out.History = v.history(u.History)
	out.ChangedQueues = slices.DeleteFunc(slices.Clone(u.ChangedQueues), func(mq rocketmq.MessageQueue) bool { return !v.shows(mq.Topic) })
	if out.Detail != nil {
		out.Detail.HiddenTopics = len(v.hidden)
	}
	return &out
}

// LiveViews remembers the rights of the callers watching groups live, by a key that
// names them, so a group's live frames are rendered once per language and distinct
// rights (groups.ViewSep), not once per viewer, and each caller is sent only what
// they may see. Callers whose rights do not narrow them share the plain frames.
type LiveViews struct {
	byKey sync.Map // view key → Rights
}

// viewFor is the language key a caller watches group in: lang alone when their rights
// do not narrow them, else lang and the key of their rights.
func (lv *LiveViews) viewFor(r Rights, lang string) string {
	if lv == nil || !r.Limited() {
		return lang
	}
	c := r.Caller
	key := fmt.Sprintf("%s|%s|%d|%s", r.Cluster, c.Name, c.Role, strings.Join(c.Groups, ","))
	lv.byKey.Store(key, r)
	return lang + groups.ViewSep + key
}

// update is u as the viewers of the frame being rendered (groups.ViewOf(ctx)) may see
// it. A view the console does not know sees nothing of the group's topics.
func (lv *LiveViews) update(ctx context.Context, u *groups.Update) *groups.Update {
	key := groups.ViewOf(ctx)
	if key == "" || u == nil {
		return u
	}
	group := ""
	if u.Detail != nil {
		group = u.Detail.Group
	}
	var r Rights
	if lv != nil {
		if v, ok := lv.byKey.Load(key); ok {
			r = v.(Rights)
		}
	}
	if r.Table == nil {
		r = Rights{Table: &rights.Table{}, Caller: &auth.Caller{}} // no rules: every topic hidden
	}
	return viewOfGroup(r, group).update(u)
}

// auditVisible reports whether the caller may see entry e of the audit log: a caller
// whose rights do not narrow them sees every entry; another sees an entry only when it
// names a group or topics and they may see every one of them (an entry naming a group
// of theirs and another team's topic would name that topic), on the entry's own
// cluster. Entries naming neither (sign-ins, ACL and broker changes) concern the whole
// cluster, and are left to callers whose rights do not narrow them.
func (r Rights) auditVisible(e *store.AuditEntry, defaultCluster string) bool {
	if !r.Limited() {
		return true
	}
	if e.Group == "" && len(e.Topics) == 0 {
		return false
	}
	cluster := e.ClusterName
	if cluster == "" {
		cluster = defaultCluster
	}
	if e.Group != "" && !r.Table.Allows(r.Caller, cluster, rights.Group, e.Group, rights.ReadMetadata) {
		return false
	}
	for _, t := range e.Topics {
		if !r.Table.Allows(r.Caller, cluster, rights.Topic, t, rights.ReadMetadata) {
			return false
		}
	}
	return true
}

// visibleAuditEntries keeps the entries of page the caller may see.
func (r Rights) visibleAuditEntries(page []store.AuditEntry, defaultCluster string) []store.AuditEntry {
	if !r.Limited() {
		return page
	}
	return slices.DeleteFunc(slices.Clone(page), func(e store.AuditEntry) bool { return !r.auditVisible(&e, defaultCluster) })
}
