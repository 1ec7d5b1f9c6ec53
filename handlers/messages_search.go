package handlers

import (
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/gin-gonic/gin"

	"rmqconsole/decoder"
	"rmqconsole/fault"
	"rmqconsole/filter"
	"rmqconsole/i18n"
	"rmqconsole/lookup"
	"rmqconsole/masking"
	"rmqconsole/rights"
	"rmqconsole/rocketmq"
	"rmqconsole/store"
	"rmqconsole/views"
)

// BodyDecoder reads a message's body by its topic's decoder; *decoding.Service
// implements it.
type BodyDecoder interface {
	Decode(clusterName string, m *rocketmq.Message) decoder.Decoded
}

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
	// Decoders read bodies by their topics' decoders (package decoding: the config
	// file's and the console's); nil reads every body as JSON, text or hex.
	// ClusterName is the name the file's entries may be limited to.
	Decoders    BodyDecoder
	ClusterName string
	// Reads records every answer that shows message bodies; nil records nothing.
	Reads *ReadAudit
	// Tails runs the live tails of topics; nil when no NameServer is configured.
	Tails TailSource
	// Masking hides from readers without the right to read bodies what its rules
	// cover; nil hides nothing.
	Masking *masking.Policy
}

func (h *Messages) now() time.Time {
	if h.Now != nil {
		return h.Now()
	}
	return time.Now()
}

// msgOutcome is a search that ran: exactly one of the results is set. leave gives back
// the heavy gate's slot a range search holds until its result is written.
type msgOutcome struct {
	rangeQ   lookup.RangeQuery
	keyQ     lookup.KeyQuery
	rangeRes *lookup.Result
	keyRes   *lookup.Result
	idRes    *lookup.IDResult
	took     time.Duration
	leave    func()
}

// runSearch validates the form and runs the search its tab asks for. Bad input is
// Invalid faults on their fields (fault.All), found before any broker is asked; another
// error is a search that could not run (too many at once, no broker answered, the id
// names no message). The caller calls out.leave once the result is written.
func (h *Messages) runSearch(c *gin.Context, f *msgSearchForm, page bool) (*msgOutcome, error) {
	ctx := c.Request.Context()
	out := &msgOutcome{leave: func() {}}
	start := time.Now()
	mk := h.masker(c)
	var err error
	switch f.tab {
	case views.TabKey:
		if out.keyQ, err = h.keyQuery(c, f); err != nil {
			return nil, err
		}
		q := out.keyQ
		q.Filter = maskedFilter(mk, q.Filter)
		if out.keyRes, err = h.Lookup.ByKey(ctx, q); err == nil {
			maskMessages(mk, out.keyRes.Messages)
		}
	case views.TabID:
		if out.idRes, err = h.Lookup.ByID(ctx, f.idQuery()); err == nil {
			// The id named no topic the access check could see: the message's own.
			if t := out.idRes.Message.Topic; !MayTopic(c, t, rights.ReadBodies) {
				out.idRes = nil
				return nil, CallerRights(c).Refusal(rights.Topic, t, rights.ReadBodies)
			}
			out.idRes.Message = maskMessage(mk, out.idRes.Message)
			maskMessages(mk, out.idRes.Copies)
		}
	default:
		if out.rangeQ, err = h.rangeQuery(c, f, page); err != nil {
			return nil, err
		}
		if out.leave, err = h.enterHeavy(c); err != nil {
			return nil, err
		}
		q := out.rangeQ
		q.Filter = maskedFilter(mk, q.Filter)
		if out.rangeRes, err = h.Lookup.ByRange(ctx, q); err != nil {
			out.leave()
		} else {
			maskMessages(mk, out.rangeRes.Messages)
		}
	}
	out.took = time.Since(start)
	if err != nil {
		return nil, err
	}
	return out, nil
}

// masker is how the caller reads bodies on this cluster (package masking decides);
// nil when nothing is masked.
func (h *Messages) masker(c *gin.Context) *masking.Masker {
	return h.Masking.For(CallerRole(c), h.ClusterName)
}

