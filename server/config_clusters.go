package server

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"github.com/BurntSushi/toml"
	"github.com/goccy/go-yaml"

	"rmqconsole/auth"
	"rmqconsole/decoder"
	"rmqconsole/fault"
	"rmqconsole/i18n"
	"rmqconsole/masking"
	"rmqconsole/rights"
	"rmqconsole/rocketmq"
)

// DefaultClusterName names the one cluster of a console configured by --namesrv alone.
const DefaultClusterName = "default"

// ClusterConfig is one RocketMQ cluster the console manages.
type ClusterConfig struct {
	// Name is the cluster's URL segment (/c/{name}/...) and what the audit log, the
	// rebalance and lag history and the alert rules record.
	Name string
	// Label is what the header shows (the name when empty); Color tints it, so a
	// production cluster can be told apart at a glance.
	Label, Color string
	// Default is the cluster the paths without /c/{name} mean.
	Default     bool
	NameServers []string
	Proxies     []string
	Credentials rocketmq.Credentials
	// MaxRole caps every user's role on this cluster (NoRole: no cap); UserRoles caps
	// named users instead (a user listed there is not capped by MaxRole).
	MaxRole   auth.Role
	UserRoles map[string]auth.Role
}

// Title is how pages name the cluster.
func (c *ClusterConfig) Title() string {
	if c.Label != "" {
		return c.Label
	}
	return c.Name
}

// clusterFile is the config file as written (TOML or YAML).
type clusterFile struct {
	Clusters []clusterEntry `toml:"clusters" yaml:"clusters"`
	// Decoders are read and checked by package decoder (loadDecoders).
	Decoders any `toml:"decoders" yaml:"decoders"`
	// Masking is read and checked by package masking (loadMasking).
	Masking any `toml:"masking" yaml:"masking"`
	// Rights are read and checked by package rights (loadRights).
	Rights any `toml:"rights" yaml:"rights"`
}

type clusterEntry struct {
	Name          string            `toml:"name" yaml:"name"`
	Label         string            `toml:"label" yaml:"label"`
	Color         string            `toml:"color" yaml:"color"`
	Default       bool              `toml:"default" yaml:"default"`
	NameServers   []string          `toml:"namesrv" yaml:"namesrv"`
	Proxies       []string          `toml:"proxy" yaml:"proxy"`
	AccessKey     string            `toml:"access_key" yaml:"access_key"`
	SecretKey     string            `toml:"secret_key" yaml:"secret_key"`
	SecretKeyFile string            `toml:"secret_key_file" yaml:"secret_key_file"`
	MaxRole       string            `toml:"max_role" yaml:"max_role"`
	Roles         map[string]string `toml:"roles" yaml:"roles"`
}

var (
	clusterNameRE = regexp.MustCompile(`^[a-z0-9][a-z0-9_-]{0,62}$`)
	colorRE       = regexp.MustCompile(`^(#[0-9a-fA-F]{3}|#[0-9a-fA-F]{6}|red|orange|yellow|green|blue|purple|grey|gray)$`)
)

// ClusterFileError names the file, the cluster and the field that is wrong.
type ClusterFileError struct {
	File    string
	Cluster string // "" for the file as a whole
	Field   string
	Reason  string
	// Say is Reason from the catalogues, said in the reader's language; zero when Reason
	// is a parser's own words.
	Say i18n.Message
}

func (e *ClusterFileError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "RMQC_CONFIG %s: ", e.File)
	if e.Cluster != "" {
		fmt.Fprintf(&b, "cluster %s: ", e.Cluster)
	}
	if e.Field != "" {
		fmt.Fprintf(&b, "%s: ", e.Field)
	}
	b.WriteString(e.Reason)
	return b.String()
}

