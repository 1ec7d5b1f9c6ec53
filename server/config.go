package server

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/netip"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"rmqconsole/auth"
	"rmqconsole/auth/ldap"
	"rmqconsole/auth/oidc"
	"rmqconsole/decoder"
	"rmqconsole/i18n"
	"rmqconsole/rocketmq"
	"rmqconsole/store"
)

// Config is everything the console is told at start-up, from flags and RMQC_* variables.
// A flag wins over its variable; the variable wins over the default.
type Config struct {
	NameServers []string
	// Proxies are the remoting addresses of the cluster's RocketMQ 5 Proxies, asked for
	// the gRPC clients a cluster-mode Proxy keeps from the brokers.
	Proxies   []string
	Listen    string
	DataDir   string
	DB        string
	DBTimeout time.Duration // bounds each call of the console's database
	Timeout   time.Duration
	LogLevel  slog.Level
	LogFormat string
	// NoAuth allows listening on a non-loopback address without users. Every page then
	// carries a warning banner.
	NoAuth bool
	// GroupPoll is how often a watched consumer group is polled for the live view.
	GroupPoll time.Duration
	// LiveViewsPerUser bounds the live pages (websockets) one user, or one address
	// without users, has open at once; LiveGroups the groups each cluster's live view
	// watches at once (config_live.go).
	LiveViewsPerUser, LiveGroups int
	// MetricsInterval is how often every group's lag is read for /metrics; 0 turns it off.
	MetricsInterval time.Duration
	// AlertRetry is the first delay before a failed alert delivery is retried; it
	// doubles each attempt, five attempts in all.
	AlertRetry time.Duration
	// AlertLang is the language of alert notifications (en or zh-CN).
	AlertLang string
	// LagRetention is how long the lag history is kept; 0 keeps it forever.
	LagRetention time.Duration
	// MetricsQueues turns the per-queue series of /metrics on; MetricsGroups, when set,
	// keeps only the groups whose whole name it matches. Both bound the series count.
	MetricsQueues bool
	MetricsGroups *regexp.Regexp
	// RebalanceRetention is how long rebalance events are kept; 0 keeps them forever.
	RebalanceRetention time.Duration
	// Access control (parsed by parseAuthSettings in auth.go).
	SessionIdle, SessionMax time.Duration
	TrustedProxies          []netip.Prefix
	// AllowedHosts are the names the console is reached by besides loopback and its
	// listen address (hosts.go); a request naming another host is refused.
	AllowedHosts                     []string
	ProxyUserHeader, ProxyRoleHeader string
	TLSCert, TLSKey                  string
	// OIDC and LDAP, when set, let people sign in through an OpenID provider or an LDAP
	// directory (parsed by parseSSOSettings in config_sso.go).
	OIDC *oidc.Config
	LDAP *ldap.Config
	// Credentials sign every request to the cluster (parsed by parseCredentials in
	// credentials.go); the zero value sends unsigned requests.
	Credentials rocketmq.Credentials
	// HTTP bounds (parsed by parseHTTPLimits in limits.go).
	HTTPIdleTimeout, HTTPReadTimeout, HTTPWriteTimeout time.Duration
	MaxHeavyQueries                                    int
	// Clusters are the RocketMQ clusters the console manages: those of --config, or one
	// named "default" from --namesrv, --proxy and the credentials. Never empty; the
	// fields above (NameServers, Proxies, Credentials) are the default cluster's.
	Clusters []ClusterConfig
	// Decoders read message bodies by their topics' types (the decoders of --config);
	// nil reads every body as JSON, text or hex.
	Decoders *decoder.Registry
}

// setting describes one configuration entry; the same table drives parsing, defaults,
// validation and --help. Its description is the catalogues' "flags."+flag, so --help
// speaks the language of the environment.
type setting struct {
	flag, env, def string
}

