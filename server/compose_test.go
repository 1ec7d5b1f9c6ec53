package server

import (
	"io"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/goccy/go-yaml"

	"rmqconsole/dev"
	"rmqconsole/store"
)

// composeFile is the part of a compose file these checks read.
type composeFile struct {
	Services map[string]struct {
		Build       any               `yaml:"build"`
		Image       string            `yaml:"image"`
		Environment map[string]string `yaml:"environment"`
		Volumes     []string          `yaml:"volumes"`
		DependsOn   any               `yaml:"depends_on"`
	} `yaml:"services"`
}

func readCompose(t *testing.T, name string) composeFile {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(repoRoot(t), name))
	if err != nil {
		t.Fatal(err)
	}
	var f composeFile
	if err := yaml.Unmarshal(b, &f); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return f
}

// Each compose file's consoles start with the configuration it gives them: every
// variable is one the console knows, with a valid value.
func TestComposeFilesConfigureValidConsoles(t *testing.T) {
	for file, consoles := range map[string]int{"docker-compose.yml": 1, "docker-compose.ha.yml": 2} {
		f := readCompose(t, file)
		n := 0
		for name, svc := range f.Services {
			if svc.Build == nil {
				continue
			}
			n++
			for k := range svc.Environment {
				if strings.HasPrefix(k, "RMQC_") && !knownVariable(k) {
					t.Errorf("%s: %s sets %s, which the console does not know", file, name, k)
				}
			}
			if _, err := ParseConfig(nil, env(svc.Environment), io.Discard); err != nil {
				t.Errorf("%s: %s: %v", file, name, err)
			}
		}
		if n != consoles {
			t.Errorf("%s: %d consoles, want %d", file, n, consoles)
		}
	}
}

// The HA file's consoles share its PostgreSQL with the credentials it is created with,
// and nginx spreads requests over exactly those consoles, websocket included.
func TestComposeHAConsolesSharePostgresBehindNginx(t *testing.T) {
	f := readCompose(t, "docker-compose.ha.yml")
	pg, ok := f.Services["postgres"]
	if !ok {
		t.Fatal("no postgres service")
	}
	var consoles []string
	for name, svc := range f.Services {
		if svc.Build == nil {
			continue
		}
		consoles = append(consoles, name)
		dsn := svc.Environment["RMQC_DB"]
		if !store.IsPostgresURL(dsn) {
			t.Fatalf("%s: RMQC_DB %q is not a PostgreSQL URL", name, dsn)
		}
		u, err := url.Parse(dsn)
		if err != nil {
			t.Fatal(err)
		}
		pw, _ := u.User.Password()
		if u.Hostname() != "postgres" || u.User.Username() != pg.Environment["POSTGRES_USER"] ||
			pw != pg.Environment["POSTGRES_PASSWORD"] || strings.TrimPrefix(u.Path, "/") != pg.Environment["POSTGRES_DB"] {
			t.Errorf("%s: RMQC_DB %s does not match the postgres service %v", name, store.Redacted(dsn), pg.Environment)
		}
		if !strings.HasSuffix(svc.Environment["RMQC_LISTEN"], ":8090") {
			t.Errorf("%s listens on %q, nginx expects :8090", name, svc.Environment["RMQC_LISTEN"])
		}
	}
	ngx, ok := f.Services["nginx"]
	if !ok || len(ngx.Volumes) == 0 {
		t.Fatal("no nginx service with its configuration")
	}
	conf, err := os.ReadFile(filepath.Join(repoRoot(t), strings.SplitN(ngx.Volumes[0], ":", 2)[0]))
	if err != nil {
		t.Fatal(err)
	}
	servers := regexp.MustCompile(`(?m)^\s*server\s+([\w-]+):8090\b`).FindAllStringSubmatch(string(conf), -1)
	var upstream []string
	for _, m := range servers {
		upstream = append(upstream, m[1])
	}
	if strings.Join(sorted(upstream), ",") != strings.Join(sorted(consoles), ",") {
		t.Errorf("nginx upstream %v, consoles %v", upstream, consoles)
	}
	for _, want := range []string{"proxy_set_header Upgrade $http_upgrade", "proxy_set_header Host $http_host"} {
		if !strings.Contains(string(conf), want) {
			t.Errorf("nginx configuration lacks %q (websocket and same-origin checks need it)", want)
		}
	}
}

func repoRoot(t *testing.T) string {
	t.Helper()
	root, err := dev.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	return root
}

// knownVariable reports whether the console reads the environment variable k.
func knownVariable(k string) bool {
	for _, s := range settings {
		if s.env == k {
			return true
		}
	}
	return false
}

func sorted(s []string) []string {
	out := append([]string(nil), s...)
	for i := range out {
		for j := i + 1; j < len(out); j++ {
			if out[j] < out[i] {
				out[i], out[j] = out[j], out[i]
			}
		}
	}
	return out
}