// parseClusterFile reads the clusters of a TOML (.toml) or YAML (.yaml, .yml) file and
// checks them: names unique and fit for a URL, NameServers on every cluster, one
// default (the first when none says so), credentials as the RMQC_ACCESS_KEY settings
// take them.
func parseClusterFile(path string) ([]ClusterConfig, error) {
	fail := func(cluster, field, reason string) error {
		return &ClusterFileError{File: path, Cluster: cluster, Field: field, Reason: reason}
	}
	failM := func(cluster, field string, m i18n.Message) error {
		return &ClusterFileError{File: path, Cluster: cluster, Field: field, Reason: m.String(), Say: m}
	}
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, failM("", "", i18n.M("cli.clusterfile.unreadable", "Error", pathError(err)))
	}
	var f clusterFile
	switch strings.ToLower(filepath.Ext(path)) {
	case ".toml":
		md, err := toml.Decode(string(raw), &f)
		if err != nil {
			return nil, fail("", "", err.Error())
		}
		for _, k := range md.Undecoded() {
			if len(k) > 0 && (k[0] == "decoders" || k[0] == "masking" || k[0] == "rights") {
				continue // packages decoder, masking and rights read them, and refuse what they do not know
			}
			return nil, failM("", k.String(), i18n.M("cli.clusterfile.unknown_setting"))
		}
	case ".yaml", ".yml":
		if err := yaml.NewDecoder(bytes.NewReader(raw), yaml.DisallowUnknownField()).Decode(&f); err != nil {
			return nil, fail("", "", yaml.FormatError(err, false, true))
		}
	default:
		return nil, failM("", "", i18n.M("cli.clusterfile.format"))
	}
	if len(f.Clusters) == 0 {
		return nil, failM("", "clusters", i18n.M("cli.clusterfile.no_cluster"))
	}
	out := make([]ClusterConfig, 0, len(f.Clusters))
	seen := map[string]bool{}
	defaults := 0
	for i, e := range f.Clusters {
		who := fmt.Sprintf("#%d", i+1)
		if e.Name != "" {
			who = fmt.Sprintf("%q", e.Name)
		}
		if !clusterNameRE.MatchString(e.Name) {
			return nil, failM(who, "name", i18n.M("cli.clusterfile.name"))
		}
		if seen[e.Name] {
			return nil, failM(who, "name", i18n.M("cli.clusterfile.name_twice"))
		}
		seen[e.Name] = true
		cc := ClusterConfig{Name: e.Name, Label: strings.TrimSpace(e.Label), Color: strings.TrimSpace(e.Color), Default: e.Default}
		if cc.Color != "" && !colorRE.MatchString(cc.Color) {
			return nil, failM(who, "color", i18n.M("cli.clusterfile.color", "Color", strconv.Quote(cc.Color)))
		}
		if cc.NameServers, err = ParseNameServers(strings.Join(e.NameServers, ";")); err != nil {
			return nil, fail(who, "namesrv", err.Error())
		}
		if len(cc.NameServers) == 0 {
			return nil, failM(who, "namesrv", i18n.M("cli.clusterfile.no_namesrv"))
		}
		if cc.Proxies, err = ParseNameServers(strings.Join(e.Proxies, ";")); err != nil {
			return nil, fail(who, "proxy", err.Error())
		}
		fields := map[string]string{"access-key": e.AccessKey, "secret-key": e.SecretKey, "secret-key-file": e.SecretKeyFile}
		fileField := map[string]string{"access-key": "access_key", "secret-key": "secret_key", "secret-key-file": "secret_key_file"}
		cc.Credentials, err = parseCredentials(func(n string) string { return strings.TrimSpace(fields[n]) },
			func(n, id string, kv ...any) error { return failM(who, fileField[n], i18n.M(id, kv...)) },
			credentialNames{"access_key", "secret_key", "secret_key_file"})
		if err != nil {
			return nil, err
		}
		if e.MaxRole != "" {
			if cc.MaxRole, err = auth.ParseRole(e.MaxRole); err != nil {
				return nil, failM(who, "max_role", fault.As(err).Msg)
			}
		}
		for user, r := range e.Roles {
			role, err := auth.ParseRole(r)
			if err != nil {
				return nil, failM(who, "roles."+user, fault.As(err).Msg)
			}
			if cc.UserRoles == nil {
				cc.UserRoles = map[string]auth.Role{}
			}
			cc.UserRoles[user] = role
		}
		if cc.Default {
			defaults++
		}
		out = append(out, cc)
	}
	switch defaults {
	case 0:
		out[0].Default = true
	case 1:
	default:
		return nil, failM("", "default", i18n.M("cli.clusterfile.defaults"))
	}
	return out, nil
}

