package handlers

import (
	"bytes"
	"encoding/json"
	"net/url"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"rmqconsole/i18n"
	"rmqconsole/lookup"
	"rmqconsole/rocketmq"
	"rmqconsole/views"
)

// msgPreviewRunes is how much of a body the result table shows.
const msgPreviewRunes = 120

// msgPreviewJSONMax is the largest JSON body compacted for its preview; a longer one is
// cut as text (compacting it would cost more than a page of rows).
const msgPreviewJSONMax = 64 << 10

// msgRow is one message as a result table shows it.
func msgRow(l *i18n.Localizer, m lookup.Message) views.MessageRow {
	id := m.OffsetMsgID()
	return views.MessageRow{
		// The column's header says UTC: the cells leave it out, to keep room for the body.
		StoreTime:   m.StoreTime().UTC().Format("2006-01-02 15:04:05.000"),
		UniqKey:     m.UniqueKey(),
		OffsetMsgID: id,
		Keys:        strings.TrimSpace(m.Properties[rocketmq.PropertyKeys]),
		Tags:        m.Tags(),
		Broker:      m.BrokerName,
		QueueID:     strconv.Itoa(m.QueueID),
		QueueOffset: views.Thousands(m.QueueOffset),
		Size:        views.Thousands(int64(len(m.Body))),
		Preview:     msgPreview(l, m.Body),
		Masked:      msgMaskedShort(l, m),
		DetailURL:   msgDetailURLFor(id, m),
		BodyURL:     msgBodyRowURL(id, m),
		UniqKeyURL:  msgUniqKeyURL(m),
	}
}

// msgBodyRowURL is where a row's whole body is read, decoded, to open under the row.
func msgBodyRowURL(offsetMsgID string, m lookup.Message) string {
	id := offsetMsgID
	if id == "" {
		id = url.PathEscape(m.UniqueKey())
	}
	return "/messages/" + id + "/body?" + url.Values{"topic": {m.Topic}, "part": {"row"}}.Encode()
}

// A range result of up to 2000 rows comes in pieces, so a big result is as quick to read
// as a small one. The first page holds msgFirstRows rows, a screen and a half; every
// later piece, appended as the reader scrolls to it (or opened as a page of its own
// without JavaScript), holds msgPieceRows.
const (
	msgFirstRows = 50
	msgPieceRows = 200
)

// msgPage turns the first rows of r, the answer to q, into rows (msgFirstRows on the
// first page of a result, msgPieceRows later), with the way to the rows after them.
// rest is how many rows the result holds from r's first on: all of r on a page, more
// than r holds when r is one piece of the result.
func msgPage(l *i18n.Localizer, f msgSearchForm, q lookup.RangeQuery, r *lookup.Result, rest int) ([]views.MessageRow, *views.MoreRows) {
	n := min(len(r.Messages), msgPieceRows)
	if f.fromRow() == 1 {
		n = min(n, msgFirstRows)
	}
	rows := msgRows(l, r.Messages[:n])
	rest -= n
	if n == 0 || rest <= 0 || (len(r.Messages) == n && !r.Truncated) {
		return rows, nil
	}
	c := r.After(q, n)
	from := f.fromRow() + n
	next := url.Values{"end": {strconv.FormatInt(c.End.UnixMilli(), 10)}, "skip": {strconv.Itoa(c.Skip)},
		"limit": {strconv.Itoa(rest)}, "from": {strconv.Itoa(from)}}
	more := &views.MoreRows{
		Label: l.T("messages.rows.more", "From", l.Int(int64(from)),
			"To", l.Int(int64(from+min(rest, msgPieceRows)-1)), "Total", l.Int(int64(from+rest-1))),
		PageURL: msgSearchURL("/messages", f, next),
	}
	next.Set("part", "rows")
	more.RowsURL = msgSearchURL("/messages", f, next)
	return rows, more
}

