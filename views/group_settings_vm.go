package views

import "context"

// GroupSettingsVM is /groups/{group}/settings: the group's subscription settings on
// every master (where they differ marked), the form that changes them, its preview, the
// outcome of applying it, and the form that deletes the group.
type GroupSettingsVM struct {
	Group string
	// CanChange is set for callers who may change settings (operators); CanDelete for
	// those who may delete the group (admins).
	CanChange, CanDelete bool
	// Error is a sentence for the whole page (the brokers could not be read).
	Error    string
	Failures []string
	// Brokers are the masters, the columns of Rows.
	Brokers []SettingsBroker
	Rows    []SettingsRow
	// Missing names the masters without the group while others have it.
	Missing string
	// Exists is set when some master has the group.
	Exists  bool
	Form    GroupSettingsForm
	Preview *GroupSettingsPreviewVM
	Result  *ChangeResultVM
	Delete  GroupDeleteVM
}

// SettingsBroker is one master of the settings table.
type SettingsBroker struct {
	Name, Addr, Version string
	Has                 bool
}

// SettingsRow is one field of the settings table: its value on each master.
type SettingsRow struct {
	Field  string
	Values []string
	// Drift is set when the masters that have the group disagree.
	Drift bool
	// InForm is set for the fields the form changes; the others are kept by every change.
	InForm bool
}

// GroupSettingsForm is the form that creates or changes a group's settings. Each field
// is sent only when it differs from what the form started from (Orig), so a change sets
// only what the user changed and keeps every other field as each broker has it.
type GroupSettingsForm struct {
	Action string
	// The fields as shown (or typed): booleans "true", "false" or "" (keep each broker's).
	ConsumeEnable, ConsumeBroadcastEnable, ConsumeMessageOrderly string
	RetryMaxTimes, RetryQueueNums, WhichBrokerWhenConsumeSlowly  string
	// PolicyType is "", EXPONENTIAL or CUSTOMIZED; Initial, Max, Multiplier (ms) or Next
	// (ms, comma separated) its delays.
	PolicyType, Initial, Max, Multiplier, Next string
	// Attributes are "key=value" lines.
	Attributes string
	// Orig are the values the form started from ("orig_" fields), sent back so that only
	// what the user changed is changed.
	Orig []HiddenField
	// Differs names the fields whose values differ between the masters: shown empty.
	Differs map[string]string
	Brokers []SettingsBrokerChoice
	// Any5 is set when some master runs 5.x; Any4 when some runs 4.x.
	Any5, Any4  bool
	FieldErrors map[string]string
	Error       string
}

// FieldError returns the sentence for a field, "" when it is fine.
func (f GroupSettingsForm) FieldError(name string) string { return f.FieldErrors[name] }

// SettingsBrokerChoice is one master of the form's broker list.
type SettingsBrokerChoice struct {
	Name, Cluster     string
	Is5, Has, Checked bool
}

// GroupSettingsPreviewVM is a previewed change: per broker each field's current and new
// value, and where the masters differ today.
type GroupSettingsPreviewVM struct {
	PlanID, Action, Button, ExpiresAt string
	Create                            bool
	Brokers                           []PreviewBrokerVM
	DriftBrokers                      []string
	Drift                             []SettingsRow
	Missing                           string
	ConfirmError                      string
}

// PreviewBrokerVM is what a change does on one broker (or broker process).
type PreviewBrokerVM struct {
	Name, Addr, Version string
	// Note says what is special about it (it gets the group, or the user, created).
	Note    string
	Changes []PreviewChangeVM
}

// PreviewChangeVM is one field's current and new value.
type PreviewChangeVM struct {
	Field, Current, New string
	// Same is set when the value does not change.
	Same bool
}

// ChangeResultVM is what applying a change did, broker by broker.
type ChangeResultVM struct {
	Status, StatusClass, Text string
	EntryURL                  string
	Error                     string
	Rows                      []AuditChangeRow
}

// GroupDeleteVM is the form that deletes a group: its name typed again, with what
// deleting touches.
type GroupDeleteVM struct {
	Action, Group, Confirm string
	RemoveOffsets, Force   bool
	Brokers, Clients       []string
	RetryTopic, DLQTopic   string
	RetryURL, DLQURL       string
	FieldErrors            map[string]string
	Error                  string
}

// FieldError returns the sentence for a field, "" when it is fine.
func (vm GroupDeleteVM) FieldError(name string) string { return vm.FieldErrors[name] }

// differsPlaceholder is what an empty field whose value differs between brokers says.
func differsPlaceholder(ctx context.Context, differs string) string {
	if differs == "" {
		return ""
	}
	return T(ctx, "settings.differs.values", "Values", differs)
}
