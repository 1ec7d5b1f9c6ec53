package server

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"rmqconsole/dev"
	"rmqconsole/handlers"
)

// apiWrite posts body to path on a with the Content-Type given ("" for none).
func apiWrite(t *testing.T, a *App, method, path, contentType, body string) (int, handlers.APIError) {
	t.Helper()
	req := newRequest(method, path, strings.NewReader(body))
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	rec := httptest.NewRecorder()
	a.Handler().ServeHTTP(rec, req)
	var e handlers.APIError
	_ = json.Unmarshal(rec.Body.Bytes(), &e)
	return rec.Code, e
}

// Every JSON API write of the real router, on the real broker, reads its body the same
// strict way: a body not declared application/json is refused with 415, and one that
// gives a key twice with 400.
func TestEveryAPIWriteTakesOnlyDeclaredStrictJSON(t *testing.T) {
	if testing.Short() {
		t.Skip("needs the local RocketMQ")
	}
	cl := dev.RequireCluster(t)
	a := newMessagesApp(t, cl.NameServer)
	writes := 0
	for _, rt := range a.Routes() {
		if !strings.HasPrefix(rt.Path, "/api/") || (rt.Method != http.MethodPost && rt.Method != http.MethodPut && rt.Method != http.MethodPatch) {
			continue
		}
		writes++
		path := fillPattern(rt.Path, "local")
		if code, e := apiWrite(t, a, rt.Method, path, "text/plain", `{"topic":"x"}`); code != http.StatusUnsupportedMediaType ||
			e.Code != "unsupported_media_type" || !strings.Contains(e.Error, "Content-Type: application/json") {
			t.Errorf("%s %s as text/plain: %d %+v, want 415 saying to send application/json", rt.Method, rt.Path, code, e)
		}
		if code, e := apiWrite(t, a, rt.Method, path, "application/json", `{"reason":"a","reason":"b"}`); code != http.StatusBadRequest ||
			!strings.Contains(e.Error, `"reason" is given twice`) {
			t.Errorf("%s %s with a key twice: %d %+v, want 400 naming the key", rt.Method, rt.Path, code, e)
		}
	}
	if writes < 8 {
		t.Errorf("%d API writes found on the router, want every one (at least 8)", writes)
	}
}

// A topic is created only from a body declared JSON that says each field once: a body
// sent as text, with a key twice (the last used to win) or with a second value after it
// creates nothing.
func TestTopicCreateRefusesUndeclaredOrAmbiguousJSON(t *testing.T) {
	if testing.Short() {
		t.Skip("needs the local RocketMQ")
	}
	cl := dev.RequireCluster(t)
	a := newMessagesApp(t, cl.NameServer)
	first, second := dev.UniqueName("json-a"), dev.UniqueName("json-b")
	create := func(topic string) string {
		return `{"topic":"` + topic + `","readQueueNums":2,"writeQueueNums":2,"clusterName":"` + cl.ClusterName + `"}`
	}
	for _, tc := range []struct {
		name, contentType, body string
		status                  int
	}{
		{"no Content-Type", "", create(first), http.StatusUnsupportedMediaType},
		{"text/plain", "text/plain", create(first), http.StatusUnsupportedMediaType},
		{"a form's type", "application/x-www-form-urlencoded", create(first), http.StatusUnsupportedMediaType},
		{"a key twice", "application/json", `{"topic":"` + first + `","topic":"` + second + `","clusterName":"` + cl.ClusterName + `"}`, http.StatusBadRequest},
		{"a key twice in another case", "application/json", `{"topic":"` + first + `","Topic":"` + second + `","clusterName":"` + cl.ClusterName + `"}`, http.StatusBadRequest},
		{"two values", "application/json", create(first) + create(second), http.StatusBadRequest},
	} {
		if code, e := apiWrite(t, a, http.MethodPost, "/api/v1/topics", tc.contentType, tc.body); code != tc.status {
			t.Errorf("%s: %d %+v, want %d", tc.name, code, e, tc.status)
		}
	}
	for _, topic := range []string{first, second} {
		if rec := msgServe(t, a, "/api/v1/topics/"+topic); rec.Code != http.StatusNotFound {
			t.Errorf("topic %s after refused creates: %d, want 404", topic, rec.Code)
		}
	}
	// The same topic, declared JSON and said once: created.
	if code, e := apiWrite(t, a, http.MethodPost, "/api/v1/topics", "application/json; charset=utf-8", create(first)); code != http.StatusCreated {
		t.Errorf("create: %d %+v, want 201", code, e)
	}
}