// msgContinued says where a page that continues a long result starts, or that a page
// of older messages leaves out the rows of its end's millisecond shown before; "" on a
// first page.
func msgContinued(l *i18n.Localizer, f msgSearchForm, q lookup.RangeQuery) string {
	switch {
	case f.fromRow() > 1:
		return l.N("messages.continued", q.Skip, "From", l.Int(int64(f.fromRow())), "End", views.TimeUTC(q.End))
	case q.Skip > 0:
		return l.N("messages.older.continued", q.Skip, "End", views.TimeUTC(q.End))
	}
	return ""
}

// msgUniqKeyURL links a message by its unique key, looked up in its topic's index, as a
// producer's log names it; "" when the message has none.
func msgUniqKeyURL(m lookup.Message) string {
	if m.UniqueKey() == "" {
		return ""
	}
	return "/messages/" + url.PathEscape(m.UniqueKey()) + "?topic=" + url.QueryEscape(m.Topic)
}

func msgRows(l *i18n.Localizer, ms []lookup.Message) []views.MessageRow {
	rows := make([]views.MessageRow, len(ms))
	for i, m := range ms {
		rows[i] = msgRow(l, m)
	}
	return rows
}

// msgDetailURLFor links a message to its detail page by its offsetMsgId, which is read
// straight from the broker; the topic comes along for the group states.
func msgDetailURLFor(offsetMsgID string, m lookup.Message) string {
	id := offsetMsgID
	if id == "" {
		id = url.PathEscape(m.UniqueKey())
	}
	return "/messages/" + id + "?topic=" + url.QueryEscape(m.Topic)
}

// msgPreview is the start of a body on one line: control characters become spaces, and
// a body that is not text says so instead. It runs for every row of a 2000-row page, so
// plain ASCII takes a fast path.
func msgPreview(l *i18n.Localizer, body []byte) string {
	if len(body) == 0 {
		return l.T("messages.preview.empty")
	}
	head := body[:min(len(body), msgPreviewRunes*4)]
	if !utf8.Valid(body) {
		return l.N("messages.preview.binary", len(body))
	}
	if c, ok := compactJSON(body); ok {
		body, head = c, c[:min(len(c), msgPreviewRunes*4)]
	}
	ascii, control := true, false
	for _, c := range head[:min(len(head), msgPreviewRunes)] {
		ascii = ascii && c < utf8.RuneSelf
		control = control || c < 0x20 || c == 0x7f
	}
	if ascii && !control {
		if len(body) <= msgPreviewRunes {
			return string(body)
		}
		return string(body[:msgPreviewRunes]) + "…"
	}
	var b strings.Builder
	n := 0
	for _, r := range string(head) {
		if n == msgPreviewRunes {
			b.WriteString("…")
			break
		}
		if unicode.IsControl(r) {
			r = ' '
		}
		b.WriteRune(r)
		n++
	}
	return b.String()
}

// compactJSON is a JSON object or array on one line, so a preview shows its fields
// rather than its indentation.
func compactJSON(body []byte) ([]byte, bool) {
	t := bytes.TrimSpace(body)
	if len(t) == 0 || len(t) > msgPreviewJSONMax || (t[0] != '{' && t[0] != '[') {
		return nil, false
	}
	var b bytes.Buffer
	if json.Compact(&b, t) != nil {
		return nil, false
	}
	return b.Bytes(), true
}

// msgFailures says, per failed broker, what happened and what the page shows instead.
func msgFailures(l *i18n.Localizer, fs []lookup.BrokerFailure) []string {
	var out []string
	for _, f := range fs {
		if s, ok := sayRefusal(l, f.Broker, f.Err); ok {
			out = append(out, l.T("messages.failure.refused", "Refusal", s))
			continue
		}
		out = append(out, l.T("messages.failure", "Broker", f.Broker, "Error", sayErr(l, f.Err)))
	}
	return out
}

