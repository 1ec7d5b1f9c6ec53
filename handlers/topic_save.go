package handlers

import (
	"context"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/gin-gonic/gin"

	"rmqconsole/auth"
	"rmqconsole/cluster"
	"rmqconsole/fault"
	"rmqconsole/i18n"
	"rmqconsole/rights"
	"rmqconsole/store"
	"rmqconsole/topics"
	"rmqconsole/views"
)

// TopicChanger is what creating, updating and deleting topics needs from package topics.
type TopicChanger interface {
	Save(ctx context.Context, who topics.Who, r topics.SaveRequest) (*topics.Saved, error)
	Delete(ctx context.Context, who topics.Who, r topics.DeleteRequest) (*topics.Saved, error)
	Placement(ctx context.Context) ([]topics.BrokerPlace, error)
}

func topicWho(c *gin.Context) topics.Who { return topics.Who{Actor: Actor(c), Addr: c.ClientIP()} }

// canChangeTopics reports whether the caller may change topics and there is a service to.
func (h *Topics) canChangeTopics(c *gin.Context) bool {
	return h.Changes != nil && CallerRole(c).Allows(auth.Operator)
}

// topicFormRequest reads the create form (POST /topics) or a topic page's update form
// (POST /topics/{topic}) into a request. In the update form, a field left as it was shown
// is not sent, so the topic keeps it on every broker.
func topicFormRequest(c *gin.Context) (topics.SaveRequest, views.TopicFormVM, error) {
	vm := views.TopicFormVM{Topic: strings.TrimSpace(c.PostForm("topic")), ReadQueueNums: strings.TrimSpace(c.PostForm("readQueueNums")),
		WriteQueueNums: strings.TrimSpace(c.PostForm("writeQueueNums")), Perm: c.PostForm("perm"), MessageType: c.PostForm("messageType"),
		Order: c.PostForm("order") == "true"}
	// The route, not the form's fields, says whether it is an update: the create form
	// never changes a topic, whatever it is sent.
	if t := c.Param("topic"); t != "" {
		vm.Topic, vm.Update = t, true
	}
	vm.Orig = views.TopicFormOrig{ReadQueueNums: c.PostForm("orig_readQueueNums"), WriteQueueNums: c.PostForm("orig_writeQueueNums"),
		Perm: c.PostForm("orig_perm"), MessageType: c.PostForm("orig_messageType"), Order: c.PostForm("orig_order")}
	r := topics.SaveRequest{Update: vm.Update, Topic: vm.Topic, BrokerNames: c.PostFormArray("brokerNames")}
	changed := func(v, orig string) bool { return v != "" && (!vm.Update || v != orig) }
	for _, f := range []struct {
		name, v, orig string
		dst           **int
	}{
		{"readQueueNums", vm.ReadQueueNums, vm.Orig.ReadQueueNums, &r.ReadQueueNums},
		{"writeQueueNums", vm.WriteQueueNums, vm.Orig.WriteQueueNums, &r.WriteQueueNums},
		{"perm", vm.Perm, vm.Orig.Perm, &r.Perm},
	} {
		if !changed(f.v, f.orig) {
			continue
		}
		n, err := strconv.Atoi(f.v)
		if err != nil {
			return r, vm, fault.InvalidField(f.name, "topic.save.number."+f.name).Because("bad_" + f.name)
		}
		*f.dst = &n
	}
	if changed(vm.MessageType, vm.Orig.MessageType) {
		r.MessageType = vm.MessageType
	}
	if order := strconv.FormatBool(vm.Order); !vm.Update || order != vm.Orig.Order {
		r.Order = &vm.Order
	}
	return r, vm, nil
}

// placementChoices lists the cluster's brokers for the form, ticking those in ticked
// (every one when ticked is nil).
func placementChoices(places []topics.BrokerPlace, ticked []string) (out []views.TopicBrokerChoice, any5, any4 bool) {
	for _, p := range places {
		out = append(out, views.TopicBrokerChoice{Name: p.Name, Cluster: p.Cluster, Is5: p.Is5,
			Checked: ticked == nil || slices.Contains(ticked, p.Name)})
		any5 = any5 || p.Is5
		any4 = any4 || !p.Is5
	}
	return out, any5, any4
}

// createForm is the empty create form of /topics.
func (h *Topics) createForm(ctx context.Context) *views.TopicFormVM {
	vm := &views.TopicFormVM{Action: "/topics", ReadQueueNums: strconv.Itoa(topics.DefaultQueueNums),
		WriteQueueNums: strconv.Itoa(topics.DefaultQueueNums), Perm: "6"}
	h.fillBrokers(ctx, vm, nil)
	return vm
}

