package server

import (
	"errors"
	"io"
	"strings"
	"testing"

	"rmqconsole/auth"
)

// The masking section sits beside the clusters and the decoders in TOML and YAML; a bad
// rule stops start-up with one line naming the file, the rule and the setting.
func TestMaskingRulesAreReadFromTheClusterFileAndCheckedAtStart(t *testing.T) {
	good := map[string]string{
		"m.toml": "[[clusters]]\nname = \"a\"\nnamesrv = [\"h:9876\"]\n\n[masking]\nread_bodies = [\"admin\"]\n[[masking.rules]]\ntopic = \"orders-*\"\njson_paths = [\"customer.email\"]\n",
		"m.yaml": "clusters:\n  - name: a\n    namesrv: [\"h:9876\"]\nmasking:\n  read_bodies: [admin]\n  rules:\n    - topic: orders-*\n      json_paths: [customer.email]\n",
	}
	for name, body := range good {
		cfg, err := ParseConfig([]string{"--config", writeFile(t, name, body)}, env(nil), io.Discard)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if cfg.Masking == nil || cfg.Masking.ReadsBodies(auth.Operator, "a", "orders-1") || !cfg.Masking.ReadsBodies(auth.Admin, "a", "orders-1") {
			t.Errorf("%s: masking not read: %+v", name, cfg.Masking)
		}
	}
	for body, want := range map[string]string{
		"[[clusters]]\nname = \"a\"\nnamesrv = [\"h:9876\"]\n[[masking.rules]]\ntopic = \"t\"\npatterns = [\"(\"]\n":            "masking.rules[0].patterns[0]",
		"[[clusters]]\nname = \"a\"\nnamesrv = [\"h:9876\"]\n[[masking.rules]]\ntopic = \"t\"\njson_paths = [\"$.a\"]\n":        "masking.rules[0].json_paths[0]",
		"[[clusters]]\nname = \"a\"\nnamesrv = [\"h:9876\"]\n[[masking.rules]]\ntopic = \"\"\nproperties = [\"p\"]\n":           "masking.rules[0].topic",
		"[[clusters]]\nname = \"a\"\nnamesrv = [\"h:9876\"]\n[[masking.rules]]\ntopic = \"t\"\nproperties = [\"p\"]\nwho = 1\n": "masking.rules",
	} {
		_, err := ParseConfig([]string{"--config", writeFile(t, "bad.toml", body)}, env(nil), io.Discard)
		var fe *ClusterFileError
		if !errors.As(err, &fe) || !strings.Contains(fe.Field, want) || !strings.Contains(err.Error(), "bad.toml") {
			t.Errorf("%q: got %v, want an error on %s", body, err, want)
		}
	}
}
