package handlers

import (
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"rmqconsole/lookup"
	"rmqconsole/rocketmq"
	"rmqconsole/views"
)

// msgPreviewRunes is how much of a body the result table shows.
const msgPreviewRunes = 80

// msgRow is one message as a result table shows it.
func msgRow(m lookup.Message) views.MessageRow {
	id := m.OffsetMsgID()
	return views.MessageRow{
		StoreTime:   views.TimeUTC(m.StoreTime()),
		UniqKey:     m.UniqueKey(),
		OffsetMsgID: id,
		Keys:        strings.TrimSpace(m.Properties[rocketmq.PropertyKeys]),
		Tags:        m.Tags(),
		Broker:      m.BrokerName,
		QueueID:     strconv.Itoa(m.QueueID),
		QueueOffset: views.Thousands(m.QueueOffset),
		Size:        views.Thousands(int64(len(m.Body))),
		Preview:     msgPreview(m.Body),
		DetailURL:   msgDetailURLFor(id, m),
		UniqKeyURL:  msgUniqKeyURL(m),
	}
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
func msgPage(f msgSearchForm, q lookup.RangeQuery, r *lookup.Result, rest int) ([]views.MessageRow, *views.MoreRows) {
	n := min(len(r.Messages), msgPieceRows)
	if f.fromRow() == 1 {
		n = min(n, msgFirstRows)
	}
	rows := msgRows(r.Messages[:n])
	rest -= n
	if n == 0 || rest <= 0 || (len(r.Messages) == n && !r.Truncated) {
		return rows, nil
	}
	c := r.After(q, n)
	from := f.fromRow() + n
	next := url.Values{"end": {strconv.FormatInt(c.End.UnixMilli(), 10)}, "skip": {strconv.Itoa(c.Skip)},
		"limit": {strconv.Itoa(rest)}, "from": {strconv.Itoa(from)}}
	more := &views.MoreRows{
		Label: fmt.Sprintf("Rows %s–%s of %s", views.Thousands(int64(from)),
			views.Thousands(int64(from+min(rest, msgPieceRows)-1)), views.Thousands(int64(from+rest-1))),
		PageURL: msgSearchURL("/messages", f, next),
	}
	next.Set("part", "rows")
	more.RowsURL = msgSearchURL("/messages", f, next)
	return rows, more
}

// msgContinued says where a page that continues a long result starts; "" on the first.
func msgContinued(f msgSearchForm, q lookup.RangeQuery) string {
	if f.fromRow() == 1 {
		return ""
	}
	return fmt.Sprintf("These rows continue a longer result from row %s: the messages stored up to %s, after the %s of that time already shown.",
		views.Thousands(int64(f.fromRow())), views.TimeUTC(q.End), msgCount(int64(q.Skip), "row", "rows"))
}

// msgUniqKeyURL links a message by its unique key, looked up in its topic's index, as a
// producer's log names it; "" when the message has none.
func msgUniqKeyURL(m lookup.Message) string {
	if m.UniqueKey() == "" {
		return ""
	}
	return "/messages/" + url.PathEscape(m.UniqueKey()) + "?topic=" + url.QueryEscape(m.Topic)
}

func msgRows(ms []lookup.Message) []views.MessageRow {
	rows := make([]views.MessageRow, len(ms))
	for i, m := range ms {
		rows[i] = msgRow(m)
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
func msgPreview(body []byte) string {
	if len(body) == 0 {
		return "(empty)"
	}
	head := body[:min(len(body), msgPreviewRunes*4)]
	if !utf8.Valid(body) {
		return fmt.Sprintf("(binary, %s bytes)", views.Thousands(int64(len(body))))
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

// msgFailures says, per failed broker, what happened and what the page shows instead.
func msgFailures(fs []lookup.BrokerFailure) []string {
	var out []string
	for _, f := range fs {
		if s, ok := refusal(f.Broker, f.Err); ok {
			out = append(out, s+" The result shows what the other brokers returned.")
			continue
		}
		out = append(out, fmt.Sprintf("Broker %s did not answer: %v. The result shows what the other brokers returned.", f.Broker, f.Err))
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
	for k, vs := range extra {
		v[k] = vs
	}
	return path + "?" + v.Encode()
}

// msgQuickRanges are the "last 15 min / 1 h / 24 h" links, computed now; the page's
// script recomputes them when clicked, so a page left open still searches up to now.
func msgQuickRanges(f msgSearchForm, now time.Time) []views.QuickRange {
	var out []views.QuickRange
	for _, q := range []struct {
		label string
		min   int
	}{{"last 15 min", 15}, {"last 1 h", 60}, {"last 24 h", 1440}} {
		g := f
		g.form.Begin = msgFormTime(now.Add(-time.Duration(q.min) * time.Minute).Truncate(time.Second))
		g.form.End = msgFormTime(now.Add(time.Second).Truncate(time.Second))
		out = append(out, views.QuickRange{Label: q.label, Minutes: q.min, URL: msgSearchURL("/messages", g, nil)})
	}
	return out
}

func msgRangeText(b, e time.Time) string {
	return fmt.Sprintf("from %s to %s", views.TimeUTC(b), views.TimeUTC(e))
}

func msgCount(n int64, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return views.Thousands(n) + " " + many
}

// msgRangeResultVM describes a range query's answer in words.
func msgRangeResultVM(q lookup.RangeQuery, r *lookup.Result) *views.MessagesResult {
	// The rows come from msgPage: a page shows only the first of up to 2000.
	vm := &views.MessagesResult{Failures: msgFailures(r.Failures), Truncated: r.Truncated,
		FromSlaves: fromSlaveSentences(r.FromSlaves, "its rows")}
	what := "of topic " + q.Topic
	if q.Tag != "" {
		what += " with tag " + q.Tag
	}
	when := "stored " + msgRangeText(q.Begin, q.End)
	shown := int64(len(r.Messages))
	switch {
	case r.Truncated && r.TotalIsLowerBound:
		vm.Summary = fmt.Sprintf("Newest %s of at least %s %s %s.", views.Thousands(shown), msgCount(r.Total, "message", "messages"), what, when)
		vm.TruncatedNote = fmt.Sprintf("More messages matched than the %s shown. The search stopped once it knew: at least %s matched, and the range holds %s before the tag filter. Narrow the time range to see older ones.",
			views.Thousands(int64(r.Limit)), views.Thousands(r.Total), msgCount(r.InRange, "message", "messages"))
	case r.Truncated:
		vm.Summary = fmt.Sprintf("Newest %s of %s %s %s.", views.Thousands(shown), msgCount(r.Total, "message", "messages"), what, when)
		vm.TruncatedNote = fmt.Sprintf("More messages matched than the %s shown: %s in all, counted exactly from the queues' offsets. Narrow the time range to see older ones.",
			views.Thousands(int64(r.Limit)), views.Thousands(r.Total))
	default:
		vm.Summary = fmt.Sprintf("%s %s %s, newest first.", msgCount(shown, "message", "messages"), what, when)
	}
	if r.ScanLimited {
		vm.Truncated = true
		vm.TruncatedNote = fmt.Sprintf("The tag filter read the newest %s of the %s messages in the range, back to %s, and stopped there: older messages with tag %s may exist. Narrow the time range to search further back.",
			views.Thousands(r.Scanned), views.Thousands(r.InRange), views.TimeUTC(r.ScannedBackTo), q.Tag)
	}
	if shown == 0 {
		vm.Empty = fmt.Sprintf("No message %s was stored %s (UTC). Widen the range, or check the topic and tag.", what, msgRangeText(q.Begin, q.End))
		if r.ScanLimited {
			vm.Empty = fmt.Sprintf("No message %s among the newest %s of the range (back to %s).", what, views.Thousands(r.Scanned), views.TimeUTC(r.ScannedBackTo))
		}
	}
	return vm
}

// msgKeyResultVM describes a key query's answer in words.
func msgKeyResultVM(q lookup.KeyQuery, r *lookup.Result) *views.MessagesResult {
	vm := &views.MessagesResult{Rows: msgRows(r.Messages), Failures: msgFailures(r.Failures), Truncated: r.Truncated,
		FromSlaves: fromSlaveSentences(r.FromSlaves, "its rows")}
	what := fmt.Sprintf("with key %s in topic %s", q.Key, q.Topic)
	if !q.Begin.IsZero() || !q.End.IsZero() {
		what += ", stored " + msgRangeText(q.Begin, q.End)
	}
	shown := int64(len(r.Messages))
	vm.Summary = fmt.Sprintf("%s %s, newest first.", msgCount(shown, "message", "messages"), what)
	switch {
	case len(r.CappedBrokers) > 0:
		vm.TruncatedNote = fmt.Sprintf("%s answered the index's maximum of %d messages, so older messages with this key may exist. Add a time range to reach them.",
			strings.Join(r.CappedBrokers, ", "), lookup.KeyLimit)
	case r.Truncated:
		vm.TruncatedNote = fmt.Sprintf("%s matched; the newest %d are shown. Add a time range to reach older ones.", views.Thousands(r.Total), lookup.KeyLimit)
	}
	if shown == 0 {
		vm.Empty = fmt.Sprintf("No message %s. The key index is written a moment after a message is stored, so a message sent in the last seconds may not be found yet; check the key and topic.", what)
	}
	return vm
}

// msgIDResultVM describes an id lookup's answer.
func msgIDResultVM(r *lookup.IDResult) *views.MessagesResult {
	vm := &views.MessagesResult{Rows: msgRows([]lookup.Message{r.Message}), Copies: msgRows(r.Copies), Failures: msgFailures(r.Failures),
		FromSlaves: fromSlaveSentences(r.FromSlaves, "its answer")}
	vm.IDKind, vm.IDNote = msgIDNote(r)
	if len(r.Copies) > 0 {
		vm.Summary = fmt.Sprintf("This unique key is stored %d times: the first copy is shown, the others are listed below it.", len(r.Copies)+1)
	} else {
		vm.Summary = "Exactly one message has this id."
	}
	return vm
}

func msgIDNote(r *lookup.IDResult) (kind, note string) {
	m := r.Message
	if r.Kind == rocketmq.IDOffsetMsgID {
		return r.Kind.String(), fmt.Sprintf("Matched as an offsetMsgId: read directly from broker %s (%s) at commit-log offset %s.",
			m.BrokerName, m.StoreHost, views.Thousands(m.CommitLogOffset))
	}
	return r.Kind.String(), fmt.Sprintf("Matched as a unique key (msgId, made by the producer) in the index of topic %s.", m.Topic)
}
