package handlers

import (
	"context"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/gin-gonic/gin"

	"rmqconsole/auth"
	"rmqconsole/deadletters"
	"rmqconsole/i18n"
	"rmqconsole/lookup"
	"rmqconsole/rocketmq"
	"rmqconsole/views"
)

// DeadLetterTopics tells a group's retry and dead-letter topics; *deadletters.Service
// implements it.
type DeadLetterTopics interface {
	Topics(ctx context.Context, group string) (*deadletters.GroupTopics, error)
	PopRetryTopics(ctx context.Context, group string, topics []string) ([]deadletters.TopicCount, error)
}

// Resender resends dead letters; *deadletters.Service implements it.
type Resender interface {
	Resend(ctx context.Context, req deadletters.ResendRequest) (*deadletters.ResendResult, error)
}

// DeadLetters is POST /messages/{id}/resend, POST /messages/resend and their API.
type DeadLetters struct {
	*Env
	// Service is nil when no NameServer is configured.
	Service Resender
}

// Resend is POST /messages/{id}/resend: one dead letter back to its original topic.
func (h *DeadLetters) Resend(c *gin.Context) {
	h.resend(c, deadletters.ResendRequest{IDs: []string{c.Param("id")}, Topic: c.Query("topic"), Reason: c.PostForm("reason")})
}

// ResendAll is POST /messages/resend: every dead letter a search showed (form fields id,
// topic, reason).
func (h *DeadLetters) ResendAll(c *gin.Context) {
	h.resend(c, deadletters.ResendRequest{IDs: c.PostFormArray("id"), Topic: c.PostForm("topic"), Reason: c.PostForm("reason")})
}

// resendBody is the JSON body of the resend API; every field is optional for one
// message, and ids is required for several.
type resendBody struct {
	IDs    []string `json:"ids"`
	Topic  string   `json:"topic"`
	Reason string   `json:"reason"`
}

// ResendAPI is POST /api/v1/messages/{id}/resend[?topic=] with an optional
// {"reason"}.
func (h *DeadLetters) ResendAPI(c *gin.Context) {
	var b resendBody
	if !h.readBody(c, &b) {
		return
	}
	topic := c.Query("topic")
	if topic == "" {
		topic = b.Topic
	}
	h.resend(c, deadletters.ResendRequest{IDs: []string{c.Param("id")}, Topic: topic, Reason: b.Reason})
}

// ResendAllAPI is POST /api/v1/messages/resend with {"ids":[...], "topic", "reason"}.
func (h *DeadLetters) ResendAllAPI(c *gin.Context) {
	var b resendBody
	if !h.readBody(c, &b) {
		return
	}
	h.resend(c, deadletters.ResendRequest{IDs: b.IDs, Topic: b.Topic, Reason: b.Reason})
}

func (h *DeadLetters) readBody(c *gin.Context, b *resendBody) bool {
	if c.Request.ContentLength == 0 {
		return true
	}
	if err := decodeAPIBody(c, b); err != nil {
		h.Fail(c, bodyError(err, "bad_json", "deadletters.api.badjson"))
		return false
	}
	return true
}

func (h *DeadLetters) resend(c *gin.Context, req deadletters.ResendRequest) {
	if h.Service == nil {
		h.Fail(c, errNoCluster())
		return
	}
	req.Actor, req.ActorAddr = Actor(c), c.ClientIP()
	res, err := h.Service.Resend(c.Request.Context(), req)
	if err != nil {
		h.failInput(c, err)
		return
	}
	if isAPI(c) {
		status := http.StatusOK
		if res.Status == "failed" {
			status = http.StatusBadGateway // nothing was resent; the rows say why
		}
		c.JSON(status, resendJSON(res))
		return
	}
	l := i18n.From(c.Request.Context())
	title := l.T("deadletters.result.page", "Group", views.Cut(res.Group))
	h.render(c, http.StatusOK, h.page(c, title, "messages"), views.ResendResultPage(resendResultVM(l, res, time.Now())))
}