// clustersFromConfig sets c.Clusters: from the file when --config is given (then the
// one-cluster settings must be unset, so no one wonders which wins), else one cluster
// named "default" from --namesrv, --proxy and the credentials.
func clustersFromConfig(c *Config, v settingValues) error {
	file := v.get("config")
	if file == "" {
		c.Clusters = []ClusterConfig{{Name: DefaultClusterName, Default: true,
			NameServers: c.NameServers, Proxies: c.Proxies, Credentials: c.Credentials}}
		return nil
	}
	for _, s := range []string{"namesrv", "proxy", "access-key", "secret-key", "secret-key-file"} {
		if v.get(s) != "" {
			return v.bad("config", "cli.config.reason.with_file", "Flag", "--"+s)
		}
	}
	var err error
	if c.Clusters, err = parseClusterFile(file); err != nil {
		var fe *ClusterFileError
		if errors.As(err, &fe) {
			return err
		}
		return v.bad("config", "cli.config.reason.error", "Error", err.Error())
	}
	d := c.DefaultCluster()
	c.NameServers, c.Proxies, c.Credentials = d.NameServers, d.Proxies, d.Credentials
	if err := loadMasking(c, file); err != nil {
		return err
	}
	if err := loadRights(c, file); err != nil {
		return err
	}
	return loadDecoders(c, file)
}

// loadMasking reads the file's masking rules, checked whole before the console starts:
// a bad regular expression, JSON path or topic pattern stops the start with its sentence.
func loadMasking(c *Config, file string) error {
	p, err := masking.Load(file)
	if err != nil {
		fe := fault.As(err)
		if fe == nil {
			return &ClusterFileError{File: file, Reason: err.Error()}
		}
		return &ClusterFileError{File: file, Field: fe.Field, Reason: fe.Msg.String(), Say: fe.Msg}
	}
	c.Masking = p
	return nil
}

// loadRights reads the file's rights (who may see and act on which topics and groups),
// checked whole before the console starts.
func loadRights(c *Config, file string) error {
	t, err := rights.Load(file)
	if err != nil {
		fe := fault.As(err)
		if fe == nil {
			return &ClusterFileError{File: file, Reason: err.Error()}
		}
		return &ClusterFileError{File: file, Field: fe.Field, Reason: fe.Msg.String(), Say: fe.Msg}
	}
	c.Rights = t
	return nil
}

// loadDecoders reads the file's decoders (how bodies of which topics are read), checked
// whole before the console starts: a descriptor set that does not parse, or a message
// type it lacks, stops the start with the decoder package's sentence.
func loadDecoders(c *Config, file string) error {
	r, err := decoder.Load(context.Background(), file)
	if err != nil {
		fe := fault.As(err)
		if fe == nil {
			return &ClusterFileError{File: file, Reason: err.Error()}
		}
		return &ClusterFileError{File: file, Field: fe.Field, Reason: fe.Msg.String(), Say: fe.Msg}
	}
	c.Decoders = r
	return nil
}

// DefaultCluster is the cluster the paths without /c/{name} mean.
func (c *Config) DefaultCluster() *ClusterConfig {
	for i := range c.Clusters {
		if c.Clusters[i].Default {
			return &c.Clusters[i]
		}
	}
	return &c.Clusters[0]
}
