package handlers

import (
	"encoding/json"
	"strconv"

	"rmqconsole/auth"
	"rmqconsole/i18n"
	"rmqconsole/store"
	"rmqconsole/views"
)

// signIn is what a sign-in entry's parameters say.
type signIn struct {
	Provider string   `json:"provider"`
	Outcome  string   `json:"outcome"`
	Role     string   `json:"role"`
	Groups   []string `json:"groups"`
	Failures int      `json:"failures"`
}

func signInOf(e *store.AuditEntry) signIn {
	var s signIn
	_ = json.Unmarshal(e.Params, &s)
	return s
}

// signInRowVM is a sign-in in the audit list: who, from where, through which provider,
// and the outcome in the reader's language.
func signInRowVM(l *i18n.Localizer, e *store.AuditEntry) views.AuditRowVM {
	s := signInOf(e)
	row := views.AuditRowVM{ID: strconv.FormatInt(e.ID, 10), URL: auditURL(e.ID), Started: views.TimeUTC(e.StartedAt),
		Actor: e.Actor, ActorAddr: e.ActorAddr, Mode: e.Mode, Status: "signed-in", StatusClass: "status-ok",
		Changed: providerName(l, s.Provider), Refused: e.Status == store.AuditRefused}
	if s.Role != "" {
		row.Reason = l.T("audit.signin.as_role", "Role", l.TOr("role."+s.Role, s.Role))
	}
	if row.Refused {
		row.Status, row.StatusClass = string(store.AuditRefused), auditStatusClass(store.AuditRefused)
		row.Error = signInOutcome(l, s)
	}
	return row
}

// signInEntryText says in a sentence what a sign-in entry records.
func signInEntryText(l *i18n.Localizer, e *store.AuditEntry) string {
	s := signInOf(e)
	if e.Status != store.AuditRefused {
		return l.T("audit.signin.signed_in", "Provider", providerName(l, s.Provider), "Role", l.TOr("role."+s.Role, s.Role))
	}
	return l.T("audit.signin.refused", "Provider", providerName(l, s.Provider), "Outcome", signInOutcome(l, s))
}

// signInOutcome is why a sign-in failed, in short.
func signInOutcome(l *i18n.Localizer, s signIn) string {
	if s.Outcome == auth.OutcomeCounted {
		return l.N("audit.signin.outcome.counted", s.Failures)
	}
	return l.TOr("audit.signin.outcome."+s.Outcome, s.Outcome)
}

// providerName names how someone signed in: "LDAP", "OpenID Connect", "a local password".
func providerName(l *i18n.Localizer, p string) string {
	if p == "" {
		return "—"
	}
	return l.TOr("login.provider."+p, p)
}
