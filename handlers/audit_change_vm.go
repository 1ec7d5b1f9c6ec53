package handlers

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"rmqconsole/deadletters"
	"rmqconsole/lookup"
	"rmqconsole/resets"
	"rmqconsole/store"
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
	return strings.HasPrefix(mode, "topic-") || strings.HasPrefix(mode, "message-")
}

// changeModes say what a mode did, for the page; a mode not listed is shown as it is.
var changeModes = map[string]string{
	topics.ModeCreate:          "Topic created",
	topics.ModeUpdate:          "Topic updated",
	topics.ModeDelete:          "Topic deleted",
	deadletters.AuditMode:      "Message resent to its original topic",
	lookup.ModeConsumeDirectly: "Message consumed again on one client",
}

// changeUnit is what one row of a change is: a broker for topic changes, a message for
// message changes.
func changeUnit(mode string) string {
	switch {
	case strings.HasPrefix(mode, "topic-"):
		return "broker"
	case strings.HasPrefix(mode, "message-"):
		return "message"
	}
	return "step"
}

// countOf is "1 broker", "3 brokers".
func countOf(n int, unit string) string {
	if n == 1 {
		return "1 " + unit
	}
	return strconv.Itoa(n) + " " + unit + "s"
}

// changeStatusText says in a sentence what the status of a change means.
func changeStatusText(e *store.AuditEntry) string {
	unit := changeUnit(e.Mode)
	n, failed := len(e.Result), countErrors(e.Result)
	switch e.Status {
	case store.AuditApplied:
		return fmt.Sprintf("Applied: done on every %s (%d).", unit, n)
	case store.AuditPartial:
		if failed == 0 {
			return fmt.Sprintf("Partial: done on %s, but the change could not be finished; the error above says why.", countOf(n, unit))
		}
		return fmt.Sprintf("Partial: %d of %s failed; the rows below name them and say why.", failed, countOf(n, unit))
	case store.AuditFailed:
		return fmt.Sprintf("Failed: no %s made the change. The rows below (or the error above) say why.", unit)
	case store.AuditRefused:
		if strings.Contains(strings.ToLower(e.Error), "nothing was changed") {
			return "Refused."
		}
		return "Refused: nothing was changed."
	case store.AuditInterrupted:
		return "Interrupted: the console stopped before it recorded the outcome. Look at the cluster to see whether the change took place."
	case store.AuditPending:
		return "In progress: the cluster is being asked. If the console stopped meanwhile, this entry is marked interrupted at its next start, or by another console sharing the database."
	}
	return string(e.Status)
}

// auditChangeVM is the part of an entry's page that a change other than a reset shows:
// what it did, the configuration before and after, and one row per broker or message.
func auditChangeVM(e *store.AuditEntry) *views.AuditChangeVM {
	vm := &views.AuditChangeVM{What: changeModes[e.Mode], Unit: changeUnit(e.Mode)}
	if vm.What == "" {
		vm.What = e.Mode
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
		r := views.AuditChangeRow{Topic: q.Topic, Broker: q.BrokerName, Addr: q.BrokerAddr, Method: q.Method, Note: q.Note, Error: q.Error,
			Class: "status-ok", Outcome: "done", QueueID: strconv.Itoa(q.QueueID), Offset: views.Thousands(q.Target)}
		if q.Error != "" {
			r.Class, r.Outcome = "status-bad", q.Error
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
