package server

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"rmqconsole/auth"
	"rmqconsole/dev"
	"rmqconsole/store"
)

// Two consoles on one PostgreSQL database, in this process (the two-process test with a
// broker is in e2e): what one writes the other sees, and one of them leads.
func twoConsoles(t *testing.T) (*App, *App) {
	t.Helper()
	url := dev.RequirePostgres(t).NewDatabase(t)
	return newAuthApp(t, "--db", url), newAuthApp(t, "--db", url)
}

func getAs(t *testing.T, a *App, path string, c *http.Cookie) *httptest.ResponseRecorder {
	t.Helper()
	req := newRequest(http.MethodGet, path, nil)
	if c != nil {
		req.AddCookie(c)
	}
	rec := httptest.NewRecorder()
	a.Handler().ServeHTTP(rec, req)
	return rec
}

// A viewer signed in on one console is signed in on the other: the load balancer may
// send each request anywhere.
func TestSessionFromOneConsoleWorksOnTheOther(t *testing.T) {
	a, b := twoConsoles(t)
	addUsers(t, a, map[string]auth.Role{"alice": auth.Admin})
	cookie := sessionCookie(t, a, "alice")
	if rec := getAs(t, b, "/api/v1/audit", nil); rec.Code != http.StatusUnauthorized {
		t.Fatalf("other console without the cookie: %d, want 401", rec.Code)
	}
	if rec := getAs(t, b, "/api/v1/audit", cookie); rec.Code != http.StatusOK {
		t.Fatalf("other console with the cookie of the first: %d %s", rec.Code, rec.Body)
	}
}

// leaders returns which of the consoles lead now.
func leaders(apps ...*App) []int {
	var out []int
	for i, a := range apps {
		if a.replica.Leads() {
			out = append(out, i)
		}
	}
	return out
}

// Exactly one console leads; /readyz on each names it; when it stops, the other takes
// over within a heartbeat.
func TestOneConsoleLeadsAndAnotherTakesOver(t *testing.T) {
	a, b := twoConsoles(t)
	var leader, follower *App
	dev.Eventually(t, 2*beatEvery, "one leader", func() error {
		switch l := leaders(a, b); {
		case len(l) > 1:
			t.Fatalf("both consoles lead")
		case len(l) == 0:
			return fmt.Errorf("no console leads yet")
		default:
			leader, follower = []*App{a, b}[l[0]], []*App{a, b}[1-l[0]]
		}
		return nil
	})
	for _, c := range []*App{a, b} {
		body := getAs(t, c, "/readyz", nil).Body.String()
		if !strings.Contains(body, "replica "+c.store.Replica()) || !strings.Contains(body, leader.store.Replica()) {
			t.Fatalf("/readyz of %s: %q, want it to name itself and the leader %s", c.store.Replica(), body, leader.store.Replica())
		}
	}
	leader.Close() // a clean stop gives the lease back
	dev.Eventually(t, 2*beatEvery, "take-over", func() error {
		if !follower.replica.Leads() {
			return fmt.Errorf("the remaining console does not lead")
		}
		return nil
	})
}

// A reset left pending by a console that is still running is never marked interrupted
// by another; once that console is gone, the leader marks it.
func TestOnlyAGoneConsolesResetIsMarkedInterrupted(t *testing.T) {
	url := dev.RequirePostgres(t).NewDatabase(t)
	survivor := newAuthApp(t, "--db", url)
	dev.Eventually(t, 2*beatEvery, "first console leads", func() error {
		if !survivor.replica.Leads() {
			return fmt.Errorf("the first console does not lead")
		}
		return nil
	})
	doomed := newAuthApp(t, "--db", url)
	ctx := context.Background()
	entry := &store.AuditEntry{StartedAt: time.Now(), Actor: "alice", Topics: []string{"t"}, Mode: "topic-delete", Status: store.AuditPending}
	if err := doomed.store.Audit().Begin(ctx, entry); err != nil {
		t.Fatal(err)
	}
	survivor.def.markInterruptedResets(ctx) // what the leader does each beat
	if got, _ := survivor.store.Audit().Get(ctx, entry.ID); got.Status != store.AuditPending {
		t.Fatalf("entry of a running console marked %s", got.Status)
	}
	doomed.Close()
	dev.Eventually(t, 3*beatEvery, "reconciled", func() error {
		got, err := survivor.store.Audit().Get(ctx, entry.ID)
		if err != nil || got.Status != store.AuditInterrupted {
			return fmt.Errorf("entry %d: %v, %v", entry.ID, got.Status, err)
		}
		return nil
	})
	if rep, err := survivor.store.Audit().Verify(ctx); err != nil || !rep.Intact {
		t.Fatalf("chain: %+v, %v", rep, err)
	}
}

