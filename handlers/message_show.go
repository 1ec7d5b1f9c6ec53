package handlers

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/gin-gonic/gin"

	"rmqconsole/decoder"
	"rmqconsole/fault"
	"rmqconsole/i18n"
	"rmqconsole/lookup"
	"rmqconsole/masking"
	"rmqconsole/rights"
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
// a 400 for the API; an id that names nothing is a 404. The result is the stored
// message, for the services (its groups' states, its trace): what the caller sees of it
// is shown(r).
func (h *Messages) find(c *gin.Context, topic string) (*lookup.IDResult, bool) {
	if h.Lookup == nil {
		if isAPI(c) {
			h.Fail(c, errNoCluster())
		} else {
			h.render(c, http.StatusOK, h.page(c, i18n.From(c.Request.Context()).T("message.page"), "messages"), views.MessageDetailPage(views.MessageDetailVM{AskedID: c.Param("id"), BackURL: "/messages"}))
		}
		return nil, false
	}
	q := lookup.IDQuery{ID: c.Param("id"), Topic: topic}
	r, err := h.Lookup.ByID(c.Request.Context(), q)
	switch fe := fault.As(err); {
	case fe != nil && fe.Code == fault.Invalid && fe.Field == "topic" && q.Topic == "" && !isAPI(c):
		// A unique key is found only through its topic's index: the id search asks for
		// the topic beside the id, with suggestions, instead of an error page.
		c.Redirect(http.StatusSeeOther, "/messages?"+url.Values{"tab": {views.TabID}, "id": {q.ID}}.Encode())
		return nil, false
	case err != nil: // a message not found is a 404, a broker failure a 502/504 (errorStatus)
		h.failInput(c, err)
		return nil, false
	}
	// Its topic is known only now: the caller must be let read the topic's messages.
	if t := r.Message.Topic; !MayTopic(c, t, rights.ReadBodies) {
		h.Fail(c, CallerRights(c).Refusal(rights.Topic, t, rights.ReadBodies))
		return nil, false
	}
	return r, true
}

// shown is r as the caller may read it: every answer about one message (its page,
// body, copy, the API) is built from it. r itself is left as stored: a tag masked
// in the copy would make every group that filters by tag seem to filter the message out.
func (h *Messages) shown(c *gin.Context, r *lookup.IDResult) *lookup.IDResult {
	mk := h.masker(c)
	if mk == nil {
		return r
	}
	out := *r
	out.Message = maskMessage(mk, r.Message)
	out.Copies = slices.Clone(r.Copies)
	maskMessages(mk, out.Copies)
	return &out
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
	if _, _, err := messageGroupsQuery(c); err != nil {
		h.failInput(c, err)
		return
	}
	r, ok := h.find(c, topic)
	if !ok {
		return
	}
	if c.Query("rows") == "1" && isHTMX(c) {
		h.messageGroupRows(c, r)
		return
	}
	seen := h.shown(c, r)
	h.recordBody(c, r.Message, "page")
	// The trace is read while the groups are: a frozen broker costs the page one wait.
	var trace *lookup.MessageTrace
	var traceErr error
	traced := make(chan struct{})
	mk := h.masker(c)
	go func() {
		defer close(traced)
		trace, traceErr = h.Lookup.Trace(c.Request.Context(), r.Message, traceQuery(c), r.Failures...)
		trace = traceMasked(mk, r.Message, trace)
	}()
	groups, groupErr := h.messageGroups(c, r, seen)
	<-traced
	vm := msgDetailVM(c, seen, groups, groupErr)
	vm.Body = msgBodyView(c, seen.Message, h.topicDecoded(seen.Message))
	vm.Body.Masked = maskedNote(c, seen.Message)
	vm.Trace = traceVM(i18n.From(c.Request.Context()), traceAskedOf(c), seen.Message, trace, traceErr)
	if vm.Trace.Error != "" && status == http.StatusOK {
		status = http.StatusUnprocessableEntity
	}
	vm.ConsumeAgain = consumeAgainVM(c, seen.Message, groups)
	vm.Reset = messageResetVM(c, seen.Message, groups)
	vm.Copy = messageCopyVM(c, seen.Message)
	if direct != nil {
		direct(&vm.ConsumeAgain)
	}
	h.render(c, status, h.page(c, i18n.From(c.Request.Context()).T("message.page.id", "ID", views.Cut(r.Message.MsgID())), "messages"), views.MessageDetailPage(vm))
}

