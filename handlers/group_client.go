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
	"rmqconsole/groups"
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
func badClientID(id string) *UserError {
	return &UserError{Status: http.StatusBadRequest, Code: "bad_client",
		Message: "“" + views.Cut(id) + "” is not a client id: ids are up to 255 printable characters, such as 10.0.0.5@12345. Pick the client from the group's clients."}
}

func validClientID(id string) bool {
	return id != "" && len(id) <= 255 && !strings.ContainsFunc(id, func(r rune) bool { return !unicode.IsPrint(r) })
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
		h.Fail(c, errGroupsNoCluster)
		return nil, false
	}
	ci, err := h.Clients.Client(c.Request.Context(), group, id, c.Query("jstack") == "1")
	if err != nil {
		h.Fail(c, err)
		return nil, false
	}
	return ci, true
}

// Show renders the client page.
func (h *GroupClient) Show(c *gin.Context) {
	ci, ok := h.read(c)
	if !ok {
		return
	}
	p := h.page(c, views.Cut(ci.ClientID)+" · client of "+views.Cut(ci.Group), "groups")
	h.render(c, http.StatusOK, p, views.ClientPage(clientPageVM(ci)))
}

// API answers GET /api/v1/groups/{group}/clients/{clientId}[?jstack=1].
func (h *GroupClient) API(c *gin.Context) {
	if ci, ok := h.read(c); ok {
		c.JSON(http.StatusOK, ci)
	}
}

// clientPageVM shows a client's running info.
func clientPageVM(ci *groups.ClientInfo) views.ClientVM {
	self := views.ClientURL(ci.Group, ci.ClientID)
	vm := views.ClientVM{Group: ci.Group, GroupURL: views.GroupURL(ci.Group), ClientID: ci.ClientID,
		APIURL: "/api/v1" + self, JstackURL: self + "?jstack=1#thread-dump",
		Addr: ci.ClientAddr, Language: ci.Language, Version: ci.Version, Protocol: ci.Protocol, KnownTo: ci.KnownTo, ConsumeType: ci.ConsumeType, MessageModel: ci.MessageModel,
		Mode: ci.ConsumeMode, ConsumeFrom: ci.ConsumeFromWhere, CheckedAt: views.TimeUTC(ci.CheckedAt), CheckedISO: views.ISO(ci.CheckedAt),
		Unavailable: ci.Unavailable, JstackAsked: ci.JstackAsked, Jstack: ci.Jstack}
	vm.Started, vm.StartedISO = groupEpochMs(ci.StartedAt)
	for _, s := range ci.Settings {
		vm.Settings = append(vm.Settings, views.SettingRow{Name: s.Name, Meaning: s.Meaning, Value: s.Value, Property: s.Property})
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
	if ci.JstackAsked && ci.Jstack == "" {
		vm.JstackNote = "The client was asked for a thread dump (jstackEnable) and sent none. Java clients and rocketmq-client-go send one; other clients (C++, .NET, Python, Node.js) may not implement it."
	}
	return vm
}
