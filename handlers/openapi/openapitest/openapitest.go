// Package openapitest keeps the API document true: the HTTP tests route every exchange
// with the console through a Checker, which validates each JSON answer under /api/ (and
// the request that led to it) against handlers/openapi/openapi.yaml. A field the document
// does not have, a missing one, a wrong type, a status it does not list or a route it
// does not know is a problem; the test binary reports every problem, with the path to the
// field, and fails.
//
// Answers that are not JSON (CSV exports, pages, websockets) are not checked. A request
// the document says is wrong is a problem only when the console accepted it (2xx): tests
// send wrong requests on purpose to see them refused.
package openapitest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/gorillamux"
	"github.com/gin-gonic/gin"

	"rmqconsole/handlers/openapi"
)

// Checker validates API exchanges against the document. It is safe for concurrent use.
type Checker struct {
	doc    *openapi3.T
	router routers.Router
	// errorSchema checks error answers on routes the document does not have (a 404 or 405
	// of the console's own).
	errorSchema *openapi3.Schema

	checked, skipped atomic.Int64
	mu               sync.Mutex
	problems         []string
	// seen are the operations that answered JSON at least once.
	seen map[string]bool
}

// New loads the document; it fails when the document is not valid OpenAPI.
func New() (*Checker, error) {
	doc, err := openapi.Document()
	if err != nil {
		return nil, err
	}
	router, err := gorillamux.NewRouter(doc)
	if err != nil {
		return nil, fmt.Errorf("route the document: %w", err)
	}
	es := doc.Components.Schemas["Error"]
	if es == nil || es.Value == nil {
		return nil, errors.New("the document has no Error schema")
	}
	return &Checker{doc: doc, router: router, errorSchema: es.Value, seen: map[string]bool{}}, nil
}

// Checked is how many JSON answers were validated; Skipped how many answers under /api/
// were not JSON.
func (c *Checker) Checked() int64 { return c.checked.Load() }

// Skipped is how many answers under /api/ were not JSON and so not checked.
func (c *Checker) Skipped() int64 { return c.skipped.Load() }

// Problems are the mismatches found so far, one sentence each.
func (c *Checker) Problems() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.problems)
}

// Unseen lists the document's operations no checked answer came from.
func (c *Checker) Unseen() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []string
	for path, item := range c.doc.Paths.Map() {
		for method, op := range item.Operations() {
			if !c.seen[op.OperationID] {
				out = append(out, method+" "+path)
			}
		}
	}
	slices.Sort(out)
	return out
}

// Report is what a TestMain prints after the tests ran: how many answers were checked,
// the operations none came from, and every problem. It returns code, or 1 when a
// problem was found and code was 0.
func (c *Checker) Report(w io.Writer, code int) int {
	ps := c.Problems()
	unseen := c.Unseen()
	fmt.Fprintf(w, "openapi: %d API answers checked against handlers/openapi/openapi.yaml (%d not JSON, not checked), %d problems\n",
		c.Checked(), c.Skipped(), len(ps))
	total := 0
	for _, item := range c.doc.Paths.Map() {
		total += len(item.Operations())
	}
	if len(unseen) > 0 {
		fmt.Fprintf(w, "openapi: %d of %d operations answered; none came from %s\n", total-len(unseen), total, strings.Join(unseen, ", "))
	} else {
		fmt.Fprintf(w, "openapi: all %d operations answered\n", total)
	}
	for _, p := range ps {
		fmt.Fprintf(w, "openapi: %s\n", p)
	}
	if len(ps) > 0 && code == 0 {
		return 1
	}
	return code
}

func (c *Checker) problem(ex *exchange, format string, args ...any) {
	p := fmt.Sprintf("%s %s → %d", ex.req.Method, ex.req.URL.RequestURI(), ex.status)
	if ex.caller != "" {
		p += " (" + ex.caller + ")"
	}
	p += ": " + fmt.Sprintf(format, args...)
	c.mu.Lock()
	c.problems = append(c.problems, p)
	c.mu.Unlock()
}

// exchange is one request and its answer.
type exchange struct {
	req     *http.Request
	reqBody []byte
	status  int
	header  http.Header
	body    []byte
	// caller is the test's file and line, when the request was served on its goroutine.
	caller string
}

// isAPI reports whether path is the console's JSON API.
func isAPI(path string) bool { return strings.HasPrefix(path, "/api/") }

