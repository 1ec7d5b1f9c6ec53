package server

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"rmqconsole/auth"
	"rmqconsole/dev"
	"rmqconsole/store"
)

// faultyDB is where a test's consoles keep their state, on a database the test can
// stop and freeze, each database as the store's own tests break it
// (store/unavailable_test.go): SQLite's files made immutable (a full or read-only disk:
// reads still work) or its write lock held by another writer (readers go on); a
// PostgreSQL server of the test's own stopped, or frozen with SIGSTOP.
type faultyDB struct {
	dialect store.Dialect
	// newApp builds the real console with flags on a fresh database of this kind.
	newApp func(flags ...string) *App
	// stop makes the databases of apps unreachable or unwritable, freeze makes app's
	// stop answering; each returns what mends it.
	stop   func(t *testing.T, apps ...*App) (mend func())
	freeze func(t *testing.T, app *App) (thaw func())
}

// eachFaultyDB runs test on SQLite and on PostgreSQL.
func eachFaultyDB(t *testing.T, test func(t *testing.T, db faultyDB)) {
	t.Helper()
	t.Run("sqlite", func(t *testing.T) {
		if os.Geteuid() != 0 {
			t.Skip("chattr +i needs root")
		}
		test(t, faultyDB{dialect: store.SQLite,
			newApp: func(flags ...string) *App { return newAuthApp(t, flags...) },
			stop:   func(t *testing.T, apps ...*App) func() { return stopSQLite(t, apps...) },
			freeze: func(t *testing.T, a *App) func() {
				tx, err := a.store.SQL().BeginTx(context.Background(), nil) // _txlock=immediate: the write lock
				if err == nil {
					_, err = tx.Exec(`UPDATE console_meta SET value = value WHERE key = 'created_at'`)
				}
				if err != nil {
					t.Fatal(err)
				}
				return func() { _ = tx.Rollback() }
			}})
	})
	t.Run("postgres", func(t *testing.T) {
		pg := dev.OwnPostgres(t)
		test(t, faultyDB{dialect: store.Postgres,
			newApp: func(flags ...string) *App { return newAuthApp(t, append(flags, "--db", pg.NewDatabase(t))...) },
			stop: func(t *testing.T, _ ...*App) func() {
				if err := pg.Halt(); err != nil {
					t.Fatal(err)
				}
				return func() {
					if err := pg.Resume(); err != nil {
						t.Fatal(err)
					}
				}
			},
			freeze: func(t *testing.T, _ *App) func() {
				if err := pg.Freeze(); err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { _ = pg.Thaw() })
				return func() {
					if err := pg.Thaw(); err != nil {
						t.Fatal(err)
					}
				}
			}})
	})
}

// chattr sets (+i) or clears (-i) the immutable attribute of the files that exist.
func chattr(t *testing.T, op string, paths ...string) {
	t.Helper()
	for _, p := range paths {
		if _, err := os.Stat(p); err != nil {
			continue
		}
		if out, err := exec.Command("chattr", op, p).CombinedOutput(); err != nil {
			t.Fatalf("chattr %s %s: %v %s", op, p, err, out)
		}
	}
}

// stopSQLite makes the files of the consoles' SQLite databases immutable until the
// returned function (also run when the test ends) lifts it.
func stopSQLite(t *testing.T, apps ...*App) func() {
	t.Helper()
	var files []string
	for _, a := range apps {
		files = append(files, a.cfg.DB, a.cfg.DB+"-wal")
	}
	chattr(t, "+i", files...)
	done := false
	mend := func() {
		if !done {
			done = true
			chattr(t, "-i", files...)
		}
	}
	t.Cleanup(mend)
	return mend
}

// serveWithin serves req and fails the test when the answer has not come by limit.
func serveWithin(t *testing.T, a *App, req *http.Request, limit time.Duration) *httptest.ResponseRecorder {
	t.Helper()
	rec := httptest.NewRecorder()
	done := make(chan struct{})
	go func() { a.Handler().ServeHTTP(rec, req); close(done) }()
	select {
	case <-done:
		return rec
	case <-time.After(limit):
		t.Fatalf("%s %s: no answer after %s", req.Method, req.URL, limit)
		return nil
	}
}

// apiError is an API error answer.
type apiError struct {
	Error, Code string
}

func decodeAPIError(t *testing.T, rec *httptest.ResponseRecorder) apiError {
	t.Helper()
	var e apiError
	if err := json.Unmarshal(rec.Body.Bytes(), &e); err != nil {
		t.Fatalf("answer %d is not an API error: %v\n%s", rec.Code, err, rec.Body)
	}
	return e
}

