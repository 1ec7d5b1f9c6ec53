package server

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"rmqconsole/dev"
	"rmqconsole/handlers"
	"rmqconsole/store"
)

// eachDBApp runs test on the real console (no cluster) over SQLite and over PostgreSQL.
func eachDBApp(t *testing.T, test func(t *testing.T, a *App)) {
	t.Helper()
	t.Run("sqlite", func(t *testing.T) { test(t, newAuthApp(t)) })
	t.Run("postgres", func(t *testing.T) { test(t, newAuthApp(t, "--db", dev.RequirePostgres(t).NewDatabase(t))) })
}

// hostileRequest is a request as a script sends it: API calls with a bearer token, page
// forms from the console's own origin.
func hostileRequest(method, target, contentType, body string) *http.Request {
	req := httptest.NewRequest(method, target, strings.NewReader(body))
	req.Host = "127.0.0.1"
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	req.Header.Set("Sec-Fetch-Site", "same-origin")
	return req
}

func tokenOf(t *testing.T, a *App, user string) string {
	t.Helper()
	secret, _, err := a.sec.auth.CreateToken(context.Background(), user, "probe", user)
	if err != nil {
		t.Fatal(err)
	}
	return secret
}

// Text no database takes or no page should show — NUL, bytes that are not UTF-8, ESC,
// line breaks, U+202E, 60 000 characters — is refused with a sentence naming the field
// and the character, before any store is asked: 400 on the API, 422 on pages with the
// form again, never 500, on SQLite and PostgreSQL alike; nothing of it is stored.
func TestHostileTextIsRefusedWithASentence(t *testing.T) {
	eachDBApp(t, func(t *testing.T, a *App) {
		addUsers(t, a, roleUsers)
		ada := tokenOf(t, a, "ada")
		adaCookie := sessionCookie(t, a, "ada")
		alert := func(name, hook string) string {
			b, _ := json.Marshal(map[string]any{"name": name, "group": "orders", "threshold": 10, "webhookUrl": hook})
			return string(b)
		}
		long := strings.Repeat("x", 60000)
		for _, tc := range []struct {
			method, target, contentType, body string
			cookie                            bool
			status                            int
			says                              string
		}{
			{"GET", "/api/v1/audit?group=a%00b", "", "", false, 400, `The group filter holds U+0000`},
			{"GET", "/api/v1/audit?cluster=a%00b", "", "", false, 400, `The cluster filter holds U+0000`},
			{"GET", "/api/v1/audit?actor=%FF%FE", "", "", false, 400, `The user filter is not UTF-8 text: byte 0xFF`},
			{"GET", "/api/v1/audit?topic=%E2%80%AEtxt", "", "", false, 400, `The topic filter holds U+202E`},
			{"GET", "/api/v1/audit?group=" + long[:300], "", "", false, 400, `300 characters long; at most 255`},
			{"GET", "/audit?group=a%00b", "", "", true, 422, `The group filter holds U+0000`},
			{"GET", "/audit/export?group=a%00b&format=csv", "", "", true, 400, `The group filter holds U+0000`},
			{"GET", "/audit/export?actor=%FF&format=json", "", "", true, 400, `not UTF-8`},
			{"GET", "/api/v1/users/a%00b/tokens", "", "", false, 400, `The user name holds U+0000`},
			{"GET", "/users/a%00b/tokens", "", "", true, 400, `The user name holds U+0000`},
			{"POST", "/api/v1/users/ada/tokens", "application/json", `{"name":"ci\u0000"}`, false, 400, `The token's name holds U+0000`},
			{"POST", "/api/v1/alert-rules", "application/json", alert("a\x00b", "http://hooks.example/x"), false, 400, `The rule's name holds U+0000`},
			{"POST", "/api/v1/alert-rules", "application/json", alert("\x1b[31mred", "http://hooks.example/x"), false, 400, `U+001B`},
			{"POST", "/api/v1/alert-rules", "application/json", alert("one\r\ntwo", "http://hooks.example/x"), false, 400, `U+000D`},
			{"POST", "/api/v1/alert-rules", "application/json", alert("\u202egnp.exe", "http://hooks.example/x"), false, 400, `U+202E`},
			{"POST", "/api/v1/alert-rules", "application/json", alert(long, "http://hooks.example/x"), false, 400, `The rule's name is 60000 characters long; at most 200`},
			{"POST", "/api/v1/alert-rules", "application/json", alert("lag", "http://hooks.example/"+long[:50000]), false, 400, `The webhook URL is 50021 characters long; at most 2048`},
			{"POST", "/alerts", "application/x-www-form-urlencoded", url.Values{"name": {"a\x00b"}, "group": {"orders"}, "threshold": {"10"},
				"webhookUrl": {"http://hooks.example/x"}}.Encode(), true, 422, `The rule&#39;s name holds U+0000`},
		} {
			req := hostileRequest(tc.method, tc.target, tc.contentType, tc.body)
			if tc.cookie {
				req.AddCookie(adaCookie)
			} else {
				req.Header.Set("Authorization", "Bearer "+ada)
			}
			rec := httptest.NewRecorder()
			a.Handler().ServeHTTP(rec, req)
			body := rec.Body.String()
			if rec.Code != tc.status || !strings.Contains(body, tc.says) {
				t.Errorf("%s %.80s: %d %.300s, want %d saying %q", tc.method, tc.target, rec.Code, body, tc.status, tc.says)
			}
			if strings.ContainsAny(body, "\x00\x1b\u202e") || strings.Contains(body, "SQLSTATE") {
				t.Errorf("%s %.80s: the answer holds what was refused or the database's words: %.300s", tc.method, tc.target, body)
			}
		}

		// Sign-in with such a name, before anyone is signed in.
		req := hostileRequest("POST", "/login", "application/x-www-form-urlencoded", url.Values{"name": {"a\x00b"}, "password": {testPassword}}.Encode())
		rec := httptest.NewRecorder()
		a.Handler().ServeHTTP(rec, req)
		if rec.Code != http.StatusUnprocessableEntity || !strings.Contains(rec.Body.String(), "The user name holds U+0000") || strings.Contains(rec.Body.String(), "\x00") {
			t.Errorf("sign-in as a NUL name: %d %.300s, want 422 naming the character", rec.Code, rec.Body)
		}

		// Nothing was stored: the alerts page lists no rule and stays small.
		req = hostileRequest("GET", "/api/v1/alert-rules", "", "")
		req.Header.Set("Authorization", "Bearer "+ada)
		rec = httptest.NewRecorder()
		a.Handler().ServeHTTP(rec, req)
		var rules struct{ Rules []handlers.AlertRuleJSON }
		if err := json.Unmarshal(rec.Body.Bytes(), &rules); err != nil || len(rules.Rules) != 0 {
			t.Errorf("alert rules after the refusals: %d %s", rec.Code, rec.Body)
		}
	})
}

