package handlers

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/gin-gonic/gin"

	"rmqconsole/i18n"
	"rmqconsole/lookup"
	"rmqconsole/views"
)

// Messages serves message lookup: the search page and its API, the exports, the detail
// page, the body download and the topic list.
type Messages struct {
	*Env
	// Lookup runs the queries; nil when no NameServer is configured.
	Lookup *lookup.Service
	// Now is the clock for default and quick ranges; time.Now when nil.
	Now func() time.Time
	// Heavy caps the time-range searches running at once; nil means no cap.
	Heavy *HeavyGate
}

func (h *Messages) now() time.Time {
	if h.Now != nil {
		return h.Now()
	}
	return time.Now()
}

// msgOutcome is a search that ran: exactly one of the results is set.
type msgOutcome struct {
	rangeQ   lookup.RangeQuery
	keyQ     lookup.KeyQuery
	rangeRes *lookup.Result
	keyRes   *lookup.Result
	idRes    *lookup.IDResult
	took     time.Duration
}

// runSearch validates the form and runs the search its tab asks for. Bad input comes
// back as field errors, before any broker is asked; an error is a search that could not
// run (no broker answered, or the id names no message).
func (h *Messages) runSearch(ctx context.Context, f *msgSearchForm, page bool) (*msgOutcome, *msgBadForm, error) {
	out := &msgOutcome{}
	l := i18n.From(ctx)
	start := time.Now()
	var err error
	switch f.tab {
	case views.TabKey:
		q, errs := f.keyQuery(l)
		if len(errs) > 0 {
			return nil, msgAlsoTopic(l, errs, f.form.Topic), nil
		}
		out.keyQ = q
		out.keyRes, err = h.Lookup.ByKey(ctx, q)
	case views.TabID:
		out.idRes, err = h.Lookup.ByID(ctx, f.idQuery())
	default:
		q, errs := f.rangeQuery(l, h.now(), page)
		if len(errs) > 0 {
			return nil, msgAlsoTopic(l, errs, f.form.Topic), nil
		}
		out.rangeQ = q
		out.rangeRes, err = h.Lookup.ByRange(ctx, q)
	}
	out.took = time.Since(start)
	if bad, ok := msgInputError(l, err); ok {
		return nil, bad, nil
	}
	if err != nil {
		return nil, nil, err
	}
	return out, nil, nil
}

// msgAlsoTopic adds the topic's problem to errors found while reading the form, so the
// user sees every wrong field at once.
func msgAlsoTopic(l *i18n.Localizer, errs msgFieldErrors, topic string) *msgBadForm {
	bad := &msgBadForm{fields: errs, l: l}
	if err := lookup.CheckTopic(topic); errors.As(err, &bad.input) {
		errs["topic"] = lookupSay(l, bad.input)
	}
	return bad
}

// Search is GET /messages: the search form, and the result when the form was sent.
// Requests from htmx get only the result (and the form's error lines).
func (h *Messages) Search(c *gin.Context) {
	f := parseMsgSearchForm(c)
	if f.rowsOnly && f.tab == views.TabRange && h.Lookup != nil {
		h.rows(c, &f)
		return
	}
	vm := views.MessagesVM{Configured: h.Lookup != nil, Tab: f.tab, ShowSystem: f.sys}
	l := i18n.From(c.Request.Context())
	status := http.StatusOK
	if h.Lookup != nil {
		ctx := c.Request.Context()
		topics, err := h.Lookup.TopicNames(ctx, f.sys)
		if err != nil {
			vm.TopicsError = sayErr(l, err)
		}
		vm.Topics = topics
		if f.submitted {
			leave, err := h.enterHeavy(c, &f)
			var out *msgOutcome
			var bad *msgBadForm
			if err == nil {
				defer leave() // the result is held until the page is written
				out, bad, err = h.runSearch(ctx, &f, true)
			}
			switch {
			case bad != nil:
				status = http.StatusUnprocessableEntity
				vm.FieldErrors = bad.fields
				shownAll(&f.form.Topic, &f.form.Begin, &f.form.End, &f.form.Tag, &f.form.Key, &f.form.ID)
				vm.Result = &views.MessagesResult{}
			case err != nil:
				status, _ = errorStatus(err)
				vm.Result = &views.MessagesResult{Error: msgSearchError(l, err)}
			case out.idRes != nil && len(out.idRes.Copies) == 0 && len(out.idRes.Failures) == 0:
				// One message: open it by the id as typed, so its page says which
				// kind matched. Not when a broker did not answer: another copy may be
				// there, and the message's page would wait for that broker once more.
				to := "/messages/" + url.PathEscape(strings.TrimSpace(f.form.ID)) + "?topic=" + url.QueryEscape(out.idRes.Message.Topic)
				if isHTMX(c) {
					c.Header("HX-Redirect", to)
					c.Status(http.StatusOK)
					return
				}
				c.Redirect(http.StatusSeeOther, to)
				return
			default:
				vm.Result = msgResultVM(l, out)
				vm.Result.Took = out.took.Round(time.Millisecond).String()
				if out.rangeRes != nil {
					if c, ok := out.rangeRes.Older(out.rangeQ); ok {
						vm.Result.OlderURL = msgSearchURL("/messages", f, url.Values{"end": {strconv.FormatInt(c.End.UnixMilli(), 10)},
							"skip": {strconv.Itoa(c.Skip)}})
					}
				}
				if out.rangeRes != nil {
					vm.Result.Rows, vm.Result.More = msgPage(l, f, out.rangeQ, out.rangeRes, len(out.rangeRes.Messages))
					vm.Result.Continued = msgContinued(l, f, out.rangeQ)
					vm.Result.Resend = resendSearchVM(c, out.rangeQ.Topic, out.rangeRes.Messages, out.rangeRes.Truncated)
				}
				if out.keyRes != nil {
					vm.Result.Resend = resendSearchVM(c, out.keyQ.Topic, out.keyRes.Messages, out.keyRes.Truncated)
				}
				// The exports hold every row of this result, not only the first page's.
				exp := f.cursor()
				exp.Set("format", "csv")
				vm.Result.ExportCSV = msgSearchURL("/messages/export", f, exp)
				exp.Set("format", "json")
				vm.Result.ExportJS = msgSearchURL("/messages/export", f, exp)
			}
		}
	}
	vm.Form = f.form
	vm.QuickRanges = msgQuickRanges(l, f, h.now())
	if isHTMX(c) && c.GetHeader("HX-History-Restore-Request") != "true" {
		h.renderFragment(c, status, views.MessagesFragment(vm))
		return
	}
	h.render(c, status, h.page(c, l.T("messages.title"), "messages"), views.MessagesPage(vm))
}

