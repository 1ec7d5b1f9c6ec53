package server

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"rmqconsole/i18n"
	"rmqconsole/store"
)

// `rmqconsole audit verify` says the chain is intact, then names the entry someone
// changed behind the console's back, and exits 1.
func TestAuditVerifyCommandFindsATamperedEntry(t *testing.T) {
	ctx := context.Background()
	db := filepath.Join(t.TempDir(), "console.db")
	st, err := store.Open(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	for _, actor := range []string{"alice", "bob", "carol"} {
		e := &store.AuditEntry{StartedAt: time.Now(), Actor: actor, Group: "orders", Mode: "latest", Status: store.AuditRefused, Error: i18n.PlainText("test")}
		if err := st.Audit().Record(ctx, e); err != nil {
			t.Fatal(err)
		}
	}
	verify := func() (int, string) {
		var out, errOut bytes.Buffer
		code := run(ctx, []string{"audit", "verify", "--db", db}, func(string) string { return "" }, &out, &errOut)
		return code, out.String() + errOut.String()
	}
	if code, out := verify(); code != 0 || !strings.Contains(out, "audit chain intact: 3 finished entries") {
		t.Fatalf("intact log: exit %d\n%s", code, out)
	}
	if _, err := st.SQL().Exec(`DROP TRIGGER audit_entries_finished_once; UPDATE audit_entries SET actor = 'mallory' WHERE id = 2`); err != nil {
		t.Fatal(err)
	}
	code, out := verify()
	if code != 1 || !strings.Contains(out, "BROKEN") || !strings.Contains(out, "entry 2 was changed") {
		t.Fatalf("tampered log: exit %d\n%s", code, out)
	}
	var errOut bytes.Buffer
	if code := run(ctx, []string{"audit", "verify", "--db", filepath.Join(t.TempDir(), "none.db")}, func(string) string { return "" }, &errOut, &errOut); code != 2 || !strings.Contains(errOut.String(), "no database at") {
		t.Fatalf("missing database: exit %d\n%s", code, errOut.String())
	}
}
