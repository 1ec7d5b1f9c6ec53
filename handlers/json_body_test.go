package handlers

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/gin-gonic/gin"

	"rmqconsole/i18n"
)

// The one decoder of API bodies takes exactly one JSON value of the call's shape,
// declared as JSON; anything else is refused with the status and the problem said.
func TestDecodeAPIBodyIsStrict(t *testing.T) {
	type inner struct {
		Name string `json:"name"`
	}
	type shape struct {
		Topic  string            `json:"topic"`
		Count  json.Number       `json:"count"`
		Items  []inner           `json:"items"`
		Nested inner             `json:"nested"`
		Props  map[string]string `json:"props"`
	}
	for _, tc := range []struct {
		name, contentType, body string
		status                  int
		says                    string
	}{
		{"plain JSON", "application/json", `{"topic":"orders","count":3}`, 0, ""},
		{"UTF-8 charset", "application/json; charset=UTF-8", `{"topic":"orders"}`, 0, ""},
		{"the same key in two objects of an array", "application/json", `{"items":[{"name":"a"},{"name":"b"}]}`, 0, ""},
		{"the same key at two depths", "application/json", `{"topic":"a","props":{"topic":"b"}}`, 0, ""},
		{"no Content-Type", "", `{"topic":"orders"}`, http.StatusUnsupportedMediaType, "without a Content-Type"},
		{"text/plain", "text/plain", `{"topic":"orders"}`, http.StatusUnsupportedMediaType, `came as "text/plain"`},
		{"a form", "application/x-www-form-urlencoded", `topic=orders`, http.StatusUnsupportedMediaType, "application/json"},
		{"another charset", "application/json; charset=latin1", `{"topic":"orders"}`, http.StatusUnsupportedMediaType, "latin1"},
		{"a duplicate key", "application/json", `{"topic":"a","topic":"b"}`, http.StatusBadRequest, `"topic" is given twice`},
		{"a duplicate key in another case", "application/json", `{"topic":"a","Topic":"b"}`, http.StatusBadRequest, `"Topic" is given twice`},
		{"a duplicate key deep down", "application/json", `{"items":[{"name":"a","name":"b"}]}`, http.StatusBadRequest, `"name" is given twice`},
		{"a duplicate key in a map", "application/json", `{"props":{"k":"1","k":"2"}}`, http.StatusBadRequest, `"k" is given twice`},
		{"trailing data", "application/json", `{"topic":"a"} {"topic":"b"}`, http.StatusBadRequest, "more follows the JSON value"},
		{"trailing garbage", "application/json", `{"topic":"a"}x`, http.StatusBadRequest, "more follows"},
		{"an unknown field", "application/json", `{"topic":"a","topics":"b"}`, http.StatusBadRequest, `no field "topics"`},
		{"a wrong type", "application/json", `{"topic":5}`, http.StatusBadRequest, "topic is a number"},
		{"not JSON", "application/json", `{"topic":`, http.StatusBadRequest, "ends too early"},
		{"bad syntax", "application/json", `{topic}`, http.StatusBadRequest, "not valid JSON"},
		{"empty", "application/json", ``, http.StatusBadRequest, "empty"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			gin.SetMode(gin.ReleaseMode)
			r := newEngine()
			var got shape
			var decErr error
			r.POST("/x", func(c *gin.Context) { decErr = decodeAPIBody(c, &got) })
			req := httptest.NewRequest(http.MethodPost, "/x", strings.NewReader(tc.body))
			if tc.contentType != "" {
				req.Header.Set("Content-Type", tc.contentType)
			}
			r.ServeHTTP(httptest.NewRecorder(), req)
			if tc.status == 0 {
				if decErr != nil {
					t.Fatalf("refused: %v", decErr)
				}
				return
			}
			if status, _ := errorStatus(decErr); status != tc.status || !strings.Contains(decErr.Error(), tc.says) {
				t.Fatalf("got %v (%d), want %d saying %q", decErr, status, tc.status, tc.says)
			}
		})
	}
}

// A refused body is answered in the call's sentence with its own code (400), or as it
// is when it is not declared JSON (415); in Chinese too.
func TestBodyErrorAnswers(t *testing.T) {
	err := badBody(i18n.M("api.body.duplicate_key", "Key", `"topic"`, "First", `"topic"`))
	ue := bodyError(err, "bad_json", "topic.api.badjson")
	if status, code := errorStatus(ue); status != http.StatusBadRequest || code != "bad_json" || !strings.Contains(ue.Error(), "The body must be a JSON topic") ||
		!strings.Contains(ue.Error(), `the key "topic" is given twice`) {
		t.Errorf("400: %d %s %+v", status, code, ue)
	}
	if zh := ue.Say(i18n.Match("zh-CN")); !strings.Contains(zh, `"topic"`) || strings.Contains(zh, "given twice") {
		t.Errorf("400 in Chinese: %q", zh)
	}
	ue = bodyError(jsonMediaType("text/plain"), "bad_json", "topic.api.badjson")
	if status, code := errorStatus(ue); status != http.StatusUnsupportedMediaType || code != "unsupported_media_type" || strings.Contains(ue.Error(), "JSON topic") {
		t.Errorf("415: %d %s %+v", status, code, ue)
	}
}
