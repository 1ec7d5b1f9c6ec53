package server

import (
	"errors"
	"io"
	"strings"
	"testing"

	"rmqconsole/auth"
	"rmqconsole/rights"
)

// The rights sit beside the clusters, the masking rules and the decoders, in TOML and
// YAML; a bad entry stops start-up with one line naming the file, the entry and the
// setting.
func TestRightsAreReadFromTheClusterFileAndCheckedAtStart(t *testing.T) {
	good := map[string]string{
		"r.toml": "[[clusters]]\nname = \"a\"\nnamesrv = [\"h:9876\"]\n\n[masking]\nread_bodies = [\"admin\"]\n\n" +
			"[[rights]]\nsubjects = [\"user:paula\"]\ntopics = [\"payments-*\"]\ngroups = [\"payments-*\"]\nactions = [\"read-metadata\", \"reset\"]\n",
		"r.yaml": "clusters:\n  - name: a\n    namesrv: [\"h:9876\"]\nrights:\n  - subjects: [\"user:paula\"]\n    topics: [payments-*]\n    groups: [payments-*]\n    actions: [read-metadata, reset]\n",
	}
	paula := &auth.Caller{Name: "paula", Role: auth.Operator}
	for name, body := range good {
		cfg, err := ParseConfig([]string{"--config", writeFile(t, name, body)}, env(nil), io.Discard)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if !cfg.Rights.Allows(paula, "a", rights.Group, "payments-1", rights.Reset) || cfg.Rights.Allows(paula, "a", rights.Group, "orders-1", rights.Reset) {
			t.Errorf("%s: rights not read", name)
		}
	}
	// Without the section nothing is narrowed.
	cfg, err := ParseConfig([]string{"--config", writeFile(t, "none.toml", "[[clusters]]\nname = \"a\"\nnamesrv = [\"h:9876\"]\n")}, env(nil), io.Discard)
	if err != nil || cfg.Rights != nil {
		t.Fatalf("no rights section: %v %+v", err, cfg.Rights)
	}
	for body, want := range map[string]string{
		"[[clusters]]\nname = \"a\"\nnamesrv = [\"h:9876\"]\n[[rights]]\nsubjects = [\"user:a\"]\nactions = [\"purge\"]\n":                    "rights[0].actions[0]",
		"[[clusters]]\nname = \"a\"\nnamesrv = [\"h:9876\"]\n[[rights]]\nactions = [\"reset\"]\n":                                             "rights[0].subjects",
		"[[clusters]]\nname = \"a\"\nnamesrv = [\"h:9876\"]\n[[rights]]\nsubjects = [\"user:a\"]\ntopics = [\"a[\"]\nactions = [\"reset\"]\n": "rights[0].topics[0]",
		"[[clusters]]\nname = \"a\"\nnamesrv = [\"h:9876\"]\n[[rights]]\nsubjects = [\"user:a\"]\nactions = [\"reset\"]\nwho = 1\n":           "rights",
	} {
		_, err := ParseConfig([]string{"--config", writeFile(t, "bad.toml", body)}, env(nil), io.Discard)
		var fe *ClusterFileError
		if !errors.As(err, &fe) || !strings.Contains(fe.Field, want) || !strings.Contains(err.Error(), "bad.toml") {
			t.Errorf("%q: got %v, want an error on %s", body, err, want)
		}
	}
}

// Every route that names a topic or a group in its path says what it does to it, so the
// rights are checked on all of them.
func TestEveryRouteNamingATopicOrGroupHasAnAction(t *testing.T) {
	a := newAuthApp(t, "--namesrv", "127.0.0.1:1")
	for _, r := range a.Routes() {
		if !strings.Contains(r.Path, ":topic") && !strings.Contains(r.Path, ":group") {
			continue
		}
		if rule := a.def.rules.ruleFor(r.Method, r.Path); rule.action == "" {
			t.Errorf("%s %s names a topic or group but has no action", r.Method, r.Path)
		}
	}
}
