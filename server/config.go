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
	"rmqconsole/diagnosis"
	"rmqconsole/i18n"
	"rmqconsole/masking"
	"rmqconsole/rights"
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
	// TopicFigures is how often the topic list's figures are collected (0 turns it off),
	// TopicFiguresBudget the most broker calls a collection makes.
	TopicFigures       time.Duration
	TopicFiguresBudget int
	// GroupMaxOffsetReads bounds the topics' max offsets one pass of the group list
	// reads from the brokers with too many groups for GET_BROKER_CONSUME_STATS.
	GroupMaxOffsetReads int
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
	// Masking hides fields, properties and pattern matches of bodies from readers
	// without the right to read them (the masking section of --config); nil hides nothing.
	Masking *masking.Policy
	// Rights narrow what callers below admin may see and do to the topics and groups
	// their rules name (the [[rights]] entries of --config); nil narrows nothing.
	Rights *rights.Table
	// AuditStream is where the audit log is streamed (config_audit_stream.go); nil: nowhere.
	AuditStream *AuditStreamConfig
	// diagnosis holds the diagnosis's limits that no setting names (DiskRatio,
	// SlaveBehindBytes); zero values take the diagnosis's defaults. Tests lower them to
	// make a real broker's finding.
	diagnosis diagnosis.Options
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
	{"topic-figures-interval", "RMQC_TOPIC_FIGURES_INTERVAL", "10s"},
	{"topic-figures-budget", "RMQC_TOPIC_FIGURES_BUDGET", "200"},
	{"group-max-offset-reads", "RMQC_GROUP_MAX_OFFSET_READS", "2000"},
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
	// Reason is Say in English.
	Reason string
	// Say is why the value is refused, from the catalogues.
	Say i18n.Message
}

func (e *ConfigError) Error() string {
	return fmt.Sprintf("invalid --%s (%s) %q: %s", e.Setting, e.Env, e.Value, e.Reason)
}

// errHelp is returned when --help was asked for; usage has been printed.
var errHelp = flag.ErrHelp

// ParseConfig reads flags from args and variables from getenv.
func ParseConfig(args []string, getenv func(string) string, out io.Writer) (*Config, error) {
	v, err := parseFlags(args, getenv, out)
	if err != nil {
		return nil, err
	}
	c := &Config{}
	for _, parse := range []func(*Config, settingValues) error{
		parseServing, parseIntervals, parseAuthSettings, parseSSO, parseClusterCredentials, parseHTTPLimits, clustersFromConfig,
		parseAuditStream,
	} {
		if err := parse(c, v); err != nil {
			return nil, err
		}
	}
	return c, nil
}

// settingValues are the settings as given: each flag's value, else its variable's,
// else its default.
type settingValues map[string]*string

