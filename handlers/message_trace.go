package handlers

import (
	"fmt"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/gin-gonic/gin"

	"rmqconsole/fault"
	"rmqconsole/i18n"
	"rmqconsole/lookup"
	"rmqconsole/masking"
	"rmqconsole/rocketmq"
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
	if err != nil { // a trace topic RocketMQ would refuse is a 400
		h.Fail(c, err)
		return
	}
	t = traceMasked(h.masker(c), r.Message, t)
	c.JSON(http.StatusOK, MessageTraceAnswerJSON{MsgID: r.Message.MsgID(), Trace: traceJSON(t), Note: traceOffNote(i18n.From(c.Request.Context()), t)})
}

// traceMasked is t with the keys and tags of its sends as mk's reader may see them: the
// trace records them as sent, so the traced message m's rules (its topic's, or for a
// retried or dead letter message its RETRY_TOPIC's) mask them as they mask m's own.
func traceMasked(mk *masking.Masker, m lookup.Message, t *lookup.MessageTrace) *lookup.MessageTrace {
	if mk == nil || t == nil || m.Message == nil || len(t.Published) == 0 {
		return t
	}
	out := *t
	out.Published = slices.Clone(t.Published)
	for i := range out.Published {
		p := &out.Published[i]
		probe := *m.Message
		probe.Body, probe.Properties = nil, maps.Clone(m.Properties)
		if probe.Properties == nil {
			probe.Properties = map[string]string{}
		}
		delete(probe.Properties, rocketmq.PropertyKeys)
		delete(probe.Properties, rocketmq.PropertyTags)
		if p.Keys != "" {
			probe.Properties[rocketmq.PropertyKeys] = p.Keys
		}
		if p.Tags != "" {
			probe.Properties[rocketmq.PropertyTags] = p.Tags
		}
		if seen, masked := mk.Message(&probe); masked {
			p.Keys, p.Tags = seen.Properties[rocketmq.PropertyKeys], seen.Properties[rocketmq.PropertyTags]
		}
	}
	return &out
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
	Failures         []lookup.BrokerFailure `json:"failures,omitempty"`
	// Errors are Failures as {"broker","error"}; deprecated: use failures.
	Errors     []BrokerErrorJSON  `json:"errors,omitempty"`
	FromSlaves []lookup.SlaveRead `json:"fromSlaves,omitempty"`
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
		Failures: t.Failures, Errors: msgBrokerErrorsJSON(t.Failures), FromSlaves: t.FromSlaves}
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

// traceAsked is what the message page's trace section was asked with: the trace topic
// typed (?traceTopic=), the topic the page was opened with (?topic=), and the id in its
// path.
type traceAsked struct {
	TraceTopic, Topic, ID string
}

func traceAskedOf(c *gin.Context) traceAsked {
	return traceAsked{TraceTopic: c.Query("traceTopic"), Topic: c.Query("topic"), ID: c.Param("id")}
}

// traceVM builds the page's trace section of m from its trace t, or from err, why the
// trace could not be read (the trace topic typed, or the cluster's failure).
func traceVM(l *i18n.Localizer, asked traceAsked, m lookup.Message, t *lookup.MessageTrace, err error) *views.TraceVM {
	vm := traceFormVM(asked, m)
	switch {
	case fault.Is(err, fault.Invalid):
		vm.Error, _ = sayFaults(l, err)
		vm.TopicNote = l.T("trace.topic.note.bad")
		return vm
	case err != nil:
		vm.Failures = []string{l.T("trace.error", "Error", sayErr(l, err))}
		vm.TopicNote = l.T("trace.topic.note.unread")
		return vm
	}
	vm.Topic, vm.TopicNote = t.Topic, traceTopicNote(l, t)
	vm.Off = traceOffNote(l, t)
	vm.Failures = append(msgFailures(l, t.Failures), sayFromSlaves(l, t.FromSlaves, "cluster.slave.what.trace")...)
	if t.Truncated {
		vm.Notes = append(vm.Notes, l.T("trace.note.truncated", "Limit", lookup.KeyLimit))
	}
	if t.Undecodable > 0 && !t.Empty() {
		vm.Notes = append(vm.Notes, l.N("trace.note.undecodable", t.Undecodable, "Error", t.DecodeError))
	}
	for _, p := range t.Published {
		vm.Published = append(vm.Published, tracePubRow(l, m, p))
	}
	for _, x := range t.Transactions {
		vm.Transactions = append(vm.Transactions, views.TraceTxRow{Group: x.Group, ClientHost: traceHost(l, x.ClientHost, x.SentFrom), Time: views.TimeUTC(x.Time),
			State: x.State, TransactionID: x.TransactionID, FromCheck: x.FromCheck})
	}
	for _, g := range t.Groups {
		vm.Groups = append(vm.Groups, traceGroupRow(l, g))
	}
	return vm
}

