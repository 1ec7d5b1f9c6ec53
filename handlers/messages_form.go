package handlers

import (
	"errors"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/gin-gonic/gin"

	"rmqconsole/fault"
	"rmqconsole/i18n"
	"rmqconsole/lookup"
	"rmqconsole/views"
)

// msgSearchForm is the message search as the request carries it: the page's form or the
// API's query string, before validation.
type msgSearchForm struct {
	tab  string
	form views.MessagesForm
	sys  bool
	// submitted is false for a bare /messages?tab=x: the page shows the empty form
	// without asking anything.
	submitted bool
	limit     string
	// skip and from continue a long range result after the rows shown (see msgPage):
	// skip as lookup.RangeQuery.Skip, from the number of the first row in the whole
	// result. rowsOnly asks for the rows alone, for the page to append.
	skip, from string
	rowsOnly   bool
}

// msgFieldErrors maps a form field to the sentence that says what is wrong with it.
type msgFieldErrors map[string]string

func parseMsgSearchForm(c *gin.Context) msgSearchForm {
	q := c.Request.URL.Query()
	f := msgSearchForm{
		tab: q.Get("tab"),
		form: views.MessagesForm{
			Topic: strings.TrimSpace(q.Get("topic")), Begin: strings.TrimSpace(q.Get("begin")), End: strings.TrimSpace(q.Get("end")),
			Tag: strings.TrimSpace(q.Get("tag")), Key: strings.TrimSpace(q.Get("key")), ID: strings.TrimSpace(q.Get("id")),
		},
		sys:   q.Get("sys") == "1" || q.Get("sys") == "true",
		limit: q.Get("limit"),
		skip:  q.Get("skip"), from: q.Get("from"),
		rowsOnly: q.Get("part") == "rows",
	}
	switch f.tab {
	case views.TabRange, views.TabKey, views.TabID:
	default:
		// The API and old links say what they want by the fields they carry.
		switch {
		case q.Has("id"):
			f.tab = views.TabID
		case q.Has("key"):
			f.tab = views.TabKey
		default:
			f.tab = views.TabRange
		}
	}
	// A search was asked for when the tab's own field came along: a tab link keeps the
	// topic but must not search (and complain) before the key or id is typed, while
	// /messages?tab=range&topic=T, as other pages link it, shows the topic's last hour.
	switch f.tab {
	case views.TabKey:
		f.submitted = q.Has("key")
	case views.TabID:
		f.submitted = q.Has("id")
	default:
		f.submitted = q.Has("topic") || q.Has("begin") || q.Has("end") || q.Has("tag")
	}
	return f
}

// rangeQuery turns the form into a range query. On the page, a missing begin or end is
// filled in (the last hour, or an hour around the one given) and written back into the
// form, so the page shows what was searched.
func (f *msgSearchForm) rangeQuery(l *i18n.Localizer, now time.Time, fillDefaults bool) (lookup.RangeQuery, msgFieldErrors) {
	errs := msgFieldErrors{}
	b, e := parseMsgTimeField(l, f.form.Begin, "begin", errs), parseMsgTimeField(l, f.form.End, "end", errs)
	if fillDefaults && len(errs) == 0 {
		switch {
		case b.IsZero() && e.IsZero():
			e = now
			b = e.Add(-time.Hour)
		case b.IsZero():
			b = e.Add(-time.Hour)
		case e.IsZero():
			e = now
		}
		f.form.Begin, f.form.End = msgFormTime(b), msgFormTime(e)
	}
	q := lookup.RangeQuery{Topic: f.form.Topic, Begin: b, End: e, Tag: f.form.Tag}
	if f.limit != "" {
		n, err := strconv.Atoi(f.limit)
		if err != nil || n <= 0 {
			errs["limit"] = l.T("messages.form.limit", "Max", lookup.RangeLimit)
		}
		q.Limit = n
	}
	if f.skip != "" {
		n, err := strconv.Atoi(f.skip)
		if err != nil || n < 0 {
			errs["skip"] = l.T("lookup.skip", "Max", lookup.RangeLimit)
		}
		q.Skip = n
	}
	return q, errs
}