// Check validates one exchange.
func (c *Checker) check(ex *exchange) {
	if !isAPI(ex.req.URL.Path) {
		return
	}
	mt, _, _ := mime.ParseMediaType(ex.header.Get("Content-Type"))
	if mt != "application/json" {
		c.skipped.Add(1)
		return
	}
	c.checked.Add(1)
	ctx := context.Background()
	route, params, err := c.router.FindRoute(ex.req)
	if err != nil {
		var re *routers.RouteError
		// The console's own refusal of a path or method it does not serve (404, 405), or
		// of a caller before any route is looked at (401, 403): an Error.
		if errors.As(err, &re) && ex.status >= 400 && ex.status < 500 {
			if verr := validateJSON(c.errorSchema, ex.body); verr != nil {
				c.problem(ex, "the answer to a route the document does not have is not an Error: %s", verr)
			}
			return
		}
		c.problem(ex, "a JSON answer on a route the document does not have (%v)", err)
		return
	}
	c.mu.Lock()
	c.seen[route.Operation.OperationID] = true
	c.mu.Unlock()
	opts := &openapi3filter.Options{
		MultiError:                 true,
		IncludeResponseStatus:      true,
		AuthenticationFunc:         openapi3filter.NoopAuthenticationFunc,
		ExcludeRequestBody:         false,
		SkipSettingDefaults:        true,
		ExcludeReadOnlyValidations: true,
	}
	opts.WithCustomSchemaErrorFunc(sayField)
	req := ex.req.Clone(ctx)
	req.Body = io.NopCloser(bytes.NewReader(ex.reqBody))
	in := &openapi3filter.RequestValidationInput{Request: req, PathParams: params, Route: route, Options: opts}
	if ex.status >= 200 && ex.status < 300 {
		if err := openapi3filter.ValidateRequest(ctx, in); err != nil {
			c.problem(ex, "the console accepted a request the document says is wrong: %s", flatten(err))
		}
		if unknown := undeclaredQuery(route, ex.req); len(unknown) > 0 {
			c.problem(ex, "the console accepted query parameters the document does not declare: %s", strings.Join(unknown, ", "))
		}
	}
	out := &openapi3filter.ResponseValidationInput{RequestValidationInput: in, Status: ex.status, Header: ex.header, Options: opts}
	out.SetBodyBytes(ex.body)
	if err := openapi3filter.ValidateResponse(ctx, out); err != nil {
		c.problem(ex, "%s", flatten(err))
	}
}

// undeclaredQuery lists the query parameters of r the operation does not declare.
func undeclaredQuery(route *routers.Route, r *http.Request) []string {
	declared := map[string]bool{}
	for _, ps := range []openapi3.Parameters{route.PathItem.Parameters, route.Operation.Parameters} {
		for _, p := range ps {
			if p.Value != nil && p.Value.In == openapi3.ParameterInQuery {
				declared[p.Value.Name] = true
			}
		}
	}
	var out []string
	for k := range r.URL.Query() {
		if !declared[k] {
			out = append(out, k)
		}
	}
	slices.Sort(out)
	return out
}

// validatorAt is the JSON Schema validator's own "at '/x': " before its reason.
var validatorAt = regexp.MustCompile(`^(at '[^']*': )+`)

// sayField writes a schema error as the path to the field and what is wrong with it.
func sayField(err *openapi3.SchemaError) string {
	at := "/" + strings.Join(err.JSONPointer(), "/")
	reason := validatorAt.ReplaceAllString(err.Reason, "")
	if reason == "false schema" || strings.HasSuffix(reason, ": false schema") {
		reason = "a field the document does not have"
	}
	return fmt.Sprintf("at %s: %s", at, reason)
}

// flatten turns a validation error into one line per problem, without the schema and
// value dumps kin-openapi adds.
func flatten(err error) string {
	var lines []string
	var walk func(error)
	walk = func(err error) {
		var me openapi3.MultiError
		if errors.As(err, &me) {
			for _, e := range me {
				walk(e)
			}
			return
		}
		var se *openapi3.SchemaError
		if errors.As(err, &se) {
			lines = append(lines, sayField(se))
			return
		}
		s := err.Error()
		if i := strings.Index(s, "\nSchema:"); i >= 0 {
			s = s[:i]
		}
		lines = append(lines, strings.ReplaceAll(s, "\n", " "))
	}
	walk(err)
	slices.Sort(lines)
	return strings.Join(slices.Compact(lines), "; ")
}

// validateJSON checks body against schema as the document's 3.1 dialect reads it.
func validateJSON(schema *openapi3.Schema, body []byte) error {
	var v any
	if err := json.Unmarshal(body, &v); err != nil {
		return fmt.Errorf("not JSON: %w", err)
	}
	return schema.VisitJSON(v, openapi3.EnableJSONSchema2020(), openapi3.MultiErrors())
}

