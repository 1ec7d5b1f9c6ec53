package handlers

import (
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/gin-gonic/gin"

	"rmqconsole/auth"
	"rmqconsole/fault"
	"rmqconsole/i18n"
	"rmqconsole/lookup"
	"rmqconsole/paging"
	"rmqconsole/rights"
	"rmqconsole/views"
)

// ConsumeDirectly is POST /messages/{id}/consume-directly (form: group, clientId,
// topic): one client of the group consumes the message again; the message page shows
// its answer. A request that could not work as asked is refused with the reason on the
// same page, and nothing is sent.
func (h *Messages) ConsumeDirectly(c *gin.Context) {
	if h.Lookup == nil {
		h.Fail(c, errNoCluster())
		return
	}
	req := h.directRequest(c, c.PostForm("topic"), c.PostForm("group"), c.PostForm("clientId"))
	if !h.mayConsumeAgain(c, req.Topic, req.Group) {
		return
	}
	a, err := h.Lookup.ConsumeDirectly(c.Request.Context(), req)
	switch {
	case fault.Is(err, fault.Invalid), fault.Is(err, fault.Conflict):
		// Refused before anything was sent: the message's page says why, by the form.
		status, _ := errorStatus(err)
		if status == http.StatusBadRequest {
			status = http.StatusUnprocessableEntity
		}
		l := i18n.From(c.Request.Context())
		why, _ := sayFaults(l, err)
		h.showMessage(c, status, req.Topic, func(vm *views.ConsumeAgainVM) { vm.Refused = l.T("message.again.refused", "Why", why) })
		return
	case err != nil && a == nil:
		h.Fail(c, err)
		return
	}
	h.showMessage(c, http.StatusOK, req.Topic, func(vm *views.ConsumeAgainVM) {
		vm.Answer = directAnswerVM(i18n.From(c.Request.Context()), a, err)
	})
}

// ConsumeDirectlyAPI is POST /api/v1/messages/{id}/consume-directly with
// {"group","clientId"} (and "topic" for a unique key, or ?topic=): the client's answer.
// An answer that is not a success is still 200 with "consumed": false; a client or
// broker that did not answer is a 502/504 with the same body.
func (h *Messages) ConsumeDirectlyAPI(c *gin.Context) {
	if h.Lookup == nil {
		h.Fail(c, errNoCluster())
		return
	}
	var in struct {
		Group    string `json:"group"`
		ClientID string `json:"clientId"`
		Topic    string `json:"topic"`
	}
	if err := decodeAPIBody(c, &in); err != nil {
		h.Fail(c, bodyError(err, "bad_request", "message.direct.api.badjson"))
		return
	}
	if in.Topic == "" {
		in.Topic = c.Query("topic")
	}
	if !h.mayConsumeAgain(c, in.Topic, in.Group) {
		return
	}
	a, err := h.Lookup.ConsumeDirectly(c.Request.Context(), h.directRequest(c, in.Topic, in.Group, in.ClientID))
	if err != nil && a == nil {
		h.Fail(c, err)
		return
	}
	j := directAnswerJSON(a, err)
	status := http.StatusOK
	if a.Result == nil {
		status, j.Code = errorStatus(a.Err)
	}
	c.JSON(status, j)
}

func (h *Messages) directRequest(c *gin.Context, topic, group, clientID string) lookup.DirectRequest {
	req := lookup.DirectRequest{ID: c.Param("id"), Topic: topic, Group: group, ClientID: clientID,
		Actor: Actor(c), ActorAddr: c.ClientIP()}
	if CallerRights(c).Limited() {
		req.Rights = directRights{c: c}
	}
	return req
}

// directRights check a consume-directly request against the caller's rights on the
// message's own topic, once the service has read the message (its id names no topic).
type directRights struct{ c *gin.Context }

// MayConsumeAgain asks for send on the topic: the client runs its listener on the
// message once more, with whatever that does downstream, as if it had been sent to the
// group again; the caller sees the client's answer, never the body, so read-bodies
// would ask for the wrong thing. A refusal is audited, as a refused change is.
func (d directRights) MayConsumeAgain(topic string) error {
	r := CallerRights(d.c)
	if r.Allows(rights.Topic, topic, rights.Send) {
		return nil
	}
	recordRefusal(d.c, rights.Topic, topic, rights.Send)
	return r.Refusal(rights.Topic, topic, rights.Send)
}