func (f *msgSearchForm) keyQuery(l *i18n.Localizer) (lookup.KeyQuery, msgFieldErrors) {
	errs := msgFieldErrors{}
	b, e := parseMsgTimeField(l, f.form.Begin, "begin", errs), parseMsgTimeField(l, f.form.End, "end", errs)
	return lookup.KeyQuery{Topic: f.form.Topic, Key: f.form.Key, Begin: b, End: e}, errs
}

func (f *msgSearchForm) idQuery() lookup.IDQuery {
	return lookup.IDQuery{ID: f.form.ID, Topic: f.form.Topic}
}

// fromRow is the number, in the whole result, of the first row this request shows.
func (f *msgSearchForm) fromRow() int {
	if n, err := strconv.Atoi(f.from); err == nil && n > 1 {
		return n
	}
	return 1
}

// cursor is the part of the query that continues a long result, for links that must
// repeat exactly this search (exports).
func (f *msgSearchForm) cursor() url.Values {
	v := url.Values{}
	for k, s := range map[string]string{"limit": f.limit, "skip": f.skip, "from": f.from} {
		if s != "" {
			v.Set(k, s)
		}
	}
	return v
}

// parseMsgTimeField reads the form's time field (UTC, as the form's labels say); what it
// cannot read is said on the field.
func parseMsgTimeField(l *i18n.Localizer, s, field string, errs msgFieldErrors) time.Time {
	t, err := parseTimeInput(s, time.UTC)
	if fe := fault.As(err); fe != nil {
		errs[field] = l.T("messages.form.time."+field, "Why", fe.Say(l))
	}
	return t
}

// msgFormTime writes a time back into a form field: UTC, milliseconds only when there
// are any.
func msgFormTime(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	t = t.UTC()
	if t.Nanosecond()/int(time.Millisecond) != 0 {
		return t.Format("2006-01-02 15:04:05.000")
	}
	return t.Format("2006-01-02 15:04:05")
}

// msgBadForm is input that cannot be searched: a sentence per form field, and the
// lookup's own error when it found the problem (its code names it for the API).
type msgBadForm struct {
	fields msgFieldErrors
	input  *lookup.InputError
	// l says the input error in the request's language.
	l *i18n.Localizer
}

// msgInputError recognises a lookup input error. ok is false when err is something else.
func msgInputError(l *i18n.Localizer, err error) (*msgBadForm, bool) {
	var ie *lookup.InputError
	if !errors.As(err, &ie) {
		return nil, false
	}
	return &msgBadForm{fields: msgFieldErrors{ie.Field: lookupSay(l, ie)}, input: ie, l: l}, true
}

// apiError is the API's answer to bad input: 400 with the first problem in the form's
// order.
func (b *msgBadForm) apiError() *UserError {
	if b.input != nil {
		return &UserError{Status: http.StatusBadRequest, Code: b.input.Code, Message: lookupSay(b.l, b.input)}
	}
	for _, f := range []string{"topic", "id", "key", "begin", "end", "tag", "limit", "skip"} {
		if m := b.fields[f]; m != "" {
			code := "bad_" + f
			if f == "begin" || f == "end" {
				code = "bad_time"
			}
			return &UserError{Status: http.StatusBadRequest, Code: code, Message: m}
		}
	}
	return &UserError{Status: http.StatusBadRequest, Code: "bad_input", Message: b.l.T("messages.form.invalid")}
}

// msgInputStatus is the status of input that cannot be searched: 400 for the API, 422
// for pages (which show the form again).
func msgInputStatus(c *gin.Context) int {
	if isAPI(c) {
		return http.StatusBadRequest
	}
	return http.StatusUnprocessableEntity
}
