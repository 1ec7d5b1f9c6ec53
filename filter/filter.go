// Package filter decides whether a stored message is one a person is looking for: its
// properties, tags and keys by RocketMQ's own SQL92 (package sqlfilter, the broker's
// verdict exactly), and its body by text, by regular expression, and by a JSON field.
//
// A Filter is compiled once from a Query, which is checked whole before anything is
// read from a broker: every input error is found at once, as a fault.List naming the
// field of each (where, bodyContains, bodyRegex, json, jsonOp, jsonValue). Then Match
// is called for every message a search, a deep scan or a live tail reads; it is safe
// for concurrent use and allocates nothing for properties or plain-text conditions.
//
// The body conditions look at the body as stored after decompression (rocketmq.Message
// inflates zlib, LZ4 and zstd bodies by their sysFlag). A caller that renders bodies
// otherwise — a Protobuf body as JSON through its topic's decoder — passes that
// rendering to MatchBody, so a JSON condition reaches a Protobuf message's fields.
//
// JSON fields are named with GJSON paths (github.com/tidwall/gjson): order.total,
// items.0.sku, items.#.sku (every element), tags.#(=="vip"), a\.b for a key with a
// dot. GJSON was chosen over a JSONPath library because it reads the field straight
// from the body's bytes without decoding the whole document, which keeps a deep scan
// over a million bodies close to the speed of the pulls themselves; its dotted paths
// are what people already write in Go tools and log queries, and it is maintained
// and widely used.
package filter

import (
	"bytes"
	"net/url"
	"regexp"
	"strings"

	"github.com/tidwall/gjson"

	"rmqconsole/fault"
	"rmqconsole/rocketmq"
	"rmqconsole/sqlfilter"
)

// The fields of a Query as the API, the forms and the links name them.
const (
	FieldWhere        = "where"
	FieldBodyContains = "bodyContains"
	FieldBodyRegex    = "bodyRegex"
	FieldJSON         = "json"
	FieldJSONOp       = "jsonOp"
	FieldJSONValue    = "jsonValue"
)

// Limits on the conditions, far above what a person types and low enough that one
// request cannot make matching costly.
const (
	MaxContains  = 4 << 10
	MaxRegex     = 1 << 10
	MaxJSONPath  = 512
	MaxJSONValue = 4 << 10
)

// Query is a filter as asked for. Empty fields ask for nothing; an empty Query matches
// every message.
type Query struct {
	// Where is an SQL92 expression over the message's properties, TAGS and KEYS,
	// as consumers subscribe with MessageSelector.bySql.
	Where string
	// BodyContains is text the body holds, byte for byte (case matters).
	BodyContains string
	// BodyRegex is a regular expression (Go's RE2 syntax) found in the body, read
	// as UTF-8 text: a byte that is not UTF-8 reads as U+FFFD.
	BodyRegex string
	// JSON is a GJSON path of a field of a JSON body, compared by JSONOp with
	// JSONValue.
	JSON string
	// JSONOp is =, !=, <, <=, >, >=, contains or exists; empty means = when
	// JSONValue is set, exists when it is not.
	JSONOp    string
	JSONValue string
}

// QueryFrom reads a Query from request values (a form, a URL's query), by the field
// names above.
func QueryFrom(get func(name string) string) Query {
	return Query{
		Where:        get(FieldWhere),
		BodyContains: get(FieldBodyContains),
		BodyRegex:    get(FieldBodyRegex),
		JSON:         get(FieldJSON),
		JSONOp:       get(FieldJSONOp),
		JSONValue:    get(FieldJSONValue),
	}
}

// Values are the query's non-empty fields, for links that reproduce a search.
func (q Query) Values() url.Values {
	v := url.Values{}
	for _, f := range []struct{ name, value string }{
		{FieldWhere, q.Where}, {FieldBodyContains, q.BodyContains}, {FieldBodyRegex, q.BodyRegex},
		{FieldJSON, q.JSON}, {FieldJSONOp, q.JSONOp}, {FieldJSONValue, q.JSONValue},
	} {
		if f.value != "" {
			v.Set(f.name, f.value)
		}
	}
	return v
}

// IsZero reports whether the query asks for nothing.
func (q Query) IsZero() bool { return q == Query{} }

// Filter is a compiled Query.
type Filter struct {
	q        Query
	where    *sqlfilter.Expression
	contains []byte
	regex    *regexp.Regexp
	json     *jsonCond
	// mask, when set, is the message as the reader may see it (package masking):
	// Match judges that, so which messages match tells nothing a masked page hides.
	mask func(*rocketmq.Message) *rocketmq.Message
	// masker names the view mask gives, for Key.
	masker string
}

// MaskedBy is f judging each message as mask turns it (nil: as stored); who names that
// view (masked or not, never a role: readers who see the same share a live tail), which
// Key carries. A filter that asks for nothing stays
// as it is: it matches every message, masked or not.
func (f *Filter) MaskedBy(who string, mask func(*rocketmq.Message) *rocketmq.Message) *Filter {
	if f.IsZero() || mask == nil {
		return f
	}
	g := *f
	g.mask, g.masker = mask, who
	return &g
}

