// Package handlers holds the console's HTTP handlers, one file per page or action. Each
// handler parses and validates its input, calls one service, builds a view model and
// renders it — as HTML for pages and as JSON under /api/v1.
package handlers

import (
	"bytes"
	"context"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/a-h/templ"
	"github.com/gin-gonic/gin"

	"rmqconsole/alerts"
	"rmqconsole/cluster"
	"rmqconsole/fault"
	"rmqconsole/i18n"
	"rmqconsole/rights"
	"rmqconsole/rocketmq"
	"rmqconsole/views"
)

// Env is what every handler may use: the logger, the page chrome and whether the
// request wants only a fragment (htmx).
type Env struct {
	Log *slog.Logger
	// Warning is shown on every page (e.g. auth disabled on a public address).
	Warning string
	// Base is the URL prefix of the cluster these handlers serve ("" for the default
	// cluster): every page and fragment they write is rebased onto it.
	Base ClusterBase
	// Cluster is the header's cluster tag and switch; nil with one cluster.
	Cluster *views.ClusterChrome
	// Firing counts the alerts firing now, for the navigation; nil: no alerts.
	Firing func(ctx context.Context) (int, error)
	// FiringNow lists them, for the navigation of a caller whose rights narrow what they
	// see: only the alerts on brokers and on their groups are counted.
	FiringNow func(ctx context.Context) ([]alerts.FiringAlert, error)
}

// firingReadTimeout bounds the navigation's read of the alert states: a slow database
// delays no page by more.
const firingReadTimeout = 500 * time.Millisecond

// page returns the chrome of a page for this request.
func (e *Env) page(c *gin.Context, title, nav string) views.Page {
	p := e.chrome(c, title, nav)
	if e.Firing != nil {
		ctx, cancel := context.WithTimeout(c.Request.Context(), firingReadTimeout)
		defer cancel()
		// A failed read shows no count; the alerts page and /metrics name the failure.
		if CallerRights(c).Limited() && e.FiringNow != nil {
			firing, _ := e.FiringNow(ctx)
			p.Firing = len(visibleFiring(c, firing))
		} else {
			p.Firing, _ = e.Firing(ctx)
		}
	}
	return p
}

// chrome is page without the firing count, for a page that has read the firing alerts
// itself (the overview) and need not read them twice.
func (e *Env) chrome(c *gin.Context, title, nav string) views.Page {
	return views.Page{Title: title, Nav: nav, Warning: e.Warning, User: SignedInUser(c), Cluster: e.Cluster, Base: string(e.Base),
		NoAudit: !CallerRights(c).Allows(rights.Cluster, "", rights.ReadAudit)}
}

// render writes a full page: layout around body. It renders into a buffer first, so a
// failing component never leaves half a page on the wire.
func (e *Env) render(c *gin.Context, status int, p views.Page, body templ.Component) {
	e.renderComponent(c, status, templ.ComponentFunc(func(ctx context.Context, w io.Writer) error {
		return views.Layout(p).Render(templ.WithChildren(ctx, body), w)
	}))
}

// renderFragment writes only body: for htmx requests that swap part of a page.
func (e *Env) renderFragment(c *gin.Context, status int, body templ.Component) {
	e.renderComponent(c, status, body)
}

// renderPageOrFragment answers htmx requests with the fragment and others with the page.
func (e *Env) renderPageOrFragment(c *gin.Context, status int, p views.Page, body templ.Component) {
	if isHTMX(c) {
		e.renderFragment(c, status, body)
		return
	}
	e.render(c, status, p, body)
}

func (e *Env) renderComponent(c *gin.Context, status int, comp templ.Component) {
	var buf bytes.Buffer
	if err := comp.Render(c.Request.Context(), &buf); err != nil {
		e.Log.Error("render page", "path", c.Request.URL.Path, "err", err)
		c.Data(http.StatusInternalServerError, "text/plain; charset=utf-8",
			[]byte(i18n.From(c.Request.Context()).T("error.render")+"\n"))
		return
	}
	c.Data(status, "text/html; charset=utf-8", e.Base.HTML(buf.Bytes()))
}

