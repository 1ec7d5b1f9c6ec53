package handlers

import (
	"context"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/gin-gonic/gin"

	"rmqconsole/auth"
	"rmqconsole/fault"
	"rmqconsole/i18n"
	"rmqconsole/rights"
	"rmqconsole/topics"
	"rmqconsole/views"
)

// MessageSender is what sending a message needs from package topics.
type MessageSender interface {
	Send(ctx context.Context, who topics.Who, r topics.SendRequest) (*topics.Sent, error)
}

// TopicSend answers the send form of a topic's page and POST /api/v1/topics/{topic}/messages.
type TopicSend struct {
	*Env
	// Sender is nil when no NameServer is configured.
	Sender MessageSender
}

// SendAPI answers POST /api/v1/topics/{topic}/messages: where the message was stored,
// or the sentence that refused it.
func (h *TopicSend) SendAPI(c *gin.Context) {
	if h.Sender == nil {
		h.Fail(c, errNoCluster())
		return
	}
	var r topics.SendRequest
	if err := decodeAPIBody(c, &r); err != nil {
		h.Fail(c, bodyError(err, "bad_json", "topics.send.api.badjson"))
		return
	}
	topic := c.Param("topic")
	if r.Topic != "" && r.Topic != topic {
		h.Fail(c, fault.InvalidField("topic", "topic.api.mismatch", "Body", r.Topic, "Topic", topic).Because("bad_topic"))
		return
	}
	r.Topic = topic
	sent, err := h.Sender.Send(c.Request.Context(), topicWho(c), r)
	if err != nil {
		h.Fail(c, err)
		return
	}
	c.JSON(http.StatusOK, sent)
}

// SendForm is POST /topics/{topic}/messages: the section again with what was sent, or
// with the sentence next to the field and what was typed kept.
func (h *TopicSend) SendForm(c *gin.Context) {
	if h.Sender == nil {
		h.Fail(c, errNoCluster())
		return
	}
	ctx := c.Request.Context()
	l := i18n.From(ctx)
	vm := sendFormVM(c)
	r, err := sendFormRequest(vm, time.UTC)
	var sent *topics.Sent
	if err == nil {
		sent, err = h.Sender.Send(ctx, topicWho(c), r)
	}
	status := http.StatusOK
	if err != nil {
		fe := fault.As(err)
		if fe == nil || fe.Code == fault.Internal {
			h.Fail(c, err)
			return
		}
		status = http.StatusUnprocessableEntity
		if fe.Code == fault.NotFound {
			status = http.StatusNotFound
		}
		if fe.Field != "" && fe.Field != "topic" {
			vm.FieldErrors = map[string]string{fe.Field: fe.Say(l)}
		} else {
			vm.Error = fe.Say(l)
		}
		shownAll(&vm.Body, &vm.Tags, &vm.Keys, &vm.Properties, &vm.MessageGroup)
	} else {
		vm.Result = &views.TopicSentVM{MsgID: sent.MsgID, OffsetMsgID: sent.OffsetMsgID, BrokerName: sent.BrokerName,
			QueueID: sent.QueueID, QueueOffset: sent.QueueOffset, Status: sent.Status, AuditURL: auditURL(sent.AuditID),
			MessageURL: views.MessageURL(sent.OffsetMsgID, r.Topic)}
	}
	if isHTMX(c) {
		h.renderFragment(c, http.StatusOK, views.TopicSendSection(vm))
		return
	}
	h.render(c, status, h.chrome(c, l.T("topics.send.title")+" · "+vm.Topic, "topics"), views.TopicSendSection(vm))
}

// sendFormVM is the send form as posted.
func sendFormVM(c *gin.Context) views.TopicSendVM {
	topic := c.Param("topic")
	return views.TopicSendVM{Action: views.TopicURL(topic) + "/messages", Topic: topic, Body: c.PostForm("body"),
		Tags: strings.TrimSpace(c.PostForm("tags")), Keys: strings.TrimSpace(c.PostForm("keys")),
		Properties: c.PostForm("properties"), DeliverAt: strings.TrimSpace(c.PostForm("deliverAt")),
		DelayLevel: strings.TrimSpace(c.PostForm("delayLevel")), QueueID: strings.TrimSpace(c.PostForm("queueId")),
		BrokerName: strings.TrimSpace(c.PostForm("brokerName")), MessageGroup: strings.TrimSpace(c.PostForm("messageGroup")),
		CopiedFrom: strings.TrimSpace(c.PostForm("copiedFrom")), BodyEncoding: strings.TrimSpace(c.PostForm("bodyEncoding"))}
}

// sendFormRequest reads the form's text fields: keys separated by spaces, one
// property name=value a line, the delivery time as the time inputs take it.
func sendFormRequest(vm views.TopicSendVM, loc *time.Location) (topics.SendRequest, error) {
	r := topics.SendRequest{Topic: vm.Topic, Body: vm.Body, BodyEncoding: vm.BodyEncoding, Tags: vm.Tags, Keys: strings.Fields(vm.Keys),
		BrokerName: vm.BrokerName, MessageGroup: vm.MessageGroup, CopiedFrom: vm.CopiedFrom}
	for line := range strings.Lines(vm.Properties) {
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		k, v, ok := strings.Cut(line, "=")
		if !ok {
			return r, fault.InvalidField("properties", "topics.send.input.prop.line", "Line", line).Because("bad_properties")
		}
		if r.Properties == nil {
			r.Properties = map[string]string{}
		}
		r.Properties[strings.TrimSpace(k)] = strings.TrimSpace(v)
	}
	if vm.DeliverAt != "" {
		t, err := parseTimeInput(vm.DeliverAt, loc)
		if err != nil {
			return r, fault.InvalidField("deliverAt", "topics.send.input.deliverat.form", "At", vm.DeliverAt).Because("bad_deliverAt")
		}
		r.DeliverAt = t.UnixMilli()
	}
	for _, f := range []struct {
		name, v string
		dst     func(int)
	}{
		{"delayLevel", vm.DelayLevel, func(n int) { r.DelayLevel = n }},
		{"queueId", vm.QueueID, func(n int) { r.QueueID = &n }},
	} {
		if f.v == "" {
			continue
		}
		n, err := strconv.Atoi(f.v)
		if err != nil {
			return r, fault.InvalidField(f.name, "topics.send.input.number", "Value", f.v).Because("bad_" + f.name)
		}
		f.dst(n)
	}
	return r, nil
}

// sendFormFor is the empty send form of a topic's page, for operators.
func sendFormFor(c *gin.Context, topic string) *views.TopicSendVM {
	if !CallerRole(c).Allows(auth.Operator) || !MayTopic(c, topic, rights.Send) {
		return nil
	}
	return &views.TopicSendVM{Action: views.TopicURL(topic) + "/messages", Topic: topic}
}