// MaySee: see lookup.DirectRights.
func (d directRights) MaySee(topic string) bool { return MayTopic(d.c, topic, rights.ReadMetadata) }

// DirectAnswerJSON is the API's answer to a consume-directly request.
type DirectAnswerJSON struct {
	// Consumed: the client answered CR_SUCCESS (or CR_COMMIT).
	Consumed bool `json:"consumed"`
	// ConsumeResult is the client's CMResult; "" when it gave none.
	ConsumeResult  string `json:"consumeResult"`
	Remark         string `json:"remark"`
	SpentTimeMills int64  `json:"spentTimeMills"`
	Order          bool   `json:"order"`
	AutoCommit     bool   `json:"autoCommit"`
	// Error says why the message was not consumed; Code is set when no answer came.
	Error        string `json:"error,omitempty"`
	Code         string `json:"code,omitempty"`
	Group        string `json:"group"`
	ClientID     string `json:"clientId"`
	ClientAddr   string `json:"clientAddr"`
	Language     string `json:"language"`
	Version      int    `json:"version"`
	MessageModel string `json:"messageModel"`
	Topic        string `json:"topic"`
	MsgID        string `json:"msgId"`
	OffsetMsgID  string `json:"offsetMsgId"`
	BrokerName   string `json:"brokerName"`
	BrokerAddr   string `json:"brokerAddr"`
	AuditID      int64  `json:"auditId"`
	AuditStatus  string `json:"auditStatus"`
}

// directAnswerJSON builds the API answer; auditErr is an outcome that could not be
// written to the audit log.
func directAnswerJSON(a *lookup.DirectAnswer, auditErr error) DirectAnswerJSON {
	j := DirectAnswerJSON{Consumed: a.Consumed(), Group: a.Group, ClientID: a.Client.ClientID, ClientAddr: a.Client.ClientAddr,
		Language: a.Client.Language, Version: a.Client.Version, MessageModel: a.MessageModel,
		Topic: a.Message.Topic, MsgID: a.Message.UniqueKey(), OffsetMsgID: a.Message.OffsetMsgID(),
		BrokerName: a.Message.BrokerName, BrokerAddr: a.BrokerAddr}
	if r := a.Result; r != nil {
		j.ConsumeResult, j.Remark, j.SpentTimeMills, j.Order, j.AutoCommit = r.ConsumeResult, r.Remark, r.SpentTimeMills, r.Order, r.AutoCommit
	}
	if a.Err != nil {
		j.Error = a.Err.Error()
	}
	if a.Entry != nil {
		j.AuditID, j.AuditStatus = a.Entry.ID, string(a.Entry.Status)
	}
	if auditErr != nil {
		j.Error = joinSentences(j.Error, auditErr.Error())
	}
	return j
}

func joinSentences(a, b string) string {
	if a == "" {
		return b
	}
	return a + "; " + b
}

// directOutcomes names each client answer for the page (a catalogue id), with its
// status class.
var directOutcomes = map[string][2]string{
	lookup.ResultSuccess:   {"message.again.outcome.success", "status-ok"},
	lookup.ResultCommit:    {"message.again.outcome.commit", "status-ok"},
	lookup.ResultLater:     {"message.again.outcome.later", "status-warn"},
	lookup.ResultException: {"message.again.outcome.exception", "status-bad"},
	lookup.ResultNull:      {"message.again.outcome.null", "status-bad"},
	lookup.ResultRollback:  {"message.again.outcome.rollback", "status-warn"},
}