func msgResultVM(l *i18n.Localizer, out *msgOutcome) *views.MessagesResult {
	switch {
	case out.keyRes != nil:
		return msgKeyResultVM(l, out.keyQ, out.keyRes)
	case out.idRes != nil:
		return msgIDResultVM(l, out.idRes)
	default:
		return msgRangeResultVM(l, out.rangeQ, out.rangeRes)
	}
}

// msgSearchError is the sentence shown when a search could not run.
func msgSearchError(l *i18n.Localizer, err error) string {
	var ue *UserError // a sentence of its own, such as "too many searches at once"
	if errors.Is(err, lookup.ErrNotFound) || errors.As(err, &ue) {
		return lookupErrorText(l, err)
	}
	if s, ok := sayRefusal(l, "", err); ok {
		return l.T("messages.error.refused", "Refusal", s)
	}
	return l.T("messages.error", "Error", sayErr(l, err))
}

// API is GET /api/v1/messages: a range query (topic, begin, end[, tag][, limit]), a key
// query (topic, key[, begin, end]) or, with id, an id lookup. With format=csv or
// format=json the answer is the same export the page offers.
func (h *Messages) API(c *gin.Context) {
	if h.Lookup == nil {
		h.Fail(c, msgNoCluster(c))
		return
	}
	f := parseMsgSearchForm(c)
	if format := c.Query("format"); format != "" {
		h.export(c, f, format)
		return
	}
	leave, err := h.enterHeavy(c, &f)
	if err != nil {
		h.Fail(c, err)
		return
	}
	defer leave()
	out, bad, err := h.runSearch(c.Request.Context(), &f, false)
	switch {
	case bad != nil:
		h.Fail(c, bad.apiError())
	case err != nil:
		h.Fail(c, err)
	case out.idRes != nil:
		c.JSON(http.StatusOK, msgByIDJSON(out.idRes, nil))
	case out.keyRes != nil:
		c.JSON(http.StatusOK, messagesJSON(out.keyRes, nil))
	default:
		c.JSON(http.StatusOK, messagesJSON(out.rangeRes, &out.rangeQ))
	}
}

// mergeSlaveReads adds to a the brokers of b it does not name yet.
func mergeSlaveReads(a, b []lookup.SlaveRead) []lookup.SlaveRead {
	out := slices.Clone(a)
	for _, s := range b {
		if !slices.ContainsFunc(out, func(o lookup.SlaveRead) bool { return o.Broker == s.Broker }) {
			out = append(out, s)
		}
	}
	return out
}

// msgNoCluster answers API calls on a console without a NameServer.
func msgNoCluster(c *gin.Context) *UserError {
	return &UserError{Status: http.StatusServiceUnavailable, Code: "no_cluster",
		Message: i18n.From(c.Request.Context()).T("messages.api.nocluster")}
}

func msgByIDJSON(r *lookup.IDResult, groups *lookup.GroupStates) MessageByIDJSON {
	j := MessageByIDJSON{Message: messageJSON(r.Message), IDKind: r.Kind.String(), Groups: msgGroupsJSON(nil),
		Errors: msgBrokerErrorsJSON(r.Failures), FromSlaves: r.FromSlaves}
	if groups != nil {
		j.Groups = msgGroupsJSON(groups.States)
		j.Errors = append(j.Errors, msgBrokerErrorsJSON(groups.Failures)...)
		j.FromSlaves = mergeSlaveReads(j.FromSlaves, groups.FromSlaves)
	}
	for _, m := range r.Copies {
		j.Copies = append(j.Copies, messageJSON(m))
	}
	return j
}