// Credentials the console cannot check because its database is stopped or frozen are
// answered 503 with a sentence saying the console is at fault — not 401 (the token and
// the session are valid), and not after waiting as long as the database stalls: within
// about the store's timeout (RMQC_DB_TIMEOUT). Once the database is back, the same
// credentials work without a restart.
func TestCredentialsTheDatabaseCannotCheckAre503(t *testing.T) {
	eachFaultyDB(t, func(t *testing.T, db faultyDB) {
		ctx := context.Background()
		a := db.newApp("--db-timeout", "1s")
		addUsers(t, a, map[string]auth.Role{"alice": auth.Admin})
		cookie := sessionCookie(t, a, "alice")
		newToken := func() string {
			secret, _, err := a.sec.auth.CreateToken(ctx, "alice", dev.UniqueName("ci"), "alice")
			if err != nil {
				t.Fatal(err)
			}
			return secret
		}
		// A token's first use is recorded (a write); SQLite's reads go on whatever its
		// disk or its writer does, so there only first uses meet the fault.
		used, firstForStop, firstForFreeze := newToken(), newToken(), newToken()
		get := func(token string, c *http.Cookie) *http.Request {
			req := httptest.NewRequest(http.MethodGet, "/api/v1/audit", nil)
			req.Host = "127.0.0.1"
			if token != "" {
				req.Header.Set("Authorization", "Bearer "+token)
			}
			if c != nil {
				req.AddCookie(c)
			}
			return req
		}
		if rec := serveWithin(t, a, get(used, nil), 10*time.Second); rec.Code != http.StatusOK {
			t.Fatalf("token before any fault: %d %s", rec.Code, rec.Body)
		}
		expect503 := func(what string, req *http.Request, limit time.Duration, says string) {
			t.Helper()
			rec := serveWithin(t, a, req, limit)
			e := decodeAPIError(t, rec)
			if rec.Code != http.StatusServiceUnavailable || e.Code != "store_unavailable" || !strings.Contains(e.Error, says) ||
				!strings.Contains(e.Error, "the console is at fault") || rec.Header().Get("WWW-Authenticate") != "" {
				t.Errorf("%s: %d %q %q (WWW-Authenticate %q), want 503 store_unavailable saying %q and that the console is at fault",
					what, rec.Code, e.Code, e.Error, rec.Header().Get("WWW-Authenticate"), says)
			}
		}

		mend := db.stop(t, a)
		expect503("a token with the database stopped", get(firstForStop, nil), 10*time.Second, "could not check the API token")
		if db.dialect == store.Postgres {
			expect503("a token with the database stopped", get(used, nil), 10*time.Second, "could not check the API token")
			expect503("a session with the database stopped", get("", cookie), 10*time.Second, "could not check your session")
		}
		mend()
		dev.Eventually(t, 30*time.Second, "the token works again", func() error {
			if rec := serveWithin(t, a, get(used, nil), 10*time.Second); rec.Code != http.StatusOK {
				return &httpError{rec.Code, rec.Body.String()}
			}
			return nil
		})

		thaw := db.freeze(t, a)
		// SQLite waits out its busy timeout (5 s) for a write lock before giving up.
		limit := 3*time.Second + 6*time.Second
		expect503("a token with the database frozen", get(firstForFreeze, nil), limit, "could not check the API token")
		if db.dialect == store.Postgres {
			expect503("a token with the database frozen", get(used, nil), limit, "could not check the API token")
			expect503("a session with the database frozen", get("", cookie), limit, "could not check your session")
		}
		thaw()
		dev.Eventually(t, 30*time.Second, "the session works again", func() error {
			if rec := serveWithin(t, a, get("", cookie), 10*time.Second); rec.Code != http.StatusOK {
				return &httpError{rec.Code, rec.Body.String()}
			}
			return nil
		})
	})
}

type httpError struct {
	code int
	body string
}

func (e *httpError) Error() string { return http.StatusText(e.code) + ": " + e.body }

// Every write the console's database cannot take — its disk full or read-only, its
// server stopped — answers 503 saying nothing was changed and that the console, not
// the request, is at fault: alert rules, API tokens and sign-in as a reset always did
// (topics and resends, which need a cluster, are in
// TestClusterWritesTheDatabaseCannotTakeAre503 and the deadletters tests).
func TestWritesTheDatabaseCannotTakeAre503(t *testing.T) {
	eachFaultyDB(t, func(t *testing.T, db faultyDB) {
		// One console that asks nobody to sign in, so its writes reach the database
		// without a credential check first; one that does, for signing in.
		a, signing := db.newApp("--db-timeout", "1s", "--no-auth", "true"), db.newApp("--db-timeout", "1s")
		addUsers(t, a, map[string]auth.Role{"alice": auth.Admin})
		addUsers(t, signing, map[string]auth.Role{"alice": auth.Admin})
		post := func(app *App, path, contentType, body string) *httptest.ResponseRecorder {
			req := httptest.NewRequest(http.MethodPost, path, strings.NewReader(body))
			req.Header.Set("Content-Type", contentType)
			req.Host = "127.0.0.1"
			return serveWithin(t, app, req, 15*time.Second)
		}
		writes := []struct {
			what string
			do   func() *httptest.ResponseRecorder
		}{
			{"create an alert rule", func() *httptest.ResponseRecorder {
				return post(a, "/api/v1/alert-rules", "application/json", `{"name":"lag","group":"orders","threshold":10,"webhookUrl":"http://hooks.example/x"}`)
			}},
			{"create an API token", func() *httptest.ResponseRecorder {
				return post(a, "/api/v1/users/alice/tokens", "application/json", `{"name":"ci"}`)
			}},
			{"sign in", func() *httptest.ResponseRecorder {
				return post(signing, "/login", "application/x-www-form-urlencoded", url.Values{"name": {"alice"}, "password": {testPassword}}.Encode())
			}},
		}
		mend := db.stop(t, a, signing)
		for _, w := range writes {
			rec := w.do()
			body := rec.Body.String()
			if rec.Code != http.StatusServiceUnavailable || !strings.Contains(body, "nothing was changed") {
				t.Errorf("%s on a database that cannot take it: %d %.300s, want 503 saying nothing was changed", w.what, rec.Code, body)
			}
			if strings.Contains(body, "the console itself failed") {
				t.Errorf("%s: blamed on the console's own failure: %.300s", w.what, body)
			}
		}
		mend()
		dev.Eventually(t, 30*time.Second, "writes work again", func() error {
			if rec := writes[0].do(); rec.Code != http.StatusCreated {
				return &httpError{rec.Code, rec.Body.String()}
			}
			return nil
		})
	})
}