// secret reports whether a setting's value v is never shown: not as the --help default
// (which is the variable's value), not in errors. A PostgreSQL URL may hold a password.
func (s setting) secret(v string) bool {
	return s.flag == "secret-key" || ssoSecrets[s.flag] || s.flag == "db" && store.IsPostgresURL(v)
}

var settings = []setting{
	{"config", "RMQC_CONFIG", ""},
	{"namesrv", "RMQC_NAMESRV", ""},
	{"proxy", "RMQC_PROXY", ""},
	{"listen", "RMQC_LISTEN", "127.0.0.1:8090"},
	{"data-dir", "RMQC_DATA_DIR", "./data"},
	{"db", "RMQC_DB", ""},
	{"db-timeout", "RMQC_DB_TIMEOUT", "5s"},
	{"timeout", "RMQC_TIMEOUT", "5s"},
	{"log-level", "RMQC_LOG_LEVEL", "info"},
	{"log-format", "RMQC_LOG_FORMAT", "text"},
	{"no-auth", "RMQC_NO_AUTH", "false"},
	{"group-poll", "RMQC_GROUP_POLL", "1s"},
	{"live-views-per-user", "RMQC_LIVE_VIEWS_PER_USER", "20"},
	{"live-groups", "RMQC_LIVE_GROUPS", "100"},
	{"metrics-interval", "RMQC_METRICS_INTERVAL", "30s"},
	{"alert-retry", "RMQC_ALERT_RETRY", "2s"},
	{"alert-lang", "RMQC_ALERT_LANG", "en"},
	{"lag-retention", "RMQC_LAG_RETENTION", "168h"},
	{"metrics-queues", "RMQC_METRICS_QUEUES", "true"},
	{"metrics-groups", "RMQC_METRICS_GROUPS", ""},
	{"rebalance-retention", "RMQC_REBALANCE_RETENTION", "720h"},
	{"session-idle", "RMQC_SESSION_IDLE", "8h"},
	{"session-max", "RMQC_SESSION_MAX", "24h"},
	{"trusted-proxies", "RMQC_TRUSTED_PROXIES", ""},
	{"allowed-hosts", "RMQC_ALLOWED_HOSTS", ""},
	{"proxy-user-header", "RMQC_PROXY_USER_HEADER", auth.DefaultProxyUserHeader},
	{"proxy-role-header", "RMQC_PROXY_ROLE_HEADER", auth.DefaultProxyRoleHeader},
	{"tls-cert", "RMQC_TLS_CERT", ""},
	{"tls-key", "RMQC_TLS_KEY", ""},
	{"access-key", "RMQC_ACCESS_KEY", ""},
	{"secret-key", "RMQC_SECRET_KEY", ""},
	{"secret-key-file", "RMQC_SECRET_KEY_FILE", ""},
	{"http-idle-timeout", "RMQC_HTTP_IDLE_TIMEOUT", "30s"},
	{"http-read-timeout", "RMQC_HTTP_READ_TIMEOUT", "30s"},
	{"http-write-timeout", "RMQC_HTTP_WRITE_TIMEOUT", "30s"},
	{"max-heavy-queries", "RMQC_MAX_HEAVY_QUERIES", "4"},
}

// ConfigError names the setting that is wrong; start-up prints it as one line.
type ConfigError struct {
	Setting string // the flag name
	Env     string
	Value   string
	Reason  string
	// Say is Reason from the catalogues, when it has values in it; else configReasons
	// names the catalogue's words for a fixed Reason.
	Say i18n.Message
}

func (e *ConfigError) Error() string {
	return fmt.Sprintf("invalid --%s (%s) %q: %s", e.Setting, e.Env, e.Value, e.Reason)
}

// errHelp is returned when --help was asked for; usage has been printed.
var errHelp = flag.ErrHelp

