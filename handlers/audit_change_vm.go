package handlers

import (
	"context"
	"encoding/json"
	"maps"
	"slices"
	"strconv"
	"strings"

	"rmqconsole/acl"
	"rmqconsole/brokers"
	"rmqconsole/deadletters"
	"rmqconsole/i18n"
	"rmqconsole/lookup"
	"rmqconsole/resets"
	"rmqconsole/store"
	"rmqconsole/subgroups"
	"rmqconsole/topics"
	"rmqconsole/views"
)

// isResetEntry tells an offset reset (applied or refused) from every other change the
// console audits through store.AuditLog.Change (a topic created or deleted, a message
// resent, consumed again on a client): those name their mode "topic-…" or "message-…",
// and an entry that has no group is never a reset.
func isResetEntry(e *store.AuditEntry) bool {
	if resets.Mode(e.Mode).Valid() {
		return true
	}
	return e.Group != "" && !isChangeMode(e.Mode)
}

func isChangeMode(mode string) bool {
	return strings.HasPrefix(mode, "topic-") || strings.HasPrefix(mode, "message-") || strings.HasPrefix(mode, "group-") ||
		strings.HasPrefix(mode, "acl-") || strings.HasPrefix(mode, "broker-")
}

// changeModes say what a mode did, for the page (an id of the catalogues); a mode not
// listed is shown as it is.
var changeModes = map[string]string{
	topics.ModeCreate:          "audit.what.topic_created",
	topics.ModeUpdate:          "audit.what.topic_updated",
	topics.ModeDelete:          "audit.what.topic_deleted",
	deadletters.AuditMode:      "audit.what.message_resent",
	lookup.ModeConsumeDirectly: "audit.what.consumed_directly",
	subgroups.ModeCreate:       "audit.what.group_created",
	subgroups.ModeUpdate:       "audit.what.group_updated",
	subgroups.ModeDelete:       "audit.what.group_deleted",
	acl.ModeUserCreate:         "audit.what.acl_user_created",
	acl.ModeUserUpdate:         "audit.what.acl_user_updated",
	acl.ModeUserDelete:         "audit.what.acl_user_deleted",
	acl.ModePolicyCreate:       "audit.what.acl_policy_created",
	acl.ModePolicyUpdate:       "audit.what.acl_policy_updated",
	acl.ModePolicyDelete:       "audit.what.acl_policy_deleted",
	brokers.ModeConfigUpdate:   "audit.what.broker_config_updated",
	"acl-change":               "audit.what.acl_change", // an ACL change refused for the caller's role
	store.SignInMode:           "audit.what.signed_in",
	store.ReadBodyMode:         "audit.what.read_body",
	store.ReadListMode:         "audit.what.read_list",
	store.ExportMode:           "audit.what.export",
}

// changeUnit is what one row of a change is: a broker for topic changes, a message for
// message changes.
func changeUnit(mode string) string {
	switch {
	case strings.HasPrefix(mode, "topic-"), strings.HasPrefix(mode, "group-"), strings.HasPrefix(mode, "broker-"),
		strings.HasPrefix(mode, "acl-"):
		return "broker"
	case strings.HasPrefix(mode, "message-"), store.IsReadMode(mode):
		return "message"
	}
	return "step"
}

// countOf is "1 broker", "3 brokers", in l's language.
func countOf(l *i18n.Localizer, n int, unit string) string {
	return l.N("audit.count."+unit, n)
}

// changeStatusText says in a sentence what the status of a change means.
func changeStatusText(e *store.AuditEntry) string {
	return sayChangeStatus(i18n.From(context.Background()), e)
}