// traceFormVM is the trace section's form (the trace topic to read, the page's own
// fields kept) and the link to the same trace in the API.
func traceFormVM(asked traceAsked, m lookup.Message) *views.TraceVM {
	vm := &views.TraceVM{AskedTopic: asked.TraceTopic, Topic: lookup.DefaultTraceTopic}
	if asked.Topic != "" {
		vm.Hidden = append(vm.Hidden, views.HiddenField{Name: "topic", Value: asked.Topic})
	}
	api := url.Values{"topic": {m.Topic}}
	if vm.AskedTopic != "" {
		api.Set("traceTopic", vm.AskedTopic)
	}
	vm.APIURL = "/api/v1/messages/" + url.PathEscape(asked.ID) + "/trace?" + api.Encode()
	return vm
}

// traceTopicNote says where the name of the trace topic read came from.
func traceTopicNote(l *i18n.Localizer, t *lookup.MessageTrace) string {
	switch t.TopicFrom {
	case lookup.TraceTopicAsked:
		return l.T("trace.topic.note.asked")
	case lookup.TraceTopicBroker:
		return l.T("trace.topic.note.broker", "Broker", t.ConfigBroker)
	case lookup.TraceTopicDefault:
		if t.ConfigBroker != "" {
			return l.T("trace.topic.note.default.broker", "Broker", t.ConfigBroker)
		}
		return l.T("trace.topic.note.default")
	}
	return ""
}

// tracePubRow is one send of m, with links to the broker that stored it and to the
// stored message when it is another than m.
func tracePubRow(l *i18n.Localizer, m lookup.Message, p lookup.TracePublish) views.TracePubRow {
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
	return row
}

// traceGroupRow is one group's attempts, and a summary: consumed at which attempt,
// still consuming, or failed every time.
func traceGroupRow(l *i18n.Localizer, g lookup.TraceGroup) views.TraceGroupRow {
	row := views.TraceGroupRow{Group: g.Group}
	if g.Group != "" {
		row.URL = views.GroupURL(g.Group)
	} else {
		row.Group = l.T("trace.group.unrecorded")
	}
	ok := 0
	for i, a := range g.Attempts {
		row.Attempts = append(row.Attempts, traceAttemptRow(l, i+1, a))
		if a.Finished && a.Success {
			ok = i + 1
		}
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
	return row
}

// traceAttemptRow is the n-th delivery of the message to a client of a group.
func traceAttemptRow(l *i18n.Localizer, n int, a lookup.TraceAttempt) views.TraceAttemptRow {
	ar := views.TraceAttemptRow{N: n, ClientHost: traceHost(l, a.ClientHost, a.SentFrom), Time: views.TimeUTC(a.Time),
		Retry: fmt.Sprint(a.RetryTimes), Returned: a.Returned}
	switch {
	case !a.Finished:
		ar.Status, ar.StatusClass, ar.Cost = l.T("trace.attempt.unfinished"), "status-warn", "–"
	case a.Success:
		ar.Status, ar.StatusClass, ar.Cost = l.T("message.group.consumed"), "status-ok", l.T("trace.ms", "Ms", a.CostMs)
	default:
		ar.Status, ar.StatusClass, ar.Cost = l.T("trace.attempt.failed"), "status-bad", l.T("trace.ms", "Ms", a.CostMs)
	}
	if a.Returned == "success" || a.Returned == "failed" {
		ar.Returned = "" // said by the status
	}
	return ar
}