// Wrap returns h with every exchange checked: for a whole console (server tests).
func (c *Checker) Wrap(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !isAPI(r.URL.Path) {
			h.ServeHTTP(w, r)
			return
		}
		ex := &exchange{req: r, caller: testCaller()}
		ex.reqBody = readBody(r)
		tw := &teeWriter{ResponseWriter: w}
		h.ServeHTTP(tw, r)
		ex.status, ex.header, ex.body = tw.code(), w.Header(), tw.buf.Bytes()
		c.check(ex)
	})
}

// Gin is Wrap as gin middleware, for test routers built with gin.New: use it before
// registering routes.
func (c *Checker) Gin() gin.HandlerFunc {
	return func(gc *gin.Context) {
		if !isAPI(gc.Request.URL.Path) {
			gc.Next()
			return
		}
		ex := &exchange{req: gc.Request, caller: testCaller()}
		ex.reqBody = readBody(gc.Request)
		tw := &ginTee{ResponseWriter: gc.Writer}
		gc.Writer = tw
		gc.Next()
		ex.status, ex.header, ex.body = tw.Status(), tw.Header(), tw.buf.Bytes()
		c.check(ex)
	}
}

// Transport returns a RoundTripper that checks every exchange through base: for tests
// that call a running console over HTTP.
func (c *Checker) Transport(base http.RoundTripper) http.RoundTripper {
	return roundTripper(func(r *http.Request) (*http.Response, error) {
		if !isAPI(r.URL.Path) {
			return base.RoundTrip(r)
		}
		ex := &exchange{req: r, caller: testCaller()}
		ex.reqBody = readBody(r)
		res, err := base.RoundTrip(r)
		if err != nil {
			return res, err
		}
		body, rerr := io.ReadAll(res.Body)
		res.Body.Close()
		res.Body = io.NopCloser(bytes.NewReader(body))
		if rerr != nil {
			return res, nil // the caller sees the short body; nothing to check
		}
		ex.status, ex.header, ex.body = res.StatusCode, res.Header, body
		c.check(ex)
		return res, nil
	})
}

type roundTripper func(*http.Request) (*http.Response, error)

func (f roundTripper) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// readBody reads r's body and puts it back for the handler.
func readBody(r *http.Request) []byte {
	if r.Body == nil || r.Body == http.NoBody {
		return nil
	}
	b, _ := io.ReadAll(r.Body)
	r.Body.Close()
	r.Body = io.NopCloser(bytes.NewReader(b))
	if r.GetBody != nil {
		r.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(b)), nil }
	}
	return b
}

// teeWriter keeps a copy of what is written.
type teeWriter struct {
	http.ResponseWriter
	status int
	buf    bytes.Buffer
}

func (w *teeWriter) WriteHeader(code int) {
	if w.status == 0 {
		w.status = code
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *teeWriter) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	w.buf.Write(b)
	return w.ResponseWriter.Write(b)
}

func (w *teeWriter) code() int {
	if w.status == 0 {
		return http.StatusOK
	}
	return w.status
}

// Unwrap lets http.ResponseController reach the writer underneath (flushes, deadlines).
func (w *teeWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

func (w *teeWriter) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// ginTee keeps a copy of what a gin handler writes.
type ginTee struct {
	gin.ResponseWriter
	buf bytes.Buffer
}

func (w *ginTee) Write(b []byte) (int, error) {
	w.buf.Write(b)
	return w.ResponseWriter.Write(b)
}

func (w *ginTee) WriteString(s string) (int, error) {
	w.buf.WriteString(s)
	return w.ResponseWriter.WriteString(s)
}

// testCaller is the test that sent the request: the line of its Test function (or of the
// innermost _test.go frame when none is found); "" when the request is served on a
// goroutine of its own, as through a test server.
func testCaller() string {
	pcs := make([]uintptr, 64)
	n := runtime.Callers(3, pcs)
	frames := runtime.CallersFrames(pcs[:n])
	inner := ""
	for {
		f, more := frames.Next()
		if strings.HasSuffix(f.File, "_test.go") {
			at := shortFile(f.File) + ":" + strconv.Itoa(f.Line)
			if strings.Contains(f.Function, ".Test") {
				return at
			}
			if inner == "" {
				inner = at
			}
		}
		if !more {
			return inner
		}
	}
}

func shortFile(path string) string {
	parts := strings.Split(path, "/")
	if len(parts) >= 2 {
		return parts[len(parts)-2] + "/" + parts[len(parts)-1]
	}
	return path
}
