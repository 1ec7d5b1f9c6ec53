package handlers

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/gin-gonic/gin"

	"rmqconsole/lookup"
	"rmqconsole/rocketmq"
	"rmqconsole/views"
)

// How much of a body the detail page shows; the download has all of it.
const (
	msgBodyTextShown = 64 << 10
	msgBodyHexShown  = 16 << 10
	// msgBodyJSONMax is the largest body pretty-printed as JSON.
	msgBodyJSONMax = 4 << 20
)

// find looks up the message of /messages/{id}[?topic=]. Bad input is a 422 for pages and
// a 400 for the API; an id that names nothing is a 404.
func (h *Messages) find(c *gin.Context, topic string) (*lookup.IDResult, bool) {
	if h.Lookup == nil {
		if isAPI(c) {
			h.Fail(c, msgNoCluster)
		} else {
			h.render(c, http.StatusOK, h.page(c, "Message", "messages"), views.MessageDetailPage(views.MessageDetailVM{AskedID: c.Param("id"), BackURL: "/messages"}))
		}
		return nil, false
	}
	q := lookup.IDQuery{ID: c.Param("id"), Topic: topic}
	r, err := h.Lookup.ByID(c.Request.Context(), q)
	var ie *lookup.InputError
	switch {
	case errors.As(err, &ie) && ie.Field == "topic" && q.Topic == "" && !isAPI(c):
		// A unique key is found only through its topic's index: the id search asks for
		// the topic beside the id, with suggestions, instead of an error page.
		c.Redirect(http.StatusSeeOther, "/messages?"+url.Values{"tab": {views.TabID}, "id": {q.ID}}.Encode())
		return nil, false
	case errors.As(err, &ie):
		h.Fail(c, &UserError{Status: msgInputStatus(c), Code: ie.Code, Message: ie.Message})
		return nil, false
	case err != nil: // a message not found is a 404, a broker failure a 502/504 (errorStatus)
		h.Fail(c, err)
		return nil, false
	}
	return r, true
}

// Show is GET /messages/{id}: the message's every field, its body, and each consumer
// group's state towards it.
func (h *Messages) Show(c *gin.Context) {
	h.showMessage(c, http.StatusOK, c.Query("topic"), nil)
}

// showMessage renders the page of the message /messages/{id} names (topic: for a
// unique key) with status; direct, when set, adds the outcome of a request to consume
// it again.
func (h *Messages) showMessage(c *gin.Context, status int, topic string, direct func(*views.ConsumeAgainVM)) {
	r, ok := h.find(c, topic)
	if !ok {
		return
	}
	// The trace is read while the groups are: a frozen broker costs the page one wait.
	var trace *lookup.MessageTrace
	var traceErr error
	traced := make(chan struct{})
	go func() {
		defer close(traced)
		trace, traceErr = h.Lookup.Trace(c.Request.Context(), r.Message, traceQuery(c), r.Failures...)
	}()
	groups, groupErr := h.Lookup.Groups(c.Request.Context(), r.Message, r.Failures...)
	<-traced
	vm := msgDetailVM(c, r, groups, groupErr)
	vm.Trace = traceVM(c, r.Message, trace, traceErr)
	if vm.Trace.Error != "" && status == http.StatusOK {
		status = http.StatusUnprocessableEntity
	}
	vm.ConsumeAgain = consumeAgainVM(c, r.Message, groups)
	if direct != nil {
		direct(&vm.ConsumeAgain)
	}
	h.render(c, status, h.page(c, "Message "+msgShort(r.Message.MsgID()), "messages"), views.MessageDetailPage(vm))
}

// ShowAPI is GET /api/v1/messages/{id}.
func (h *Messages) ShowAPI(c *gin.Context) {
	r, ok := h.find(c, c.Query("topic"))
	if !ok {
		return
	}
	groups, err := h.Lookup.Groups(c.Request.Context(), r.Message, r.Failures...)
	j := msgByIDJSON(r, groups)
	if err != nil {
		j.Errors = append(j.Errors, BrokerErrorJSON{Broker: r.Message.BrokerName, Error: "consumer groups: " + err.Error()})
	}
	c.JSON(http.StatusOK, j)
}