// Compile checks q and compiles it. Every problem is reported, as a fault.List of
// Invalid errors on the fields concerned; nothing else can fail. Surrounding spaces of
// the SQL92 expression, the regular expression and the JSON path and operator are
// dropped; the text to contain and the JSON value are taken as given.
func Compile(q Query) (*Filter, error) {
	q.Where = strings.TrimSpace(q.Where)
	q.BodyRegex = strings.TrimSpace(q.BodyRegex)
	q.JSON = strings.TrimSpace(q.JSON)
	q.JSONOp = strings.TrimSpace(q.JSONOp)
	f := &Filter{q: q}
	var errs fault.List
	if q.Where != "" {
		if e, err := sqlfilter.Parse(q.Where); err != nil {
			fe := fault.As(err)
			errs.Add(fe.On(FieldWhere))
		} else if err := checkPropertyNames(e); err != nil {
			errs.Add(err)
		} else {
			f.where = e
		}
	}
	if q.BodyContains != "" {
		if len(q.BodyContains) > MaxContains {
			errs.Invalid(FieldBodyContains, "filter.contains.long", "Max", MaxContains)
		} else {
			f.contains = []byte(q.BodyContains)
		}
	}
	if q.BodyRegex != "" {
		if len(q.BodyRegex) > MaxRegex {
			errs.Invalid(FieldBodyRegex, "filter.regex.long", "Max", MaxRegex)
		} else if re, err := regexp.Compile(q.BodyRegex); err != nil {
			errs.Add(fault.InvalidField(FieldBodyRegex, "filter.regex.bad", "Error", strings.TrimPrefix(err.Error(), "error parsing regexp: ")).Because("regex"))
		} else {
			f.regex = re
		}
	}
	if c, el := compileJSON(q); len(el) > 0 {
		errs = append(errs, el...)
	} else {
		f.json = c
	}
	if err := errs.Err(); err != nil {
		return nil, err
	}
	f.q.JSONOp = ""
	if f.json != nil {
		f.q.JSONOp = f.json.op.String()
	}
	return f, nil
}

// systemProperties are the properties RocketMQ sets that people name in filters.
var systemProperties = []string{
	rocketmq.PropertyTags, rocketmq.PropertyKeys, rocketmq.PropertyUniqueKey,
	"__SHARDINGKEY", "DELAY", "TIMER_DELIVER_MS", "RETRY_TOPIC", "REAL_TOPIC",
	"REAL_QID", "ORIGIN_MESSAGE_ID", "RECONSUME_TIME", "TRAN_MSG", "PGROUP",
}

// checkPropertyNames refuses a name that differs from a system property only in case
// (tags for TAGS): names are case-sensitive, so it would read a property no message
// has, and a scan would run to its end finding nothing.
func checkPropertyNames(e *sqlfilter.Expression) *fault.Error {
	for _, name := range e.Properties() {
		for _, sys := range systemProperties {
			if name != sys && strings.EqualFold(name, sys) {
				return fault.InvalidField(FieldWhere, "filter.where.case", "Name", name, "Property", sys).Because("unknown_property")
			}
		}
	}
	return nil
}

// Query is the compiled query, with what Compile trimmed and the JSON operator it
// settled on: what links and keys should carry.
func (f *Filter) Query() Query { return f.q }

// Key identifies the filter: two filters with one key match the same messages, so one
// live tail can serve every viewer of a topic and filter.
func (f *Filter) Key() string {
	k := f.q.Values().Encode()
	if f != nil && f.mask != nil {
		// A masked reader's tail matches other messages than a reader's of bodies.
		k += "&masked=" + url.QueryEscape(f.masker)
	}
	return k
}

// IsZero reports whether the filter matches every message.
func (f *Filter) IsZero() bool { return f == nil || f.q.IsZero() }

// Where is the SQL92 part, nil when there is none.
func (f *Filter) Where() *sqlfilter.Expression { return f.where }

// NeedsBody reports whether Match looks at bodies (a search that filters on
// properties alone need not decode or keep them).
func (f *Filter) NeedsBody() bool {
	return f != nil && (f.contains != nil || f.regex != nil || f.json != nil)
}

// Match reports whether m is one the filter asks for, judging the body as stored
// after decompression. A nil Filter matches everything.
func (f *Filter) Match(m *rocketmq.Message) bool {
	if f != nil && f.mask != nil {
		m = f.mask(m)
	}
	return f.MatchBody(m.Properties, m.Body)
}

// MatchBody is Match on a message's properties and a body of the caller's choice (a
// Protobuf body rendered as JSON by its topic's decoder). Conditions are checked from
// the cheapest: properties, then text, JSON, regular expression.
func (f *Filter) MatchBody(props map[string]string, body []byte) bool {
	if f == nil {
		return true
	}
	if f.where != nil && !f.where.Match(props) {
		return false
	}
	if f.contains != nil && !bytes.Contains(body, f.contains) {
		return false
	}
	if f.json != nil && !f.json.match(body) {
		return false
	}
	if f.regex != nil && !f.regex.Match(body) {
		return false
	}
	return true
}

// validJSON is checked before a path is read: gjson reads what it can of broken JSON,
// and a binary body must not match by accident.
func validJSON(body []byte) bool { return gjson.ValidBytes(body) }