func isHTMX(c *gin.Context) bool { return c.GetHeader("HX-Request") == "true" }

// isAPI reports whether the request is for the JSON API.
func isAPI(c *gin.Context) bool { return strings.HasPrefix(c.Request.URL.Path, "/api/") }

// APIError is the JSON body of every API error.
type APIError struct {
	Error string `json:"error"`
	Code  string `json:"code"`
	// Kind is the error's fault code (invalid, not_found, …) where the service said one;
	// Code may name it more finely.
	Kind string `json:"kind,omitempty"`
	// Field names the input the error concerns, when it concerns one.
	Field string `json:"field,omitempty"`
}

// Fail answers an error in the form the request wants: JSON for the API, a page otherwise.
// The status and code come from the error (see errorStatus); an error of the console
// itself (the database, a bug) is logged with the operation that failed.
func (e *Env) Fail(c *gin.Context, err error) {
	status, code := errorStatus(err)
	e.failWith(c, status, code, err)
}

// failInput is Fail for input a page refuses: 422 on the page, which says what to
// change, and 400 in the API (a form's field errors re-render the form instead).
func (e *Env) failInput(c *gin.Context, err error) {
	status, code := errorStatus(err)
	if status == http.StatusBadRequest && !isAPI(c) {
		status = http.StatusUnprocessableEntity
	}
	e.failWith(c, status, code, err)
}

// failWith answers err with status and the API code.
func (e *Env) failWith(c *gin.Context, status int, code string, err error) {
	switch {
	case status == statusClientClosed:
		// Nobody is left to read the answer: not the console's failure.
		e.Log.Debug("request cancelled by the client", "op", operation(c), "err", err)
	case status >= 500:
		e.Log.Error("request failed", "op", operation(c), "code", code, "err", err)
	}
	if isAPI(c) {
		failJSON(c, status, code, err)
		return
	}
	msg := errorMessage(c, err, code)
	e.render(c, status, e.page(c, statusText(i18n.From(c.Request.Context()), status), ""), views.ErrorPage(status, msg))
}

// failJSON writes the API's error answer, also for an API socket refused before its
// upgrade (whose path is not under /api/).
func failJSON(c *gin.Context, status int, code string, err error) {
	body := APIError{Error: errorMessage(c, err, code), Code: code}
	if fe := fault.As(err); fe != nil {
		body.Kind, body.Field = string(fe.Code), fe.Field
	}
	c.JSON(status, body)
}

// operation names what the request was doing, for the log: the method and the route
// pattern ("GET /audit/:id"), or the path when no route matched.
func operation(c *gin.Context) string {
	if p := c.FullPath(); p != "" {
		return c.Request.Method + " " + p
	}
	return c.Request.Method + " " + c.Request.URL.Path
}

// NotFound answers routes that do not exist: a page saying so, or for the API a JSON
// error pointing at the API's document.
func (e *Env) NotFound(c *gin.Context) {
	m := i18n.M("error.no_page", "Path", c.Request.URL.Path)
	if isAPI(c) {
		m = i18n.M("api.no_route", "Path", c.Request.URL.Path)
	}
	e.Fail(c, &fault.Error{Code: fault.NotFound, Msg: m})
}

// errNoCluster answers what needs a cluster on a console started without a NameServer
// (503, API code no_cluster): one sentence for every page and call.
func errNoCluster() error {
	return fault.New(fault.Unavailable, "error.no_cluster").Because("no_cluster")
}

// statusClientClosed is nginx's 499: the client went away before the answer was ready.
const statusClientClosed = 499

// sayRefusal is the sentence, in l's language, for a broker that refused the console's
// credentials, naming the access key and telling a missing permission from a bad
// signature (cluster.AccessMessage); ok is false when err is no such refusal. Every page
// that names a failed broker says a refusal this way, as the home page does.
func sayRefusal(l *i18n.Localizer, broker string, err error) (string, bool) {
	m, ok := refusalMessage(broker, err)
	if !ok {
		return "", false
	}
	return l.Say(m), true
}

