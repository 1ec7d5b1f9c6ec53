package handlers

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/gin-gonic/gin"

	"rmqconsole/i18n"
	"rmqconsole/lookup"
	"rmqconsole/views"
)

// traceQuery is the ?traceTopic= of the message page and its trace API.
func traceQuery(c *gin.Context) lookup.TraceQuery {
	return lookup.TraceQuery{Topic: c.Query("traceTopic")}
}

// TraceAPI is GET /api/v1/messages/{id}/trace[?topic=&traceTopic=]: the message's trace.
func (h *Messages) TraceAPI(c *gin.Context) {
	r, ok := h.find(c, c.Query("topic"))
	if !ok {
		return
	}
	t, err := h.Lookup.Trace(c.Request.Context(), r.Message, traceQuery(c), r.Failures...)
	var ie *lookup.InputError
	switch {
	case errors.As(err, &ie):
		h.Fail(c, &UserError{Status: http.StatusBadRequest, Code: ie.Code, Message: lookupSay(i18n.From(c.Request.Context()), ie)})
		return
	case err != nil:
		h.Fail(c, err)
		return
	}
	c.JSON(http.StatusOK, MessageTraceAnswerJSON{MsgID: r.Message.MsgID(), Trace: traceJSON(t), Note: traceOffNote(i18n.From(c.Request.Context()), t)})
}

// MessageTraceAnswerJSON answers GET /api/v1/messages/{id}/trace.
type MessageTraceAnswerJSON struct {
	MsgID string           `json:"msgId"`
	Trace MessageTraceJSON `json:"trace"`
	// Note says why the trace is empty (tracing off, no trace topic); "" when it is not.
	Note string `json:"note,omitempty"`
}

// MessageTraceJSON is a message's trace. Times are epoch ms.
type MessageTraceJSON struct {
	// TraceTopic is the topic read; TraceTopicFrom "asked", "broker" (its
	// msgTraceTopicName) or "default".
	TraceTopic     string `json:"traceTopic"`
	TraceTopicFrom string `json:"traceTopicFrom"`
	// TopicMissing: the trace topic does not exist. TraceTopicEnable is the message's
	// broker's traceTopicEnable ("" when not read).
	TopicMissing     bool                   `json:"topicMissing"`
	TraceTopicEnable string                 `json:"traceTopicEnable,omitempty"`
	Produced         []TracePublishJSON     `json:"produced"`
	Transactions     []TraceTransactionJSON `json:"transactions,omitempty"`
	Consumed         []TraceGroupJSON       `json:"consumed"`
	TraceMessages    int                    `json:"traceMessages"`
	Truncated        bool                   `json:"truncated"`
	Undecodable      int                    `json:"undecodable,omitempty"`
	DecodeError      string                 `json:"decodeError,omitempty"`
	Errors           []BrokerErrorJSON      `json:"errors,omitempty"`
	FromSlaves       []lookup.SlaveRead     `json:"fromSlaves,omitempty"`
}

// TracePublishJSON is one send of the message and where it was stored.
type TracePublishJSON struct {
	ProducerGroup string `json:"producerGroup"`
	ClientHost    string `json:"clientHost"`
	// SentFrom is the address the broker saw the trace record come from (mqadmin's
	// client host); it can differ from the address the client names.
	SentFrom string `json:"sentFrom,omitempty"`
	Time     int64  `json:"time"`
	CostMs   int64  `json:"costMs"`
	// Status is "success" or "failed".
	Status      string `json:"status"`
	Topic       string `json:"topic"`
	Tags        string `json:"tags"`
	Keys        string `json:"keys"`
	BodySize    int    `json:"bodySize"`
	MsgType     string `json:"msgType"`
	StoreHost   string `json:"storeHost"`
	BrokerName  string `json:"brokerName"`
	OffsetMsgID string `json:"offsetMsgId"`
}

// TraceTransactionJSON is a transactional producer's commit or rollback.
type TraceTransactionJSON struct {
	ProducerGroup string `json:"producerGroup"`
	ClientHost    string `json:"clientHost"`
	SentFrom      string `json:"sentFrom,omitempty"`
	Time          int64  `json:"time"`
	State         string `json:"state"`
	TransactionID string `json:"transactionId"`
	FromCheck     bool   `json:"fromCheck"`
}

// TraceGroupJSON is one consumer group's attempts, oldest first.
type TraceGroupJSON struct {
	Group    string             `json:"group"`
	Attempts []TraceAttemptJSON `json:"attempts"`
}

// TraceAttemptJSON is one delivery to a client's listener.
type TraceAttemptJSON struct {
	ClientHost string `json:"clientHost"`
	SentFrom   string `json:"sentFrom,omitempty"`
	Time       int64  `json:"time"`
	RetryTimes int    `json:"retryTimes"`
	// Status is "success", "failed", or "unfinished" (no result recorded yet).
	Status string `json:"status"`
	// CostMs is how long the listener took (0 when unfinished).
	CostMs   int64  `json:"costMs"`
	Returned string `json:"returned,omitempty"`
}