// A viewer's apply refused for its role is recorded whatever its reason holds: NUL, an
// override and ESC are kept escaped (on PostgreSQL the refusal used to go unrecorded,
// on SQLite to be kept raw), and the log shows it back as sent.
func TestRefusedResetKeepsItsReasonEscaped(t *testing.T) {
	eachDBApp(t, func(t *testing.T, a *App) {
		addUsers(t, a, roleUsers)
		vera, ada := tokenOf(t, a, "vera"), tokenOf(t, a, "ada")
		req := hostileRequest("POST", "/api/v1/groups/orders-cg/resets", "application/json",
			`{"topic":"orders","mode":"latest","reason":"a\u0000b\u202e\u001b[2J","planId":"p1","confirm":true}`)
		req.Header.Set("Authorization", "Bearer "+vera)
		rec := httptest.NewRecorder()
		a.Handler().ServeHTTP(rec, req)
		if rec.Code != http.StatusForbidden {
			t.Fatalf("a viewer's apply: %d %s, want 403", rec.Code, rec.Body)
		}
		req = hostileRequest("GET", "/api/v1/audit?actor=vera", "", "")
		req.Header.Set("Authorization", "Bearer "+ada)
		rec = httptest.NewRecorder()
		a.Handler().ServeHTTP(rec, req)
		var list struct {
			Entries []struct {
				Status, Reason, Group string
			}
		}
		if err := json.Unmarshal(rec.Body.Bytes(), &list); err != nil {
			t.Fatalf("audit list: %d %s", rec.Code, rec.Body)
		}
		if len(list.Entries) != 1 || list.Entries[0].Status != string(store.AuditRefused) ||
			list.Entries[0].Reason != `"a\x00b\u202e\x1b[2J"` || list.Entries[0].Group != "orders-cg" {
			t.Fatalf("the viewer's refused apply in the log: %+v, want one refused entry with the reason escaped", list.Entries)
		}
	})
}
