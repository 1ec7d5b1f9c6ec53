package server

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"rmqconsole/dev"
	"rmqconsole/handlers"
	"rmqconsole/rocketmq"
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

// holdsRefused reports whether an answer holds refused characters as they came, raw or
// as JSON's escapes of them (a refusal quotes them as \x00, \x1b, \u202e).
func holdsRefused(body string) bool {
	return strings.ContainsAny(body, "\x00\x1b\u202e") || strings.Contains(body, `\u0000`) || strings.Contains(body, `\u001b`)
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
			if holdsRefused(body) || strings.Contains(body, "SQLSTATE") {
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

		// A browser whose User-Agent holds a byte that is not UTF-8 signs in all the same.
		req = hostileRequest("POST", "/login", "application/x-www-form-urlencoded", url.Values{"name": {"ada"}, "password": {testPassword}}.Encode())
		req.Header.Set("User-Agent", "Mozilla/5.0 (\xff\xfe)")
		rec = httptest.NewRecorder()
		a.Handler().ServeHTTP(rec, req)
		if rec.Code != http.StatusSeeOther {
			t.Errorf("sign-in from a User-Agent that is not UTF-8: %d %.300s, want 303", rec.Code, rec.Body)
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

// With a cluster, text the rule refuses reaches no broker: a reset's preview and apply
// (the refused apply is recorded, its reason escaped; the preview is not), a resend's
// reason, a client id, a message key and tag, the list filters — on both databases.
func TestTextIsRefusedBeforeAnyBroker(t *testing.T) {
	if testing.Short() {
		t.Skip("needs the local RocketMQ")
	}
	cl := dev.RequireCluster(t)
	for name, db := range map[string]func(t *testing.T) []string{
		"sqlite":   func(*testing.T) []string { return nil },
		"postgres": func(t *testing.T) []string { return []string{"--db", dev.RequirePostgres(t).NewDatabase(t)} },
	} {
		t.Run(name, func(t *testing.T) {
			a := newAuthApp(t, append(db(t), "--namesrv", cl.NameServer, "--metrics-interval", "0", "--topic-figures-interval", "0")...)
			addUsers(t, a, roleUsers)
			otto, ada := tokenOf(t, a, "otto"), tokenOf(t, a, "ada")
			const id = "7F000001000051AF0000000000000001"
			now := time.Now().UnixMilli()
			calls := msgBrokerCalls(a)
			for _, tc := range []struct{ method, target, body, says string }{
				{"POST", "/api/v1/groups/orders-cg/resets", `{"topic":"orders","mode":"latest","reason":"a\u0000b","planId":"p1","confirm":true}`,
					"The reason of the reset holds U+0000"},
				{"POST", "/api/v1/groups/orders-cg/reset-preview", `{"topic":"orders","mode":"latest","reason":"\u202eok"}`, "U+202E"},
				{"POST", "/api/v1/messages/" + id + "/resend", `{"reason":"replay\u0000"}`, "The reason of the resend holds U+0000"},
				{"POST", "/api/v1/messages/" + id + "/consume-directly", `{"group":"orders-cg","clientId":"10.0.0.1@1\u0000"}`, "The client id holds U+0000"},
				{"GET", "/api/v1/messages?topic=orders&key=a%00b", "", "The message key holds U+0000"},
				{"GET", fmt.Sprintf("/api/v1/messages?topic=orders&begin=%d&end=%d&tag=%%1B[2J", now-60000, now), "", "The tag holds U+001B"},
				{"GET", "/api/v1/topics?q=a%00b", "", "The filter holds U+0000"},
				{"GET", "/api/v1/groups?q=%FF", "", "The filter is not UTF-8"},
				{"GET", "/api/v1/groups/orders-cg/clients/c%00", "", "is not a client id"},
			} {
				req := hostileRequest(tc.method, tc.target, "application/json", tc.body)
				req.Header.Set("Authorization", "Bearer "+otto)
				rec := httptest.NewRecorder()
				a.Handler().ServeHTTP(rec, req)
				if rec.Code != http.StatusBadRequest || !strings.Contains(rec.Body.String(), tc.says) || holdsRefused(rec.Body.String()) {
					t.Errorf("%s %s: %d %.300s, want 400 saying %q", tc.method, tc.target, rec.Code, rec.Body, tc.says)
				}
			}
			if n := msgBrokerCalls(a) - calls; n != 0 {
				t.Errorf("%d requests reached a broker for refused text", n)
			}
			req := hostileRequest("GET", "/api/v1/audit?actor=otto", "", "")
			req.Header.Set("Authorization", "Bearer "+ada)
			rec := httptest.NewRecorder()
			a.Handler().ServeHTTP(rec, req)
			var list struct {
				Entries []struct{ Status, Reason string }
			}
			if err := json.Unmarshal(rec.Body.Bytes(), &list); err != nil || len(list.Entries) != 1 ||
				list.Entries[0].Status != string(store.AuditRefused) || list.Entries[0].Reason != `"a\x00b"` {
				t.Errorf("the log after the refused apply: %d %+v (%v), want one refused entry with its reason escaped", rec.Code, list.Entries, err)
			}
		})
	}
}

// A topic created while the database cannot take its audit entry is not created: 503
// saying nothing was changed, and no broker is asked to create it.
func TestTopicCreateOnADatabaseThatCannotTakeItIs503(t *testing.T) {
	if testing.Short() {
		t.Skip("needs the local RocketMQ")
	}
	cl := dev.RequireCluster(t)
	eachFaultyDB(t, func(t *testing.T, db faultyDB) {
		a := db.newApp("--namesrv", cl.NameServer, "--metrics-interval", "0", "--topic-figures-interval", "0", "--no-auth", "true", "--db-timeout", "1s")
		topic := dev.UniqueName("d26-topic")
		mend := db.stop(t, a)
		defer mend()
		req := hostileRequest("POST", "/api/v1/topics", "application/json", fmt.Sprintf(`{"topic":%q,"writeQueueNums":2,"readQueueNums":2}`, topic))
		rec := serveWithin(t, a, req, 30*time.Second)
		if rec.Code != http.StatusServiceUnavailable || !strings.Contains(rec.Body.String(), "nothing was changed") {
			t.Errorf("create topic %s on a database that cannot take it: %d %.300s, want 503 saying nothing was changed", topic, rec.Code, rec.Body)
		}
		if n := a.def.rmq.CallCount(rocketmq.CodeUpdateAndCreateTopic); n != 0 {
			t.Errorf("%d UPDATE_AND_CREATE_TOPIC requests sent", n)
		}
	})
}
