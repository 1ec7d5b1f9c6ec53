package handlers

import (
	"bytes"
	"encoding/json"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/gin-gonic/gin"

	"rmqconsole/fault"
	"rmqconsole/freetext"
	"rmqconsole/i18n"
	"rmqconsole/resets"
	"rmqconsole/views"
)

// resetInput is a reset request as typed in the form or sent to the API, before it is
// read: pages keep it to show the form again, the audit log records it for refusals.
type resetInput struct {
	Topic      string `json:"topic"`
	Mode       string `json:"mode"`
	Timestamp  string `json:"timestamp,omitempty"`
	TimeZone   string `json:"timeZone,omitempty"`
	BrokerName string `json:"brokerName,omitempty"`
	QueueID    string `json:"queueId,omitempty"`
	Offset     string `json:"offset,omitempty"`
	Shift      string `json:"shift,omitempty"`
	AuditID    string `json:"auditId,omitempty"`
	FromGroup  string `json:"fromGroup,omitempty"`
	MsgID      string `json:"msgId,omitempty"`
	Skip       bool   `json:"skip,omitempty"`
	Reason     string `json:"reason,omitempty"`
	PlanID     string `json:"planId,omitempty"`
	Confirm    bool   `json:"confirm,omitempty"`
}

// who is the person asking, as a reset's audit entry names them.
func who(c *gin.Context) resets.Who { return resets.Who{Actor: Actor(c), Addr: c.ClientIP()} }

// now is the clock a request's times are read against: Now, else time.Now.
func (h *Resets) now() time.Time {
	if h.Now != nil {
		return h.Now()
	}
	return time.Now()
}

// readForm parses and validates the reset form of the request. Without a cluster, or on
// bad input, it answers the request itself and ok is false.
func (h *Resets) readForm(c *gin.Context, applying bool) (group string, in resetInput, req resets.Request, ok bool) {
	group = c.Param("group")
	in = resetFormInput(c)
	if h.Service == nil {
		h.noCluster(c)
		return group, in, req, false
	}
	req, errs := in.request(group, h.now())
	if len(errs) > 0 {
		h.refuseApply(c, applying, group, in, errs)
		h.formWithErrors(c, group, in.shown(), errs)
		return group, in, req, false
	}
	return group, in, req, true
}

// refuseApply has an apply refused for its input recorded, when the service records
// such a refusal (text the free-text rule refuses: see resets.Service.RefuseInput).
func (h *Resets) refuseApply(c *gin.Context, applying bool, group string, in resetInput, errs fault.List) {
	if applying {
		h.Service.RefuseInput(c.Request.Context(), who(c), group, in.asked(), errs)
	}
}

func (h *Resets) noCluster(c *gin.Context) {
	if isAPI(c) {
		h.Fail(c, fault.New(fault.Unavailable, "reset.no_cluster.api").Because("no_cluster"))
		return
	}
	vm := views.ResetVM{Group: c.Param("group")}
	h.render(c, http.StatusServiceUnavailable, h.page(c, i18n.From(c.Request.Context()).T("reset.page.bare"), "groups"), views.ResetPage(vm))
}

// readAPI is readForm for an API body: without a cluster, or on bad input, it answers
// the request itself and ok is false.
func (h *Resets) readAPI(c *gin.Context, applying bool) (in resetInput, req resets.Request, ok bool) {
	if h.Service == nil {
		h.noCluster(c)
		return in, req, false
	}
	group := c.Param("group")
	in, err := resetAPIInput(c)
	if _, input := err.(fault.List); err != nil && !input {
		h.Fail(c, err) // not declared JSON (415)
		return in, req, false
	}
	errs := fault.All(err)
	if len(errs) == 0 {
		req, errs = in.request(group, h.now())
	}
	if len(errs) > 0 {
		h.refuseApply(c, applying, group, in, errs)
		badResetRequest(c, errs)
		return in, req, false
	}
	return in, req, true
}

// resetFormInput reads the form of a page (POST body, or the query of GET deep links).
func resetFormInput(c *gin.Context) resetInput {
	get := c.PostForm
	if c.Request.Method == "GET" {
		get = c.Query
	}
	return resetInput{MsgID: get("msgId"), Skip: formTrue(get("skip")),
		Topic: get("topic"), Mode: get("mode"), Timestamp: get("timestamp"), TimeZone: get("tz"),
		BrokerName: get("brokerName"), QueueID: get("queueId"), Offset: get("offset"), Shift: get("shift"),
		AuditID: get("auditId"), FromGroup: get("fromGroup"), Reason: get("reason"), PlanID: get("planId"), Confirm: formTrue(get("confirm")),
	}
}

