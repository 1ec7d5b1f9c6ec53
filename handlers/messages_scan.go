package handlers

import (
	"context"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/a-h/templ"
	"github.com/gin-gonic/gin"

	"rmqconsole/fault"
	"rmqconsole/i18n"
	"rmqconsole/lookup"
	"rmqconsole/store"
	"rmqconsole/views"
)

// scanDeep is the value of the scan parameter that asks for a deep scan.
const scanDeep = "deep"

// wantsDeepScan reports whether a range search asks to read its whole range.
func wantsDeepScan(c *gin.Context, f *msgSearchForm) bool {
	return f.tab == views.TabRange && c.Query("scan") == scanDeep
}

// scanQuery is the form's range query as a deep scan, with the budget and time the
// request sets (scanBudget in messages, scanTime as a Go duration or in seconds).
func (h *Messages) scanQuery(c *gin.Context, f *msgSearchForm) (lookup.ScanQuery, error) {
	rq, err := h.rangeQuery(c, f, true)
	q := lookup.ScanQuery{RangeQuery: rq}
	var errs fault.List
	if fe, ok := err.(fault.List); ok {
		errs = fe
	} else if err != nil {
		return q, err
	}
	if s := c.Query("scanBudget"); s != "" {
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil || n <= 0 {
			errs.Add(fault.InvalidField("scanBudget", "lookup.scan.budget", "Max", lookup.MaxScanBudget).Because("bad_scan_budget"))
		}
		q.Budget = n
	}
	if s := c.Query("scanTime"); s != "" {
		d, err := time.ParseDuration(s)
		if n, nerr := strconv.Atoi(s); nerr == nil {
			d, err = time.Duration(n)*time.Second, nil
		}
		if err != nil || d <= 0 {
			errs.Add(fault.InvalidField("scanTime", "lookup.scan.time", "Max", lookup.MaxScanTime.String()).Because("bad_scan_time"))
		}
		q.Time = d
	}
	if err := errs.Err(); err != nil {
		return q, err
	}
	q.Filter = maskedFilter(h.masker(c), q.Filter)
	return q, q.Validate()
}

// ScanJSON answers GET /api/v1/messages?...&scan=deep: the matches kept (newest first),
// and what the scan read.
type ScanJSON struct {
	MessagesJSON
	Scanned int64 `json:"scanned"`
	InRange int64 `json:"inRange"`
	Matched int64 `json:"matched"`
	// Ended says why the scan ended: done (the whole range read), budget, time, stopped.
	Ended  string `json:"ended"`
	TookMs int64  `json:"tookMs"`
}

// scanAPI runs a deep scan to its end and answers it.
func (h *Messages) scanAPI(c *gin.Context, f *msgSearchForm) {
	q, err := h.scanQuery(c, f)
	if err != nil {
		h.Fail(c, msgFirstProblem(err))
		return
	}
	leave, err := h.enterHeavy(c)
	if err != nil {
		h.Fail(c, err)
		return
	}
	defer leave()
	res, err := h.Lookup.Scan(c.Request.Context(), q, lookup.ScanSink{})
	if err != nil {
		h.Fail(c, err)
		return
	}
	maskMessages(h.masker(c), res.Messages)
	h.recordList(c, store.ReadListMode, f.form.Topic, "api", len(res.Messages))
	// Without a range query messagesJSON leaves the range's counts out: ScanJSON has them.
	r := &lookup.Result{Messages: res.Messages, Limit: lookup.ScanKeep, Truncated: res.Matched > int64(len(res.Messages)),
		Total: res.Matched, Failures: res.Failures}
	c.JSON(http.StatusOK, ScanJSON{MessagesJSON: messagesJSON(r, nil), Scanned: res.Scanned, InRange: res.InRange,
		Matched: res.Matched, Ended: res.Ended, TookMs: res.Took.Milliseconds()})
}

