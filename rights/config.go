package rights

import (
	"fmt"
	"os"
	"path"
	"rmqconsole/configfile"
	"slices"
	"strings"

	"rmqconsole/auth"
	"rmqconsole/fault"
	"rmqconsole/i18n"
)

// Config is one [[rights]] entry of the config file (TOML shown; YAML takes the same
// keys as a list under "rights:"):
//
//	[[rights]]
//	subjects = ["group:payments", "user:alice"]  # user:NAME, group:NAME (LDAP or OpenID group), role:ROLE
//	clusters = ["prod-*"]                         # default: every cluster
//	topics = ["payments-*", "%DLQ%payments-*"]    # * ? [a-z]; retry and dead-letter topics only when written so
//	groups = ["payments-*"]
//	actions = ["read-metadata", "read-bodies", "reset"]
type Config struct {
	Subjects []string `toml:"subjects" yaml:"subjects"`
	Clusters []string `toml:"clusters" yaml:"clusters"`
	Topics   []string `toml:"topics" yaml:"topics"`
	Groups   []string `toml:"groups" yaml:"groups"`
	Actions  []string `toml:"actions" yaml:"actions"`
}

// New checks the rules and builds their table; nil rules make a nil Table (no rights
// configured). Every problem is reported at once, as a fault.List of Invalid errors
// whose Field is the setting ("rights[1].actions[0]").
func New(cs []Config) (*Table, error) {
	if cs == nil {
		return nil, nil
	}
	var errs fault.List
	t := &Table{}
	for i, c := range cs {
		r, problems := checkRule(i, c)
		errs = append(errs, problems...)
		t.rules = append(t.rules, r)
	}
	if err := errs.Err(); err != nil {
		return nil, err
	}
	return t, nil
}

func checkRule(i int, c Config) (rule, fault.List) {
	var errs fault.List
	bad := func(field, id string, kv ...any) {
		errs.Add(fault.InvalidField(fmt.Sprintf("rights[%d].%s", i, field), "rights.config.rule",
			"N", i+1, "What", i18n.M(id, kv...)))
	}
	var r rule
	if len(c.Subjects) == 0 {
		bad("subjects", "rights.config.subjects.missing")
	}
	for j, s := range c.Subjects {
		kind, name, _ := strings.Cut(strings.TrimSpace(s), ":")
		name = strings.TrimSpace(name)
		switch {
		case name == "":
			bad(fmt.Sprintf("subjects[%d]", j), "rights.config.subject.bad", "Subject", s)
		case kind == "user":
			r.users = append(r.users, name)
		case kind == "group":
			r.groups = append(r.groups, name)
		case kind == "role":
			role, err := auth.ParseRole(name)
			if err != nil {
				bad(fmt.Sprintf("subjects[%d]", j), "rights.config.subject.role", "Role", name)
				continue
			}
			r.roles = append(r.roles, role.String())
		default:
			bad(fmt.Sprintf("subjects[%d]", j), "rights.config.subject.bad", "Subject", s)
		}
	}
	patterns := func(field string, in []string) []string {
		var out []string
		for j, p := range in {
			p = strings.TrimSpace(p)
			if _, err := path.Match(p, ""); err != nil || p == "" {
				bad(fmt.Sprintf("%s[%d]", field, j), "rights.config.pattern.bad", "Pattern", p)
				continue
			}
			out = append(out, p)
		}
		return out
	}
	r.clusters, r.topicNames, r.groupNames = patterns("clusters", c.Clusters), patterns("topics", c.Topics), patterns("groups", c.Groups)
	if len(c.Clusters) == 0 {
		r.clusters = []string{"*"}
	}
	if len(c.Actions) == 0 {
		bad("actions", "rights.config.actions.missing", "Actions", actionList())
	}
	for j, a := range c.Actions {
		a := Action(strings.ToLower(strings.TrimSpace(a)))
		if !slices.Contains(Actions, a) {
			bad(fmt.Sprintf("actions[%d]", j), "rights.config.action.unknown", "Action", string(a), "Actions", actionList())
			continue
		}
		r.actions = append(r.actions, a)
	}
	return r, errs
}

func actionList() string {
	names := make([]string, len(Actions))
	for i, a := range Actions {
		names[i] = string(a)
	}
	return strings.Join(names, ", ")
}

// configFile is the part of the config file this package reads; the rest is other
// packages'.
type configFile struct {
	Rights   []Config `toml:"rights" yaml:"rights"`
	Clusters any      `toml:"clusters" yaml:"clusters"`
	Decoders any      `toml:"decoders" yaml:"decoders"`
	Masking  any      `toml:"masking" yaml:"masking"`
}

// Load reads and checks the rights of a config file, TOML (.toml) or YAML (.yaml,
// .yml); nil when it has none. Errors name the file and the setting.
func Load(file string) (*Table, error) {
	raw, err := os.ReadFile(file)
	if err != nil {
		return nil, fileFault(file, "", i18n.M("rights.config.unreadable", "Error", err.Error()))
	}
	var f configFile
	if err := configfile.Decode(raw, file, &f, configfile.Section("rights")); err != nil {
		return nil, decodeFault(file, err.(*configfile.Error))
	}
	t, err := New(f.Rights)
	if err != nil {
		var out fault.List
		for _, e := range fault.All(err) {
			e.Msg = i18n.M("rights.config.file", "File", file, "What", e.Msg)
			out = append(out, e)
		}
		return nil, out
	}
	return t, nil
}

// decodeFault says in this package's sentences why the file did not decode.
func decodeFault(file string, e *configfile.Error) error {
	if e.Problem == configfile.Unknown {
		return fileFault(file, e.Setting, i18n.M("rights.config.unknown", "Setting", e.Setting))
	}
	return fileFault(file, "", i18n.M("rights.config.syntax", "Error", e.Detail))
}

func fileFault(file, field string, what i18n.Message) error {
	return fault.List{fault.InvalidField(field, "rights.config.file", "File", file, "What", what)}
}