func traceJSON(t *lookup.MessageTrace) MessageTraceJSON {
	j := MessageTraceJSON{TraceTopic: t.Topic, TraceTopicFrom: t.TopicFrom, TopicMissing: t.TopicMissing,
		TraceTopicEnable: t.TraceTopicEnable, Produced: []TracePublishJSON{}, Consumed: []TraceGroupJSON{},
		TraceMessages: t.TraceMessages, Truncated: t.Truncated, Undecodable: t.Undecodable, DecodeError: t.DecodeError,
		Errors: msgBrokerErrorsJSON(t.Failures), FromSlaves: t.FromSlaves}
	for _, p := range t.Published {
		j.Produced = append(j.Produced, TracePublishJSON{ProducerGroup: p.Group, ClientHost: p.ClientHost, SentFrom: p.SentFrom, Time: p.Time.UnixMilli(),
			CostMs: p.CostMs, Status: successWord(p.Success), Topic: p.Topic, Tags: p.Tags, Keys: p.Keys, BodySize: p.BodyLength,
			MsgType: p.MsgType, StoreHost: p.StoreHost, BrokerName: p.StoreBroker, OffsetMsgID: p.OffsetMsgID})
	}
	for _, x := range t.Transactions {
		j.Transactions = append(j.Transactions, TraceTransactionJSON{ProducerGroup: x.Group, ClientHost: x.ClientHost, SentFrom: x.SentFrom,
			Time: x.Time.UnixMilli(), State: x.State, TransactionID: x.TransactionID, FromCheck: x.FromCheck})
	}
	for _, g := range t.Groups {
		gj := TraceGroupJSON{Group: g.Group, Attempts: []TraceAttemptJSON{}}
		for _, a := range g.Attempts {
			gj.Attempts = append(gj.Attempts, TraceAttemptJSON{ClientHost: a.ClientHost, SentFrom: a.SentFrom, Time: a.Time.UnixMilli(),
				RetryTimes: a.RetryTimes, Status: attemptStatus(a), CostMs: a.CostMs, Returned: a.Returned})
		}
		j.Consumed = append(j.Consumed, gj)
	}
	return j
}

// traceHost names the client as its record does, and where the broker saw the record
// come from when that is another address (a second interface, NAT).
func traceHost(l *i18n.Localizer, client, sentFrom string) string {
	if sentFrom == "" || sentFrom == client {
		return client
	}
	return l.T("trace.host.from", "Client", client, "From", sentFrom)
}

func successWord(ok bool) string {
	if ok {
		return "success"
	}
	return "failed"
}

func attemptStatus(a lookup.TraceAttempt) string {
	if !a.Finished {
		return "unfinished"
	}
	return successWord(a.Success)
}

// traceOffNote says why a trace has nothing to show; "" when it has records.
func traceOffNote(l *i18n.Localizer, t *lookup.MessageTrace) string {
	switch {
	case t.TopicMissing:
		s := l.T("trace.off.missing", "Topic", t.Topic)
		switch {
		case t.TopicFrom == lookup.TraceTopicAsked:
			s += " " + l.T("trace.off.missing.asked")
		case t.TraceTopicEnable == "false":
			s += " " + l.T("trace.off.missing.disabled", "Broker", t.ConfigBroker, "Topic", t.Topic)
		default:
			s += " " + l.T("trace.off.missing.create", "Topic", t.Topic)
		}
		return s + " " + l.T("trace.off.then")
	case t.MsgID == "":
		return l.T("trace.off.noid")
	case t.Empty() && t.Undecodable > 0:
		return l.T("trace.off.undecodable", "Topic", t.Topic, "Error", t.DecodeError)
	case t.Empty() && len(t.Failures) > 0:
		return l.T("trace.off.unanswered", "Topic", t.Topic)
	case t.Empty():
		return l.T("trace.off.none", "Topic", t.Topic)
	}
	return ""
}