// A PostgreSQL URL that leads nowhere, or a database of a newer console, stops
// start-up with one line that names RMQC_DB and not the password.
func TestStartupRefusesABadPostgresURL(t *testing.T) {
	pg := dev.RequirePostgres(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := ln.Addr().String()
	ln.Close()
	newer := strings.Replace(pg.NewDatabase(t), "postgres@", "postgres:s3cret-pw@", 1)
	st, err := store.Open(context.Background(), newer)
	if err != nil {
		t.Fatal(err)
	}
	if err := st.DB.Exec(`INSERT INTO goose_db_version (version_id, is_applied) VALUES (?, true)`, st.SchemaVersion+1).Error; err != nil {
		t.Fatal(err)
	}
	st.Close()
	for name, tc := range map[string]struct{ url, want string }{
		"unreachable": {"postgres://console:s3cret-pw@" + closed + "/console?sslmode=disable", "connect"},
		"no database": {strings.Replace(pg.URL("nope"), "postgres@", "postgres:s3cret-pw@", 1), "does not exist"},
		"newer":       {newer, "newer rmqconsole"},
	} {
		t.Run(name, func(t *testing.T) {
			var stderr bytes.Buffer
			code := run(context.Background(), []string{"--listen", "127.0.0.1:0", "--data-dir", t.TempDir()},
				env(map[string]string{"RMQC_DB": tc.url}), &bytes.Buffer{}, &stderr)
			msg := stderr.String()
			if code == 0 || strings.Count(msg, "\n") != 1 || !strings.Contains(msg, "RMQC_DB") ||
				!strings.Contains(msg, tc.want) || strings.Contains(msg, "s3cret-pw") {
				t.Fatalf("exit %d, stderr %q: want one line naming RMQC_DB, saying %q, without the password", code, msg, tc.want)
			}
		})
	}
}

// Consoles sharing the database but configured with different clusters each do the
// work done once per cluster for theirs (lag history, alert rules, interrupted resets):
// each cluster has its own lease, and one console still leads the console-wide work.
func TestEachClusterHasItsLeaderAmongConsoles(t *testing.T) {
	url := dev.RequirePostgres(t).NewDatabase(t)
	withClusters := func(name string) *App {
		conf := filepath.Join(t.TempDir(), "c.yaml")
		if err := os.WriteFile(conf, []byte("clusters:\n  - name: "+name+"\n    namesrv: [\""+deadAddr(t)+"\"]\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		return newAuthApp(t, "--db", url, "--config", conf, "--timeout", "300ms")
	}
	prod, test := withClusters("prod"), withClusters("test")
	dev.Eventually(t, 3*beatEvery, "a leader of each cluster", func() error {
		if !prod.replica.cluster("prod").Leads() || !test.replica.cluster("test").Leads() {
			return fmt.Errorf("prod's console leads prod: %v; test's console leads test: %v",
				prod.replica.cluster("prod").Leads(), test.replica.cluster("test").Leads())
		}
		return nil
	})
	if l := leaders(prod, test); len(l) != 1 {
		t.Errorf("consoles leading the console-wide work: %v, want one", l)
	}
}