// ShowAPI is GET /api/v1/messages/{id}.
func (h *Messages) ShowAPI(c *gin.Context) {
	limit, after, err := messageGroupsQuery(c)
	if err != nil {
		h.Fail(c, err)
		return
	}
	r, ok := h.find(c, c.Query("topic"))
	if !ok {
		return
	}
	h.recordBody(c, r.Message, "api")
	seen := h.shown(c, r)
	groups, err := h.messageGroups(c, r, seen)
	j := msgByIDJSON(seen, groups)
	if groups != nil {
		pg, perr := lookup.PageGroups(groups.States, limit, after)
		if perr != nil {
			h.Fail(c, perr)
			return
		}
		j.Groups, j.Total, j.Next = msgGroupsJSON(pg.States), pg.Total, pg.Next
	}
	if err != nil {
		j.Errors = append(j.Errors, BrokerErrorJSON{Broker: r.Message.BrokerName, Error: "consumer groups: " + err.Error()})
	}
	c.JSON(http.StatusOK, j)
}

func msgDetailVM(c *gin.Context, r *lookup.IDResult, gs *lookup.GroupStates, groupErr error) views.MessageDetailVM {
	m := r.Message
	l := i18n.From(c.Request.Context())
	if gs == nil {
		gs = &lookup.GroupStates{}
	}
	groups := gs.States
	vm := views.MessageDetailVM{
		Configured: true, AskedID: c.Param("id"), AskedTopic: c.Query("topic"), Topic: m.Topic,
		BackURL:    "/messages?" + url.Values{"tab": {views.TabID}, "id": {c.Param("id")}, "topic": {m.Topic}}.Encode(),
		Copies:     msgRows(l, r.Copies),
		Failures:   msgFailures(l, append(append([]lookup.BrokerFailure{}, r.Failures...), gs.Failures...)),
		FromSlaves: sayFromSlaves(l, mergeSlaveReads(r.FromSlaves, gs.FromSlaves), "cluster.slave.what.message"),
	}
	vm.IDKind, vm.IDNote = msgIDNote(l, r)
	vm.Fields = msgFields(l, m)
	vm.OffsetMsgID = msgOffsetIDDecoded(l, m)
	vm.UniqKey = msgUniqKeyDecoded(l, m)
	for _, k := range slices.Sorted(maps.Keys(m.Properties)) {
		vm.Properties = append(vm.Properties, views.DetailField{Label: k, Value: m.Properties[k], Mono: true})
	}
	vm.DeadLetter = deadLetterVM(c, m.Message)
	switch {
	case groupErr != nil:
		vm.GroupsNote = l.T("message.groups.error", "Error", groupErr.Error())
	case len(groups) == 0:
		vm.GroupsNote = l.T("message.groups.none", "Topic", m.Topic)
	}
	if len(groups) > 0 {
		var err error
		if vm.Groups, vm.GroupsPager, err = messageGroupsPage(c, groups); err != nil {
			vm.GroupsNote = errorMessage(c, err, "")
		}
	}
	return vm
}

func msgFields(l *i18n.Localizer, m lookup.Message) []views.DetailField {
	f := func(label, value string, mono bool) views.DetailField {
		return views.DetailField{Label: l.T("message.field." + label), Value: value, Mono: mono}
	}
	tx := l.T(map[int]string{0: "message.tx.none", 0x4: "message.tx.prepared", 0x8: "message.tx.committed", 0xC: "message.tx.rolledback"}[m.SysFlag&rocketmq.SysFlagTransactionMask])
	var flags []string
	if m.BodyCompressed {
		flags = append(flags, l.T("message.flag.compressed", "How", m.Compression))
	}
	if m.SysFlag&rocketmq.SysFlagMultiTags != 0 {
		flags = append(flags, l.T("message.flag.multitags"))
	}
	flags = append(flags, tx)
	if m.InnerBatch {
		flags = append(flags, l.T("message.flag.batch", "Index", m.BatchIndex))
	}
	born := views.DetailField{Label: l.T("message.field.born"), Value: views.TimeUTC(m.BornTime()),
		Hint: l.T("message.born.hint", "Millis", m.BornTimestamp)}
	store := views.DetailField{Label: l.T("message.field.store"), Value: views.TimeUTC(m.StoreTime()),
		Hint: l.T("message.store.hint", "Millis", m.StoreTimestamp, "After", m.StoreTimestamp-m.BornTimestamp)}
	crc := strconv.FormatUint(uint64(m.BodyCRC), 10)
	if m.Masked {
		// Masker.Message clears the checksum of a masked body; the marker says so
		// rather than a checksum of 0.
		crc = masking.Marker
	}
	return []views.DetailField{
		f("topic", m.Topic, true),
		f("tags", m.Tags(), true),
		f("keys", strings.Join(m.Keys(), " "), true),
		f("broker", m.BrokerName, true),
		f("queueid", strconv.Itoa(m.QueueID), true),
		f("queueoffset", l.Int(m.QueueOffset), true),
		f("commitlog", l.Int(m.CommitLogOffset), true),
		born, store,
		f("bornhost", m.BornHost.String(), true),
		f("storehost", m.StoreHost.String(), true),
		f("reconsume", strconv.Itoa(m.ReconsumeTimes), false),
		f("flag", strconv.Itoa(m.Flag), true),
		f("sysflag", fmt.Sprintf("%d (%s)", m.SysFlag, strings.Join(flags, ", ")), true),
		f("storesize", l.N("message.bytes", m.StoreSize), false),
		f("crc", crc, true),
		f("prepared", strconv.FormatInt(m.PreparedTransactionOffset, 10), true),
		f("format", "magic V"+strconv.Itoa(m.MagicVersion), false),
	}
}

