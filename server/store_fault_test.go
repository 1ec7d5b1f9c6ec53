package server

import (
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// /readyz reports a database that can be read but not written (a file made
// immutable stands in for a read-only or full file system), and recovers when
// the fault is lifted.
func TestReadyReportsUnwritableDatabase(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("chattr +i needs root")
	}
	a := newAuthApp(t)
	ready := func() string {
		rec := httptest.NewRecorder()
		a.Handler().ServeHTTP(rec, newRequest(http.MethodGet, "/readyz", nil))
		return rec.Body.String()
	}
	if body := ready(); strings.Contains(body, "database") {
		t.Fatalf("/readyz on a healthy database: %q", body)
	}
	var frozen []string
	defer func() {
		for _, p := range frozen {
			_ = exec.Command("chattr", "-i", p).Run()
		}
	}()
	for _, p := range []string{a.cfg.DB, a.cfg.DB + "-wal"} {
		if out, err := exec.Command("chattr", "+i", p).CombinedOutput(); err != nil {
			t.Skipf("chattr +i %s: %v %s", p, err, out)
		}
		frozen = append(frozen, p)
	}
	if body := ready(); !strings.Contains(body, "database cannot be written") {
		t.Errorf("/readyz with the database files immutable: %q, want it to say the database cannot be written", body)
	}
	for _, p := range frozen {
		if out, err := exec.Command("chattr", "-i", p).CombinedOutput(); err != nil {
			t.Fatalf("chattr -i %s: %v %s", p, err, out)
		}
	}
	frozen = nil
	if body := ready(); strings.Contains(body, "database") {
		t.Errorf("/readyz after the fault was lifted: %q", body)
	}
}
