package handlers

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"strconv"
	"time"

	"github.com/a-h/templ"
	"github.com/gin-gonic/gin"
	"github.com/gorilla/websocket"

	"rmqconsole/fault"
	"rmqconsole/filter"
	"rmqconsole/i18n"
	"rmqconsole/lookup"
	"rmqconsole/masking"
	"rmqconsole/store"
	"rmqconsole/views"
)

// TailSource adds viewers to live tails: *lookup.Service, or a *lookup.TailHub over a
// fake in tests.
type TailSource interface {
	Tail(ctx context.Context, q lookup.TailQuery, admit lookup.Admit) (*lookup.TailViewer, error)
}

// framesHTML is the value of the frames parameter that asks the tail's socket for HTML
// frames (the page's); without it the frames are JSON (the API's). A query parameter,
// not a header: the page's htmx socket can set neither Accept nor a subprotocol.
const framesHTML = "html"

// tailQuery reads the topic and filter of a tail from the request, compiling the filter
// as the message search does; bad input is a fault.List with the topic's problem first.
func tailQuery(c *gin.Context, mk *masking.Masker) (lookup.TailQuery, filter.Query, error) {
	q := lookup.TailQuery{Topic: c.Param("topic")}
	fq := filter.QueryFrom(c.Query)
	var errs fault.List
	if !fq.IsZero() {
		flt, err := filter.Compile(fq)
		if err != nil {
			errs = append(errs, fault.All(err)...)
		}
		q.Filter = maskedFilter(mk, flt)
	}
	if err := msgAlsoTopic(errs, q.Topic); err != nil {
		return q, fq, err
	}
	return q, fq, q.Validate()
}

// TailPage is /topics/{topic}/tail: the filter form, and the tail's table, which its
// socket fills as messages are stored. Bad input re-renders the form with 422.
func (h *Messages) TailPage(c *gin.Context) {
	l := i18n.From(c.Request.Context())
	topic := c.Param("topic")
	q, fq, err := tailQuery(c, h.masker(c))
	vm := views.TailVM{Topic: topic, Action: views.TopicTailURL(topic),
		Filter: views.MessagesVM{Tab: "tail", Form: views.MessagesForm{Topic: topic, Where: fq.Where, BodyContains: fq.BodyContains,
			BodyRegex: fq.BodyRegex, JSON: fq.JSON, JSONOp: fq.JSONOp, JSONValue: fq.JSONValue}}}
	status := http.StatusOK
	switch {
	case h.Tails == nil:
		vm.Error = msgSearchError(l, errNoCluster())
		status = http.StatusServiceUnavailable
	case err != nil:
		vm.Filter.FieldErrors = msgFieldErrors(l, err)
		if e, ok := vm.Filter.FieldErrors["topic"]; ok {
			vm.Error = e
		}
		status = http.StatusUnprocessableEntity
	default:
		v := fq.Values()
		v.Set("frames", framesHTML)
		vm.WSURL = "/ws/topics/" + url.PathEscape(q.Topic) + "/tail?" + v.Encode()
	}
	h.render(c, status, h.page(c, l.T("tail.page", "Topic", views.Cut(topic)), "topics"), views.TailPage(vm))
}

