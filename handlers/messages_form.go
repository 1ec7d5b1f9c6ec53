package handlers

import (
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/gin-gonic/gin"

	"rmqconsole/fault"
	"rmqconsole/filter"
	"rmqconsole/i18n"
	"rmqconsole/lookup"
	"rmqconsole/rocketmq"
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
	// filter is the range and key tabs' filter as asked for, compiled by runSearch.
	filter filter.Query
}

func parseMsgSearchForm(c *gin.Context) msgSearchForm {
	q := c.Request.URL.Query()
	f := msgSearchForm{
		tab: q.Get("tab"),
		form: views.MessagesForm{
			Topic: strings.TrimSpace(q.Get("topic")), Begin: strings.TrimSpace(q.Get("begin")), End: strings.TrimSpace(q.Get("end")),
			Tag: strings.TrimSpace(q.Get("tag")), Key: strings.TrimSpace(q.Get("key")), ID: strings.TrimSpace(q.Get("id")),
		},
		filter: filter.QueryFrom(q.Get),
		sys:    q.Get("sys") == "1" || q.Get("sys") == "true",
		limit:  q.Get("limit"),
		skip:   q.Get("skip"), from: q.Get("from"),
		rowsOnly: q.Get("part") == "rows",
	}
	f.form.Scan = q.Get("scan")
	fq := f.filter
	f.form.Where, f.form.BodyContains, f.form.BodyRegex = fq.Where, fq.BodyContains, fq.BodyRegex
	f.form.JSON, f.form.JSONOp, f.form.JSONValue = fq.JSON, fq.JSONOp, fq.JSONValue
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

// rangeQuery is the form's range query for the caller: every range search (the page,
// its further rows, the deep scan, the exports, the API) is built here, so a search by
// a tag the caller sees masked is refused on every path. The brokers compare the tag
// with the stored one: which rows match would tell the tag.
func (h *Messages) rangeQuery(c *gin.Context, f *msgSearchForm, fillDefaults bool) (lookup.RangeQuery, error) {
	q, err := f.rangeQuery(h.now(), fillDefaults)
	if err == nil && q.Tag != "" && h.masker(c).HidesProperty(q.Topic, rocketmq.PropertyTags) {
		return q, fault.New(fault.Refused, "masking.search.tags", "Topic", q.Topic, "Role", CallerRole(c).String()).Because("masked")
	}
	return q, err
}

// keyQuery is the form's key query for the caller, refused when the caller sees the
// topic's keys masked: the index finds by the key itself, so what it finds would tell it.
func (h *Messages) keyQuery(c *gin.Context, f *msgSearchForm) (lookup.KeyQuery, error) {
	q, err := f.keyQuery()
	if err == nil && h.masker(c).HidesProperty(q.Topic, rocketmq.PropertyKeys) {
		return q, fault.New(fault.Refused, "masking.search.keys", "Topic", q.Topic, "Role", CallerRole(c).String()).Because("masked")
	}
	return q, err
}

// rangeQuery turns the form into a range query. On the page, a missing begin or end is
// filled in (the last hour, or an hour around the one given) and written back into the
// form, so the page shows what was searched. Bad input is a fault.List, one Invalid
// error per field in the form's order.
func (f *msgSearchForm) rangeQuery(now time.Time, fillDefaults bool) (lookup.RangeQuery, error) {
	var errs fault.List
	b, e := msgTimeField(f.form.Begin, "begin", &errs), msgTimeField(f.form.End, "end", &errs)
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
	flt := f.compileFilter(&errs)
	q := lookup.RangeQuery{Topic: f.form.Topic, Begin: b, End: e, Tag: f.form.Tag, Filter: flt}
	if f.limit != "" {
		n, err := strconv.Atoi(f.limit)
		if err != nil || n <= 0 {
			errs.Add(fault.InvalidField("limit", "messages.form.limit", "Max", lookup.RangeLimit).Because("bad_limit"))
		}
		q.Limit = n
	}
	if f.skip != "" {
		n, err := strconv.Atoi(f.skip)
		if err != nil || n < 0 {
			errs.Add(fault.InvalidField("skip", "lookup.skip", "Max", lookup.RangeLimit).Because("bad_skip"))
		}
		q.Skip = n
	}
	return q, msgAlsoTopic(errs, f.form.Topic)
}

// keyQuery turns the form into a key query; bad input as rangeQuery.
func (f *msgSearchForm) keyQuery() (lookup.KeyQuery, error) {
	var errs fault.List
	b, e := msgTimeField(f.form.Begin, "begin", &errs), msgTimeField(f.form.End, "end", &errs)
	flt := f.compileFilter(&errs)
	return lookup.KeyQuery{Topic: f.form.Topic, Key: f.form.Key, Begin: b, End: e, Filter: flt}, msgAlsoTopic(errs, f.form.Topic)
}

// compileFilter checks and compiles the filter once, before any broker is asked; its
// problems (an SQL92 syntax error with its position, a regular expression that does
// not compile) are added to errs on their fields. nil when the form asks for none.
func (f *msgSearchForm) compileFilter(errs *fault.List) *filter.Filter {
	if f.filter.IsZero() {
		return nil
	}
	flt, err := filter.Compile(f.filter)
	if err != nil {
		*errs = append(*errs, fault.All(err)...)
		return nil
	}
	return flt
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

// msgTimeField reads the form's time field (UTC, as the form's labels say); what it
// cannot read is added to errs on the field.
func msgTimeField(s, field string, errs *fault.List) time.Time {
	t, err := parseTimeInput(s, time.UTC)
	if fe := fault.As(err); fe != nil {
		errs.Add(fault.InvalidField(field, "messages.form.time."+field, "Why", fe.Msg).Because("bad_time"))
	}
	return t
}

// msgAlsoTopic is the errors found while reading the form, with the topic's problem
// first, so the user sees every wrong field at once; nil when the form had none (the
// lookup checks the topic then).
func msgAlsoTopic(errs fault.List, topic string) error {
	if len(errs) == 0 {
		return nil
	}
	if fe := fault.As(lookup.CheckTopic(topic)); fe != nil {
		errs = append(fault.List{fe}, errs...)
	}
	return errs
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

// msgFieldErrors are the sentences of a search's bad input, by form field, in l's
// language.
func msgFieldErrors(l *i18n.Localizer, err error) map[string]string {
	out := map[string]string{}
	for _, fe := range fault.All(err) {
		if _, ok := out[fe.Field]; !ok {
			out[fe.Field] = fe.Say(l)
		}
	}
	return out
}

// msgFirstProblem is the first of a search's bad input, in the form's order, for an
// answer that says one; any other error as it is.
func msgFirstProblem(err error) error {
	if fault.Is(err, fault.Invalid) {
		return fault.As(err)
	}
	return err
}
