package handlers

import (
	"net/http"
	"time"

	"github.com/gin-gonic/gin"

	"rmqconsole/fault"
	"rmqconsole/i18n"
	"rmqconsole/resets"
	"rmqconsole/views"
)

// Preview is POST /groups/{group}/reset/preview: the plan under the form, with the
// button that applies it. Bad input re-renders the form (422); it is not an audit event.
func (h *Resets) Preview(c *gin.Context) {
	group, in, req, ok := h.readForm(c, false)
	if !ok {
		return
	}
	ctx := c.Request.Context()
	l := i18n.From(ctx)
	p, err := h.Service.Plan(ctx, req)
	switch {
	case fault.Is(err, fault.Invalid):
		h.formWithErrors(c, group, in, fault.All(err))
		return
	case err != nil:
		status, _ := errorStatus(err)
		vm := h.baseVM(ctx, group, in)
		vm.Error = l.T("reset.preview_failed", "Error", sayErr(l, err))
		h.render(c, status, h.page(c, l.T("reset.page", "Group", group), "groups"), views.ResetPage(vm.ResetVM))
		return
	}
	vm := h.baseVM(ctx, group, in)
	vm.Preview = h.previewVM(l, p, in)
	h.render(c, http.StatusOK, h.page(c, l.T("reset.page.preview", "Group", group), "groups"), views.ResetPage(vm.ResetVM))
}

// formWithErrors answers 422 with the form as typed and a sentence on each wrong field.
func (h *Resets) formWithErrors(c *gin.Context, group string, in resetInput, errs fault.List) {
	l := i18n.From(c.Request.Context())
	vm := h.baseVM(c.Request.Context(), group, in)
	vm.FieldErrors = fieldErrors(l, errs)
	if vm.Error == "" {
		vm.Error = l.T("reset.nothing_changed", "Errors", errs.Say(l))
	}
	h.render(c, http.StatusUnprocessableEntity, h.page(c, l.T("reset.page", "Group", group), "groups"), views.ResetPage(vm.ResetVM))
}

// PreviewAPI is POST /api/v1/groups/{group}/reset-preview: the plan, changing nothing.
func (h *Resets) PreviewAPI(c *gin.Context) {
	_, req, ok := h.readAPI(c, false)
	if !ok {
		return
	}
	p, err := h.Service.Plan(c.Request.Context(), req)
	switch {
	case fault.Is(err, fault.Invalid):
		badResetRequest(c, fault.All(err))
	case err != nil:
		h.Fail(c, err)
	default:
		c.JSON(http.StatusOK, planJSON(p, h.Service.ExpiresAt(p)))
	}
}

// PlanJSON is the preview as the API answers it.
type PlanJSON struct {
	PlanID    string            `json:"planId"`
	PlanHash  string            `json:"planHash"`
	Action    string            `json:"action"`
	Group     string            `json:"group"`
	Topics    []string          `json:"topics"`
	Mode      string            `json:"mode"`
	Params    map[string]any    `json:"params"`
	Online    bool              `json:"online"`
	Clients   []string          `json:"clients"`
	Brokers   []PlanBrokerJSON  `json:"brokers"`
	Queues    []PlanQueueJSON   `json:"queues"`
	Warnings  []string          `json:"warnings"`
	Failures  []PlanFailureJSON `json:"failures"`
	PlannedAt string            `json:"plannedAt"`
	ExpiresAt string            `json:"expiresAt"`
	// Undo is set for mode "undo": the entry undone and how its queues moved since.
	Undo *PlanUndoJSON `json:"undo,omitempty"`
	// Copy is set for mode "group": the group copied and the queues it has no offset
	// on (left alone).
	Copy *PlanCopyJSON `json:"copy,omitempty"`
	// Message is set for mode "message": the message the reset starts from and where
	// its queue goes (the others go to its store time).
	Message *PlanMessageJSON `json:"message,omitempty"`
}

// PlanMessageJSON is the message a reset to a message starts from.
type PlanMessageJSON struct {
	MsgID          string `json:"msgId"`
	Topic          string `json:"topic"`
	BrokerName     string `json:"brokerName"`
	QueueID        int    `json:"queueId"`
	QueueOffset    int64  `json:"queueOffset"`
	StoreTimestamp int64  `json:"storeTimestamp"`
	Skip           bool   `json:"skip"`
}

func planMessageJSON(m *resets.Message) *PlanMessageJSON {
	if m == nil {
		return nil
	}
	return &PlanMessageJSON{MsgID: m.MsgID, Topic: m.Queue.Topic, BrokerName: m.Queue.BrokerName, QueueID: m.Queue.QueueID,
		QueueOffset: m.Offset, StoreTimestamp: m.StoreTime.UnixMilli(), Skip: m.Skip}
}

// PlanCopyJSON is where a copy takes its offsets from, and the queues left alone.
type PlanCopyJSON struct {
	FromGroup string          `json:"fromGroup"`
	NoOffset  []PlanQueueName `json:"noOffset"`
}

// PlanQueueName names a queue.
type PlanQueueName struct {
	Topic      string `json:"topic"`
	BrokerName string `json:"brokerName"`
	QueueID    int    `json:"queueId"`
}

