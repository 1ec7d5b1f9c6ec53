package handlers

import (
	"encoding/json"
	"maps"
	"slices"
	"strconv"
	"strings"

	"rmqconsole/i18n"
	"rmqconsole/resets"
	"rmqconsole/store"
	"rmqconsole/views"
)

func auditURL(id int64) string { return "/audit/" + strconv.FormatInt(id, 10) }

// auditStatusClass colours a status and gives it an icon: never colour alone.
func auditStatusClass(s store.AuditStatus) string {
	switch s {
	case store.AuditApplied:
		return "status-ok"
	case store.AuditPartial, store.AuditInterrupted, store.AuditPending:
		return "status-warn"
	case store.AuditRefused:
		return "status-refused" // denied, not failed: nothing reached the cluster
	}
	return "status-bad"
}

// auditStatusText says in a sentence what the status means for the offsets.
func auditStatusText(l *i18n.Localizer, e *store.AuditEntry) string {
	qs := e.Queues()
	reached := 0
	for _, q := range qs {
		if len(q.Error) == 0 && q.After != nil && *q.After == q.Target {
			reached++
		}
	}
	switch e.Status {
	case store.AuditApplied:
		return l.T("audit.text.applied", "Queues", len(qs))
	case store.AuditPartial:
		return l.T("audit.text.partial", "Failed", countErrors(qs), "Queues", len(qs))
	case store.AuditFailed:
		return l.T("audit.text.failed")
	case store.AuditRefused:
		if saysNothingChanged(e) {
			return l.T("audit.text.refused.short") // the reason below says it; once is enough
		}
		return l.T("audit.text.refused")
	case store.AuditInterrupted:
		return l.T("audit.text.interrupted", "Reached", reached, "Queues", len(qs))
	case store.AuditPending:
		return l.T("audit.text.pending")
	}
	return string(e.Status)
}

// saysNothingChanged reports whether a refusal's sentence says already that nothing
// was changed (in English, the language every entry can be said in).
func saysNothingChanged(e *store.AuditEntry) bool {
	return strings.Contains(strings.ToLower(e.Error.String()), "nothing was changed")
}

func countErrors(qs []store.AuditQueue) int {
	n := 0
	for _, q := range qs {
		if len(q.Error) > 0 {
			n++
		}
	}
	return n
}

// auditEntryVM builds the page of one entry.
func auditEntryVM(l *i18n.Localizer, e *store.AuditEntry) views.AuditEntryVM {
	vm := views.AuditEntryVM{
		ID: strconv.FormatInt(e.ID, 10), Status: string(e.Status), StatusClass: auditStatusClass(e.Status),
		StatusText: auditStatusText(l, e), Started: views.TimeUTC(e.StartedAt), Finished: views.TimeUTC(e.FinishedAt),
		Actor: e.Actor, ActorAddr: e.ActorAddr, Cluster: auditCluster(l, e), Group: e.Group,
		GroupURL: views.GroupURL(e.Group), ResetURL: resetPath(e.Group), Topics: e.Topics, Mode: e.Mode,
		Params: auditParams(e.Params), Reason: e.Reason, Error: l.SayText(e.Error),
		Clients: e.Plan.Clients, PlanHash: e.Plan.Hash, PlannedAt: views.TimeUTC(e.Plan.PlannedAt),
		Hash: e.Hash, PrevHash: e.PrevHash, JSONURL: "/api/v1/audit/" + strconv.FormatInt(e.ID, 10),
	}
	for _, w := range e.Plan.Warnings {
		vm.Warnings = append(vm.Warnings, l.SayText(w))
	}
	if !e.FinishedAt.IsZero() {
		vm.Duration = e.Duration.String()
	}
	if e.Seq > 0 {
		vm.Seq = strconv.FormatInt(e.Seq, 10)
	} else {
		vm.Seq = l.T("audit.seq.pending")
	}
	vm.Online = l.T("audit.online.no")
	if e.Plan.Online {
		vm.Online = l.T("audit.online.yes", "Clients", strings.Join(e.Plan.Clients, ", "))
	}
	if e.Plan.Hash == "" {
		vm.Online, vm.PlannedAt = "—", "—"
	}
	for _, b := range e.Plan.Brokers {
		vm.Brokers = append(vm.Brokers, views.ResetBrokerRow{Name: b.Name, Addr: b.Addr, Version: b.Version, Method: b.Method, Explain: l.Say(resets.Method(b.Method).Explain())})
	}
	if !isResetEntry(e) {
		vm.Change = auditChangeVMIn(l, e)
		vm.StatusText = sayChangeStatus(l, e)
		if e.Mode == store.SignInMode {
			vm.StatusText = signInEntryText(l, e)
			if e.Status == store.AuditApplied {
				vm.Status = "signed-in"
			}
		}
		vm.Params = auditParams(e.Params, "before", "after")
		return vm
	}
	vm.Queues = auditQueueRows(l, e.Queues())
	return vm
}