// scanPage is /messages?...&scan=deep: the form, and a result section that opens the
// scan's websocket, which streams the matches into it.
func (h *Messages) scanPage(c *gin.Context, f *msgSearchForm, vm *views.MessagesVM) (status int) {
	l := i18n.From(c.Request.Context())
	if _, err := h.scanQuery(c, f); err != nil {
		if fault.Is(err, fault.Invalid) {
			vm.FieldErrors = msgFieldErrors(l, err)
			vm.Result = &views.MessagesResult{}
			return http.StatusUnprocessableEntity
		}
		vm.Result = &views.MessagesResult{Error: msgSearchError(l, err)}
		status, _ = errorStatus(err)
		return status
	}
	extra := url.Values{"scan": {scanDeep}}
	for _, k := range []string{"scanBudget", "scanTime"} {
		if s := c.Query(k); s != "" {
			extra.Set(k, s)
		}
	}
	vm.Result = &views.MessagesResult{Scan: &views.ScanVM{WSURL: msgSearchURL("/ws/messages/scan", *f, extra)}}
	return http.StatusOK
}

// ScanWS is GET /ws/messages/scan: a deep scan streamed to the page. Each match found
// is appended to the table and the progress line redrawn; any message from the page
// (its Stop button) or the page going away stops the scan. The last frame says how it
// ended, or why it could not start (a bad query, every heavy-query slot taken), and
// removes the socket's element, so the page does not reconnect: a refused handshake
// would make it reconnect again and again without a word.
func (h *Messages) ScanWS(c *gin.Context) {
	if h.Lookup == nil {
		h.Fail(c, errNoCluster())
		return
	}
	conn, err := wsUpgrader.Upgrade(c.Writer, c.Request, nil)
	if err != nil {
		return // the upgrader has answered (403 for another origin)
	}
	defer conn.Close()
	ctx, stop := context.WithCancel(c.Request.Context())
	defer stop()
	l := i18n.From(ctx)
	w := &wsFrames{conn: conn, base: h.Base, stop: stop}
	send := func(comp templ.Component) { w.sendHTML(ctx, comp) }
	closeWith := w.close
	progress := func(p lookup.ScanProgress) string {
		return l.T("messages.scan.progress", "Scanned", p.Scanned, "InRange", p.InRange, "Matched", p.Matched)
	}
	f := parseMsgSearchForm(c)
	q, err := h.scanQuery(c, &f)
	mk := h.masker(c)
	leave := func() {}
	if err == nil {
		leave, err = h.enterHeavy(c)
	}
	if err != nil {
		send(views.ScanEnd(progress(lookup.ScanProgress{}), msgSearchError(l, msgFirstProblem(err)), nil))
		closeWith("refused")
		return
	}
	// The slot is free once the scan is over, before the page hears that it ended.
	leave = sync.OnceFunc(leave)
	defer leave()
	go func() {
		// Any message is the Stop button; a read error the page gone.
		conn.SetReadLimit(4096)
		_, _, _ = conn.ReadMessage()
		stop()
	}()
	shown := 0
	res, err := h.Lookup.Scan(ctx, q, lookup.ScanSink{
		Matches: func(ms []lookup.Message, p lookup.ScanProgress) {
			ms = slices.Clone(ms[:min(len(ms), lookup.ScanKeep-shown)])
			maskMessages(mk, ms)
			rows := msgRows(l, ms)
			shown += len(rows)
			if len(rows) > 0 {
				send(views.ScanRows(rows))
			}
			send(views.ScanFrame(progress(p)))
		},
		Progress: func(p lookup.ScanProgress) { send(views.ScanFrame(progress(p))) },
	})
	leave()
	if err != nil {
		send(views.ScanEnd(progress(lookup.ScanProgress{}), msgSearchError(l, err), nil))
		return
	}
	// The rows shown held bodies' previews: a read, like a results page.
	h.recordList(c, store.ReadListMode, f.form.Topic, "page", shown)
	fails := msgFailures(l, res.Failures)
	ended := l.T("messages.scan.ended."+res.Ended, "Took", res.Took.Round(time.Millisecond).String(), "Kept", lookup.ScanKeep)
	if res.Matched == 0 && res.Ended == lookup.ScanDone {
		// The whole range was read: an empty table says what was looked for, and where.
		ended += " " + l.T("messages.empty.range", "What", msgRangeWhat(l, q.RangeQuery), "When", msgRangeText(l, q.Begin, q.End))
	}
	send(views.ScanEnd(progress(res.ScanProgress), ended, fails))
	closeWith(res.Ended)
}