// ResentJSON is one dead letter of a resend, in the API.
type ResentJSON struct {
	DLQMsgID       string `json:"dlqMsgId"`
	DLQOffsetMsgID string `json:"dlqOffsetMsgId"`
	Topic          string `json:"topic"`
	BrokerName     string `json:"brokerName,omitempty"`
	QueueID        int    `json:"queueId"`
	QueueOffset    int64  `json:"queueOffset"`
	MsgID          string `json:"msgId,omitempty"`
	OffsetMsgID    string `json:"offsetMsgId,omitempty"`
	Error          string `json:"error"`
}

// ResendJSON is the answer of the resend API.
type ResendJSON struct {
	AuditID  int64        `json:"auditId"`
	Status   string       `json:"status"`
	Group    string       `json:"group"`
	DLQTopic string       `json:"dlqTopic"`
	Limit    int          `json:"limit"`
	Messages []ResentJSON `json:"messages"`
}

func resendJSON(r *deadletters.ResendResult) ResendJSON {
	j := ResendJSON{AuditID: r.AuditID, Status: string(r.Status), Group: r.Group, DLQTopic: r.DLQTopic, Limit: deadletters.MaxResend, Messages: []ResentJSON{}}
	for _, m := range r.Messages {
		j.Messages = append(j.Messages, ResentJSON{DLQMsgID: m.DLQMsgID, DLQOffsetMsgID: m.DLQOffsetMsgID, Topic: m.Topic,
			BrokerName: m.BrokerName, QueueID: m.QueueID, QueueOffset: m.QueueOffset, MsgID: m.MsgID, OffsetMsgID: m.OffsetMsgID})
		if m.Failed() {
			j.Messages[len(j.Messages)-1].Error = m.Error.String()
		}
	}
	return j
}

func resendResultVM(l *i18n.Localizer, r *deadletters.ResendResult, now time.Time) views.ResendResultVM {
	vm := views.ResendResultVM{Group: r.Group, DLQTopic: r.DLQTopic, Status: string(r.Status),
		AuditURL: "/audit/" + strconv.FormatInt(r.AuditID, 10), BackURL: views.RetainedMessagesURL(r.DLQTopic, now)}
	for _, m := range r.Messages {
		row := views.ResendRow{DLQID: m.DLQMsgID, DLQURL: views.MessageURL(m.DLQOffsetMsgID, ""), Topic: m.Topic,
			Broker: m.BrokerName, MsgID: m.MsgID, OffsetMsgID: m.OffsetMsgID}
		if m.Failed() {
			row.Error = l.Say(m.Error)
		}
		if m.OffsetMsgID != "" {
			row.QueueID, row.QueueOffset = strconv.Itoa(m.QueueID), l.Int(m.QueueOffset)
			row.ResentURL = views.MessageURL(m.OffsetMsgID, "")
		}
		if !m.Failed() {
			vm.Sent++
		} else {
			vm.Failed++
		}
		vm.Rows = append(vm.Rows, row)
	}
	return vm
}

// deadLetterVM is the message page's section for a message in a retry or dead-letter
// topic.
func deadLetterVM(c *gin.Context, m *rocketmq.Message) views.DeadLetterVM {
	o, ok := deadletters.OriginOf(m)
	if !ok {
		return views.DeadLetterVM{}
	}
	l := i18n.From(c.Request.Context())
	d := views.DeadLetterVM{Show: true, DeadLetter: o.DeadLetter, Group: o.Group, ReconsumeTimes: strconv.Itoa(m.ReconsumeTimes),
		OriginalTopic: o.Topic, OriginalID: o.MsgID, Dropped: deadletters.DroppedProperties(),
		ResendURL: views.MessageURL(m.OffsetMsgID(), "") + "/resend"}
	switch {
	case !o.DeadLetter:
	case o.Topic == "":
		d.ResendNote = l.T("deadletters.note.notopic")
	case !CallerRole(c).Allows(auth.Operator):
		d.ResendNote = l.T("deadletters.note.operators", "Topic", o.Topic)
	case CallerRights(c).Limited():
		d.ResendNote = l.T("rights.resend.limited")
	default:
		d.CanResend = true
	}
	return d
}

