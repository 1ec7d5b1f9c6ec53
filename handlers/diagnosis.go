package handlers

import (
	"net/http"
	"slices"
	"time"

	"github.com/gin-gonic/gin"

	"rmqconsole/diagnosis"
	"rmqconsole/i18n"
	"rmqconsole/views"
)

// Findings is what the pages and the API read of the diagnosis: the findings of the
// collector's last read. *diagnosis.Engine implements it.
type Findings interface {
	Findings() ([]diagnosis.Finding, time.Time)
	ForGroup(group string) ([]diagnosis.Finding, time.Time)
	ForBroker(name string) ([]diagnosis.Finding, time.Time)
	// Unread is what the last read could not read; UnreadFor what of it the group's
	// findings need.
	Unread() []diagnosis.Unread
	UnreadFor(group string) []diagnosis.Unread
}

// Diagnosis answers GET /api/v1/diagnosis and GET /api/v1/groups/{group}/diagnosis.
type Diagnosis struct {
	*Env
	// Engine is nil when the console does not collect (no cluster, or the collector off).
	Engine Findings
}

// unreadJSON is what a read could not read as the API answers it, with its line said
// in the request's language.
type unreadJSON struct {
	diagnosis.Unread
	Text string `json:"text"`
}

// findingJSON is a finding as the API answers it, its evidence said in the request's
// language.
type findingJSON struct {
	diagnosis.Finding
	Evidence string `json:"evidence"`
}

// API answers every finding, most severe first.
func (h *Diagnosis) API(c *gin.Context) {
	var fs []diagnosis.Finding
	var unread []diagnosis.Unread
	var at time.Time
	if h.Engine != nil {
		fs, at = h.Engine.Findings()
		fs, unread = visibleFindings(c, fs), visibleUnread(c, h.Engine.Unread())
	}
	h.answer(c, fs, unread, at)
}

// GroupAPI answers the findings about one group.
func (h *Diagnosis) GroupAPI(c *gin.Context) {
	group, ok := h.groupParam(c)
	if !ok {
		return
	}
	var fs []diagnosis.Finding
	var unread []diagnosis.Unread
	var at time.Time
	if h.Engine != nil {
		fs, at = h.Engine.ForGroup(group)
		fs, unread = visibleFindings(c, fs), h.Engine.UnreadFor(group)
	}
	h.answer(c, fs, unread, at)
}

func (h *Diagnosis) answer(c *gin.Context, fs []diagnosis.Finding, unread []diagnosis.Unread, at time.Time) {
	l := i18n.From(c.Request.Context())
	out := make([]findingJSON, len(fs))
	for i, f := range fs {
		out[i] = findingJSON{Finding: f, Evidence: l.Say(f.Evidence)}
	}
	body := gin.H{"findings": out}
	if len(unread) > 0 {
		us := make([]unreadJSON, len(unread))
		for i, u := range unread {
			us[i] = unreadJSON{Unread: u, Text: l.Say(u.Message())}
		}
		body["unread"] = us
	}
	if !at.IsZero() {
		body["checkedAt"] = at.UTC()
	}
	c.JSON(http.StatusOK, body)
}

// groupDiagnosisVM says the findings about group for its page, as the caller may see them.
func groupDiagnosisVM(c *gin.Context, l *i18n.Localizer, e Findings, group string) views.DiagnosisVM {
	if e == nil {
		return views.DiagnosisVM{}
	}
	return sayFindings(l, func() ([]diagnosis.Finding, time.Time) {
		fs, at := e.ForGroup(group)
		return visibleFindings(c, fs), at
	}, e.UnreadFor(group))
}

// brokerDiagnosisVM says the findings about the broker of that name for its page, and
// which of its own reads failed (its runtime, its replication status).
func brokerDiagnosisVM(l *i18n.Localizer, e Findings, name string) views.DiagnosisVM {
	if e == nil {
		return views.DiagnosisVM{}
	}
	unread := slices.DeleteFunc(e.Unread(), func(u diagnosis.Unread) bool { return !u.ForBroker(name) })
	return sayFindings(l, func() ([]diagnosis.Finding, time.Time) { return e.ForBroker(name) }, unread)
}

// sayFindings says the findings read reads, and what the read could not read, in l's
// language.
func sayFindings(l *i18n.Localizer, read func() ([]diagnosis.Finding, time.Time), unread []diagnosis.Unread) views.DiagnosisVM {
	fs, at := read()
	vm := views.DiagnosisVM{Enabled: true}
	if at.IsZero() {
		return vm
	}
	vm.ReadAt = views.TimeUTC(at)
	for _, u := range unread {
		vm.Unread = append(vm.Unread, l.Say(u.Message()))
	}
	for _, f := range fs {
		vm.Rows = append(vm.Rows, views.FindingRow{
			Kind: f.Kind, KindLabel: l.T("diagnosis.kind." + f.Kind),
			Severity: f.Severity, SeverityLabel: l.T("diagnosis.severity." + f.Severity),
			Group: f.Group, Broker: f.Broker, NameServer: f.NameServer, Evidence: l.Say(f.Evidence), Since: views.TimeUTC(f.Since),
			ActionURL: f.Action, ActionLabel: l.T("diagnosis.action." + f.ActionKind),
		})
	}
	return vm
}