// ParseConfig reads flags from args and variables from getenv.
func ParseConfig(args []string, getenv func(string) string, out io.Writer) (*Config, error) {
	l := i18n.FromEnv(getenv)
	fs := flag.NewFlagSet("rmqconsole", flag.ContinueOnError)
	fs.SetOutput(out)
	values := map[string]*string{}
	secretDefaults := map[string]string{}
	for _, s := range settings {
		def := s.def
		if v := getenv(s.env); v != "" {
			def = v
		}
		if s.secret(def) {
			// The default is what --help prints: the variable is read after parsing instead.
			secretDefaults[s.flag] = def
			def = ""
		}
		values[s.flag] = fs.String(s.flag, def, l.T("flags."+s.flag)+" [$"+s.env+"]")
	}
	fs.Usage = func() {
		fmt.Fprint(out, l.T("flags.usage"))
		printDefaults(out, fs, l)
	}
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	for name, def := range secretDefaults {
		if *values[name] == "" {
			*values[name] = def
		}
	}
	if fs.NArg() > 0 {
		return nil, i18n.M("cli.config.unexpected", "Arg", strconv.Quote(fs.Arg(0)))
	}
	get := func(name string) string { return strings.TrimSpace(*values[name]) }
	bad := func(name, reason string) error {
		for _, s := range settings {
			if s.flag == name {
				v := get(name)
				if s.secret(v) && v != "" {
					v = "(masked)"
				}
				return &ConfigError{Setting: name, Env: s.env, Value: v, Reason: reason}
			}
		}
		panic("unknown setting " + name)
	}

	c := &Config{DataDir: get("data-dir"), DB: get("db"), LogFormat: get("log-format")}
	var err error
	if c.NameServers, err = ParseNameServers(get("namesrv")); err != nil {
		return nil, bad("namesrv", err.Error())
	}
	if c.Proxies, err = ParseNameServers(get("proxy")); err != nil {
		return nil, bad("proxy", err.Error())
	}
	c.Listen = get("listen")
	if _, port, err := net.SplitHostPort(c.Listen); err != nil || port == "" {
		return nil, bad("listen", "want host:port, e.g. 127.0.0.1:8090")
	}
	if c.DataDir == "" {
		return nil, bad("data-dir", "must not be empty")
	}
	if c.DB == "" {
		c.DB = filepath.Join(c.DataDir, "rmqconsole.db")
	}
	if c.DBTimeout, err = time.ParseDuration(get("db-timeout")); err != nil || c.DBTimeout < 100*time.Millisecond {
		return nil, bad("db-timeout", "want a duration of at least 100ms, such as 1s")
	}
	if c.Timeout, err = time.ParseDuration(get("timeout")); err != nil || c.Timeout <= 0 {
		return nil, bad("timeout", "want a positive duration such as 5s or 1500ms")
	}
	if err := c.LogLevel.UnmarshalText([]byte(get("log-level"))); err != nil {
		return nil, bad("log-level", "want debug, info, warn or error")
	}
	if c.LogFormat != "text" && c.LogFormat != "json" {
		return nil, bad("log-format", "want text or json")
	}
	if c.NoAuth, err = strconv.ParseBool(get("no-auth")); err != nil {
		return nil, bad("no-auth", "want true or false")
	}
	if c.GroupPoll, err = time.ParseDuration(get("group-poll")); err != nil || c.GroupPoll < 100*time.Millisecond {
		return nil, bad("group-poll", "want a duration of at least 100ms, such as 1s")
	}
	if err := parseLiveLimits(c, get, bad); err != nil {
		return nil, err
	}
	if c.MetricsInterval, err = time.ParseDuration(get("metrics-interval")); err != nil || c.MetricsInterval < 0 ||
		(c.MetricsInterval > 0 && c.MetricsInterval < time.Second) {
		return nil, bad("metrics-interval", "want 0 (off) or a duration of at least 1s, such as 30s")
	}
	if c.AlertRetry, err = time.ParseDuration(get("alert-retry")); err != nil || c.AlertRetry < 100*time.Millisecond {
		return nil, bad("alert-retry", "want a duration of at least 100ms, such as 2s")
	}
	if c.AlertLang = get("alert-lang"); !slices.Contains(i18n.Languages(), c.AlertLang) {
		return nil, bad("alert-lang", "want one of "+strings.Join(i18n.Languages(), ", "))
	}
	if c.LagRetention, err = time.ParseDuration(get("lag-retention")); err != nil || c.LagRetention < 0 ||
		(c.LagRetention > 0 && c.LagRetention < time.Hour) {
		return nil, bad("lag-retention", "want 0 (keep forever) or a duration of at least 1h, such as 168h")
	}
	if c.MetricsQueues, err = strconv.ParseBool(get("metrics-queues")); err != nil {
		return nil, bad("metrics-queues", "want true or false")
	}
	if p := get("metrics-groups"); p != "" {
		if c.MetricsGroups, err = regexp.Compile("^(?:" + p + ")$"); err != nil {
			return nil, bad("metrics-groups", "want a regular expression such as orders-.* or (billing|audit)-cg: "+err.Error())
		}
	}
	if c.RebalanceRetention, err = time.ParseDuration(get("rebalance-retention")); err != nil || c.RebalanceRetention < 0 ||
		(c.RebalanceRetention > 0 && c.RebalanceRetention < time.Hour) {
		return nil, bad("rebalance-retention", "want 0 (keep forever) or a duration of at least 1h, such as 720h")
	}
	if err := parseAuthSettings(c, get, bad); err != nil {
		return nil, err
	}
	if err := parseSSOSettings(c, get, bad); err != nil {
		return nil, err
	}
	if c.Credentials, err = parseCredentials(get, bad); err != nil {
		return nil, err
	}
	if err := parseHTTPLimits(c, get, bad); err != nil {
		return nil, err
	}
	if err := clustersFromConfig(c, get("config"), get, bad); err != nil {
		return nil, err
	}
	return c, nil
}