func msgOffsetIDDecoded(l *i18n.Localizer, m lookup.Message) views.IDDecoded {
	id := m.OffsetMsgID()
	d := views.IDDecoded{Value: id}
	if id == "" {
		d.Reason = l.T("message.offsetid.none")
		return d
	}
	p, err := rocketmq.ParseOffsetMsgID(id)
	if err != nil {
		d.Reason = err.Error()
		return d
	}
	d.Parts = []views.DetailField{
		{Label: l.T("message.field.storehost"), Value: p.StoreHost.String(), Mono: true, Hint: l.T("message.offsetid.broker", "Broker", m.BrokerName)},
		{Label: l.T("message.field.commitlog"), Value: l.Int(p.CommitLogOffset), Mono: true},
	}
	return d
}

func msgUniqKeyDecoded(l *i18n.Localizer, m lookup.Message) views.IDDecoded {
	id := m.UniqueKey()
	d := views.IDDecoded{Value: id}
	if id == "" {
		d.Reason = l.T("message.uniqkey.none")
		return d
	}
	info, err := rocketmq.ParseUniqueKey(id)
	if err != nil {
		d.Reason = l.T("message.uniqkey.own")
		return d
	}
	client := l.T(map[string]string{"java": "message.uniqkey.client.java", "go": "message.uniqkey.client.go", "grpc": "message.uniqkey.client.grpc", "": "message.uniqkey.client.remoting"}[info.Client])
	d.Parts = append(d.Parts, views.DetailField{Label: l.T("message.uniqkey.madeby"), Value: client})
	if info.IP.IsValid() {
		f := views.DetailField{Label: l.T("message.uniqkey.ip"), Value: info.IP.String(), Mono: true}
		if info.IPStandIn {
			f.Hint = l.T("message.uniqkey.ip.standin")
		}
		d.Parts = append(d.Parts, f)
	}
	if len(info.MAC) > 0 {
		d.Parts = append(d.Parts, views.DetailField{Label: l.T("message.uniqkey.mac"), Value: info.MAC.String(), Mono: true})
	}
	d.Parts = append(d.Parts,
		views.DetailField{Label: l.T("message.uniqkey.pid"), Value: strconv.Itoa(info.PID), Mono: true, Hint: l.T("message.uniqkey.pid.hint")},
		views.DetailField{Label: l.T("message.uniqkey.born"), Value: views.TimeUTC(info.BornApprox),
			Hint: l.T("message.uniqkey.born.hint")},
		views.DetailField{Label: l.T("message.uniqkey.counter"), Value: strconv.Itoa(info.Counter), Mono: true},
	)
	if info.ClientHash != 0 {
		d.Parts = append(d.Parts, views.DetailField{Label: l.T("message.uniqkey.hash"), Value: fmt.Sprintf("%08X", info.ClientHash), Mono: true})
	}
	return d
}

