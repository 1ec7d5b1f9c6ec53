package server

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// The console as shipped reads no test switch: RMQC_TEST_PAUSE_AFTER_AUDIT set in a
// production environment must not make every reset hang. Only binaries built with
// -tags rmqc_testhooks (the browser tests') have the hooks.
func TestShippedBinaryHasNoTestHooks(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the console binary")
	}
	bin := filepath.Join(t.TempDir(), "rmqconsole")
	cmd := exec.Command("go", "build", "-o", bin, ".")
	cmd.Dir = ".."
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	b, err := os.ReadFile(bin)
	if err != nil {
		t.Fatal(err)
	}
	if i := bytes.Index(b, []byte("RMQC_TEST_")); i >= 0 {
		end := min(i+40, len(b))
		t.Fatalf("the shipped binary contains %q", b[i:end])
	}
}
