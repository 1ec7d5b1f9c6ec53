package views

import (
	"net/url"
	"slices"
	"strings"
)

// ResetVM is the reset page of one group, /groups/{group}/reset: the form, the group's
// current offsets, and (after a preview) the plan with its apply button.
type ResetVM struct {
	Group      string
	Configured bool
	Form       ResetForm
	// FieldErrors holds a sentence per form field that is wrong.
	FieldErrors map[string]string
	// Error is a banner for what stopped the page (the group could not be read).
	Error string
	// Notice is a banner for what the user must know first (a preview was refused as
	// stale: here is a fresh one).
	Notice string
	Topics []string
	// Queues are the queues the form can limit the reset to.
	Queues []ResetQueueOption
	// Zones are time zone suggestions.
	Zones      []string
	QuickPicks []ResetQuickPick
	Current    *ResetCurrent
	Preview    *ResetPreview
}

// FieldError returns the sentence for a field, "" when it is fine.
func (vm ResetVM) FieldError(name string) string { return vm.FieldErrors[name] }

// ResetForm is what the user typed, as typed.
type ResetForm struct {
	Topic, Mode, Timestamp, TimeZone, BrokerName, QueueID, Offset, Shift, Reason string
	// AuditID is the audit entry an undo takes back.
	AuditID string
	// FromGroup is the group whose offsets a copy takes.
	FromGroup string
	// MsgID is the message a reset to a message starts from; Skip starts after it.
	MsgID string
	Skip  bool
}

// Values returns the form as URL values, for links and hidden fields.
func (f ResetForm) Values() url.Values {
	v := url.Values{}
	for k, s := range map[string]string{"topic": f.Topic, "mode": f.Mode, "timestamp": f.Timestamp, "tz": f.TimeZone,
		"brokerName": f.BrokerName, "queueId": f.QueueID, "offset": f.Offset, "shift": f.Shift, "auditId": f.AuditID, "fromGroup": f.FromGroup, "msgId": f.MsgID, "reason": f.Reason} {
		if s != "" {
			v.Set(k, s)
		}
	}
	if f.Skip {
		v.Set("skip", "1")
	}
	return v
}

// ResetQueueOption is one queue a reset can be limited to.
type ResetQueueOption struct {
	Topic, Broker, QueueID string
}

// ResetQuickPick is a link that fills the timestamp with a recent time.
type ResetQuickPick struct {
	Label, URL string
}

// ResetCurrent is the group's offsets now, so the form starts from them.
type ResetCurrent struct {
	Online   bool
	Known    bool
	Clients  []string
	Rows     []ResetCurrentRow
	Failures []string
	ReadAt   string
}

// ResetCurrentRow is one queue's offsets now.
type ResetCurrentRow struct {
	Topic, Broker, QueueID string
	Current, Min, Max, Lag string
	// ResetURL fills the form to reset this queue to an exact offset.
	ResetURL string
}

// ResetPreview is a plan: every queue's current and target offset and what will happen.
type ResetPreview struct {
	PlanID   string
	PlanHash string
	// Action names what the apply button does: "Reset 8 queues of group G to …".
	Action     string
	PlannedAt  string
	Queues     int
	Changes    int
	Reconsumed string
	Skipped    string
	Rows       []ResetPreviewRow
	Brokers    []ResetBrokerRow
	Warnings   []string
	Failures   []string
	// Hidden are the request's fields, posted again with the confirmation.
	Hidden       []HiddenField
	ConfirmError string
}

// HiddenField is a hidden form input.
type HiddenField struct{ Name, Value string }

// ResetPreviewRow is one queue of a plan.
type ResetPreviewRow struct {
	Topic, Broker, QueueID              string
	Current, Target, Min, Max, LagAfter string
	// Delta is the signed change; DeltaWord says it in words ("re-consume 12",
	// "skip 40", "no change"), DeltaClass colours it.
	Delta, DeltaWord, DeltaClass string
	Note                         string
}

// ResetBrokerRow is a broker of a plan and how it will be asked.
type ResetBrokerRow struct {
	Name, Addr, Version, Method, Explain string
}

// ResetResultVM is the page shown after applying: what actually happened.
type ResetResultVM struct {
	Group    string
	EntryURL string
	Action   string
	Entry    AuditEntryVM
	// Warning is set when the outcome could not be recorded.
	Warning string
}

// resetBrokers lists the brokers of the queues, once each, in order.
func resetBrokers(qs []ResetQueueOption) []string {
	var out []string
	for _, q := range qs {
		if !slices.Contains(out, q.Broker) {
			out = append(out, q.Broker)
		}
	}
	return out
}

func resetJoin(s []string) string { return strings.Join(s, ", ") }

// auditBanner is the banner class for an entry's status: calm when it worked, a warning
// when it half did, an error when it did not.
func auditBanner(status string) string {
	switch status {
	case "applied":
		return "info"
	case "partial", "interrupted", "pending":
		return "warn"
	}
	return "error"
}