func msgDetailVM(c *gin.Context, r *lookup.IDResult, gs *lookup.GroupStates, groupErr error) views.MessageDetailVM {
	m := r.Message
	if gs == nil {
		gs = &lookup.GroupStates{}
	}
	groups := gs.States
	vm := views.MessageDetailVM{
		Configured: true, AskedID: c.Param("id"), AskedTopic: c.Query("topic"), Topic: m.Topic,
		BackURL:    "/messages?" + url.Values{"tab": {views.TabID}, "id": {c.Param("id")}, "topic": {m.Topic}}.Encode(),
		Copies:     msgRows(r.Copies),
		Failures:   msgFailures(append(append([]lookup.BrokerFailure{}, r.Failures...), gs.Failures...)),
		FromSlaves: fromSlaveSentences(mergeSlaveReads(r.FromSlaves, gs.FromSlaves), "this message and its groups' states"),
	}
	vm.IDKind, vm.IDNote = msgIDNote(r)
	vm.Fields = msgFields(m)
	vm.OffsetMsgID = msgOffsetIDDecoded(m)
	vm.UniqKey = msgUniqKeyDecoded(m)
	for _, k := range slices.Sorted(maps.Keys(m.Properties)) {
		vm.Properties = append(vm.Properties, views.DetailField{Label: k, Value: m.Properties[k], Mono: true})
	}
	vm.Body = msgBodyView(c, m)
	vm.DeadLetter = deadLetterVM(c, m.Message)
	switch {
	case groupErr != nil:
		vm.GroupsNote = "The groups could not be read: " + groupErr.Error() + "."
	case len(groups) == 0:
		vm.GroupsNote = "No consumer group consumes topic " + m.Topic + ", or none has connected or stored an offset for it yet."
	}
	for _, g := range groups {
		vm.Groups = append(vm.Groups, msgGroupRow(g))
	}
	return vm
}

func msgFields(m lookup.Message) []views.DetailField {
	f := func(label, value string, mono bool) views.DetailField {
		return views.DetailField{Label: label, Value: value, Mono: mono}
	}
	tx := map[int]string{0: "not transactional", 0x4: "transaction prepared (half message)", 0x8: "transaction committed", 0xC: "transaction rolled back"}[m.SysFlag&rocketmq.SysFlagTransactionMask]
	var flags []string
	if m.BodyCompressed {
		flags = append(flags, "compressed ("+m.Compression+")")
	}
	if m.SysFlag&rocketmq.SysFlagMultiTags != 0 {
		flags = append(flags, "multiple tags")
	}
	flags = append(flags, tx)
	if m.InnerBatch {
		flags = append(flags, "inner batch #"+strconv.Itoa(m.BatchIndex))
	}
	born := views.DetailField{Label: "Born time", Value: views.TimeUTC(m.BornTime()),
		Hint: fmt.Sprintf("epoch ms %d, by the producer's clock", m.BornTimestamp)}
	store := views.DetailField{Label: "Store time", Value: views.TimeUTC(m.StoreTime()),
		Hint: fmt.Sprintf("epoch ms %d, %d ms after it was born", m.StoreTimestamp, m.StoreTimestamp-m.BornTimestamp)}
	return []views.DetailField{
		f("Topic", m.Topic, true),
		f("Tags", m.Tags(), true),
		f("Keys", strings.Join(m.Keys(), " "), true),
		f("Broker", m.BrokerName, true),
		f("Queue id", strconv.Itoa(m.QueueID), true),
		f("Queue offset", views.Thousands(m.QueueOffset), true),
		f("Commit-log offset", views.Thousands(m.CommitLogOffset), true),
		born, store,
		f("Born host", m.BornHost.String(), true),
		f("Store host", m.StoreHost.String(), true),
		f("Reconsume times", strconv.Itoa(m.ReconsumeTimes), false),
		f("Flag", strconv.Itoa(m.Flag), true),
		f("Sys flag", fmt.Sprintf("%d (%s)", m.SysFlag, strings.Join(flags, ", ")), true),
		f("Stored record size", views.Thousands(int64(m.StoreSize))+" bytes", false),
		f("Body CRC", strconv.FormatUint(uint64(m.BodyCRC), 10), true),
		f("Prepared transaction offset", strconv.FormatInt(m.PreparedTransactionOffset, 10), true),
		f("Record format", "magic V"+strconv.Itoa(m.MagicVersion), false),
	}
}

func msgOffsetIDDecoded(m lookup.Message) views.IDDecoded {
	id := m.OffsetMsgID()
	d := views.IDDecoded{Value: id}
	if id == "" {
		d.Reason = "The broker did not record a store host, so this message has no offsetMsgId."
		return d
	}
	p, err := rocketmq.ParseOffsetMsgID(id)
	if err != nil {
		d.Reason = err.Error()
		return d
	}
	d.Parts = []views.DetailField{
		{Label: "Store host", Value: p.StoreHost.String(), Mono: true, Hint: "broker " + m.BrokerName},
		{Label: "Commit-log offset", Value: views.Thousands(p.CommitLogOffset), Mono: true},
	}
	return d
}

