package server

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"

	"rmqconsole/handlers/openapi"
)

// ginParam matches a gin route parameter (:group, *path).
var ginParam = regexp.MustCompile(`[:*]([A-Za-z]+)`)

// Every route of the JSON API is in the document, and every operation of the document
// is a route: a route added without its contract, or a contract left for a route that
// went away, fails here.
func TestEveryAPIRouteIsInTheDocument(t *testing.T) {
	a := newAuthApp(t)
	doc, err := openapi.Document()
	if err != nil {
		t.Fatal(err)
	}
	var documented, served []string
	for path, item := range doc.Paths.Map() {
		for method := range item.Operations() {
			documented = append(documented, method+" "+path)
		}
	}
	for _, r := range a.Routes() {
		rest, ok := strings.CutPrefix(r.Path, "/api/v1/")
		if !ok || r.Method == http.MethodHead {
			continue
		}
		served = append(served, r.Method+" "+ginParam.ReplaceAllString("/"+rest, "{$1}"))
	}
	slices.Sort(documented)
	slices.Sort(served)
	for _, op := range served {
		if !slices.Contains(documented, op) {
			t.Errorf("the console serves %s (under /api/v1) but handlers/openapi/openapi.yaml does not document it", op)
		}
	}
	for _, op := range documented {
		if !slices.Contains(served, op) {
			t.Errorf("handlers/openapi/openapi.yaml documents %s (under /api/v1) but the console has no such route", op)
		}
	}
	t.Logf("%d operations documented, %d API routes served", len(documented), len(served))
}

// A path under /api/ that no route has answers a JSON 404 in the caller's language that
// points at the document, not a page telling a program to use the navigation.
func TestUnknownAPIPathAnswersJSONNotFound(t *testing.T) {
	a := newAuthApp(t)
	for _, tc := range []struct{ method, path, lang, want string }{
		{http.MethodGet, "/api/v1/no-such-thing", "en", "There is no API call at /api/v1/no-such-thing. The calls are listed in /api/v1/openapi.json"},
		{http.MethodGet, "/api/v1/groups/g/no-such-thing", "zh-CN", "/api/v1/groups/g/no-such-thing 没有对应的 API 调用。全部调用列在 /api/v1/openapi.json"},
		{http.MethodDelete, "/api/v2/groups", "en", "There is no API call at /api/v2/groups."},
	} {
		req := newRequest(tc.method, tc.path, nil)
		req.Header.Set("Accept-Language", tc.lang)
		rec := httptest.NewRecorder()
		a.Handler().ServeHTTP(rec, req)
		var body struct{ Error, Code string }
		err := json.Unmarshal(rec.Body.Bytes(), &body)
		if rec.Code != http.StatusNotFound || !strings.HasPrefix(rec.Header().Get("Content-Type"), "application/json") || err != nil {
			t.Fatalf("%s %s: %d %s %.300s, want a JSON 404", tc.method, tc.path, rec.Code, rec.Header().Get("Content-Type"), rec.Body)
		}
		if body.Code != "not_found" || !strings.Contains(body.Error, tc.want) || strings.Contains(body.Error, "navigation") || strings.Contains(body.Error, "导航") {
			t.Errorf("%s %s in %s: %+v, want code not_found and %q", tc.method, tc.path, tc.lang, body, tc.want)
		}
	}
}

// The document is served as JSON at /api/v1/openapi.json, exactly the embedded one, and
// the page /api shows every operation and every schema of it, in the reader's language.
func TestAPIDocumentIsServedAndShown(t *testing.T) {
	a := newAuthApp(t)
	rec := httptest.NewRecorder()
	a.Handler().ServeHTTP(rec, newRequest(http.MethodGet, "/api/v1/openapi.json", nil))
	want, err := openapi.JSON()
	if err != nil {
		t.Fatal(err)
	}
	if rec.Code != http.StatusOK || !strings.HasPrefix(rec.Header().Get("Content-Type"), "application/json") || !bytes.Equal(rec.Body.Bytes(), want) {
		t.Fatalf("GET /api/v1/openapi.json: %d %s, %d bytes; want the embedded document (%d bytes)", rec.Code,
			rec.Header().Get("Content-Type"), rec.Body.Len(), len(want))
	}
	var head struct{ OpenAPI string }
	if err := json.Unmarshal(rec.Body.Bytes(), &head); err != nil || head.OpenAPI != "3.1.0" {
		t.Fatalf("the document says openapi %q (%v), want 3.1.0", head.OpenAPI, err)
	}

	doc, err := openapi.Document()
	if err != nil {
		t.Fatal(err)
	}
	ops := 0
	for _, item := range doc.Paths.Map() {
		ops += len(item.Operations())
	}
	for _, lang := range []string{"en", "zh-CN"} {
		req := newRequest(http.MethodGet, "/api", nil)
		req.Header.Set("Accept-Language", lang)
		rec := httptest.NewRecorder()
		a.Handler().ServeHTTP(rec, req)
		if rec.Code != http.StatusOK {
			t.Fatalf("GET /api: %d %.300s", rec.Code, rec.Body)
		}
		page, err := goquery.NewDocumentFromReader(rec.Body)
		if err != nil {
			t.Fatal(err)
		}
		if n := page.Find(`[data-testid="apidocs-op"]`).Length(); n != ops {
			t.Errorf("%s: the page shows %d operations, the document has %d", lang, n, ops)
		}
		if n := page.Find(`[data-testid="apidocs-schema"]`).Length(); n != len(doc.Components.Schemas) {
			t.Errorf("%s: the page shows %d schemas, the document has %d", lang, n, len(doc.Components.Schemas))
		}
		if href, _ := page.Find(`[data-testid="apidocs-json"]`).Attr("href"); href != "/api/v1/openapi.json" {
			t.Errorf("%s: the link to the document is %q", lang, href)
		}
		// Each operation names its method and path; each schema it refers to is on the page.
		op := page.Find(`[data-op="getGroup"]`)
		if !strings.Contains(op.Text(), "GET") || !strings.Contains(op.Text(), "/groups/{group}") {
			t.Errorf("%s: GET /groups/{group} reads %q", lang, op.Text())
		}
		if href, _ := op.Find(`a[href="#schema-GroupDetail"]`).Attr("href"); href == "" || page.Find("#schema-GroupDetail").Length() != 1 {
			t.Errorf("%s: getGroup does not link its answer to the GroupDetail schema on the page", lang)
		}
		if lang == "zh-CN" && !strings.Contains(page.Find("h1 + p").Text(), "个操作") {
			t.Errorf("the Chinese page says %q", page.Find("h1 + p").Text())
		}
	}
}