func copyJSON(c *resets.Copy) *PlanCopyJSON {
	if c == nil {
		return nil
	}
	out := &PlanCopyJSON{FromGroup: c.FromGroup, NoOffset: []PlanQueueName{}}
	for _, q := range c.NoOffset {
		out.NoOffset = append(out.NoOffset, PlanQueueName{Topic: q.Topic, BrokerName: q.BrokerName, QueueID: q.QueueID})
	}
	return out
}

// PlanUndoJSON is what an undo takes back: the entry undone; the queues whose offset
// moved since that reset, those whose "before" offset is no longer stored (they go to
// the min offset) and those not found now (left alone).
type PlanUndoJSON struct {
	AuditID  int64           `json:"auditId"`
	Moved    []UndoQueueJSON `json:"moved"`
	Unstored []UndoQueueJSON `json:"unstored"`
	Missing  []UndoQueueJSON `json:"missing"`
}

// UndoQueueJSON is a queue of the reset undone: its offsets before and after that
// reset, and now.
type UndoQueueJSON struct {
	Topic         string `json:"topic"`
	BrokerName    string `json:"brokerName"`
	QueueID       int    `json:"queueId"`
	Before        int64  `json:"before"`
	After         *int64 `json:"after"`
	CurrentOffset int64  `json:"currentOffset"`
	MinOffset     int64  `json:"minOffset"`
}

func undoJSON(u *resets.Undo) *PlanUndoJSON {
	if u == nil {
		return nil
	}
	list := func(qs []resets.UndoQueue) []UndoQueueJSON {
		out := make([]UndoQueueJSON, len(qs))
		for i, q := range qs {
			out[i] = UndoQueueJSON{Topic: q.Queue.Topic, BrokerName: q.Queue.BrokerName, QueueID: q.Queue.QueueID,
				Before: q.Before, After: q.After, CurrentOffset: q.Current, MinOffset: q.Min}
		}
		return out
	}
	return &PlanUndoJSON{AuditID: u.AuditID, Moved: list(u.Moved), Unstored: list(u.Unstored), Missing: list(u.Missing)}
}

// PlanFailureJSON is a broker whose queues are not in a preview, and why.
type PlanFailureJSON struct {
	BrokerName string `json:"brokerName"`
	Addr       string `json:"addr"`
	Topic      string `json:"topic,omitempty"`
	Error      string `json:"error"`
}

// PlanBrokerJSON is a broker of a preview.
type PlanBrokerJSON struct {
	BrokerName string `json:"brokerName"`
	Addr       string `json:"addr"`
	Version    string `json:"version"`
	Method     string `json:"method"`
}

// PlanQueueJSON is one queue of a preview; delta is target - current (negative:
// consumed again, positive: skipped).
type PlanQueueJSON struct {
	Topic         string `json:"topic"`
	BrokerName    string `json:"brokerName"`
	QueueID       int    `json:"queueId"`
	CurrentOffset int64  `json:"currentOffset"`
	TargetOffset  int64  `json:"targetOffset"`
	MinOffset     int64  `json:"minOffset"`
	MaxOffset     int64  `json:"maxOffset"`
	Delta         int64  `json:"delta"`
	LagAfter      int64  `json:"lagAfter"`
	Note          string `json:"note,omitempty"`
}

func planJSON(p *resets.Plan, expires time.Time) PlanJSON {
	out := PlanJSON{
		PlanID: p.ID, PlanHash: p.Hash, Action: p.Action().String(), Group: p.Request.Group, Topics: p.Topics,
		Mode: string(p.Request.Mode), Params: p.Request.Params(), Online: p.Online, Clients: p.Clients,
		Warnings: []string{}, Failures: []PlanFailureJSON{}, PlannedAt: views.ISO(p.At), ExpiresAt: views.ISO(expires),
		Brokers: []PlanBrokerJSON{}, Queues: []PlanQueueJSON{}, Undo: undoJSON(p.Undo), Copy: copyJSON(p.Copy), Message: planMessageJSON(p.Message),
	}
	if out.Clients == nil {
		out.Clients = []string{}
	}
	for _, w := range p.Warnings {
		out.Warnings = append(out.Warnings, w.String())
	}
	for _, f := range p.Failures {
		out.Failures = append(out.Failures, PlanFailureJSON{BrokerName: f.Broker, Addr: f.Addr, Topic: f.Topic, Error: f.Reason()})
	}
	for _, b := range p.Brokers {
		out.Brokers = append(out.Brokers, PlanBrokerJSON{BrokerName: b.Name, Addr: b.Addr, Version: resets.VersionText(b.Version), Method: string(b.Method)})
	}
	for _, q := range p.Queues {
		out.Queues = append(out.Queues, PlanQueueJSON{
			Topic: q.Queue.Topic, BrokerName: q.Queue.BrokerName, QueueID: q.Queue.QueueID,
			CurrentOffset: q.Current, TargetOffset: q.Target, MinOffset: q.Min, MaxOffset: q.Max,
			Delta: q.Delta(), LagAfter: q.LagAfter(), Note: q.Note.String(),
		})
	}
	return out
}