// traceVM builds the page's trace section; err is the trace's error (the field's or
// the cluster's).
func traceVM(c *gin.Context, m lookup.Message, t *lookup.MessageTrace, err error) *views.TraceVM {
	vm := &views.TraceVM{AskedTopic: c.Query("traceTopic"), Topic: lookup.DefaultTraceTopic}
	l := i18n.From(c.Request.Context())
	if tp := c.Query("topic"); tp != "" {
		vm.Hidden = append(vm.Hidden, views.HiddenField{Name: "topic", Value: tp})
	}
	api := url.Values{"topic": {m.Topic}}
	if vm.AskedTopic != "" {
		api.Set("traceTopic", vm.AskedTopic)
	}
	vm.APIURL = "/api/v1/messages/" + url.PathEscape(c.Param("id")) + "/trace?" + api.Encode()
	var ie *lookup.InputError
	switch {
	case errors.As(err, &ie):
		vm.Error = lookupSay(l, ie)
		vm.TopicNote = l.T("trace.topic.note.bad")
		return vm
	case err != nil:
		vm.Failures = []string{l.T("trace.error", "Error", sayErr(l, err))}
		vm.TopicNote = l.T("trace.topic.note.unread")
		return vm
	}
	vm.Topic = t.Topic
	switch t.TopicFrom {
	case lookup.TraceTopicAsked:
		vm.TopicNote = l.T("trace.topic.note.asked")
	case lookup.TraceTopicBroker:
		vm.TopicNote = l.T("trace.topic.note.broker", "Broker", t.ConfigBroker)
	case lookup.TraceTopicDefault:
		vm.TopicNote = l.T("trace.topic.note.default")
		if t.ConfigBroker != "" {
			vm.TopicNote = l.T("trace.topic.note.default.broker", "Broker", t.ConfigBroker)
		}
	}
	vm.Off = traceOffNote(l, t)
	vm.Failures = msgFailures(l, t.Failures)
	vm.Failures = append(vm.Failures, sayFromSlaves(l, t.FromSlaves, "cluster.slave.what.trace")...)
	if t.Truncated {
		vm.Notes = append(vm.Notes, l.T("trace.note.truncated", "Limit", lookup.KeyLimit))
	}
	if t.Undecodable > 0 && !t.Empty() {
		vm.Notes = append(vm.Notes, l.N("trace.note.undecodable", t.Undecodable, "Error", t.DecodeError))
	}
	for _, p := range t.Published {
		row := views.TracePubRow{Group: p.Group, ClientHost: traceHost(l, p.ClientHost, p.SentFrom), Time: views.TimeUTC(p.Time), Cost: l.T("trace.ms", "Ms", p.CostMs),
			Keys: p.Keys, Tags: p.Tags, MsgType: p.MsgType, BodySize: l.N("message.bytes", p.BodyLength),
			StoreHost: p.StoreHost, StoreBroker: p.StoreBroker, OffsetMsgID: p.OffsetMsgID}
		row.Status, row.StatusClass = l.T("trace.sent"), "status-ok"
		if !p.Success {
			row.Status, row.StatusClass = l.T("trace.sendfailed"), "status-bad"
		}
		if p.StoreBroker != "" {
			row.StoreBrokerURL = views.BrokerURL(p.StoreBroker)
		}
		if p.OffsetMsgID != "" && !strings.EqualFold(p.OffsetMsgID, m.OffsetMsgID()) {
			row.OffsetMsgIDURL = "/messages/" + url.PathEscape(p.OffsetMsgID) + "?" + url.Values{"topic": {m.Topic}}.Encode()
		}
		vm.Published = append(vm.Published, row)
	}
	for _, x := range t.Transactions {
		vm.Transactions = append(vm.Transactions, views.TraceTxRow{Group: x.Group, ClientHost: traceHost(l, x.ClientHost, x.SentFrom), Time: views.TimeUTC(x.Time),
			State: x.State, TransactionID: x.TransactionID, FromCheck: x.FromCheck})
	}
	for _, g := range t.Groups {
		row := views.TraceGroupRow{Group: g.Group}
		if g.Group != "" {
			row.URL = views.GroupURL(g.Group)
		} else {
			row.Group = l.T("trace.group.unrecorded")
		}
		ok := 0
		for i, a := range g.Attempts {
			ar := views.TraceAttemptRow{N: i + 1, ClientHost: traceHost(l, a.ClientHost, a.SentFrom), Time: views.TimeUTC(a.Time),
				Retry: fmt.Sprint(a.RetryTimes), Returned: a.Returned}
			switch {
			case !a.Finished:
				ar.Status, ar.StatusClass, ar.Cost = l.T("trace.attempt.unfinished"), "status-warn", "–"
			case a.Success:
				ar.Status, ar.StatusClass, ar.Cost = l.T("message.group.consumed"), "status-ok", l.T("trace.ms", "Ms", a.CostMs)
				ok = i + 1
			default:
				ar.Status, ar.StatusClass, ar.Cost = l.T("trace.attempt.failed"), "status-bad", l.T("trace.ms", "Ms", a.CostMs)
			}
			if a.Returned == "success" || a.Returned == "failed" {
				ar.Returned = "" // said by the status
			}
			row.Attempts = append(row.Attempts, ar)
		}
		n := len(g.Attempts)
		switch {
		case ok > 0:
			row.Summary, row.SummaryClass = l.T("trace.summary.consumed", "Attempt", ok, "Attempts", n), "status-ok"
		case !g.Attempts[n-1].Finished:
			row.Summary, row.SummaryClass = l.N("trace.summary.consuming", n), "status-warn"
		default:
			row.Summary, row.SummaryClass = l.N("trace.summary.failed", n), "status-bad"
		}
		vm.Groups = append(vm.Groups, row)
	}
	return vm
}