func (h *Topics) fillBrokers(ctx context.Context, vm *views.TopicFormVM, ticked []string) {
	places, err := h.Changes.Placement(ctx)
	if err != nil {
		if vm.Error == "" {
			vm.Error = i18n.From(ctx).T("topic.save.brokers.error", "Error", sayErr(i18n.From(ctx), err))
		}
		return
	}
	vm.Brokers, vm.Any5, vm.Any4 = placementChoices(places, ticked)
}

// topicChangeResultVM says what a change did, broker by broker.
func topicChangeResultVM(e *store.AuditEntry, topicURL string) *views.TopicChangeResultVM {
	// The status is shown on its own: the sentence goes on from it.
	text := changeStatusText(e)
	if i := strings.Index(text, ": "); i > 0 && strings.EqualFold(text[:i], string(e.Status)) {
		text = text[i+2:]
	}
	return &views.TopicChangeResultVM{Status: string(e.Status), StatusClass: auditStatusClass(e.Status), Text: text,
		EntryURL: auditURL(e.ID), TopicURL: topicURL, Error: e.Error.String(), Rows: auditChangeVM(e).Rows}
}

// changeRefusal is what the service refused a change for, said with the form: bad
// input, a topic that exists or does not, a change already in progress, one that could
// not be checked with a broker or recorded. ok is false for the failures answered as
// such (the database, a bug).
func changeRefusal(err error) (fe *fault.Error, ok bool) {
	if fe = fault.As(err); fe == nil {
		return nil, false
	}
	switch fe.Code {
	case fault.Invalid, fault.Conflict, fault.NotFound:
		return fe, true
	case fault.Unavailable:
		return fe, fe.Reason == topics.ReasonNoAudit || fe.Reason == cluster.FailureError || fe.Reason == cluster.FailureTimeout
	}
	return fe, false
}

// SaveForm is POST /topics (create) and POST /topics/{topic} (update): on bad input the
// form again with the sentence next to the field and what was typed kept; else the
// outcome per broker above the form.
func (h *Topics) SaveForm(c *gin.Context) {
	if h.Changes == nil {
		h.Fail(c, errNoCluster())
		return
	}
	r, vm, err := topicFormRequest(c)
	if err == nil && !MayTopic(c, r.Topic, rights.ManageTopics) { // a new topic's name is in the form
		refuseChange(c, h.Env, rights.Topic, r.Topic, rights.ManageTopics)
		return
	}
	vm.Action = "/topics"
	if vm.Update {
		vm.Action = views.TopicURL(vm.Topic)
	}
	ctx := c.Request.Context()
	var saved *topics.Saved
	if err == nil {
		saved, err = h.Changes.Save(ctx, topicWho(c), r)
	}
	h.fillBrokers(ctx, &vm, c.PostFormArray("brokerNames"))
	if err != nil {
		fe, ok := changeRefusal(err)
		if !ok {
			h.Fail(c, err)
			return
		}
		l := i18n.From(ctx)
		// The update form has no topic field: what is wrong with the topic (a system
		// topic) is said above the form.
		status := http.StatusUnprocessableEntity
		switch {
		case fe.Code == fault.Invalid && (fe.Field != "topic" || !vm.Update):
			vm.FieldErrors = map[string]string{fe.Field: fe.Say(l)}
		case fe.Reason == topics.ReasonExists:
			// The name is taken: say so next to it, with the way to the topic's own form.
			status, vm.ExistingURL = http.StatusConflict, views.TopicURL(r.Topic)
			vm.FieldErrors = map[string]string{"topic": fe.Say(l)}
		case fe.Code == fault.NotFound:
			status, vm.Error = http.StatusNotFound, fe.Say(l)
		default:
			vm.Error = fe.Say(l)
		}
		shownAll(&vm.Topic, &vm.ReadQueueNums, &vm.WriteQueueNums, &vm.Perm, &vm.MessageType)
		h.renderSaveSection(c, status, vm)
		return
	}
	vm.Result = topicChangeResultVM(saved.Entry, views.TopicURL(r.Topic))
	if vm.Update {
		// The form now starts from what was saved, so the next change sends only itself.
		vm.Orig = views.TopicFormOrig{ReadQueueNums: vm.ReadQueueNums, WriteQueueNums: vm.WriteQueueNums, Perm: vm.Perm,
			MessageType: vm.MessageType, Order: strconv.FormatBool(vm.Order)}
	} else {
		fresh := h.createForm(ctx)
		fresh.Result = vm.Result
		vm = *fresh
	}
	h.renderSaveSection(c, http.StatusOK, vm)
}