// TailWS is GET /ws/topics/{topic}/tail[?where=...]: the topic's new messages as they
// are stored, one frame each, at most lookup.DefaultTailRate a second and then one
// frame with the count skipped; the tail's start and failing brokers as frames of their
// own. Any viewer may send {"action":"pause"} or {"action":"resume"}: pausing on the
// server rather than in the page sends nothing that would not be drawn, and the count
// of rows missed while paused is the same skipped count, one truth for both. The page's
// socket, reconnecting, says whether it was paused and its count (tailResume).
//
// Viewers of one topic and filter share one tail, which takes one heavy-query slot
// while it runs: the brokers' cost is the tail's, not the viewers'. The JSON frames
// carry bodies and the page's rows their previews, so each viewer is recorded in the
// audit log as a read, like a message list or a results page.
//
// Refusals (bad input, an unknown topic, every slot taken) are answered before the
// upgrade to an API client, with the usual error answer; the page gets them as the
// socket's last frame, so it does not reconnect without a word.
func (h *Messages) TailWS(c *gin.Context) {
	page := c.Query("frames") == framesHTML
	if h.Tails == nil {
		err := errNoCluster()
		status, code := errorStatus(err)
		failJSON(c, status, code, err)
		return
	}
	mk := h.masker(c)
	q, _, err := tailQuery(c, mk)
	if err == nil && (!websocket.IsWebSocketUpgrade(c.Request) || !sameOrigin(c.Request)) {
		// Nothing starts, and no read is recorded, for what the upgrader will refuse.
		_, _ = wsUpgrader.Upgrade(c.Writer, c.Request, nil)
		return
	}
	var v *lookup.TailViewer
	if err == nil {
		v, err = h.Tails.Tail(c.Request.Context(), q, func() (func(), error) { return h.enterHeavy(c) })
	}
	resume := tailResumeFrom(c, page)
	if v != nil && resume.paused {
		v.Pause(true) // before the first frame: a paused page that reconnects draws nothing
	}
	if err != nil && !page {
		err = msgFirstProblem(err)
		status, code := errorStatus(err)
		if status >= 500 {
			h.Log.Error("live tail refused", "op", operation(c), "code", code, "err", err)
		}
		failJSON(c, status, code, err)
		return
	}
	if v != nil {
		defer v.Close()
		format := "tail"
		if page {
			format = "tail-page"
		}
		h.recordList(c, store.ReadListMode, q.Topic, format, 0)
	}
	var header http.Header
	if s := c.Writer.Header().Get(UnrecordedHeader); s != "" {
		header = http.Header{UnrecordedHeader: {s}}
	}
	conn, uerr := wsUpgrader.Upgrade(c.Writer, c.Request, header)
	if uerr != nil {
		return // the upgrader has answered (403 for another origin)
	}
	defer conn.Close()
	ctx, stop := context.WithCancel(c.Request.Context())
	defer stop()
	w := &tailWriter{wsFrames: &wsFrames{conn: conn, base: h.Base, stop: stop}, l: i18n.From(ctx), page: page, skipped: resume.skipped, mask: mk}
	if err != nil {
		w.frame(ctx, lookup.TailFrame{Kind: lookup.TailEnded, Err: msgFirstProblem(err)})
		w.close("refused")
		return
	}
	go w.readPump(ctx, v)
	go w.pingPump(ctx)
	for {
		f, err := v.Next(ctx)
		if err != nil {
			break
		}
		if !w.frame(ctx, f) {
			break
		}
		if f.Kind == lookup.TailEnded {
			w.close("ended")
			break
		}
	}
}

// tailResume is the state a tail's page had when its socket dropped, which it sends
// again when it reconnects (?paused=1&skipped=N): the new viewer starts paused when the
// page was, and its count of rows not drawn goes on from the page's. Only the page's
// frames take it (an API client counts its skipped frames itself); a value that does not
// parse is the state of a page just opened.
type tailResume struct {
	paused  bool
	skipped int64
}

func tailResumeFrom(c *gin.Context, page bool) tailResume {
	if !page {
		return tailResume{}
	}
	n, err := strconv.ParseInt(c.Query("skipped"), 10, 64)
	if err != nil || n < 0 {
		n = 0
	}
	return tailResume{paused: c.Query("paused") == "1", skipped: n}
}

// tailWriter writes one viewer's frames: HTML for the page, JSON for the API. Writes
// are one at a time (the page's Pause is answered from the read pump).
type tailWriter struct {
	*wsFrames
	l    *i18n.Localizer
	page bool

	skipped int64 // rows not drawn since the page opened
	// mask is how this viewer reads bodies: one tail serves viewers who read them
	// whole and viewers who do not.
	mask *masking.Masker
}

