package handlers

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/gin-gonic/gin"

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
		h.Fail(c, &UserError{Status: http.StatusBadRequest, Code: ie.Code, Message: ie.Message})
		return
	case err != nil:
		h.Fail(c, err)
		return
	}
	c.JSON(http.StatusOK, MessageTraceAnswerJSON{MsgID: r.Message.MsgID(), Trace: traceJSON(t), Note: traceOffNote(t)})
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
func traceHost(client, sentFrom string) string {
	if sentFrom == "" || sentFrom == client {
		return client
	}
	return client + " (connected from " + sentFrom + ")"
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

// traceEnableHint is how tracing is turned on, for the sentences that say it is off.
const traceEnableHint = "enable it with the client's trace option (Java: new DefaultMQProducer(group, true) or " +
	"DefaultMQPushConsumer(group, true); Go: producer.WithTrace / consumer.WithTrace with a primitive.TraceConfig), " +
	"for producers and consumers alike."

// traceOffNote says why a trace has nothing to show; "" when it has records.
func traceOffNote(t *lookup.MessageTrace) string {
	switch {
	case t.TopicMissing:
		s := fmt.Sprintf("The trace topic %s does not exist on this cluster, so no client could record a trace in it.", t.Topic)
		switch {
		case t.TopicFrom == lookup.TraceTopicAsked:
			s += " Check the name your clients were configured with."
		case t.TraceTopicEnable == "false":
			s += fmt.Sprintf(" Broker %s runs with traceTopicEnable=false: brokers create %s when started with traceTopicEnable=true, or create the topic with mqadmin updateTopic.", t.ConfigBroker, t.Topic)
		default:
			s += fmt.Sprintf(" Brokers create %s when started with traceTopicEnable=true; or create the topic with mqadmin updateTopic.", t.Topic)
		}
		return s + " Then " + traceEnableHint
	case t.MsgID == "":
		return "This message has neither a unique key nor an offsetMsgId, which trace records are keyed by."
	case t.Empty() && t.Undecodable > 0:
		return fmt.Sprintf("Trace topic %s holds records under this message's id, but none could be read: %s", t.Topic, t.DecodeError)
	case t.Empty() && len(t.Failures) > 0:
		return fmt.Sprintf("No trace record of this message was found in %s on the brokers that answered.", t.Topic)
	case t.Empty():
		return fmt.Sprintf("This message has no trace records in %s: the producer was not started with tracing, and no consumer with tracing on has consumed it; %s",
			t.Topic, traceEnableHint)
	}
	return ""
}

// traceVM builds the page's trace section; err is the trace's error (the field's or
// the cluster's).
func traceVM(c *gin.Context, m lookup.Message, t *lookup.MessageTrace, err error) *views.TraceVM {
	vm := &views.TraceVM{AskedTopic: c.Query("traceTopic"), Topic: lookup.DefaultTraceTopic}
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
		vm.Error = ie.Message
		vm.TopicNote = "the trace topic asked cannot be read"
		return vm
	case err != nil:
		vm.Failures = []string{"The trace could not be read: " + err.Error() + "."}
		vm.TopicNote = "not read"
		return vm
	}
	vm.Topic = t.Topic
	vm.TopicNote = map[string]string{
		lookup.TraceTopicAsked:   "as asked",
		lookup.TraceTopicBroker:  "msgTraceTopicName of broker " + t.ConfigBroker,
		lookup.TraceTopicDefault: "RocketMQ's default; the broker's config was not read",
	}[t.TopicFrom]
	if t.TopicFrom == lookup.TraceTopicDefault && t.ConfigBroker != "" {
		vm.TopicNote = "RocketMQ's default; broker " + t.ConfigBroker + " names no msgTraceTopicName"
	}
	vm.Off = traceOffNote(t)
	vm.Failures = msgFailures(t.Failures)
	vm.Failures = append(vm.Failures, fromSlaveSentences(t.FromSlaves, "trace records")...)
	if t.Truncated {
		vm.Notes = append(vm.Notes, fmt.Sprintf("The trace topic's index holds more than %d trace messages under this id; the trace shows the newest.", lookup.KeyLimit))
	}
	if t.Undecodable > 0 && !t.Empty() {
		vm.Notes = append(vm.Notes, fmt.Sprintf("%d trace records could not be read and are left out: %s", t.Undecodable, t.DecodeError))
	}
	for _, p := range t.Published {
		row := views.TracePubRow{Group: p.Group, ClientHost: traceHost(p.ClientHost, p.SentFrom), Time: views.TimeUTC(p.Time), Cost: fmt.Sprintf("%d ms", p.CostMs),
			Keys: p.Keys, Tags: p.Tags, MsgType: p.MsgType, BodySize: views.Thousands(int64(p.BodyLength)) + " bytes",
			StoreHost: p.StoreHost, StoreBroker: p.StoreBroker, OffsetMsgID: p.OffsetMsgID}
		row.Status, row.StatusClass = "sent", "status-ok"
		if !p.Success {
			row.Status, row.StatusClass = "send failed", "status-bad"
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
		vm.Transactions = append(vm.Transactions, views.TraceTxRow{Group: x.Group, ClientHost: traceHost(x.ClientHost, x.SentFrom), Time: views.TimeUTC(x.Time),
			State: x.State, TransactionID: x.TransactionID, FromCheck: x.FromCheck})
	}
	for _, g := range t.Groups {
		row := views.TraceGroupRow{Group: g.Group}
		if g.Group != "" {
			row.URL = views.GroupURL(g.Group)
		} else {
			row.Group = "(not recorded)"
		}
		ok := 0
		for i, a := range g.Attempts {
			ar := views.TraceAttemptRow{N: i + 1, ClientHost: traceHost(a.ClientHost, a.SentFrom), Time: views.TimeUTC(a.Time),
				Retry: fmt.Sprint(a.RetryTimes), Returned: a.Returned}
			switch {
			case !a.Finished:
				ar.Status, ar.StatusClass, ar.Cost = "no result recorded yet", "status-warn", "–"
			case a.Success:
				ar.Status, ar.StatusClass, ar.Cost = "consumed", "status-ok", fmt.Sprintf("%d ms", a.CostMs)
				ok = i + 1
			default:
				ar.Status, ar.StatusClass, ar.Cost = "failed, to be retried", "status-bad", fmt.Sprintf("%d ms", a.CostMs)
			}
			if a.Returned == "success" || a.Returned == "failed" {
				ar.Returned = "" // said by the status
			}
			row.Attempts = append(row.Attempts, ar)
		}
		n := len(g.Attempts)
		switch {
		case ok > 0:
			row.Summary, row.SummaryClass = fmt.Sprintf("consumed on attempt %d of %d", ok, n), "status-ok"
		case !g.Attempts[n-1].Finished:
			row.Summary, row.SummaryClass = fmt.Sprintf("being consumed (%d attempts)", n), "status-warn"
		default:
			row.Summary, row.SummaryClass = fmt.Sprintf("not consumed successfully in %d attempts", n), "status-bad"
		}
		vm.Groups = append(vm.Groups, row)
	}
	return vm
}