// maskedFilter is f judging messages as mk's reader sees them: a reader who filters on
// a masked value must not learn it by which rows match.
func maskedFilter(mk *masking.Masker, f *filter.Filter) *filter.Filter {
	if mk == nil {
		return f
	}
	return f.MaskedBy(mk.Reader(), mk.Masked)
}

// maskMessage is m as mk's reader may see it.
func maskMessage(mk *masking.Masker, m lookup.Message) lookup.Message {
	if out, ok := mk.Message(m.Message); ok {
		m.Message, m.Masked = out, true
	}
	return m
}

// maskMessages masks ms in place.
func maskMessages(mk *masking.Masker, ms []lookup.Message) {
	for i := range ms {
		ms[i] = maskMessage(mk, ms[i])
	}
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
		vm.Topics = visibleTopicNames(c, topics)
		if f.submitted && wantsDeepScan(c, &f) {
			status = h.scanPage(c, &f, &vm)
		} else if f.submitted {
			out, err := h.runSearch(c, &f, true)
			if out != nil {
				defer out.leave() // the result is held until the page is written
			}
			switch {
			case fault.Is(err, fault.Invalid):
				status = http.StatusUnprocessableEntity
				vm.FieldErrors = msgFieldErrors(l, err)
				shownAll(&f.form.Topic, &f.form.Begin, &f.form.End, &f.form.Tag, &f.form.Key, &f.form.ID,
					&f.form.Where, &f.form.BodyContains, &f.form.BodyRegex, &f.form.JSON, &f.form.JSONOp, &f.form.JSONValue)
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
				// The rows show the start of each body: a read, as the API's answer is.
				h.recordList(c, store.ReadListMode, f.form.Topic, "page", len(vm.Result.Rows))
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

// msgSearchError is the sentence shown when a search could not run: its own (the
// message was not found, too many searches at once), a refusal, or a failure.
func msgSearchError(l *i18n.Localizer, err error) string {
	if s, ok := sayFaults(l, err); ok {
		return s
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
		h.Fail(c, errNoCluster())
		return
	}
	f := parseMsgSearchForm(c)
	if format := c.Query("format"); format != "" {
		h.export(c, f, format)
		return
	}
	if wantsDeepScan(c, &f) {
		h.scanAPI(c, &f)
		return
	}
	out, err := h.runSearch(c, &f, false)
	if out != nil {
		defer out.leave()
	}
	switch {
	case err != nil:
		h.Fail(c, msgFirstProblem(err))
	case out.idRes != nil:
		h.recordBody(c, out.idRes.Message, "api")
		c.JSON(http.StatusOK, msgByIDJSON(out.idRes, nil))
	case out.keyRes != nil:
		h.recordList(c, store.ReadListMode, f.form.Topic, "api", len(out.keyRes.Messages))
		c.JSON(http.StatusOK, messagesJSON(out.keyRes, nil))
	default:
		h.recordList(c, store.ReadListMode, f.form.Topic, "api", len(out.rangeRes.Messages))
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

func msgByIDJSON(r *lookup.IDResult, groups *lookup.GroupStates) MessageByIDJSON {
	j := MessageByIDJSON{Message: messageJSON(r.Message), IDKind: r.Kind.String(), Groups: msgGroupsJSON(nil),
		Failures: r.Failures, Errors: msgBrokerErrorsJSON(r.Failures), FromSlaves: r.FromSlaves, Searched: r.Searched}
	if groups != nil {
		j.Groups = msgGroupsJSON(groups.States)
		j.Failures = append(slices.Clone(j.Failures), groups.Failures...)
		j.Errors = append(j.Errors, msgBrokerErrorsJSON(groups.Failures)...)
		j.FromSlaves = mergeSlaveReads(j.FromSlaves, groups.FromSlaves)
	}
	for _, m := range r.Copies {
		j.Copies = append(j.Copies, messageJSON(m))
	}
	return j
}
