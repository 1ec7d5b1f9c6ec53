package handlers

import (
	"maps"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/gin-gonic/gin"

	"rmqconsole/auth"
	"rmqconsole/fault"
	"rmqconsole/i18n"
	"rmqconsole/lookup"
	"rmqconsole/topics"
	"rmqconsole/views"
)

// messageCopyVM is the message page's "copy to a topic", for operators.
func messageCopyVM(c *gin.Context, m lookup.Message) *views.MessageCopyVM {
	if !CallerRole(c).Allows(auth.Operator) || m.Message == nil || m.Masked {
		return nil
	}
	return &views.MessageCopyVM{Action: "/messages/" + url.PathEscape(c.Param("id")) + "/copy", Topic: m.Topic}
}

// Copy is GET /messages/{id}/copy?topic=&to=: the send form of topic to, filled from
// the message; sending it (POST /topics/{to}/messages) is the change, audited there
// with the message it copies.
func (h *Messages) Copy(c *gin.Context) {
	to := strings.TrimSpace(c.Query("to"))
	if to == "" {
		h.failInput(c, fault.InvalidField("to", "messages.copy.no_topic").Because("no_topic"))
		return
	}
	if err := topics.CheckName(to); err != nil {
		h.failInput(c, err)
		return
	}
	r, ok := h.find(c, c.Query("topic"))
	if !ok {
		return
	}
	r = h.shown(c, r)
	if r.Message.Masked {
		// A copy would send the marker in place of the values: the copy needs the
		// right to read bodies, as seeing the form does.
		h.failInput(c, fault.New(fault.Refused, "masking.copy.refused", "Role", CallerRole(c).String()).Because("masked"))
		return
	}
	// The form shows the body: a read like the message page's.
	h.recordBody(c, r.Message, "copy")
	vm := sendVMOf(topics.CopyOf(r.Message.Message, to))
	l := i18n.From(c.Request.Context())
	h.render(c, http.StatusOK, h.page(c, l.T("messages.copy.page", "ID", views.Cut(vm.CopiedFrom), "Topic", views.Cut(to)), "topics"),
		views.TopicSendSection(vm))
}

// sendVMOf is the send form filled with r, as the form's text fields take it.
func sendVMOf(r topics.SendRequest) views.TopicSendVM {
	vm := views.TopicSendVM{Action: views.TopicURL(r.Topic) + "/messages", Topic: r.Topic, Body: r.Body, BodyEncoding: r.BodyEncoding,
		Tags: r.Tags, Keys: strings.Join(r.Keys, " "), MessageGroup: r.MessageGroup, CopiedFrom: r.CopiedFrom}
	var props strings.Builder
	for _, k := range slices.Sorted(maps.Keys(r.Properties)) {
		props.WriteString(k + "=" + r.Properties[k] + "\n")
	}
	vm.Properties = props.String()
	return vm
}