func directAnswerVM(l *i18n.Localizer, a *lookup.DirectAnswer, auditErr error) *views.ConsumeAgainAnswer {
	vm := &views.ConsumeAgainAnswer{Group: a.Group, ClientID: a.Client.ClientID, Broker: a.Message.BrokerName + " " + a.BrokerAddr,
		Outcome: l.T("message.again.outcome.none"), Class: "status-bad", SpentMs: "—", Order: "—", AutoCommit: "—", Result: l.T("message.group.offset.none")}
	if r := a.Result; r != nil {
		vm.Result, vm.Remark = r.ConsumeResult, r.Remark
		if vm.Remark == "" {
			vm.Remark = l.T("message.group.offset.none")
		}
		vm.SpentMs = l.T("trace.ms", "Ms", l.Int(r.SpentTimeMills))
		vm.Order, vm.AutoCommit = strconv.FormatBool(r.Order), strconv.FormatBool(r.AutoCommit)
		vm.Outcome, vm.Class = l.T("message.again.outcome.unknown"), "status-bad"
		if o, ok := directOutcomes[r.ConsumeResult]; ok {
			vm.Outcome, vm.Class = l.T(o[0]), o[1]
		}
	}
	if a.Err != nil {
		vm.Error = a.Err.Error()
		if m, ok := a.Err.(i18n.Message); ok {
			vm.Error = l.Say(m)
		}
	}
	if auditErr != nil {
		vm.Error = joinSentences(vm.Error, auditErr.Error())
	}
	if a.Entry != nil && a.Entry.ID > 0 {
		vm.EntryURL, vm.EntryID = auditURL(a.Entry.ID), strconv.FormatInt(a.Entry.ID, 10)
	}
	return vm
}

// consumeAgainVM lists the clients the message can be consumed again on: the online
// clients of each group that subscribes to the message's topic.
func consumeAgainVM(c *gin.Context, m lookup.Message, gs *lookup.GroupStates) views.ConsumeAgainVM {
	l := i18n.From(c.Request.Context())
	vm := views.ConsumeAgainVM{
		// The answer is shown in this section, far down the page: land on it.
		Action:     "/messages/" + url.PathEscape(c.Param("id")) + "/consume-directly#consume-again",
		Topic:      m.Topic,
		CanConsume: CallerRole(c).Allows(auth.Operator),
	}
	unlisted := 0 // groups whose clients the read did not list
	if gs != nil {
		// A topic consumed by thousands of groups has thousands of clients: the page lists
		// the first ones and names any other in a form of its own.
		for _, g := range gs.States {
			if g.Clients == nil && g.State != lookup.Offline {
				unlisted++
			}
			if !g.Subscribed {
				continue
			}
			for _, cl := range g.Clients {
				if vm.Total++; len(vm.Clients) == paging.DefaultLimit {
					continue
				}
				vm.Clients = append(vm.Clients, views.ConsumeAgainClient{Group: g.Group, GroupURL: views.GroupURL(g.Group),
					ClientID: cl.ClientID, ClientAddr: cl.ClientAddr, Language: cl.Language,
					Version: cl.VersionName(), MessageModel: g.MessageModel})
			}
		}
	}
	if len(vm.Clients) == 0 {
		vm.Note = l.T("message.again.none", "Topic", m.Topic, "Broker", m.BrokerName)
	}
	switch more := vm.Total - len(vm.Clients); {
	case more > 0 && unlisted > 0:
		vm.Others = l.T("message.again.others.both", "Clients", more, "Groups", unlisted)
	case more > 0:
		vm.Others = l.T("message.again.others.clients", "Clients", more)
	case unlisted > 0:
		vm.Others = l.T("message.again.others.groups", "Groups", unlisted)
	}
	return vm
}

// mayConsumeAgain answers 403 unless the caller may reset the group (consuming a message
// again moves what the group has seen) and read the topic's messages, both named in the
// body.
func (h *Messages) mayConsumeAgain(c *gin.Context, topic, group string) bool {
	r := CallerRights(c)
	switch {
	case !r.Allows(rights.Group, strings.TrimSpace(group), rights.Reset):
		refuseChange(c, h.Env, rights.Group, group, rights.Reset)
	case topic != "" && !r.Allows(rights.Topic, strings.TrimSpace(topic), rights.Send): // send: see directRights
		refuseChange(c, h.Env, rights.Topic, topic, rights.Send)
	default:
		return true
	}
	return false
}