// auditParams lists the request's parameters as fields, in name order: texts as typed,
// numbers as numbers, anything else as compact JSON. The names in leave out are shown
// elsewhere on the page.
func auditParams(raw json.RawMessage, leave ...string) []views.AuditParam {
	var m map[string]json.RawMessage
	if json.Unmarshal(raw, &m) != nil {
		if len(raw) == 0 || string(raw) == "{}" {
			return nil
		}
		return []views.AuditParam{{Name: "(as stored)", Value: string(raw)}}
	}
	out := make([]views.AuditParam, 0, len(m))
	for _, k := range slices.Sorted(maps.Keys(m)) {
		if slices.Contains(leave, k) {
			continue
		}
		v := string(m[k])
		var s string
		if json.Unmarshal(m[k], &s) == nil {
			v = s
		}
		if v == "" {
			continue
		}
		out = append(out, views.AuditParam{Name: k, Value: v})
	}
	return out
}

func auditQueueRows(l *i18n.Localizer, qs []store.AuditQueue) []views.AuditQueueRow {
	rows := make([]views.AuditQueueRow, len(qs))
	for i, q := range qs {
		r := views.AuditQueueRow{
			Topic: q.Topic, Broker: q.BrokerName, QueueID: strconv.Itoa(q.QueueID), Addr: q.BrokerAddr,
			Before: views.Thousands(q.Before), Target: views.Thousands(q.Target), After: "—",
			Min: views.Thousands(q.MinOffset), Max: views.Thousands(q.MaxOffset), Method: q.Method,
			Note: l.SayText(q.Note), Error: l.SayText(q.Error),
		}
		if q.After != nil {
			r.After = views.Thousands(*q.After)
			d := *q.After - q.Before
			r.Moved = views.Thousands(d)
			if d > 0 {
				r.Moved = "+" + r.Moved
			}
		}
		switch {
		case len(q.Error) > 0:
			r.Class = "status-bad"
		case q.After != nil && *q.After == q.Target:
			r.Class = "status-ok"
		}
		rows[i] = r
	}
	return rows
}

// AuditEntryJSON is an audit entry as the API answers it.
type AuditEntryJSON struct {
	ID        int64  `json:"id"`
	Status    string `json:"status"`
	Actor     string `json:"actor"`
	ActorAddr string `json:"actorAddr"`
	Cluster   string `json:"cluster"`
	// ClusterName is the configured cluster ("" for entries written before clusters
	// had names, which are the default cluster's).
	ClusterName string           `json:"clusterName"`
	Group       string           `json:"group"`
	Topics      []string         `json:"topics"`
	Mode        string           `json:"mode"`
	Params      json.RawMessage  `json:"params"`
	Reason      string           `json:"reason"`
	StartedAt   string           `json:"startedAt"`
	FinishedAt  *string          `json:"finishedAt"`
	DurationMs  int64            `json:"durationMs"`
	Error       string           `json:"error,omitempty"`
	Plan        AuditPlanJSON    `json:"plan"`
	Queues      []AuditQueueJSON `json:"queues"`
	Seq         int64            `json:"seq,omitempty"`
	Hash        string           `json:"hash,omitempty"`
	PrevHash    string           `json:"prevHash,omitempty"`
	// Undoes is the entry an undo takes back; UndoneBy the undos of a reset (GET
	// /api/v1/audit/{id} only).
	Undoes   int64   `json:"undoes,omitempty"`
	UndoneBy []int64 `json:"undoneBy,omitempty"`
}