// parseFlags reads args over a flag set whose defaults are the variables of getenv. A
// secret's variable is not shown as a default by --help: it is read after parsing.
func parseFlags(args []string, getenv func(string) string, out io.Writer) (settingValues, error) {
	l := i18n.FromEnv(getenv)
	fs := flag.NewFlagSet("rmqconsole", flag.ContinueOnError)
	fs.SetOutput(out)
	values := settingValues{}
	secretDefaults := map[string]string{}
	for _, s := range settings {
		def := s.def
		if v := getenv(s.env); v != "" {
			def = v
		}
		if s.secret(def) {
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
	return values, nil
}

// get is the setting's value, trimmed.
func (v settingValues) get(name string) string { return strings.TrimSpace(*v[name]) }

// bad refuses the setting's value with the catalogue's sentence id (a secret's value
// masked).
func (v settingValues) bad(name, id string, kv ...any) error {
	return v.refuse(name, i18n.M(id, kv...))
}

// refuse refuses the setting's value saying m (a secret's value masked).
func (v settingValues) refuse(name string, m i18n.Message) error {
	for _, s := range settings {
		if s.flag == name {
			val := v.get(name)
			if s.secret(val) && val != "" {
				val = "(masked)"
			}
			return &ConfigError{Setting: name, Env: s.env, Value: val, Reason: m.String(), Say: m}
		}
	}
	panic("unknown setting " + name)
}

// refusePlain refuses the setting's value saying reason, words of no catalogue.
func (v settingValues) refusePlain(name, reason string) error {
	return v.refuse(name, i18n.Plain(reason))
}

// duration reads a duration setting of at least least (or 0, when off is set: the
// setting turned off, or kept for ever); else it refuses it with the sentence id.
func (v settingValues) duration(name string, least time.Duration, off bool, id string) (time.Duration, error) {
	d, err := time.ParseDuration(v.get(name))
	if err != nil || d < least && !(off && d == 0) {
		return 0, v.bad(name, id)
	}
	return d, nil
}

// flag reads a true-or-false setting.
func (v settingValues) flag(name string) (bool, error) {
	b, err := strconv.ParseBool(v.get(name))
	if err != nil {
		return false, v.bad(name, "cli.config.reason.bool")
	}
	return b, nil
}

// parseServing reads where the console listens, keeps its files and logs, and what it
// asks of the cluster and the database.
func parseServing(c *Config, v settingValues) error {
	var err error
	if c.NameServers, err = ParseNameServers(v.get("namesrv")); err != nil {
		return v.bad("namesrv", "cli.config.reason.error", "Error", err.Error())
	}
	if c.Proxies, err = ParseNameServers(v.get("proxy")); err != nil {
		return v.bad("proxy", "cli.config.reason.error", "Error", err.Error())
	}
	c.Listen, c.DataDir, c.DB, c.LogFormat = v.get("listen"), v.get("data-dir"), v.get("db"), v.get("log-format")
	if _, port, err := net.SplitHostPort(c.Listen); err != nil || port == "" {
		return v.bad("listen", "cli.config.reason.listen")
	}
	if c.DataDir == "" {
		return v.bad("data-dir", "cli.config.reason.not_empty")
	}
	if c.DB == "" {
		c.DB = filepath.Join(c.DataDir, "rmqconsole.db")
	}
	if c.DBTimeout, err = v.duration("db-timeout", 100*time.Millisecond, false, "cli.config.reason.group_poll"); err != nil {
		return err
	}
	if c.Timeout, err = v.duration("timeout", 1, false, "cli.config.reason.duration"); err != nil {
		return err
	}
	if err := c.LogLevel.UnmarshalText([]byte(v.get("log-level"))); err != nil {
		return v.bad("log-level", "cli.config.reason.log_level")
	}
	if c.LogFormat != "text" && c.LogFormat != "json" {
		return v.bad("log-format", "cli.config.reason.log_format")
	}
	c.NoAuth, err = v.flag("no-auth")
	return err
}

// parseIntervals reads how often the console polls and collects, the bounds of the live
// views, the alerts' settings and how long history is kept.
func parseIntervals(c *Config, v settingValues) error {
	var err error
	if c.GroupPoll, err = v.duration("group-poll", 100*time.Millisecond, false, "cli.config.reason.group_poll"); err != nil {
		return err
	}
	if err := parseLiveLimits(c, v); err != nil {
		return err
	}
	if c.MetricsInterval, err = v.duration("metrics-interval", time.Second, true, "cli.config.reason.metrics_interval"); err != nil {
		return err
	}
	if c.TopicFigures, err = v.duration("topic-figures-interval", time.Second, true, "cli.config.reason.topic_figures_interval"); err != nil {
		return err
	}
	if c.AlertRetry, err = v.duration("alert-retry", 100*time.Millisecond, false, "cli.config.reason.alert_retry"); err != nil {
		return err
	}
	if c.AlertLang = v.get("alert-lang"); !slices.Contains(i18n.Languages(), c.AlertLang) {
		return v.bad("alert-lang", "cli.config.reason.one_of", "Values", strings.Join(i18n.Languages(), ", "))
	}
	if c.LagRetention, err = v.duration("lag-retention", time.Hour, true, "cli.config.reason.lag_retention"); err != nil {
		return err
	}
	if c.MetricsQueues, err = v.flag("metrics-queues"); err != nil {
		return err
	}
	if p := v.get("metrics-groups"); p != "" {
		if c.MetricsGroups, err = regexp.Compile("^(?:" + p + ")$"); err != nil {
			return v.bad("metrics-groups", "cli.config.reason.regexp", "Error", err.Error())
		}
	}
	c.RebalanceRetention, err = v.duration("rebalance-retention", time.Hour, true, "cli.config.reason.rebalance_retention")
	return err
}

// parseSSO reads the OpenID Connect and LDAP settings; their refusals are said as they
// are written (in English).
func parseSSO(c *Config, v settingValues) error {
	return parseSSOSettings(c, v.get, v.refusePlain)
}

// parseClusterCredentials reads the credentials of the one cluster of --namesrv.
func parseClusterCredentials(c *Config, v settingValues) error {
	var err error
	c.Credentials, err = parseCredentials(v.get, v.bad, flagCredentialNames)
	return err
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