// resendSearchVM offers, under a search of a dead-letter topic, to resend every message
// it shows, up to deadletters.MaxResend.
func resendSearchVM(c *gin.Context, topic string, msgs []lookup.Message, truncated bool) views.ResendSearchVM {
	if !rocketmq.IsDLQTopic(topic) || len(msgs) == 0 {
		return views.ResendSearchVM{}
	}
	r := views.ResendSearchVM{Show: true, Topic: topic, Count: len(msgs), Limit: deadletters.MaxResend}
	l := i18n.From(c.Request.Context())
	switch {
	case truncated:
		r.Note = l.T("deadletters.search.toomany.more", "Max", deadletters.MaxResend, "N", l.Int(int64(len(msgs))))
	case len(msgs) > deadletters.MaxResend:
		r.Note = l.T("deadletters.search.toomany", "Max", deadletters.MaxResend, "N", l.Int(int64(len(msgs))))
	case !CallerRole(c).Allows(auth.Operator):
		r.Note = l.N("deadletters.search.operators", len(msgs))
	case CallerRights(c).Limited():
		r.Note = l.T("rights.resend.limited")
	default:
		r.CanResend = true
		for _, m := range msgs {
			r.IDs = append(r.IDs, m.OffsetMsgID())
		}
		r.Note = l.T("deadletters.search.note", "Topics", strings.Join(deadletters.OriginTopics(msgs), ", "), "Max", deadletters.MaxResend)
	}
	return r
}

// popRetryOrigin names the topic whose POP retry topic name is.
func popRetryOrigin(name string, t *deadletters.GroupTopics) string {
	if topic, ok := rocketmq.PopRetryTopicOf(name, strings.TrimPrefix(t.DLQ.Topic, rocketmq.DLQTopicPrefix)); ok {
		return topic
	}
	return name
}

// groupDeadLettersIn is the group page's section on its retry and dead-letter topics, in
// l's language. unanswered: no broker answered for the group itself (a refusal, every
// broker down), so a missing topic cannot be explained by what the group did.
func groupDeadLettersIn(l *i18n.Localizer, t *deadletters.GroupTopics, err error, now time.Time, unanswered bool) views.GroupDeadLettersVM {
	if err != nil {
		msg := sayErr(l, err)
		if s, ok := sayRefusal(l, "", err); ok {
			msg = strings.TrimSuffix(s, "。") // the sentence around it ends it
		}
		return views.GroupDeadLettersVM{Error: l.T("deadletters.group.error", "Error", msg)}
	}
	type topicRow struct {
		kind    string
		c       deadletters.TopicCount
		missing string
	}
	var vm views.GroupDeadLettersVM
	var rows []topicRow
	for _, c := range t.PopRetry {
		rows = append(rows, topicRow{l.T("deadletters.group.popretry"), c, l.T("deadletters.group.popretry.missing", "Topic", popRetryOrigin(c.Topic, t))})
	}
	if len(t.PopRetry) > 0 {
		vm.Note = l.T("deadletters.group.pop.note", "Retry", rocketmq.PopRetryTopicV1(strings.TrimPrefix(t.DLQ.Topic, rocketmq.DLQTopicPrefix), "<topic>"), "DLQ", t.DLQ.Topic)
	}
	// POP consumers do not use the push retry topic: it shows only when push consumers made it.
	if len(t.PopRetry) == 0 || t.Retry.Exists {
		rows = append(rows, topicRow{l.T("deadletters.group.retry"), t.Retry, l.T("deadletters.group.retry.missing")})
	}
	rows = append(rows, topicRow{l.T("deadletters.group.dlq"), t.DLQ, l.T("deadletters.group.dlq.missing")})
	for _, tc := range rows {
		row := views.GroupRetryTopicRow{Kind: tc.kind, Topic: tc.c.Topic, Exists: tc.c.Exists, Note: tc.missing}
		if unanswered {
			row.Note = l.T("deadletters.group.unanswered")
		}
		if tc.c.Exists {
			row.MessagesURL = views.RetainedMessagesURL(tc.c.Topic, now)
			if tc.c.Counted > 0 || len(tc.c.Failures) == 0 {
				row.Stored = l.Int(tc.c.Stored)
			}
			for _, f := range tc.c.Failures {
				row.Failures = append(row.Failures, sayFailure(l, "deadletters.group.notcounted", f))
			}
		}
		vm.Rows = append(vm.Rows, row)
	}
	return vm
}
