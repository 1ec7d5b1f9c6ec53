package masking

import (
	"fmt"
	"os"
	"path"
	"regexp"
	"rmqconsole/configfile"
	"strings"

	"rmqconsole/auth"
	"rmqconsole/fault"
	"rmqconsole/i18n"
)

// Config is the masking section of the config file (TOML shown; YAML takes the same
// keys under "masking:"):
//
//	[masking]
//	read_bodies = ["operator", "admin"]   # roles that read bodies unmasked (the default)
//
//	[[masking.rules]]
//	topic = "orders-*"                    # a topic name, or a pattern: * ? [a-z]
//	cluster = "production"                # only on this cluster (default: every cluster)
//	json_paths = ["customer.email", "items.#.card"]
//	properties = ["userId"]
//	patterns = ['\b\d{16}\b']             # Go (RE2) regular expressions
type Config struct {
	// ReadBodies are the roles that read bodies unmasked; nil means operator and admin,
	// an empty list nobody.
	ReadBodies []string     `toml:"read_bodies" yaml:"read_bodies"`
	Rules      []RuleConfig `toml:"rules" yaml:"rules"`
}

// RuleConfig is one rule as written.
type RuleConfig struct {
	Topic      string   `toml:"topic" yaml:"topic"`
	Cluster    string   `toml:"cluster" yaml:"cluster"`
	JSONPaths  []string `toml:"json_paths" yaml:"json_paths"`
	Properties []string `toml:"properties" yaml:"properties"`
	Patterns   []string `toml:"patterns" yaml:"patterns"`
}

// DefaultReaders are the roles that read bodies unmasked when the file does not say.
var DefaultReaders = []auth.Role{auth.Operator, auth.Admin}

// New checks c and builds its policy. Every problem is reported at once, as a
// fault.List of Invalid errors whose Field is the setting ("masking.rules[2].patterns[0]").
func New(c Config) (*Policy, error) {
	var errs fault.List
	p := &Policy{readers: DefaultReaders}
	if c.ReadBodies != nil {
		p.readers = []auth.Role{}
		for i, name := range c.ReadBodies {
			r, err := auth.ParseRole(name)
			if err != nil {
				errs.Invalid(fmt.Sprintf("masking.read_bodies[%d]", i), "masking.config.role", "Role", name)
				continue
			}
			p.readers = append(p.readers, r)
		}
	}
	for i, rc := range c.Rules {
		r, problems := checkRule(i, rc)
		errs = append(errs, problems...)
		p.rules = append(p.rules, r)
	}
	if err := errs.Err(); err != nil {
		return nil, err
	}
	return p, nil
}

func checkRule(i int, rc RuleConfig) (rule, fault.List) {
	var errs fault.List
	topic := strings.TrimSpace(rc.Topic)
	who := topic
	if who == "" {
		who = "-"
	}
	bad := func(field, id string, kv ...any) {
		errs.Add(fault.InvalidField(fmt.Sprintf("masking.rules[%d].%s", i, field), "masking.config.rule",
			"N", i+1, "Topic", who, "What", i18n.M(id, kv...)))
	}
	r := rule{cluster: strings.TrimSpace(rc.Cluster), topic: topic}
	if topic == "" {
		bad("topic", "masking.config.topic.missing")
	} else if _, err := path.Match(topic, ""); err != nil {
		bad("topic", "masking.config.topic.bad", "Pattern", topic)
	}
	if len(rc.JSONPaths)+len(rc.Properties)+len(rc.Patterns) == 0 {
		bad("topic", "masking.config.empty")
	}
	for j, s := range rc.JSONPaths {
		s = strings.TrimSpace(s)
		if strings.HasPrefix(s, "$") {
			bad(fmt.Sprintf("json_paths[%d]", j), "masking.config.path.dollar", "Path", s)
			continue
		}
		p, step, ok := parsePath(s)
		if !ok {
			bad(fmt.Sprintf("json_paths[%d]", j), "masking.config.path.bad", "Path", s, "Step", step)
			continue
		}
		r.paths = append(r.paths, p)
	}
	for j, name := range rc.Properties {
		if name = strings.TrimSpace(name); name == "" {
			bad(fmt.Sprintf("properties[%d]", j), "masking.config.property.empty")
			continue
		}
		r.properties = append(r.properties, name)
	}
	for j, s := range rc.Patterns {
		if s == "" {
			bad(fmt.Sprintf("patterns[%d]", j), "masking.config.pattern.empty")
			continue
		}
		re, err := regexp.Compile(s)
		if err != nil {
			bad(fmt.Sprintf("patterns[%d]", j), "masking.config.pattern.bad", "Pattern", s,
				"Error", strings.TrimPrefix(err.Error(), "error parsing regexp: "))
			continue
		}
		if re.MatchString("") {
			bad(fmt.Sprintf("patterns[%d]", j), "masking.config.pattern.matches_empty", "Pattern", s)
			continue
		}
		r.patterns = append(r.patterns, re)
	}
	return r, errs
}

// configFile is the part of the config file this package reads; the clusters and the
// decoders sit beside it.
type configFile struct {
	Masking  *Config `toml:"masking" yaml:"masking"`
	Clusters any     `toml:"clusters" yaml:"clusters"`
	Decoders any     `toml:"decoders" yaml:"decoders"`
	Rights   any     `toml:"rights" yaml:"rights"`
}

// Load reads and checks the masking section of a config file, TOML (.toml) or YAML
// (.yaml, .yml); nil when it has none. Errors name the file and the setting.
func Load(file string) (*Policy, error) {
	raw, err := os.ReadFile(file)
	if err != nil {
		return nil, fileFault(file, "", i18n.M("masking.config.unreadable", "Error", err.Error()))
	}
	var f configFile
	if err := configfile.Decode(raw, file, &f, configfile.Section("masking")); err != nil {
		return nil, decodeFault(file, err.(*configfile.Error))
	}
	if f.Masking == nil {
		return nil, nil
	}
	p, err := New(*f.Masking)
	if err != nil {
		var out fault.List
		for _, e := range fault.All(err) {
			e.Msg = i18n.M("masking.config.file", "File", file, "What", e.Msg)
			out = append(out, e)
		}
		return nil, out
	}
	return p, nil
}

// decodeFault says in this package's sentences why the file did not decode.
func decodeFault(file string, e *configfile.Error) error {
	if e.Problem == configfile.Unknown {
		return fileFault(file, e.Setting, i18n.M("masking.config.unknown", "Setting", e.Setting))
	}
	return fileFault(file, "", i18n.M("masking.config.syntax", "Error", e.Detail))
}

func fileFault(file, field string, what i18n.Message) error {
	return fault.List{fault.InvalidField(field, "masking.config.file", "File", file, "What", what)}
}
