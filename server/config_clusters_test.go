package server

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"rmqconsole/auth"
	"rmqconsole/i18n"
)

func writeFile(t *testing.T, name, body string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// The same clusters read from TOML and from YAML: names, labels, colours, NameServers,
// Proxies, credentials (a secret from a file), role limits, and which one is default.
func TestClusterFileTOMLAndYAML(t *testing.T) {
	secret := writeFile(t, "sk", "s3cret\n")
	files := map[string]string{
		"c.toml": `
[[clusters]]
name = "production"
label = "Production"
color = "red"
namesrv = ["10.0.0.1:9876", "10.0.0.2:9876"]
proxy = ["10.0.0.1:8080"]
access_key = "console"
secret_key_file = "` + secret + `"
max_role = "viewer"
roles = { alice = "operator" }

[[clusters]]
name = "test"
namesrv = ["10.1.0.1:9876"]
default = true
`,
		"c.yaml": `
clusters:
  - name: production
    label: Production
    color: red
    namesrv: ["10.0.0.1:9876", "10.0.0.2:9876"]
    proxy: ["10.0.0.1:8080"]
    access_key: console
    secret_key_file: ` + secret + `
    max_role: viewer
    roles: {alice: operator}
  - name: test
    namesrv: ["10.1.0.1:9876"]
    default: true
`,
	}
	for name, body := range files {
		cfg, err := ParseConfig([]string{"--config", writeFile(t, name, body)}, env(nil), io.Discard)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if len(cfg.Clusters) != 2 {
			t.Fatalf("%s: %d clusters", name, len(cfg.Clusters))
		}
		p := cfg.Clusters[0]
		if p.Name != "production" || p.Title() != "Production" || p.Color != "red" || p.Default ||
			strings.Join(p.NameServers, ";") != "10.0.0.1:9876;10.0.0.2:9876" || strings.Join(p.Proxies, ";") != "10.0.0.1:8080" ||
			p.Credentials.AccessKey != "console" || p.Credentials.SecretKey != "s3cret" {
			t.Errorf("%s: production %+v", name, p)
		}
		if p.RoleFor("bob", auth.Admin) != auth.Viewer || p.RoleFor("alice", auth.Admin) != auth.Operator || p.RoleFor("alice", auth.Viewer) != auth.Viewer {
			t.Errorf("%s: role limits on production: bob admin → %s, alice admin → %s", name, p.RoleFor("bob", auth.Admin), p.RoleFor("alice", auth.Admin))
		}
		d := cfg.DefaultCluster()
		if d.Name != "test" || strings.Join(cfg.NameServers, ";") != "10.1.0.1:9876" || d.RoleFor("bob", auth.Admin) != auth.Admin {
			t.Errorf("%s: default %+v, NameServers %v", name, d, cfg.NameServers)
		}
	}
}

// Without a file the flags make one cluster named default, as before clusters existed.
func TestClusterFromFlags(t *testing.T) {
	cfg, err := ParseConfig([]string{"--namesrv", "10.0.0.1:9876"}, env(nil), io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if len(cfg.Clusters) != 1 || cfg.Clusters[0].Name != "default" || !cfg.Clusters[0].Default || cfg.Clusters[0].NameServers[0] != "10.0.0.1:9876" {
		t.Fatalf("clusters %+v", cfg.Clusters)
	}
}

// A bad file stops start-up with one line naming the file, the cluster and the field.
func TestClusterFileErrors(t *testing.T) {
	for _, c := range []struct{ body, want string }{
		{`[[clusters]]
name = "a"
namesrv = ["h:9876"]
[[clusters]]
name = "a"
namesrv = ["h:9877"]`, `cluster "a": name: two clusters have this name`},
		{`[[clusters]]
name = "empty"`, `cluster "empty": namesrv: a cluster needs at least one NameServer`},
		{`[[clusters]]
name = "Prod East"
namesrv = ["h:9876"]`, `cluster "Prod East": name: want lower-case`},
		{`[[clusters]]
name = "p"
namesrv = ["nohost"]`, `cluster "p": namesrv: "nohost" is not host:port`},
		{`[[clusters]]
name = "p"
namesrv = ["h:9876"]
access_key = "k"`, `cluster "p": secret_key: access key k has no secret key: set secret_key or secret_key_file`},
		{`[[clusters]]
name = "p"
namesrv = ["h:9876"]
max_role = "boss"`, `cluster "p": max_role:`},
		{`[[clusters]]
name = "p"
namesrv = ["h:9876"]
colour = "red"`, `clusters.colour: unknown setting`},
		{`[[clusters]]
name = "p"
namesrv = ["h:9876"]
default = true
[[clusters]]
name = "q"
namesrv = ["h:9876"]
default = true`, `default: more than one cluster says default = true`},
		{``, `clusters: the file names no cluster`},
	} {
		path := writeFile(t, "bad.toml", c.body)
		_, err := ParseConfig([]string{"--config", path}, env(nil), io.Discard)
		if err == nil || !strings.Contains(err.Error(), "RMQC_CONFIG "+path) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q:\n got %v\nwant %q", c.body, err, c.want)
		}
	}
	// Both a file and the one-cluster flags: which would win is not guessed.
	path := writeFile(t, "ok.yaml", "clusters:\n  - name: a\n    namesrv: [\"h:9876\"]\n")
	if _, err := ParseConfig([]string{"--config", path, "--namesrv", "h:1"}, env(nil), io.Discard); err == nil || !strings.Contains(err.Error(), "--namesrv is set too") {
		t.Errorf("file and --namesrv: %v", err)
	} else if got := cliSay(i18n.Match("zh-CN"), err); !strings.Contains(got, "同时设置了 --namesrv") {
		t.Errorf("file and --namesrv in Chinese: %q", got)
	}
	// A wrong file is said in the command line's language too.
	bad := writeFile(t, "dup.toml", "[[clusters]]\nname = \"a\"\nnamesrv = [\"h:9876\"]\n[[clusters]]\nname = \"a\"\nnamesrv = [\"h:9877\"]\n")
	_, err := ParseConfig([]string{"--config", bad}, env(nil), io.Discard)
	if got, want := cliSay(i18n.Match("zh-CN"), err), "RMQC_CONFIG "+bad+"：集群 \"a\"：name：有两个集群同名"; got != want {
		t.Errorf("in Chinese:\n got %q\nwant %q", got, want)
	}
	if got := cliSay(i18n.Match("en"), err); got != err.Error() {
		t.Errorf("in English %q, want the error's own words %q", got, err.Error())
	}
	if _, err := ParseConfig([]string{"--config", writeFile(t, "c.yaml", "clusters:\n  - name: a\n    nameserver: [\"h:9876\"]\n")}, env(nil), io.Discard); err == nil || !strings.Contains(err.Error(), "nameserver") {
		t.Errorf("unknown YAML field: %v", err)
	}
}

// A clusters file may say how bodies of which topics are read, beside the clusters; a
// decoder that cannot be built stops the start with a sentence naming its setting.
func TestClusterFileDecoders(t *testing.T) {
	files := map[string]string{
		"d.toml": `
[[clusters]]
name = "production"
namesrv = ["10.0.0.1:9876"]

[[decoders]]
topic = "orders-*"
type = "json"
`,
		"d.yaml": `
clusters:
  - name: production
    namesrv: ["10.0.0.1:9876"]
decoders:
  - topic: orders-*
    type: json
`,
	}
	for name, body := range files {
		cfg, err := ParseConfig([]string{"--config", writeFile(t, name, body)}, env(nil), io.Discard)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if e, ok := cfg.Decoders.For("production", "orders-eu"); !ok || e.Type != "json" {
			t.Errorf("%s: the decoder of orders-eu is %+v, %t", name, e, ok)
		}
	}
	_, err := ParseConfig([]string{"--config", writeFile(t, "bad.toml", `
[[clusters]]
name = "production"
namesrv = ["10.0.0.1:9876"]

[[decoders]]
topic = "orders"
type = "protobuf"
message = "orders.v1.Order"
descriptor_set = "missing.desc"
`)}, env(nil), io.Discard)
	if err == nil || !strings.Contains(err.Error(), "missing.desc") {
		t.Errorf("a descriptor set that is missing: %v", err)
	}
}