// formTrue reports whether a form's checkbox or flag is set: "1", "on" (a checkbox
// without a value) or "true".
func formTrue(s string) bool { return s == "1" || s == "on" || s == "true" }

// resetJSON is the API body of both reset POSTs (see design.md): timestamp as epoch ms or
// RFC 3339; numbers as JSON numbers.
type resetJSON struct {
	Topic      string          `json:"topic"`
	Mode       string          `json:"mode"`
	Timestamp  json.RawMessage `json:"timestamp"`
	TimeZone   string          `json:"timeZone"`
	BrokerName string          `json:"brokerName"`
	QueueID    *json.Number    `json:"queueId"`
	Offset     *json.Number    `json:"offset"`
	Shift      *json.Number    `json:"shift"`
	AuditID    *json.Number    `json:"auditId"`
	FromGroup  string          `json:"fromGroup"`
	MsgID      string          `json:"msgId"`
	Skip       bool            `json:"skip"`
	Reason     string          `json:"reason"`
	PlanID     string          `json:"planId"`
	Confirm    bool            `json:"confirm"`
}

// resetAPIInput reads an API body. A body that is not the documented JSON is an input
// error like any other (a fault.List, its error on "body"); one not declared JSON is
// the body's own error, a 415.
func resetAPIInput(c *gin.Context) (resetInput, error) {
	var j resetJSON
	if err := decodeResetBody(c, &j); err != nil {
		return resetInput{}, err
	}
	return j.input(), nil
}

// decodeResetBody reads a reset API body into v: a body that is not the documented JSON
// is a fault.List (its error on "body"); one not declared JSON the body's own error.
func decodeResetBody(c *gin.Context, v any) error {
	if err := decodeAPIBody(c, v); err != nil {
		be := bodyError(err, "bad_request", "reset.api.badjson")
		if be.Reason == reasonMediaType {
			return be
		}
		return fault.List{{Code: fault.Invalid, Field: "body", Msg: be.Msg, Err: be.Err}}
	}
	return nil
}

// badRequestJSON is a 400 answer naming every wrong field, in English.
type badRequestJSON struct {
	Error  string      `json:"error"`
	Code   string      `json:"code"`
	Kind   string      `json:"kind"`
	Fields []fieldJSON `json:"fields"`
}

// fieldJSON is one wrong field of a request and why.
type fieldJSON struct {
	Field   string `json:"field"`
	Message string `json:"message"`
}

func badResetRequest(c *gin.Context, errs fault.List) {
	body := badRequestJSON{Code: "bad_request", Kind: string(fault.Invalid), Fields: make([]fieldJSON, len(errs))}
	msgs := make([]string, len(errs))
	for i, e := range errs {
		msgs[i] = e.Msg.String()
		body.Fields[i] = fieldJSON{Field: e.Field, Message: msgs[i]}
	}
	body.Error = "Nothing was changed: " + strings.Join(msgs, " ")
	c.JSON(http.StatusBadRequest, body)
}

// input is the body as the form would have typed it.
func (j resetJSON) input() resetInput {
	in := resetInput{Topic: j.Topic, Mode: j.Mode, TimeZone: j.TimeZone, BrokerName: j.BrokerName, FromGroup: j.FromGroup, MsgID: j.MsgID, Skip: j.Skip, Reason: j.Reason, PlanID: j.PlanID, Confirm: j.Confirm}
	num := func(n *json.Number) string {
		if n == nil {
			return ""
		}
		return n.String()
	}
	in.QueueID, in.Offset, in.Shift, in.AuditID = num(j.QueueID), num(j.Offset), num(j.Shift), num(j.AuditID)
	if ts := bytes.TrimSpace(j.Timestamp); len(ts) > 0 && string(ts) != "null" {
		var s string
		if json.Unmarshal(ts, &s) == nil {
			in.Timestamp = s
		} else {
			in.Timestamp = string(ts)
		}
	}
	return in
}

