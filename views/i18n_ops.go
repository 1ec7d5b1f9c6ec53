package views

import "context"

// roleName is a console role (viewer, operator, admin) as the page's language calls it.
func roleName(ctx context.Context, role string) string {
	if role == "" {
		return ""
	}
	return T(ctx, "role."+role)
}

// brokerRole is a broker's role (master, slave) as the page's language calls it.
func brokerRole(ctx context.Context, role string) string {
	switch role {
	case "master", "slave":
		return T(ctx, "brokers.role."+role)
	}
	return role
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