// sayChangeStatus is changeStatusText in l's language.
func sayChangeStatus(l *i18n.Localizer, e *store.AuditEntry) string {
	unit := changeUnit(e.Mode)
	name := l.T("audit.unit." + unit)
	n, failed := len(e.Result), countErrors(e.Result)
	switch e.Status {
	case store.AuditApplied:
		return l.T("audit.change.applied", "Unit", name, "N", n)
	case store.AuditPartial:
		if failed == 0 {
			return l.T("audit.change.partial.unfinished", "Count", countOf(l, n, unit))
		}
		return l.T("audit.change.partial", "Failed", failed, "Count", countOf(l, n, unit))
	case store.AuditFailed:
		return l.T("audit.change.failed", "Unit", name)
	case store.AuditRefused:
		if saysNothingChanged(e) {
			return l.T("audit.text.refused.short")
		}
		return l.T("audit.text.refused")
	case store.AuditInterrupted:
		return l.T("audit.change.interrupted")
	case store.AuditPending:
		return l.T("audit.change.pending")
	}
	return string(e.Status)
}

// auditChangeVM is the part of an entry's page that a change other than a reset shows:
// what it did, the configuration before and after, and one row per broker or message.
func auditChangeVM(e *store.AuditEntry) *views.AuditChangeVM {
	return auditChangeVMIn(i18n.From(context.Background()), e)
}

// auditChangeVMIn is auditChangeVM in l's language.
func auditChangeVMIn(l *i18n.Localizer, e *store.AuditEntry) *views.AuditChangeVM {
	vm := &views.AuditChangeVM{What: e.Mode, Unit: changeUnit(e.Mode)}
	if id, ok := changeModes[e.Mode]; ok {
		vm.What = l.T(id)
	}
	var params map[string]json.RawMessage
	if json.Unmarshal(e.Params, &params) == nil {
		vm.Config = beforeAfterRows(params["before"], params["after"])
	}
	for _, q := range e.Result {
		// Rows about messages carry the queue and offset of the message; rows about
		// brokers leave them zero.
		if q.QueueID != 0 || q.Target != 0 || q.Before != 0 {
			vm.ShowQueue = true
		}
		r := views.AuditChangeRow{Topic: q.Topic, Broker: q.BrokerName, Addr: q.BrokerAddr, Method: q.Method, Note: l.SayText(q.Note),
			Error: l.SayText(q.Error), Class: "status-ok", Outcome: l.T("audit.change.done"), QueueID: strconv.Itoa(q.QueueID),
			Offset: views.Thousands(q.Target)}
		if len(q.Error) > 0 {
			r.Class, r.Outcome = "status-bad", r.Error
		}
		vm.Rows = append(vm.Rows, r)
	}
	for _, t := range e.Topics {
		vm.Topics = append(vm.Topics, views.AuditLink{Text: t, URL: views.TopicURL(t)})
	}
	return vm
}

// beforeAfterRows lines up the "before" and "after" of a change field by field. Nested
// objects are flattened with " · " (a topic's configuration per broker reads
// "broker-a · perm"), so any change that records its configuration as JSON objects gets
// the same table.
func beforeAfterRows(before, after json.RawMessage) []views.AuditConfigRow {
	b, a := map[string]string{}, map[string]string{}
	flattenJSON("", before, b)
	flattenJSON("", after, a)
	fields := maps.Clone(b)
	maps.Copy(fields, a)
	keys := slices.Sorted(maps.Keys(fields))
	rows := make([]views.AuditConfigRow, 0, len(keys))
	for _, k := range keys {
		bv, bok := b[k]
		av, aok := a[k]
		r := views.AuditConfigRow{Field: k, Before: bv, After: av, Changed: bv != av || bok != aok}
		if !bok {
			r.Before = "—"
		}
		if !aok {
			r.After = "—"
		}
		rows = append(rows, r)
	}
	return rows
}

// flattenJSON writes raw's leaves into out under their dotted path: strings as typed,
// anything else as compact JSON. An absent or null value writes nothing.
func flattenJSON(prefix string, raw json.RawMessage, out map[string]string) {
	if len(raw) == 0 || string(raw) == "null" {
		return
	}
	var obj map[string]json.RawMessage
	if json.Unmarshal(raw, &obj) == nil {
		for k, v := range obj {
			name := k
			if prefix != "" {
				name = prefix + " · " + k
			}
			flattenJSON(name, v, out)
		}
		return
	}
	if prefix == "" {
		prefix = "value"
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		out[prefix] = s
		return
	}
	out[prefix] = string(raw)
}
