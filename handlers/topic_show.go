package handlers

import (
	"net/http"
	"slices"
	"strconv"

	"github.com/gin-gonic/gin"

	"rmqconsole/cluster"
	"rmqconsole/fault"
	"rmqconsole/i18n"
	"rmqconsole/rights"
	"rmqconsole/topics"
	"rmqconsole/views"
)

// topicDetailQuery reads and checks the topic page's input: a topic or producer group
// name RocketMQ would refuse is refused before any broker is asked.
func topicDetailQuery(c *gin.Context) (topics.DetailQuery, error) {
	q := topics.DetailQuery{Topic: c.Param("topic"), ProducerGroup: c.Query("producerGroup")}
	if !cluster.ValidName(q.Topic) {
		return q, fault.InvalidField("topic", "topic.bad.name", "Topic", views.Cut(q.Topic)).Because("bad_topic")
	}
	if q.ProducerGroup != "" && !cluster.ValidName(q.ProducerGroup) {
		return q, fault.InvalidField("producerGroup", "topic.bad.producergroup", "Group", views.Cut(q.ProducerGroup)).Because("bad_producer_group")
	}
	return q, nil
}

// detail reads the topic the request names; on false the failure has been answered.
func (h *Topics) detail(c *gin.Context) (*topics.Detail, bool) {
	q, err := topicDetailQuery(c)
	if err != nil {
		h.Fail(c, err)
		return nil, false
	}
	if h.Topics == nil {
		h.Fail(c, errNoCluster())
		return nil, false
	}
	d, err := h.Topics.Detail(c.Request.Context(), q)
	if err != nil {
		h.Fail(c, err)
		return nil, false
	}
	if r := CallerRights(c); r.Limited() {
		// Another team's group consuming the topic is not shown to this caller.
		out := *d
		out.Groups = slices.DeleteFunc(slices.Clone(d.Groups), func(g topics.GroupLag) bool {
			return !r.Allows(rights.Group, g.Group, rights.ReadMetadata)
		})
		d = &out
	}
	return d, true
}

// Show renders /topics/{topic}[?producerGroup=].
func (h *Topics) Show(c *gin.Context) {
	d, ok := h.detail(c)
	if !ok {
		return
	}
	l := i18n.From(c.Request.Context())
	vm := topicPageVM(l, d)
	h.topicForms(c, &vm, d)
	h.render(c, http.StatusOK, h.page(c, l.T("topic.page", "Topic", views.Cut(d.Topic)), "topics"), views.TopicPage(vm))
}

// topicForms adds the update and delete forms for operators, starting from what the
// topic has; a system topic and a viewer get a sentence instead.
func (h *Topics) topicForms(c *gin.Context, vm *views.TopicVM, d *topics.Detail) {
	switch {
	case h.Changes == nil:
		return
	case d.System:
		vm.ChangeNote = i18n.From(c.Request.Context()).T("topic.system.note")
		return
	case !h.canChangeTopics(c):
		vm.ChangeNote = i18n.From(c.Request.Context()).T("topic.operators")
		return
	}
	vm.Send = sendFormFor(c, d.Topic)
	if !MayTopic(c, d.Topic, rights.ManageTopics) {
		return // the caller's rights do not cover changing this topic: no update or delete form
	}
	var brokers []string
	form := &views.TopicFormVM{Update: true, Action: views.TopicURL(d.Topic), Topic: d.Topic, Order: d.Order}
	for i, r := range d.Route {
		brokers = append(brokers, r.Broker)
		if i == 0 {
			form.ReadQueueNums, form.WriteQueueNums, form.Perm = strconv.Itoa(r.ReadQueues), strconv.Itoa(r.WriteQueues), strconv.Itoa(r.Perm)
		}
	}
	if slices.Contains(topics.MessageTypes, d.Type) {
		form.MessageType = d.Type
	}
	form.Orig = views.TopicFormOrig{ReadQueueNums: form.ReadQueueNums, WriteQueueNums: form.WriteQueueNums, Perm: form.Perm,
		MessageType: form.MessageType, Order: strconv.FormatBool(form.Order)}
	h.fillBrokers(c.Request.Context(), form, brokers)
	vm.Update = form
	vm.Delete = &views.TopicDeleteVM{Action: views.TopicURL(d.Topic) + "/delete", Topic: d.Topic, Brokers: brokers}
}

// TopicDetailJSON answers GET /api/v1/topics/{topic}.
type TopicDetailJSON struct {
	Topic    string   `json:"topic"`
	Type     string   `json:"type"`
	Order    bool     `json:"order"`
	System   bool     `json:"system"`
	Messages int64    `json:"messages"`
	PutTPS   *float64 `json:"putTps"`
	// StatsFrom and GroupsFrom count the brokers whose stats and consumer groups are
	// in the answer: 0 with a route means unknown (failures says why), not none.
	StatsFrom  int                    `json:"statsFrom"`
	GroupsFrom int                    `json:"groupsFrom"`
	Route      []topics.BrokerRoute   `json:"route"`
	Queues     []topics.Queue         `json:"queues"`
	Groups     []topics.GroupLag      `json:"groups"`
	Producers  topics.Producers       `json:"producers"`
	CheckedAt  string                 `json:"checkedAt"`
	Failures   []topics.BrokerFailure `json:"failures,omitempty"`
	// Errors are Failures as {"broker","error"}. Deprecated: use failures.
	Errors []BrokerErrorJSON `json:"errors,omitempty"`
}

// ShowAPI answers GET /api/v1/topics/{topic}[?producerGroup=].
func (h *Topics) ShowAPI(c *gin.Context) {
	d, ok := h.detail(c)
	if !ok {
		return
	}
	j := TopicDetailJSON{Topic: d.Topic, Type: d.Type, Order: d.Order, System: d.System, Messages: d.Messages, PutTPS: d.PutTPS,
		StatsFrom: d.StatsFrom, GroupsFrom: d.GroupsFrom, Route: d.Route, Queues: d.Queues, Groups: d.Groups, Producers: d.Producers, CheckedAt: views.ISO(d.CheckedAt),
		Failures: d.Failures, Errors: brokerErrorsJSON(d.Failures)}
	if j.Groups == nil {
		j.Groups = []topics.GroupLag{}
	}
	if j.Producers.Groups == nil {
		j.Producers.Groups = []topics.ProducerGroup{}
	}
	c.JSON(http.StatusOK, j)
}