// request reads the input into a reset request. Every problem is reported at once,
// including those resets.Request.Check finds, each on its field.
func (in resetInput) request(group string, now time.Time) (resets.Request, fault.List) {
	var errs fault.List
	add := errs.Invalid
	r := resets.Request{
		Group: group, Topic: strings.TrimSpace(in.Topic), Mode: resets.Mode(strings.ToLower(strings.TrimSpace(in.Mode))),
		TimeZone: strings.TrimSpace(in.TimeZone), BrokerName: strings.TrimSpace(in.BrokerName),
		QueueID: resets.AllQueues, Reason: strings.TrimSpace(in.Reason),
	}
	loc, err := resets.LoadZone(r.TimeZone)
	if err != nil {
		add("tz", "resets.input.bad_zone", "Zone", strconv.Quote(r.TimeZone))
		loc = time.UTC
	}
	if r.TimeZone == "" {
		r.TimeZone = "UTC"
	}
	if r.Mode == resets.ModeTimestamp {
		t, err := parseTimeInput(in.Timestamp, loc)
		if err != nil {
			add("timestamp", "resets.input.bad_time", "Time", strconv.Quote(in.Timestamp))
		}
		r.Timestamp = t
	}
	if s := strings.TrimSpace(in.QueueID); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 0 {
			add("queueId", "resets.input.bad_queue", "Queue", strconv.Quote(s))
		} else {
			r.QueueID = n
		}
	}
	readInt := func(field, s string) (int64, bool) {
		s = strings.TrimSpace(s)
		if s == "" {
			add(field, "resets.input.missing."+field)
			return 0, false
		}
		n, err := strconv.ParseInt(s, 10, 64)
		if errors.Is(err, strconv.ErrRange) {
			add(field, "resets.input.overflow", "Value", s)
			return 0, false
		}
		if err != nil {
			add(field, "resets.input.not_number."+field, "Value", strconv.Quote(s))
			return 0, false
		}
		return n, true
	}
	switch r.Mode {
	case resets.ModeOffset:
		r.Offset, _ = readInt("offset", in.Offset)
	case resets.ModeShift:
		if n, ok := readInt("shift", in.Shift); ok {
			r.Shift = n
		} else {
			r.Shift = 1 // already reported; keeps Check from adding "a shift of 0"
		}
	case resets.ModeGroup:
		r.FromGroup = strings.TrimSpace(in.FromGroup)
	case resets.ModeMessage:
		r.MsgID, r.Skip = strings.TrimSpace(in.MsgID), in.Skip
	case resets.ModeUndo:
		if s := strings.TrimSpace(in.AuditID); s != "" {
			n, err := strconv.ParseInt(s, 10, 64)
			if err != nil || n <= 0 {
				add("auditId", "resets.input.undo.bad_id", "ID", strconv.Quote(freetext.Cut(s, 40)))
			} else {
				r.AuditID = n
			}
		}
	}
	for _, e := range r.Check(now) {
		if errs.For(e.Field) == nil {
			errs.Add(e)
		}
	}
	return r, errs
}

// skipValue is Skip as a form sends it ("" when not set).
func skipValue(skip bool) string {
	if skip {
		return "1"
	}
	return ""
}

// shown is the input with what the free-text rule refuses escaped (freetext.Shown), for
// showing a refused form again.
func (in resetInput) shown() resetInput {
	for _, f := range []*string{&in.Topic, &in.Mode, &in.Timestamp, &in.TimeZone, &in.BrokerName, &in.QueueID,
		&in.Offset, &in.Shift, &in.AuditID, &in.FromGroup, &in.MsgID, &in.Reason, &in.PlanID} {
		*f = freetext.Shown(*f)
	}
	return in
}

// form is the input as the page shows it again.
func (in resetInput) form() views.ResetForm {
	tz := in.TimeZone
	if tz == "" {
		tz = "UTC"
	}
	return views.ResetForm{Topic: in.Topic, Mode: in.Mode, Timestamp: in.Timestamp, TimeZone: tz, BrokerName: in.BrokerName,
		QueueID: in.QueueID, Offset: in.Offset, Shift: in.Shift, AuditID: in.AuditID, FromGroup: in.FromGroup, MsgID: in.MsgID, Skip: in.Skip, Reason: in.Reason}
}

// fieldErrors maps input errors to the page's fields; errors on fields the page does
// not have go under "group" (shown above the button).
func fieldErrors(l *i18n.Localizer, errs fault.List) map[string]string {
	known := map[string]bool{"topic": true, "mode": true, "timestamp": true, "tz": true, "brokerName": true,
		"queueId": true, "offset": true, "shift": true, "auditId": true, "fromGroup": true, "msgId": true, "reason": true, "confirm": true, "group": true}
	out := map[string]string{}
	for _, e := range errs {
		f := e.Field
		if !known[f] {
			f = "group"
		}
		if out[f] == "" {
			out[f] = e.Say(l)
		} else {
			out[f] += " " + e.Say(l)
		}
	}
	return out
}
