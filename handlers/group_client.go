package handlers

import (
	"context"
	"maps"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"github.com/gin-gonic/gin"

	"rmqconsole/cluster"
	"rmqconsole/fault"
	"rmqconsole/freetext"
	"rmqconsole/groups"
	"rmqconsole/i18n"
	"rmqconsole/views"
)

// ClientReader reads one client of a group; *groups.Service implements it.
type ClientReader interface {
	Client(ctx context.Context, group, clientID string, jstack bool) (*groups.ClientInfo, error)
}

// GroupClient is /groups/{group}/clients/{clientId} and its JSON twin: one client's
// running info, with a thread dump on request (?jstack=1).
type GroupClient struct {
	*Env
	// Clients is nil when no NameServer is configured.
	Clients ClientReader
}

// badClientID answers an id no client could have, before any broker is asked.
func badClientID(id string) error {
	return fault.InvalidField("clientId", "client.error.badID", "Client", views.Cut(id)).Because("bad_client")
}

func validClientID(id string) bool {
	return id != "" && freetext.ClientID.Check(id) == nil && !strings.ContainsFunc(id, func(r rune) bool { return !unicode.IsPrint(r) })
}

// read validates the path and asks the service.
func (h *GroupClient) read(c *gin.Context) (*groups.ClientInfo, bool) {
	group, id := c.Param("group"), c.Param("clientId")
	switch {
	case !cluster.ValidName(group):
		h.Fail(c, badGroupName(group))
		return nil, false
	case !validClientID(id):
		h.Fail(c, badClientID(id))
		return nil, false
	case h.Clients == nil:
		h.Fail(c, errNoCluster())
		return nil, false
	}
	ci, err := h.Clients.Client(c.Request.Context(), group, id, c.Query("jstack") == "1")
	if err != nil {
		h.Fail(c, err)
		return nil, false
	}
	return viewOfGroup(CallerRights(c), group).client(ci), true
}

// Show renders the client page.
func (h *GroupClient) Show(c *gin.Context) {
	ci, ok := h.read(c)
	if !ok {
		return
	}
	l := i18n.From(c.Request.Context())
	p := h.page(c, l.T("client.title", "Client", views.Cut(ci.ClientID), "Group", views.Cut(ci.Group)), "groups")
	h.render(c, http.StatusOK, p, views.ClientPage(clientPageVM(l, ci)))
}

// API answers GET /api/v1/groups/{group}/clients/{clientId}[?jstack=1].
func (h *GroupClient) API(c *gin.Context) {
	if ci, ok := h.read(c); ok {
		c.JSON(http.StatusOK, ci)
	}
}

// clientSettingRow is a setting in l's language, keyed by its English name.
func clientSettingRow(l *i18n.Localizer, s groups.ClientSetting) views.SettingRow {
	return views.SettingRow{Key: s.Name.String(), Name: l.SayText(s.Name), Meaning: l.SayText(s.Meaning),
		Value: l.SayText(s.Value), Property: s.Property}
}

// clientPageVM shows a client's running info.
func clientPageVM(l *i18n.Localizer, ci *groups.ClientInfo) views.ClientVM {
	self := views.ClientURL(ci.Group, ci.ClientID)
	vm := views.ClientVM{Group: ci.Group, GroupURL: views.GroupURL(ci.Group), ClientID: ci.ClientID,
		APIURL: "/api/v1" + self, JstackURL: self + "?jstack=1#thread-dump",
		Addr: ci.ClientAddr, Language: ci.Language, Version: ci.Version, Protocol: ci.Protocol, KnownTo: ci.KnownTo, ConsumeType: ci.ConsumeType, MessageModel: ci.MessageModel,
		Mode: ci.ConsumeMode, ConsumeFrom: ci.ConsumeFromWhere, CheckedAt: views.TimeUTC(ci.CheckedAt), CheckedISO: views.ISO(ci.CheckedAt),
		Unavailable: l.SayText(ci.Unavailable), JstackAsked: ci.JstackAsked, Jstack: ci.Jstack}
	vm.Started, vm.StartedISO = groupEpochMs(ci.StartedAt)
	if ci.HiddenTopics > 0 {
		vm.HiddenTopics = l.N("rights.hidden_topics", ci.HiddenTopics)
	}
	for _, s := range ci.Settings {
		vm.Settings = append(vm.Settings, clientSettingRow(l, s))
	}
	for _, k := range slices.Sorted(maps.Keys(ci.Properties)) {
		vm.Properties = append(vm.Properties, views.PropertyRow{Name: k, Value: ci.Properties[k]})
	}
	for _, s := range ci.Subscriptions {
		vm.Subscriptions = append(vm.Subscriptions, views.SubscriptionRow{Topic: s.Topic, TopicURL: views.TopicMessagesURL(s.Topic), Expression: s.Expression, Type: s.ExpressionType})
	}
	for _, q := range ci.Queues {
		r := views.ProcessQueueRow{Topic: q.Topic, Broker: q.BrokerName, QueueID: q.QueueID,
			CachedCount: views.Thousands(q.CachedMsgCount), CachedMiB: views.Thousands(q.CachedMsgSizeInMiB),
			MinOffset: "—", MaxOffset: "—", CommitOffset: views.Thousands(q.CommitOffset), Consuming: views.Thousands(q.TransactionMsgCount),
			Locked: q.Locked, Dropped: q.Dropped}
		if q.CachedMsgCount > 0 {
			r.MinOffset, r.MaxOffset = views.Thousands(q.CachedMsgMinOffset), views.Thousands(q.CachedMsgMaxOffset)
		}
		r.LastLock, r.LastLockISO = groupEpochMs(q.LastLockTimestamp)
		r.LastPull, r.LastPullISO = groupEpochMs(q.LastPullTimestamp)
		r.LastConsume, r.LastConsumeISO = groupEpochMs(q.LastConsumeTimestamp)
		vm.Queues = append(vm.Queues, r)
	}
	for _, q := range ci.PopQueues {
		r := views.PopQueueRow{Topic: q.Topic, Broker: q.BrokerName, QueueID: q.QueueID, WaitAck: strconv.Itoa(q.WaitAckCount), Dropped: q.Dropped}
		r.LastPop, r.LastISO = groupEpochMs(q.LastPopTimestamp)
		vm.PopQueues = append(vm.PopQueues, r)
	}
	for _, t := range ci.Topics {
		vm.Topics = append(vm.Topics, views.TopicConsumeRow{Topic: t.Topic,
			PullTPS: views.Rate(t.PullTPS), PullRT: views.Rate(t.PullRT), ConsumeTPS: views.Rate(t.ConsumeOKTPS), ConsumeRT: views.Rate(t.ConsumeRT),
			FailedTPS: views.Rate(t.ConsumeFailedTPS), FailedLastHour: views.Thousands(t.ConsumeFailedMsgs)})
	}
	switch {
	case ci.JstackWithheld:
		vm.JstackNote = l.T("client.jstack.withheld")
	case ci.JstackAsked && ci.Jstack == "":
		vm.JstackNote = l.T("client.jstack.none")
	}
	return vm
}
