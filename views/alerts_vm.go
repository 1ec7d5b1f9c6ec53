package views

import "context"

// AlertStateText is a rule's state (ok, pending, firing, resolved) in words.
func AlertStateText(ctx context.Context, state string) string {
	switch state {
	case "ok", "pending", "firing", "resolved":
		return T(ctx, "alerts.state."+state)
	}
	return state
}

// AlertEventText is a notification's event (firing, resolved) in words.
func AlertEventText(ctx context.Context, event string) string { return AlertStateText(ctx, event) }

// AlertFormatText is a webhook format (json, slack, dingtalk) in words.
func AlertFormatText(ctx context.Context, format string) string {
	if format == "json" {
		return T(ctx, "alerts.format.json")
	}
	return format
}

// AlertsVM is /alerts: the rules, where each stands, the newest deliveries, and the form
// to add a rule.
type AlertsVM struct {
	Rules      []AlertRuleRow
	Deliveries []AlertDeliveryRow
	// CanEdit: the caller may add and delete rules (an operator).
	CanEdit bool
	Form    AlertForm
}

// AlertForm is the add-a-rule form, keeping what was typed; Error is the sentence about
// Field.
type AlertForm struct {
	Name, Group, Broker, Metric, Threshold, For, WebhookURL, Format string
	// Metrics are the metrics offered, those of groups first; the others (brokers',
	// NameServers') are grouped apart.
	Metrics []AlertMetric
	// FieldErrors is the sentence for each refused field; Error all of them together.
	FieldErrors map[string]string
	Error       string
}

// AlertMetric is one metric a rule can watch; OfGroups: it is about consumer groups.
type AlertMetric struct {
	Name     string
	OfGroups bool
}

// FieldError returns the sentence for a field, "" when it is fine.
func (f AlertForm) FieldError(name string) string { return f.FieldErrors[name] }

// AlertFieldShowsError reports whether the rule form says a field's sentence beside
// it; the others' go in the form's banner.
func AlertFieldShowsError(field string) bool {
	switch field {
	case "group", "broker", "threshold", "for", "webhookUrl", "name":
		return true
	}
	return false
}

// AlertRuleRow is one rule in the list.
type AlertRuleRow struct {
	ID                              int64
	Name, Group, Condition, Webhook string
	Format, CreatedBy, CreatedAt    string
	// Matches says how many groups the pattern matched at the last evaluation, or that
	// it matched none.
	Matches   string
	NoMatch   bool
	Firing    []AlertStateRow
	DeleteURL string
}

// AlertStateRow is a rule's state for one group.
type AlertStateRow struct {
	Group, GroupURL, State, Since, SinceISO, Value string
}

// Class marks a firing state (with the word, never colour alone).
func (s AlertStateRow) Class() string {
	switch s.State {
	case "firing":
		return "lag-high"
	case "pending":
		return "lag-growing"
	}
	return "muted"
}

// AlertDeliveryRow is one notification and what became of it: State is its status as
// stored (pending, sent, failed), Status the same in words.
type AlertDeliveryRow struct {
	At, AtISO, Rule, Group, GroupURL, Event, State, Status, Attempts, Code, Error string
}

// GroupAlert is a rule covering the group, on the group page.
type GroupAlert struct {
	Name, Condition, State, Since, SinceISO, Value string
}

// Class marks a firing alert.
func (a GroupAlert) Class() string { return AlertStateRow{State: a.State}.Class() }