// msgSearchURL is the page or export URL that repeats a search exactly.
func msgSearchURL(path string, f msgSearchForm, extra url.Values) string {
	v := url.Values{"tab": {f.tab}}
	set := func(k, s string) {
		if s != "" {
			v.Set(k, s)
		}
	}
	set("topic", f.form.Topic)
	switch f.tab {
	case views.TabID:
		set("id", f.form.ID)
	case views.TabKey:
		set("key", f.form.Key)
		set("begin", f.form.Begin)
		set("end", f.form.End)
	default:
		set("begin", f.form.Begin)
		set("end", f.form.End)
		set("tag", f.form.Tag)
	}
	if f.tab != views.TabID {
		for k, vs := range f.filter.Values() {
			v[k] = vs
		}
	}
	for k, vs := range extra {
		v[k] = vs
	}
	return path + "?" + v.Encode()
}

// msgQuickRanges are the "last 15 min / 1 h / 24 h" links, computed now; the page's
// script recomputes them when clicked, so a page left open still searches up to now.
func msgQuickRanges(l *i18n.Localizer, f msgSearchForm, now time.Time) []views.QuickRange {
	var out []views.QuickRange
	for _, q := range []struct {
		label string
		min   int
	}{{l.T("messages.quick.15m"), 15}, {l.T("messages.quick.1h"), 60}, {l.T("messages.quick.24h"), 1440}} {
		g := f
		g.form.Begin = msgFormTime(now.Add(-time.Duration(q.min) * time.Minute).Truncate(time.Second))
		g.form.End = msgFormTime(now.Add(time.Second).Truncate(time.Second))
		out = append(out, views.QuickRange{Label: q.label, Minutes: q.min, URL: msgSearchURL("/messages", g, nil)})
	}
	return out
}

func msgRangeText(l *i18n.Localizer, b, e time.Time) string {
	return l.T("messages.range", "Begin", views.TimeUTC(b), "End", views.TimeUTC(e))
}

// msgRangeWhat names the messages a range search asked for: the topic, and the tag.
func msgRangeWhat(l *i18n.Localizer, q lookup.RangeQuery) string {
	what := l.T("messages.what.topic", "Topic", q.Topic)
	if q.Tag != "" {
		what = l.T("messages.what.tag", "Topic", q.Topic, "Tag", q.Tag)
	}
	if !q.Filter.IsZero() {
		what = l.T("messages.what.filtered", "What", what)
	}
	return what
}

// msgRangeResultVM describes a range query's answer in words.
func msgRangeResultVM(l *i18n.Localizer, q lookup.RangeQuery, r *lookup.Result) *views.MessagesResult {
	// The rows come from msgPage: a page shows only the first of up to 2000.
	vm := &views.MessagesResult{Failures: msgFailures(l, r.Failures), Truncated: r.Truncated,
		FromSlaves: sayFromSlaves(l, r.FromSlaves, "cluster.slave.what.rows")}
	what := msgRangeWhat(l, q)
	when := msgRangeText(l, q.Begin, q.End)
	shown := len(r.Messages)
	switch {
	case r.Truncated && r.TotalIsLowerBound:
		vm.Summary = l.N("messages.summary.atleast", int(r.Total), "Shown", l.Int(int64(shown)), "What", what, "When", when)
		vm.TruncatedNote = l.N("messages.truncated.atleast", int(r.InRange), "Limit", l.Int(int64(r.Limit)), "Total", l.Int(r.Total))
	case r.Truncated:
		vm.Summary = l.N("messages.summary.newest", int(r.Total), "Shown", l.Int(int64(shown)), "What", what, "When", when)
		vm.TruncatedNote = l.T("messages.truncated.exact", "Limit", l.Int(int64(r.Limit)), "Total", l.Int(r.Total))
	default:
		vm.Summary = l.N("messages.summary.range", shown, "What", what, "When", when)
	}
	if !q.Filter.IsZero() {
		// How selective the filter was: what it kept of what was read.
		vm.Summary += " " + l.T("messages.filter.read", "Matched", l.Int(r.Total), "Read", l.Int(r.Scanned))
	}
	if r.ScanLimited {
		vm.Truncated = true
		vm.TruncatedNote = l.T("messages.truncated.scan", "Scanned", l.Int(r.Scanned), "InRange", l.Int(r.InRange),
			"BackTo", views.TimeUTC(r.ScannedBackTo), "Tag", q.Tag)
		if !q.Filter.IsZero() {
			vm.TruncatedNote = l.T("messages.truncated.scan.filter", "Scanned", l.Int(r.Scanned), "InRange", l.Int(r.InRange),
				"BackTo", views.TimeUTC(r.ScannedBackTo))
		}
	}
	if shown == 0 {
		vm.Empty = l.T("messages.empty.range", "What", what, "When", when)
		if r.ScanLimited {
			vm.Empty = l.T("messages.empty.scan", "What", what, "Scanned", l.Int(r.Scanned), "BackTo", views.TimeUTC(r.ScannedBackTo))
		}
	}
	return vm
}