// AuditQueueJSON is one queue of an entry as the API answers it: its note and error in
// English.
type AuditQueueJSON struct {
	Topic      string `json:"topic"`
	BrokerName string `json:"brokerName"`
	QueueID    int    `json:"queueId"`
	BrokerAddr string `json:"brokerAddr,omitempty"`
	Before     int64  `json:"before"`
	Target     int64  `json:"target"`
	MinOffset  int64  `json:"minOffset"`
	MaxOffset  int64  `json:"maxOffset"`
	Method     string `json:"method,omitempty"`
	After      *int64 `json:"after"`
	Note       string `json:"note,omitempty"`
	Error      string `json:"error"`
}

// AuditPlanJSON is what the entry says about the confirmed preview.
type AuditPlanJSON struct {
	Hash      string              `json:"hash,omitempty"`
	PlannedAt *string             `json:"plannedAt,omitempty"`
	Online    bool                `json:"online"`
	Clients   []string            `json:"clients,omitempty"`
	Brokers   []store.AuditBroker `json:"brokers,omitempty"`
	Warnings  []string            `json:"warnings,omitempty"`
}

func auditEntryJSON(e *store.AuditEntry) AuditEntryJSON {
	out := AuditEntryJSON{
		ID: e.ID, Status: string(e.Status), Actor: e.Actor, ActorAddr: e.ActorAddr, Cluster: e.Cluster, ClusterName: e.ClusterName, Group: e.Group,
		Topics: e.Topics, Mode: e.Mode, Params: e.Params, Reason: e.Reason, StartedAt: views.ISO(e.StartedAt),
		DurationMs: e.Duration.Milliseconds(), Error: e.Error.String(), Queues: []AuditQueueJSON{}, Seq: e.Seq, Hash: e.Hash, PrevHash: e.PrevHash,
		Plan: AuditPlanJSON{Hash: e.Plan.Hash, Online: e.Plan.Online, Clients: e.Plan.Clients, Brokers: e.Plan.Brokers},
	}
	for _, w := range e.Plan.Warnings {
		out.Plan.Warnings = append(out.Plan.Warnings, w.String())
	}
	for _, q := range e.Queues() {
		out.Queues = append(out.Queues, AuditQueueJSON{Topic: q.Topic, BrokerName: q.BrokerName, QueueID: q.QueueID, BrokerAddr: q.BrokerAddr,
			Before: q.Before, Target: q.Target, MinOffset: q.MinOffset, MaxOffset: q.MaxOffset, Method: q.Method, After: q.After,
			Note: q.Note.String(), Error: q.Error.String()})
	}
	if out.Topics == nil {
		out.Topics = []string{}
	}
	if len(out.Params) == 0 || !json.Valid(out.Params) {
		out.Params = json.RawMessage("{}")
	}
	if !e.FinishedAt.IsZero() {
		f := views.ISO(e.FinishedAt)
		out.FinishedAt = &f
	}
	if !e.Plan.PlannedAt.IsZero() {
		p := views.ISO(e.Plan.PlannedAt)
		out.Plan.PlannedAt = &p
	}
	return out
}

// auditCluster is the NameServers an entry was made through, with the configured
// cluster's name when it has one.
func auditCluster(l *i18n.Localizer, e *store.AuditEntry) string {
	if e.ClusterName == "" {
		return e.Cluster
	}
	return l.T("audit.entry.cluster_named", "NameServers", e.Cluster, "Name", e.ClusterName)
}
