package openapitest

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/gin-gonic/gin"
)

// answer is a handler that answers status with body as JSON.
func answer(status int, body string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json; charset=utf-8")
		w.WriteHeader(status)
		io.WriteString(w, body)
	})
}

func serve(t *testing.T, h http.Handler, method, target, body string) {
	t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req := httptest.NewRequest(method, target, rd)
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	h.ServeHTTP(httptest.NewRecorder(), req)
}

func newChecker(t *testing.T) *Checker {
	t.Helper()
	c, err := New()
	if err != nil {
		t.Fatal(err)
	}
	return c
}

const tokenJSON = `{"id":1,"name":"ci","user":"otto","role":"viewer","hint":"rmqc_ab","createdBy":"otto","createdAt":"2026-01-02T03:04:05Z"}`

// The checker names the answer, the path to the field and what is wrong: a field the
// document does not have, a field missing, a wrong type, a status not listed.
func TestCheckerNamesThePathAndTheFieldOfEveryMismatch(t *testing.T) {
	for _, tc := range []struct {
		name, method, target, reqBody string
		status                        int
		body                          string
		want                          []string // "" for none
	}{
		{"as documented", "GET", "/api/v1/users/otto/tokens", "", 200, `{"user":"otto","tokens":[` + tokenJSON + `]}`, nil},
		{"on a named cluster", "GET", "/api/v1/clusters/east/users/otto/tokens", "", 200, `{"user":"otto","tokens":[]}`, nil},
		{"a field added", "GET", "/api/v1/users/otto/tokens", "", 200,
			`{"user":"otto","tokens":[` + strings.Replace(tokenJSON, `"id":1`, `"id":1,"scope":"all"`, 1) + `]}`,
			[]string{"at /tokens/0", "scope"}},
		{"a field missing", "GET", "/api/v1/users/otto/tokens", "", 200, `{"tokens":[]}`, []string{`"user"`}},
		{"a wrong type", "GET", "/api/v1/users/otto/tokens", "", 200, `{"user":"otto","tokens":[` + strings.Replace(tokenJSON, `"id":1`, `"id":"1"`, 1) + `]}`,
			[]string{"at /tokens/0/id"}},
		{"an error with a field more", "GET", "/api/v1/users/otto/tokens", "", 404, `{"error":"no","code":"not_found","hint":"x"}`, []string{"hint"}},
		{"a route the document does not have", "GET", "/api/v1/tokens", "", 200, `{}`, []string{"route the document does not have"}},
		{"the console's 404 on such a route", "GET", "/api/v1/nothing-here", "", 404, `{"error":"no","code":"not_found"}`, nil},
		{"a request the document refuses, accepted", "POST", "/api/v1/users/otto/tokens", `{"name":"ci","ttl":3}`, 201,
			`{"token":` + tokenJSON + `,"secret":"s"}`, []string{"accepted a request", "ttl"}},
		{"the same request, refused", "POST", "/api/v1/users/otto/tokens", `{"name":"ci","ttl":3}`, 400,
			`{"error":"no","code":"bad_request"}`, nil},
		{"a query parameter the document does not declare, accepted", "GET", "/api/v1/users/otto/tokens?all=1", "", 200,
			`{"user":"otto","tokens":[]}`, []string{"query parameters", "all"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := newChecker(t)
			serve(t, c.Wrap(answer(tc.status, tc.body)), tc.method, tc.target, tc.reqBody)
			ps := c.Problems()
			if c.Checked() != 1 {
				t.Errorf("checked %d answers, want 1", c.Checked())
			}
			if tc.want == nil {
				if len(ps) > 0 {
					t.Errorf("problems %q, want none", ps)
				}
				return
			}
			if len(ps) != 1 {
				t.Fatalf("problems %q, want one", ps)
			}
			t.Log(ps[0])
			for _, w := range tc.want {
				if !strings.Contains(ps[0], w) {
					t.Errorf("problem %q does not say %q", ps[0], w)
				}
			}
			if !strings.Contains(ps[0], tc.method+" "+tc.target) || !strings.Contains(ps[0], "openapitest_test.go:") {
				t.Errorf("problem %q does not name the request and the test", ps[0])
			}
		})
	}
}

// Pages, CSV exports and paths outside the API are not checked; the report says how
// many answers were.
func TestCheckerSkipsWhatIsNotJSONAndReportsItsCount(t *testing.T) {
	c := newChecker(t)
	csv := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/csv")
		io.WriteString(w, "a,b\n")
	})
	serve(t, c.Wrap(csv), "GET", "/api/v1/messages?topic=T&format=csv", "")
	serve(t, c.Wrap(answer(200, `{"anything":1}`)), "GET", "/groups", "")
	serve(t, c.Wrap(answer(200, `{"user":"u","tokens":[]}`)), "GET", "/api/v1/users/u/tokens", "")
	if c.Checked() != 1 || c.Skipped() != 1 || len(c.Problems()) != 0 {
		t.Errorf("checked %d, skipped %d, problems %q; want 1, 1, none", c.Checked(), c.Skipped(), c.Problems())
	}
	var out strings.Builder
	if code := c.Report(&out, 0); code != 0 || !strings.Contains(out.String(), "1 API answers checked") {
		t.Errorf("report %q (code %d)", out.String(), code)
	}
	serve(t, c.Wrap(answer(200, `{"user":"u"}`)), "GET", "/api/v1/users/u/tokens", "")
	out.Reset()
	if code := c.Report(&out, 0); code != 1 || !strings.Contains(out.String(), "1 problems") {
		t.Errorf("a run with a problem reported %q and code %d, want code 1", out.String(), code)
	}
}

// The gin middleware and the HTTP transport check the same way.
func TestCheckerAsGinMiddlewareAndAsTransport(t *testing.T) {
	c := newChecker(t)
	gin.SetMode(gin.ReleaseMode)
	r := gin.New()
	r.Use(c.Gin())
	r.GET("/api/v1/users/:user/tokens", func(gc *gin.Context) {
		gc.JSON(200, gin.H{"user": gc.Param("user"), "tokens": []any{}, "extra": true})
	})
	serve(t, r, "GET", "/api/v1/users/u/tokens", "")
	srv := httptest.NewServer(r)
	defer srv.Close()
	client := &http.Client{Transport: c.Transport(http.DefaultTransport)}
	res, err := client.Get(srv.URL + "/api/v1/users/u/tokens")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if !strings.Contains(string(body), `"extra":true`) {
		t.Errorf("the caller got %q: the transport must hand the body on", body)
	}
	// The server's middleware and the client's transport each saw the answer.
	ps := c.Problems()
	if c.Checked() != 3 || len(ps) != 3 {
		t.Fatalf("checked %d, problems %q; want 3 and 3", c.Checked(), ps)
	}
	for _, p := range ps {
		if !strings.Contains(p, "extra") {
			t.Errorf("problem %q does not name the field extra", p)
		}
	}
}
