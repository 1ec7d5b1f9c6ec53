package handlers

import (
	"errors"
	"net/http"
	"strings"

	"github.com/gin-gonic/gin"

	"rmqconsole/i18n"
	"rmqconsole/topics"
	"rmqconsole/views"
)

// DeleteForm is POST /topics/{topic}/delete: with the name confirmed, the topic is
// deleted and the audit entry shown (it says what each broker did); else the form again
// with the sentence next to the field.
func (h *Topics) DeleteForm(c *gin.Context) {
	if h.Changes == nil {
		h.Fail(c, errTopicsNoCluster(c))
		return
	}
	topic := c.Param("topic")
	vm := views.TopicDeleteVM{Action: views.TopicURL(topic) + "/delete", Topic: topic, Confirm: strings.TrimSpace(c.PostForm("confirm")),
		Brokers: c.PostFormArray("brokers")}
	saved, err := h.Changes.Delete(c.Request.Context(), topicWho(c), topics.DeleteRequest{Topic: topic, Confirm: vm.Confirm})
	if err != nil {
		l := i18n.From(c.Request.Context())
		ue, ok := topicChangeError(l, err)
		if !ok {
			h.Fail(c, err)
			return
		}
		var ie *topics.InputError
		if errors.As(err, &ie) {
			vm.FieldErrors = map[string]string{ie.Field: topicInputSay(l, ie)}
		} else {
			vm.Error = ue.Message
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
		h.Fail(c, errTopicsNoCluster(c))
		return
	}
	topic := c.Param("topic")
	saved, err := h.Changes.Delete(c.Request.Context(), topicWho(c), topics.DeleteRequest{Topic: topic, Confirm: c.Query("confirm")})
	if err != nil {
		if ue, ok := topicChangeError(i18n.From(c.Request.Context()), err); ok {
			err = ue
		}
		h.Fail(c, err)
		return
	}
	h.answerChange(c, topic, saved)
}
