package handlers

import (
	"net/http"
	"strings"

	"github.com/gin-gonic/gin"

	"rmqconsole/fault"
	"rmqconsole/i18n"
	"rmqconsole/topics"
	"rmqconsole/views"
)

// DeleteForm is POST /topics/{topic}/delete: with the name confirmed, the topic is
// deleted and the audit entry shown (it says what each broker did); else the form again
// with the sentence next to the field.
func (h *Topics) DeleteForm(c *gin.Context) {
	if h.Changes == nil {
		h.Fail(c, errNoCluster())
		return
	}
	topic := c.Param("topic")
	vm := views.TopicDeleteVM{Action: views.TopicURL(topic) + "/delete", Topic: topic, Confirm: strings.TrimSpace(c.PostForm("confirm")),
		Brokers: c.PostFormArray("brokers")}
	saved, err := h.Changes.Delete(c.Request.Context(), topicWho(c), topics.DeleteRequest{Topic: topic, Confirm: vm.Confirm})
	if err != nil {
		l := i18n.From(c.Request.Context())
		fe, ok := changeRefusal(err)
		if !ok {
			h.Fail(c, err)
			return
		}
		if fe.Code == fault.Invalid {
			vm.FieldErrors = map[string]string{fe.Field: fe.Say(l)}
		} else {
			vm.Error = fe.Say(l)
		}
		shownAll(&vm.Topic, &vm.Confirm)
		if isHTMX(c) {
			h.renderFragment(c, http.StatusOK, views.TopicDeleteSection(vm))
			return
		}
		h.render(c, http.StatusUnprocessableEntity, h.page(c, l.T("topic.delete.button", "Topic", views.Cut(topic)), "topics"), views.TopicDeleteSection(vm))
		return
	}
	// The audit entry is the result page: each broker's outcome, and the NameServers'.
	to := auditURL(saved.Entry.ID)
	if isHTMX(c) {
		c.Header("HX-Redirect", to)
		c.Status(http.StatusOK)
		return
	}
	c.Redirect(http.StatusSeeOther, to)
}

// DeleteAPI answers DELETE /api/v1/topics/{topic}?confirm={topic}.
func (h *Topics) DeleteAPI(c *gin.Context) {
	if h.Changes == nil {
		h.Fail(c, errNoCluster())
		return
	}
	topic := c.Param("topic")
	saved, err := h.Changes.Delete(c.Request.Context(), topicWho(c), topics.DeleteRequest{Topic: topic, Confirm: c.Query("confirm")})
	if err != nil {
		h.Fail(c, err)
		return
	}
	h.answerChange(c, topic, saved)
}