// renderSaveSection answers htmx with the section (2xx, which htmx swaps) and a plain
// form post with a page holding it.
func (h *Topics) renderSaveSection(c *gin.Context, status int, vm views.TopicFormVM) {
	if isHTMX(c) {
		h.renderFragment(c, http.StatusOK, views.TopicSaveSection(vm))
		return
	}
	l := i18n.From(c.Request.Context())
	title := l.T("topics.create")
	if vm.Update {
		title = l.T("topic.change.pagetitle", "Topic", views.Cut(vm.Topic))
	}
	h.render(c, status, h.page(c, title, "topics"), views.TopicSaveSection(vm))
}

// TopicChangeJSON answers a create, update or delete: the audit entry, sealed, with one
// row per broker. Error and Code are set when some broker failed.
type TopicChangeJSON struct {
	Topic   string         `json:"topic"`
	Created bool           `json:"created"`
	Status  string         `json:"status"`
	Entry   AuditEntryJSON `json:"entry"`
	Error   string         `json:"error,omitempty"`
	Code    string         `json:"code,omitempty"`
}

// answerChange writes a change's outcome: 201 for a topic created on every broker, 200
// for an update or delete done everywhere, 502 naming the brokers that failed.
func (h *Topics) answerChange(c *gin.Context, topic string, saved *topics.Saved) {
	e := saved.Entry
	out := TopicChangeJSON{Topic: topic, Created: saved.Created, Status: string(e.Status), Entry: auditEntryJSON(e)}
	status := http.StatusOK
	switch {
	case e.Status != store.AuditApplied:
		status, out.Code = http.StatusBadGateway, "broker_error"
		out.Error = changeStatusText(e)
		var failed []string
		for _, q := range e.Result {
			if len(q.Error) > 0 {
				failed = append(failed, q.BrokerName+": "+q.Error.String())
			}
		}
		if len(failed) > 0 {
			out.Error += " " + strings.Join(failed, "; ") + "."
		}
		if len(e.Error) > 0 {
			out.Error += " " + e.Error.String() + "."
		}
	case saved.Created:
		status = http.StatusCreated
	}
	c.JSON(status, out)
}

// topicExistsJSON answers a create of a topic that exists: 409 with where to change it.
type topicExistsJSON struct {
	APIError
	Topic string `json:"topic"`
	// Edit is the topic's page, with its update form; Update the URL to PUT a change to.
	Edit   string `json:"edit"`
	Update string `json:"update"`
}

// SaveAPI answers POST /api/v1/topics: create. A topic that exists is refused (409), so
// a create never changes one; PUT /api/v1/topics/{topic} does (UpdateAPI).
func (h *Topics) SaveAPI(c *gin.Context) {
	var r topics.SaveRequest
	if !h.decodeSave(c, &r) {
		return
	}
	h.save(c, r)
}

// UpdateAPI answers PUT /api/v1/topics/{topic}: change a topic that exists, keeping what
// the body leaves out; one that does not exist is 404.
func (h *Topics) UpdateAPI(c *gin.Context) {
	var r topics.SaveRequest
	if !h.decodeSave(c, &r) {
		return
	}
	topic := c.Param("topic")
	if r.Topic != "" && r.Topic != topic {
		h.Fail(c, fault.InvalidField("topic", "topic.api.mismatch", "Body", r.Topic, "Topic", topic).Because("bad_topic"))
		return
	}
	r.Topic, r.Update = topic, true
	h.save(c, r)
}

// decodeSave reads a create or update body; false when it answered the request.
func (h *Topics) decodeSave(c *gin.Context, r *topics.SaveRequest) bool {
	if h.Changes == nil {
		h.Fail(c, errNoCluster())
		return false
	}
	if err := decodeAPIBody(c, r); err != nil {
		h.Fail(c, bodyError(err, "bad_json", "topic.api.badjson"))
		return false
	}
	return true
}

// save asks the service for r and answers its outcome.
func (h *Topics) save(c *gin.Context, r topics.SaveRequest) {
	l := i18n.From(c.Request.Context())
	if !MayTopic(c, r.Topic, rights.ManageTopics) { // a new topic's name is in the body
		refuseChange(c, h.Env, rights.Topic, r.Topic, rights.ManageTopics)
		return
	}
	saved, err := h.Changes.Save(c.Request.Context(), topicWho(c), r)
	if fe := fault.As(err); fe != nil && fe.Reason == topics.ReasonExists {
		update := h.Base.URL("/api/v1/topics/" + url.PathEscape(r.Topic))
		c.JSON(http.StatusConflict, topicExistsJSON{APIError: APIError{Code: fe.APICode(), Kind: string(fe.Code),
			Error: l.T("topic.api.exists", "Topic", r.Topic, "Update", update)},
			Topic: r.Topic, Edit: h.Base.URL(views.TopicURL(r.Topic)), Update: update})
		return
	}
	if err != nil {
		h.Fail(c, err)
		return
	}
	h.answerChange(c, r.Topic, saved)
}
