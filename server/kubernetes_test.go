package server

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/goccy/go-yaml"
)

// k8sObject is the part of a rendered Kubernetes object these checks read.
type k8sObject struct {
	Kind string `yaml:"kind"`
	Spec struct {
		Template struct {
			Spec struct {
				InitContainers []k8sContainer `yaml:"initContainers"`
				Containers     []k8sContainer `yaml:"containers"`
			} `yaml:"spec"`
		} `yaml:"template"`
	} `yaml:"spec"`
}

type k8sContainer struct {
	Name string `yaml:"name"`
	Env  []struct {
		Name      string `yaml:"name"`
		Value     string `yaml:"value"`
		ValueFrom *struct {
			SecretKeyRef *struct{ Name, Key string } `yaml:"secretKeyRef"`
		} `yaml:"valueFrom"`
	} `yaml:"env"`
}

// The plain Kubernetes manifests start consoles with settings the console accepts: every
// RMQC_ variable is one it knows, with a valid value, listening on every address of the
// pod, its data in the data volume. (The chart's own tests, in deploy/, check the objects
// against the Kubernetes API types.)
func TestKubernetesManifestsConfigureValidConsoles(t *testing.T) {
	files, err := filepath.Glob(filepath.Join(repoRoot(t), "deploy", "manifests", "*.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for _, f := range files {
		if strings.HasSuffix(f, ".values.yaml") {
			continue
		}
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		dec := yaml.NewDecoder(bytes.NewReader(b))
		for {
			var o k8sObject
			if err := dec.Decode(&o); errors.Is(err, io.EOF) {
				break
			} else if err != nil {
				t.Fatalf("%s: %v", f, err)
			}
			if o.Kind != "Deployment" {
				continue
			}
			pod := o.Spec.Template.Spec
			for _, c := range append(pod.InitContainers, pod.Containers...) {
				vars := map[string]string{}
				for _, e := range c.Env {
					v := e.Value
					if e.ValueFrom != nil && e.ValueFrom.SecretKeyRef != nil {
						if e.Name != "RMQC_DB" {
							t.Errorf("%s: %s: %s from Secret %s: not a value the console takes from a Secret", f, c.Name, e.Name, e.ValueFrom.SecretKeyRef.Name)
						}
						v = "postgres://rmqconsole:secret@postgres:5432/rmqconsole"
					}
					if strings.HasPrefix(e.Name, "RMQC_") && e.Name != "RMQC_ADMIN_USER" && !knownVariable(e.Name) {
						t.Errorf("%s: %s sets %s, which the console does not know", f, c.Name, e.Name)
					}
					vars[e.Name] = v
				}
				cfg, err := ParseConfig(nil, env(vars), io.Discard)
				if err != nil {
					t.Errorf("%s: %s: %v", f, c.Name, err)
					continue
				}
				checked++
				if host, _, _ := strings.Cut(cfg.Listen, ":"); host != "" || cfg.DataDir != "/data" || len(cfg.NameServers) == 0 {
					t.Errorf("%s: %s: listens on %s, data in %s, NameServers %v", f, c.Name, cfg.Listen, cfg.DataDir, cfg.NameServers)
				}
			}
		}
	}
	if checked < 4 {
		t.Errorf("%d containers checked in %v, want the console and its admin in each manifest", checked, files)
	}
}

// The chart's example of several clusters is a clusters file the console accepts, its
// secret keys read from where the chart mounts the credentials Secrets.
func TestChartClustersExampleIsAValidClustersFile(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(repoRoot(t), "deploy", "helm", "rmqconsole", "ci", "multi-cluster-values.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var vals struct {
		Clusters struct {
			Config            string   `yaml:"config"`
			CredentialSecrets []string `yaml:"credentialSecrets"`
		} `yaml:"clusters"`
	}
	if err := yaml.Unmarshal(b, &vals); err != nil {
		t.Fatal(err)
	}
	const mounted = "/etc/rmqconsole/credentials/"
	dir := t.TempDir()
	for _, s := range vals.Clusters.CredentialSecrets {
		if err := os.MkdirAll(filepath.Join(dir, s), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, s, "secret-key"), []byte("sk-"+s+"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if !strings.Contains(vals.Clusters.Config, mounted) {
		t.Fatalf("the example reads no secret key from %s:\n%s", mounted, vals.Clusters.Config)
	}
	file := filepath.Join(dir, "clusters.yaml")
	if err := os.WriteFile(file, []byte(strings.ReplaceAll(vals.Clusters.Config, mounted, dir+"/")), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg, err := ParseConfig(nil, env(map[string]string{"RMQC_CONFIG": file}), io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if len(cfg.Clusters) != 2 || cfg.Clusters[0].Credentials.SecretKey != "sk-rmq-prod-credentials" || cfg.Clusters[1].Credentials.SecretKey != "sk-rmq-staging-credentials" {
		t.Errorf("clusters %+v", cfg.Clusters)
	}
}