// topicDecoded is m's body read by a Protobuf decoder its topic has (the config file's or
// one an admin set), or nil when it has none: JSON, text and hex the page shows anyway.
// A decoder that could not read this body says why in Problem.
func (h *Messages) topicDecoded(m lookup.Message) *decoder.Decoded {
	if h.Decoders == nil || m.Masked && masking.WholeBody(m.Body) {
		return nil
	}
	d := h.Decoders.Decode(h.ClusterName, m.Message)
	if d.Kind != decoder.KindProtobuf && d.Problem.ID == "" {
		return nil
	}
	return &d
}

// msgBodyView picks how the body is shown (?view=decoded|text|json|hex; by default the
// topic's Protobuf decoder when it read the body, else pretty JSON when it parses, text
// when it is UTF-8, else hex) and cuts it for the page.
func msgBodyView(c *gin.Context, m lookup.Message, dec *decoder.Decoded) views.BodyView {
	body := m.Body
	l := i18n.From(c.Request.Context())
	b := views.BodyView{
		Size:     l.N("message.bytes", len(body)),
		Download: "/messages/" + url.PathEscape(m.OffsetMsgID()) + "/body?" + url.Values{"topic": {m.Topic}}.Encode(),
		Error:    m.BodyError,
	}
	decoded := dec != nil && dec.Kind == decoder.KindProtobuf
	if dec != nil && dec.Problem.ID != "" {
		b.Problem = l.Say(dec.Problem)
	}
	if m.BodyCompressed {
		b.Stored = l.N("message.body.stored", m.StoredBodySize, "How", m.Compression)
	}
	isText := utf8.Valid(body)
	var pretty bytes.Buffer
	isJSON := isText && len(body) <= msgBodyJSONMax && json.Valid(body) && json.Indent(&pretty, body, "", "  ") == nil
	switch {
	case isJSON:
		b.Encoding = l.T("message.body.json")
	case isText:
		b.Encoding = l.T("message.body.text")
	default:
		b.Encoding = l.T("message.body.binary")
	}
	view := c.Query("view")
	switch {
	case view == "decoded" && decoded, view == "json" && isJSON, view == "text" && isText, view == "hex":
	case decoded:
		view = "decoded"
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
	for _, v := range []struct{ name, label string }{{"decoded", l.T("message.body.view.decoded")}, {"text", l.T("message.body.view.text")}, {"json", l.T("message.body.view.json")}, {"hex", l.T("message.body.view.hex")}} {
		if (v.name == "decoded" && !decoded) || (v.name == "json" && !isJSON) || (v.name == "text" && !isText) {
			continue
		}
		q := url.Values{"view": {v.name}}
		for k, vs := range base {
			q[k] = vs
		}
		b.Views = append(b.Views, views.BodyViewLink{Name: v.name, Label: v.label, URL: "?" + q.Encode(), Active: v.name == view})
	}
	switch view {
	case "decoded":
		b.Encoding = l.Say(dec.How)
		b.Content, b.Cut = msgCutText([]byte(dec.Text), msgBodyTextShown)
	case "json":
		b.Content, b.Cut = msgCutText(pretty.Bytes(), msgBodyTextShown)
	case "text":
		b.Content, b.Cut = msgCutText(body, msgBodyTextShown)
	default:
		shown := body[:min(len(body), msgBodyHexShown)]
		b.Content, b.Cut = hex.Dump(shown), len(shown) < len(body)
	}
	if b.Cut {
		b.CutNote = l.N("message.body.cut", len(body))
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

func msgGroupRow(l *i18n.Localizer, g lookup.GroupState) views.GroupConsumeRow {
	row := views.GroupConsumeRow{Group: g.Group, URL: views.GroupURL(g.Group), Online: g.Online,
		Subscription: g.Subscription, Reason: l.SayText(g.Reason), Offset: l.T("message.group.offset.none")}
	if g.ConsumerOffset >= 0 {
		row.Offset = l.Int(g.ConsumerOffset)
	}
	switch g.State {
	case lookup.Consumed:
		row.State, row.Class = l.T("message.group.consumed"), "status-ok"
	case lookup.NotConsumed:
		row.State, row.Class = l.T("message.group.notconsumed"), "status-warn"
	case lookup.Popped:
		row.State, row.Class = l.T("message.group.popped"), "status-warn"
	case lookup.Filtered:
		row.State, row.Class = l.T("message.group.filtered"), "status-ok"
	case lookup.Offline:
		row.State, row.Class = l.T("message.group.offline"), "status-warn"
	default:
		row.State, row.Class = l.T("message.group.unknown"), "status-bad"
	}
	return row
}