// printDefaults is fs.PrintDefaults with "(default …)" in l's language: in English it
// prints the same bytes. Every flag of the console is a string flag.
func printDefaults(out io.Writer, fs *flag.FlagSet, l *i18n.Localizer) {
	fs.VisitAll(func(f *flag.Flag) {
		var b strings.Builder
		fmt.Fprintf(&b, "  -%s", f.Name)
		name, usage := flag.UnquoteUsage(f)
		if name != "" {
			b.WriteString(" " + name)
		}
		// A one-letter flag without an argument fits on its line, as the flag package does it.
		if b.Len() <= 4 {
			b.WriteString("\t")
		} else {
			b.WriteString("\n    \t")
		}
		b.WriteString(strings.ReplaceAll(usage, "\n", "\n    \t"))
		if f.DefValue != "" {
			b.WriteString(l.T("flags.default", "Value", strconv.Quote(f.DefValue)))
		}
		fmt.Fprintln(out, b.String())
	})
}

// ParseNameServers splits a RocketMQ-style ';'-separated NameServer list and checks each
// entry is host:port. An empty list is allowed (no cluster configured).
func ParseNameServers(s string) ([]string, error) {
	var out []string
	for _, part := range strings.Split(s, ";") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		host, port, err := net.SplitHostPort(part)
		if err != nil || host == "" || port == "" {
			return nil, fmt.Errorf("%q is not host:port (separate several with ';', e.g. 10.0.0.1:9876;10.0.0.2:9876)", part)
		}
		out = append(out, part)
	}
	return out, nil
}

// newLogger builds the process logger from the configuration.
func newLogger(c *Config, w io.Writer) *slog.Logger {
	opts := &slog.HandlerOptions{Level: c.LogLevel}
	if c.LogFormat == "json" {
		return slog.New(slog.NewJSONHandler(w, opts))
	}
	return slog.New(slog.NewTextHandler(w, opts))
}

// isHelp reports whether err means usage was printed on request.
func isHelp(err error) bool { return errors.Is(err, errHelp) }
