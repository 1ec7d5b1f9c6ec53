package views

import (
	"context"

	"rmqconsole/i18n"
)

// roleName is a console role (viewer, operator, admin) as the page's language calls it.
func roleName(ctx context.Context, role string) string {
	return codeText(ctx, "role.", role)
}

// brokerRole is a broker's role (master, slave) as the page's language calls it.
func brokerRole(ctx context.Context, role string) string {
	return codeText(ctx, "brokers.role.", role)
}

// Commands, flags and names a page quotes in <code>: the same in every language, so
// they live here rather than in the catalogues.
const (
	codeUsersAdd    = "rmqconsole users add NAME --role admin"
	codeUsersPasswd = "rmqconsole users passwd NAME"
	codeNamesrvFlag = "--namesrv host:9876"
	codeNamesrvEnv  = "RMQC_NAMESRV"
	codeMakeRun     = "make run"
	codeNamesrvAddr = "namesrvAddr"
	codeBearer      = "Authorization: Bearer TOKEN"
	localUser       = "local"
)

const codeAuditVerify = "rmqconsole audit verify"

// auditStatus is an audit entry's status (applied, partial, …) in the page's language.
func auditStatus(ctx context.Context, status string) string {
	return codeText(ctx, "audit.status.", status)
}

// auditMode is what an entry did (a reset mode, a topic or message change) in the
// page's language; a mode the catalogue does not know is shown as it is.
func auditMode(ctx context.Context, mode string) string {
	return codeText(ctx, "audit.mode.", mode)
}

// auditUnit is what one row of a change is (a broker, a message, a step).
func auditUnit(ctx context.Context, unit string) string {
	return codeText(ctx, "audit.unit.", unit)
}

// codeText is a value reported as a code (a role, a status, a mode) in the page's
// language: the catalogue's prefix+code, or the code as it is when no catalogue knows it.
func codeText(ctx context.Context, prefix, code string) string {
	if code == "" {
		return ""
	}
	return i18n.From(ctx).TOr(prefix+code, code)
}