func msgUniqKeyDecoded(m lookup.Message) views.IDDecoded {
	id := m.UniqueKey()
	d := views.IDDecoded{Value: id}
	if id == "" {
		d.Reason = "The producer did not set a unique key (UNIQ_KEY); clients show the offsetMsgId as msgId."
		return d
	}
	info, err := rocketmq.ParseUniqueKey(id)
	if err != nil {
		d.Reason = "The producer set its own unique key, which does not follow a client's layout, so it tells nothing about the producer."
		return d
	}
	client := map[string]string{"java": "Java (remoting) client", "go": "Go client (rocketmq-client-go)", "grpc": "RocketMQ 5 gRPC client", "": "remoting client"}[info.Client]
	d.Parts = append(d.Parts, views.DetailField{Label: "Made by", Value: client})
	if info.IP.IsValid() {
		f := views.DetailField{Label: "Producer IP", Value: info.IP.String(), Mono: true}
		if info.IPStandIn {
			f.Hint = "four ASCII digits of the clock: rocketmq-client-go writes these when it finds no address of its own, so probably not an address"
		}
		d.Parts = append(d.Parts, f)
	}
	if len(info.MAC) > 0 {
		d.Parts = append(d.Parts, views.DetailField{Label: "Producer MAC", Value: info.MAC.String(), Mono: true})
	}
	d.Parts = append(d.Parts,
		views.DetailField{Label: "Producer pid", Value: strconv.Itoa(info.PID), Mono: true, Hint: "truncated to 16 bits"},
		views.DetailField{Label: "Born time (approximate)", Value: views.TimeUTC(info.BornApprox),
			Hint: "rebuilt from the id; the exact born time above comes from the broker"},
		views.DetailField{Label: "Counter", Value: strconv.Itoa(info.Counter), Mono: true},
	)
	if info.ClientHash != 0 {
		d.Parts = append(d.Parts, views.DetailField{Label: "Class-loader hash", Value: fmt.Sprintf("%08X", info.ClientHash), Mono: true})
	}
	return d
}

// msgBodyView picks how the body is shown (?view=text|json|hex; by default pretty JSON
// when it parses, text when it is UTF-8, else hex) and cuts it for the page.
func msgBodyView(c *gin.Context, m lookup.Message) views.BodyView {
	body := m.Body
	b := views.BodyView{
		Size:     views.Thousands(int64(len(body))) + " bytes",
		Download: "/messages/" + url.PathEscape(m.OffsetMsgID()) + "/body?" + url.Values{"topic": {m.Topic}}.Encode(),
		Error:    m.BodyError,
	}
	if m.BodyCompressed {
		b.Stored = fmt.Sprintf("stored %s-compressed in %s bytes", m.Compression, views.Thousands(int64(m.StoredBodySize)))
	}
	isText := utf8.Valid(body)
	var pretty bytes.Buffer
	isJSON := isText && len(body) <= msgBodyJSONMax && json.Valid(body) && json.Indent(&pretty, body, "", "  ") == nil
	switch {
	case isJSON:
		b.Encoding = "JSON (UTF-8)"
	case isText:
		b.Encoding = "UTF-8 text"
	default:
		b.Encoding = "binary"
	}
	view := c.Query("view")
	switch {
	case view == "json" && isJSON, view == "text" && isText, view == "hex":
	case isJSON:
		view = "json"
	case isText:
		view = "text"
	default:
		view = "hex"
	}
	b.View = view
	base := url.Values{}
	if t := c.Query("topic"); t != "" {
		base.Set("topic", t)
	}
	for _, v := range []struct{ name, label string }{{"text", "Text"}, {"json", "Pretty JSON"}, {"hex", "Hex"}} {
		if (v.name == "json" && !isJSON) || (v.name == "text" && !isText) {
			continue
		}
		q := url.Values{"view": {v.name}}
		for k, vs := range base {
			q[k] = vs
		}
		b.Views = append(b.Views, views.BodyViewLink{Name: v.name, Label: v.label, URL: "?" + q.Encode(), Active: v.name == view})
	}
	switch view {
	case "json":
		b.Content, b.Cut = msgCutText(pretty.Bytes(), msgBodyTextShown)
	case "text":
		b.Content, b.Cut = msgCutText(body, msgBodyTextShown)
	default:
		shown := body[:min(len(body), msgBodyHexShown)]
		b.Content, b.Cut = hex.Dump(shown), len(shown) < len(body)
	}
	if b.Cut {
		b.CutNote = fmt.Sprintf("The body is longer than the page shows (%s bytes).", views.Thousands(int64(len(body))))
	}
	return b
}

// msgCutText returns at most n bytes of s, cut on a character boundary.
func msgCutText(s []byte, n int) (string, bool) {
	if len(s) <= n {
		return string(s), false
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return string(s[:n]), true
}

func msgGroupRow(g lookup.GroupState) views.GroupConsumeRow {
	row := views.GroupConsumeRow{Group: g.Group, URL: views.GroupURL(g.Group), Online: g.Online,
		Subscription: g.Subscription, Reason: g.Reason, Offset: "none"}
	if g.ConsumerOffset >= 0 {
		row.Offset = views.Thousands(g.ConsumerOffset)
	}
	switch g.State {
	case lookup.Consumed:
		row.State, row.Class = "consumed", "status-ok"
	case lookup.NotConsumed:
		row.State, row.Class = "not consumed yet", "status-warn"
	case lookup.Popped:
		row.State, row.Class = "popped (acknowledgement unknown)", "status-warn"
	case lookup.Filtered:
		row.State, row.Class = "filtered out by its subscription", "status-ok"
	case lookup.Offline:
		row.State, row.Class = "group offline", "status-warn"
	default:
		row.State, row.Class = "unknown", "status-bad"
	}
	return row
}