// msgKeyResultVM describes a key query's answer in words.
func msgKeyResultVM(l *i18n.Localizer, q lookup.KeyQuery, r *lookup.Result) *views.MessagesResult {
	vm := &views.MessagesResult{Rows: msgRows(l, r.Messages), Failures: msgFailures(l, r.Failures), Truncated: r.Truncated,
		FromSlaves: sayFromSlaves(l, r.FromSlaves, "cluster.slave.what.rows")}
	what := l.T("messages.what.key", "Key", q.Key, "Topic", q.Topic)
	if !q.Begin.IsZero() || !q.End.IsZero() {
		what = l.T("messages.what.key.range", "Key", q.Key, "Topic", q.Topic, "When", msgRangeText(l, q.Begin, q.End))
	}
	if !q.Filter.IsZero() {
		what = l.T("messages.what.filtered", "What", what)
	}
	shown := len(r.Messages)
	vm.Summary = l.N("messages.summary.key", shown, "What", what)
	switch {
	case len(r.CappedBrokers) > 0:
		vm.TruncatedNote = l.T("messages.truncated.key.capped", "Brokers", strings.Join(r.CappedBrokers, ", "), "Limit", lookup.KeyLimit)
	case r.Truncated:
		vm.TruncatedNote = l.T("messages.truncated.key", "Total", l.Int(r.Total), "Limit", lookup.KeyLimit)
	}
	if shown == 0 {
		vm.Empty = l.T("messages.empty.key", "What", what)
	}
	return vm
}

// msgIDResultVM describes an id lookup's answer.
func msgIDResultVM(l *i18n.Localizer, r *lookup.IDResult) *views.MessagesResult {
	vm := &views.MessagesResult{Rows: msgRows(l, []lookup.Message{r.Message}), Copies: msgRows(l, r.Copies), Failures: msgFailures(l, r.Failures),
		FromSlaves: sayFromSlaves(l, r.FromSlaves, "cluster.slave.what.answer")}
	vm.IDKind, vm.IDNote = msgIDNote(l, r)
	if len(r.Copies) > 0 {
		vm.Summary = l.T("messages.summary.copies", "Copies", len(r.Copies)+1)
	} else {
		vm.Summary = l.T("messages.summary.one")
	}
	return vm
}

func msgIDNote(l *i18n.Localizer, r *lookup.IDResult) (kind, note string) {
	m := r.Message
	if r.Kind == rocketmq.IDOffsetMsgID {
		return r.Kind.String(), l.T("messages.id.offset", "Broker", m.BrokerName, "Host", m.StoreHost, "Offset", l.Int(m.CommitLogOffset))
	}
	note = l.T("messages.id.uniq", "Topic", m.Topic)
	if s := r.Searched; s != nil {
		note += " " + l.T("lookup.found.anytopic", "Topic", m.Topic, "Asked", s.Asked, "Topics", s.Topics, "Took", s.Took.Round(time.Millisecond).String())
	}
	return r.Kind.String(), note
}