func refusalMessage(broker string, err error) (i18n.Message, bool) {
	var ae *rocketmq.AccessError
	if !errors.As(err, &ae) {
		return i18n.Message{}, false
	}
	var bf cluster.BrokerFailure
	if broker == "" && errors.As(err, &bf) {
		broker = bf.Broker
	}
	if broker == "" {
		broker = ae.Addr
	}
	return cluster.AccessMessage(broker, err)
}

// sayFailure is a broker failure for a page, in l's language: the catalogue's prefixID
// around its refusal sentence when the broker refused the credentials, else around the
// failure.
func sayFailure(l *i18n.Localizer, prefixID string, f cluster.BrokerFailure) string {
	if s, ok := sayRefusal(l, f.Broker, f.Err); ok {
		return l.T(prefixID, "Failure", s)
	}
	return l.T(prefixID, "Failure", l.Say(f.Message()))
}

// sayFaults is every fault err carries, in l's language, one sentence after the other;
// ok is false when it carries none.
func sayFaults(l *i18n.Localizer, err error) (string, bool) {
	fes := fault.All(err)
	if len(fes) == 0 {
		return "", false
	}
	parts := make([]string, len(fes))
	for i, fe := range fes {
		parts[i] = fe.Say(l)
	}
	return strings.Join(parts, " "), true
}

// sayErr is err's words for a page in l's language: its faults, a refused access, a
// broker's failure, a connection that failed or an answer that did not come in the
// catalogues' words; any other error as it says itself.
func sayErr(l *i18n.Localizer, err error) string {
	if err == nil {
		return ""
	}
	if s, ok := sayFaults(l, err); ok {
		return s
	}
	if s, ok := sayRefusal(l, "", err); ok {
		return s
	}
	var bf cluster.BrokerFailure
	if errors.As(err, &bf) && err.Error() == bf.Error() {
		return l.Say(bf.Message())
	}
	if m, ok := cluster.ErrorMessage(err).(i18n.Message); ok {
		return l.Say(m)
	}
	return err.Error()
}