// The types of the API's JSON frames.
const (
	tailJSONStarted  = "started"
	tailJSONMessage  = "message"
	tailJSONSkipped  = "skipped"
	tailJSONFailures = "failures"
	tailJSONPaused   = "paused"
	tailJSONEnded    = "ended"
)

// tailMessageJSON is a message frame: the message's fields as the messages API gives
// them, and its type.
type tailMessageJSON struct {
	Type string `json:"type"`
	MessageJSON
}

// frame sends f; false when the viewer is gone.
func (w *tailWriter) frame(ctx context.Context, f lookup.TailFrame) bool {
	if f.Kind == lookup.TailMessage {
		f.Message = maskMessage(w.mask, f.Message)
	}
	if w.page {
		return w.sendHTML(ctx, w.pageFrame(f))
	}
	var v any
	switch f.Kind {
	case lookup.TailStarted:
		v = map[string]any{"type": tailJSONStarted, "startedAt": f.Started.UnixMilli()}
	case lookup.TailMessage:
		v = tailMessageJSON{Type: tailJSONMessage, MessageJSON: messageJSON(f.Message)}
	case lookup.TailSkipped:
		v = map[string]any{"type": tailJSONSkipped, "skipped": f.Skipped}
	case lookup.TailFailures:
		fs := f.Failures
		if fs == nil {
			fs = []lookup.BrokerFailure{}
		}
		v = map[string]any{"type": tailJSONFailures, "failures": fs, "errors": brokerErrorsJSON(fs)}
	case lookup.TailEnded:
		_, code := errorStatus(f.Err)
		v = map[string]any{"type": tailJSONEnded, "error": msgSearchError(w.l, f.Err), "code": code}
	}
	b, err := json.Marshal(v)
	return err == nil && w.send(b)
}

// pageFrame renders f for the page.
func (w *tailWriter) pageFrame(f lookup.TailFrame) templ.Component {
	l := w.l
	switch f.Kind {
	case lookup.TailStarted:
		return views.TailStartedFrame(l.T("tail.started", "At", views.TimeUTC(f.Started)))
	case lookup.TailMessage:
		return views.TailRowsFrame(msgRows(l, []lookup.Message{f.Message}))
	case lookup.TailSkipped:
		w.skipped += f.Skipped
		return views.TailSkippedFrame(l.N("tail.skipped", int(w.skipped)), w.skipped)
	case lookup.TailFailures:
		return views.TailFailuresFrame(msgFailures(l, f.Failures))
	}
	return views.TailEndFrame(msgSearchError(l, f.Err))
}

// readPump takes the viewer's Pause and Resume, and pongs; it stops the tail's writer
// when the viewer goes.
func (w *tailWriter) readPump(ctx context.Context, v *lookup.TailViewer) {
	defer w.stop()
	w.conn.SetReadLimit(4096)
	_ = w.conn.SetReadDeadline(time.Now().Add(wsPongWait))
	w.conn.SetPongHandler(func(string) error { return w.conn.SetReadDeadline(time.Now().Add(wsPongWait)) })
	for {
		_, data, err := w.conn.ReadMessage()
		if err != nil {
			return
		}
		var m struct {
			Action string `json:"action"`
		}
		if json.Unmarshal(data, &m) != nil || (m.Action != "pause" && m.Action != "resume") {
			continue
		}
		paused := m.Action == "pause"
		v.Pause(paused)
		if w.page {
			w.sendHTML(ctx, views.TailControlsFrame(paused))
		} else if b, err := json.Marshal(map[string]any{"type": tailJSONPaused, "paused": paused}); err == nil {
			w.send(b)
		}
	}
}

// pingPump keeps an idle tail's connection open through proxies, and finds a viewer
// gone without a word.
func (w *tailWriter) pingPump(ctx context.Context) {
	t := time.NewTicker(wsPingPeriod)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			if w.conn.WriteControl(websocket.PingMessage, nil, time.Now().Add(wsWriteWait)) != nil {
				w.stop()
				return
			}
		}
	}
}