// sayFailures are a page's broker failures in l's language, one sentence each: the
// refusal sentence for a broker that refused the credentials, else what could not be
// read. A broker that refused several reads for the same reason is told once.
func sayFailures(l *i18n.Localizer, fs []cluster.BrokerFailure) []string {
	out := make([]string, 0, len(fs))
	for _, f := range fs {
		s, ok := sayRefusal(l, f.Broker, f.Err)
		if !ok {
			s = l.T("error.could_not_read", "Failure", l.Say(f.Message()))
		}
		if !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	return out
}

// sayFromSlaves says in l's language, per broker read from a slave, why and what came
// from it: whatID is the catalogue's words for the answer ("cluster.slave.what.rows").
func sayFromSlaves(l *i18n.Localizer, srs []cluster.SlaveRead, whatID string) []string {
	var out []string
	for _, s := range srs {
		out = append(out, l.Say(s.Message(i18n.M(whatID))))
	}
	return out
}

// errorStatus maps an error to its HTTP status and API code, in one table. Its default
// row is the console's own failure (500 internal): only an error that came from a
// RocketMQ server is answered as a broker failure.
func errorStatus(err error) (int, string) {
	if fe := fault.As(err); fe != nil {
		if status, ok := reasonStatus[fe.Reason]; ok {
			return status, fe.APICode()
		}
		if status, ok := brokersRefused(fe); ok {
			return status, fe.APICode()
		}
		return faultStatus[fe.Code], fe.APICode()
	}
	var bf cluster.BrokerFailure
	switch {
	case errors.Is(err, cluster.ErrNoBrokers):
		return http.StatusBadGateway, "no_brokers"
	case errors.As(err, new(*rocketmq.AccessError)):
		return http.StatusForbidden, "access_denied"
	case errors.As(err, new(*rocketmq.TimeoutError)), errors.As(err, &bf) && errors.As(bf.Err, new(*rocketmq.TimeoutError)):
		return http.StatusGatewayTimeout, "broker_timeout"
	case errors.As(err, new(*rocketmq.BrokerError)), errors.As(err, new(*rocketmq.ConnError)), errors.As(err, &bf):
		return http.StatusBadGateway, "broker_error"
	case errors.Is(err, context.Canceled):
		return statusClientClosed, "cancelled"
	case errors.Is(err, context.DeadlineExceeded):
		return http.StatusGatewayTimeout, "timeout"
	default:
		return http.StatusInternalServerError, "internal"
	}
}

// faultStatus is the HTTP status of each fault code.
var faultStatus = map[fault.Code]int{
	fault.Invalid:     http.StatusBadRequest,
	fault.NotFound:    http.StatusNotFound,
	fault.Conflict:    http.StatusConflict,
	fault.Refused:     http.StatusForbidden,
	fault.Unavailable: http.StatusServiceUnavailable,
	fault.Busy:        http.StatusServiceUnavailable,
	fault.Internal:    http.StatusInternalServerError,
}

// The reasons of the HTTP layer's own refusals, each answered with HTTP's status for it.
const (
	ReasonUnauthenticated  = "unauthenticated"    // Refused: 401
	ReasonMethodNotAllowed = "method_not_allowed" // Invalid: 405
	ReasonTooLarge         = "too_large"          // Invalid: 413
	ReasonUnknownHost      = "unknown_host"       // Refused: 421
)

// reasonStatus are the reasons of the HTTP layer's own refusals, which HTTP has a finer
// status for than their fault code's.
var reasonStatus = map[string]int{
	ReasonUnauthenticated:  http.StatusUnauthorized,
	ReasonMethodNotAllowed: http.StatusMethodNotAllowed,
	ReasonTooLarge:         http.StatusRequestEntityTooLarge,
	reasonMediaType:        http.StatusUnsupportedMediaType,
	ReasonUnknownHost:      http.StatusMisdirectedRequest,
}

// brokersRefused is the status of a change refused because brokers it concerns could not
// be read first (Unavailable, its reason the first failure's code, its cause the
// brokers' failures): that broker's failure, a gateway's 502, or 504 when it did not
// answer in time. A NameServer that did not answer is the cluster's unavailability (503),
// with the same reasons but no broker's failure behind it.
func brokersRefused(fe *fault.Error) (int, bool) {
	if fe.Code != fault.Unavailable || !errors.As(fe.Err, new(cluster.BrokerFailure)) {
		return 0, false
	}
	switch fe.Reason {
	case cluster.FailureError:
		return http.StatusBadGateway, true
	case cluster.FailureTimeout:
		return http.StatusGatewayTimeout, true
	}
	return 0, false
}

// errorMessage is the sentence shown for err. Errors meant for people are shown as they
// are; the others get a sentence saying who failed (a RocketMQ server, or the console).
func errorMessage(c *gin.Context, err error, code string) string {
	l := i18n.From(c.Request.Context())
	if fes := fault.All(err); len(fes) > 0 {
		parts := make([]string, len(fes))
		for i, fe := range fes {
			parts[i] = l.Say(storeSentence(c, fe))
		}
		return strings.Join(parts, " ")
	}
	var m i18n.Message
	if errors.As(err, &m) {
		return l.Say(m)
	}
	var sayer interface{ Say() i18n.Message }
	if errors.As(err, &sayer) {
		return l.Say(sayer.Say())
	}
	switch code {
	case "access_denied":
		if s, ok := sayRefusal(l, "", err); ok {
			return s
		}
	case "broker_timeout", "broker_error":
		return l.T("error.broker_failed", "Error", sayErr(l, err))
	case "timeout":
		return l.T("error.timeout", "Error", sayErr(l, err))
	case "cancelled":
		return l.T("error.cancelled")
	case "internal":
		return l.T("error.internal", "Op", operation(c), "Error", err.Error())
	}
	return err.Error()
}

// ActorKey is the gin context key under which authentication stores the signed-in
// user's name; audit entries record it.
const ActorKey = "actor"

// Actor returns who is making the request, for the audit log: the signed-in user, or
// "local" in single-user mode.
func Actor(c *gin.Context) string {
	if a := c.GetString(ActorKey); a != "" {
		return a
	}
	return "local"
}
