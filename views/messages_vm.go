package views

import "net/url"

// The message search tabs.
const (
	TabRange = "range"
	TabKey   = "key"
	TabID    = "id"
)

// MessagesVM is the message search page, /messages.
type MessagesVM struct {
	Configured bool
	Tab        string
	Form       MessagesForm
	// FieldErrors holds a sentence per form field ("topic", "begin", "end", "tag",
	// "key", "id") that is wrong.
	FieldErrors map[string]string
	// Topics are the topic suggestions; ShowSystem adds retry, DLQ and system topics.
	Topics     []string
	ShowSystem bool
	// TopicsError says why the suggestions are missing.
	TopicsError string
	QuickRanges []QuickRange
	// Result is nil until a search ran.
	Result *MessagesResult
}

// MessagesForm holds what the user typed, as typed, so a form with an error keeps it.
type MessagesForm struct {
	Topic, Begin, End, Tag, Key, ID string
	// The filter of the range and key tabs, by the API's parameter names.
	Where, BodyContains, BodyRegex, JSON, JSONOp, JSONValue string
	// Scan is "deep" when the range tab reads its whole range.
	Scan string
}

// HasFilter reports whether the form asks for a filter, so the page shows its fields
// open.
func (f MessagesForm) HasFilter() bool {
	return f.Where != "" || f.BodyContains != "" || f.BodyRegex != "" || f.JSON != "" || f.JSONValue != "" || f.Scan != ""
}

// JSONOps are the comparisons a JSON field filter offers.
var JSONOps = []string{"=", "!=", "<", "<=", ">", ">=", "contains", "exists"}

// QuickRange is a link that fills the range with the last Minutes minutes.
type QuickRange struct {
	Label   string
	Minutes int
	URL     string
}

// MessagesResult is the outcome of one search.
type MessagesResult struct {
	// Scan is set for a deep scan, whose matches arrive over its websocket.
	Scan *ScanVM
	// Error is set when the search could not run at all (the form was fine).
	Error string
	// Summary says what was searched and how much was found, e.g. "Newest 2,000 of
	// 2,300 messages stored from … to …".
	Summary string
	// Truncated is set when more matched than shown; TruncatedNote says so in words.
	Truncated     bool
	TruncatedNote string
	// Empty says, when nothing matched, what was searched, so the user can adjust it.
	Empty    string
	Rows     []MessageRow
	Failures []string
	// FromSlaves say which brokers' rows were read from a slave, and why.
	FromSlaves []string
	// IDKind says which kind of id matched on the id tab ("offsetMsgId" or
	// "uniqueKey"), with IDNote explaining it.
	IDKind string
	IDNote string
	// Copies are further stored copies of a unique key.
	Copies    []MessageRow
	ExportCSV string
	ExportJS  string
	// OlderURL is the same search ending at the oldest message shown, when more matched.
	OlderURL string
	// Took is how long the brokers took, e.g. "142 ms".
	Took string
	// More leads to the rows after Rows, when the result holds more than a page shows.
	More *MoreRows
	// Continued says, on a page that continues a long result, where it starts.
	Continued string
	// Resend offers to resend the messages of a dead-letter topic's search.
	Resend ResendSearchVM
}

// MoreRows is the way to the next rows of a long result, shown as the table's last row:
// a plain link to them as a page of their own, which with JavaScript loads them in place
// as soon as it scrolls into view.
type MoreRows struct {
	// Label names the rows, e.g. "Rows 201–400 of 2,000".
	Label string
	// PageURL shows the next rows as a page; RowsURL answers only the rows (and the
	// MoreRows after them) for the table to append.
	PageURL, RowsURL string
}

// MessageRowsPiece is the next rows of a long result, appended to its table.
type MessageRowsPiece struct {
	Rows     []MessageRow
	More     *MoreRows
	Failures []string
	// Error says why the rows could not be read; PageURL retries them as a page.
	Error, PageURL string
}

// MessageRow is one message in a result table.
type MessageRow struct {
	StoreTime   string
	UniqKey     string
	OffsetMsgID string
	Keys        string
	Tags        string
	Broker      string
	QueueID     string
	QueueOffset string
	Size        string
	Preview     string
	// Masked is the note that the row is masked for the reader's role; "" when not.
	Masked    string
	DetailURL string
	// BodyURL answers the row under this one that shows the whole body, decoded.
	BodyURL string
	// UniqKeyURL opens the message by its unique key; "" when it has none.
	UniqKeyURL string
}

// TabURL links to a tab, keeping the topic.
func (vm MessagesVM) TabURL(tab string) string {
	v := url.Values{"tab": {tab}}
	if vm.Form.Topic != "" {
		v.Set("topic", vm.Form.Topic)
	}
	return "/messages?" + v.Encode()
}

// FieldError returns the error sentence of a field, or "".
func (vm MessagesVM) FieldError(field string) string { return vm.FieldErrors[field] }

// ErrorList returns, in the order of the form, the field errors the form does not show
// beside a field of the current tab: those it shows are said once, where they are.
func (vm MessagesVM) ErrorList() []string {
	var out []string
	for _, f := range []string{"topic", "id", "key", "begin", "end", "tag", "limit", "skip"} {
		if e := vm.FieldErrors[f]; e != "" && !vm.showsField(f) {
			out = append(out, e)
		}
	}
	return out
}

// MarksFields reports whether a field of the current tab's form shows an error.
func (vm MessagesVM) MarksFields() bool {
	for f, e := range vm.FieldErrors {
		if e != "" && vm.showsField(f) {
			return true
		}
	}
	return false
}

// showsField reports whether the current tab's form has the field, with its error beside it.
func (vm MessagesVM) showsField(f string) bool {
	switch vm.Tab {
	case TabKey:
		return f == "topic" || f == "key" || f == "begin" || f == "end"
	case TabID:
		return f == "topic" || f == "id"
	default:
		return f == "topic" || f == "tag" || f == "begin" || f == "end"
	}
}

func tabCurrent(active, tab string) string {
	if active == tab {
		return "page"
	}
	return "false"
}

func tabKey(tab string) string {
	switch tab {
	case TabKey:
		return "2"
	case TabID:
		return "3"
	}
	return "1"
}

// MessageDetailVM is one message, /messages/{id}.
type MessageDetailVM struct {
	Configured bool
	// AskedID and AskedTopic are what the URL asked for.
	AskedID, AskedTopic string
	IDKind              string
	IDNote              string
	Topic               string
	BackURL             string
	Fields              []DetailField
	OffsetMsgID         IDDecoded
	UniqKey             IDDecoded
	Properties          []DetailField
	Body                BodyView
	Copies              []MessageRow
	Groups              []GroupConsumeRow
	GroupsNote          string
	// GroupsPager pages Groups: a topic may have thousands.
	GroupsPager  Pager
	ConsumeAgain ConsumeAgainVM
	Failures     []string
	// FromSlaves say which brokers were read from a slave, and why.
	FromSlaves []string
	// DeadLetter is set for a message in a retry or dead-letter topic.
	DeadLetter DeadLetterVM
	// Trace is the message's trace (nil: not read).
	Trace *TraceVM
	// Reset offers to reset a group to this message (nil: the caller may not reset).
	Reset *MessageResetVM
	// Copy leads to the send form of another topic with this message's fields; nil
	// for those who may not send.
	Copy *MessageCopyVM
}

// MessageCopyVM is the message page's "copy to a topic": the topic to name, and the
// message the send form is filled from.
type MessageCopyVM struct {
	Action, Topic string
}

// MessageResetVM is the message page's "reset a group to this message": the groups of
// the topic to choose from, re-consume from it or skip past it.
type MessageResetVM struct {
	Action, MsgID, Topic string
	// Groups are offered in a list; past paging.DefaultLimit they are the first ones,
	// Total counts all, and the group is typed (the list then only suggests).
	Groups []string
	Total  int
}

// Typed reports whether the group is typed rather than picked: too many to list.
func (vm MessageResetVM) Typed() bool { return vm.Total > len(vm.Groups) }

// DetailField is one labelled value of the detail page.
type DetailField struct {
	Label, Value string
	Mono         bool
	// Hint is shown muted after the value (e.g. the age of a time).
	Hint string
}

// IDDecoded is one id and what it decodes to.
type IDDecoded struct {
	Value  string
	Parts  []DetailField
	Reason string // why it could not be decoded
}

// BodyView is the message body as the page shows it.
type BodyView struct {
	// Size is the body's size after decompression; Stored how it was stored (e.g.
	// "1,234 bytes, zlib-compressed").
	Size, Stored string
	// Encoding is "UTF-8 text", "JSON" or "binary", or how the topic's decoder read it.
	Encoding string
	// Problem says why the topic's decoder could not read this body.
	Problem string
	// View is the one shown: "decoded", "text", "json" or "hex"; the others are offered
	// as links.
	View     string
	Views    []BodyViewLink
	Content  string
	Cut      bool
	CutNote  string
	Download string
	Error    string
	// Masked says what is masked for the reader's role; "" when nothing is.
	Masked string
}

// BodyViewLink switches the body view.
type BodyViewLink struct {
	Name, Label, URL string
	Active           bool
}

// GroupConsumeRow is one group's state towards the message.
type GroupConsumeRow struct {
	Group, URL string
	// State is the label ("consumed", "not consumed yet", "offline", ...) and Class
	// its status class.
	State, Class string
	Offset       string
	Online       bool
	Subscription string
	Reason       string
}

// ConsumeAgainVM is the message page's "consume it again on a client" section: the
// online clients of the groups subscribed to the message's topic, and the answer of the
// last request.
type ConsumeAgainVM struct {
	// Action is the form's URL; Topic is sent along (a unique key needs it).
	Action, Topic string
	// CanConsume: the caller may ask (an operator); others see the clients only.
	CanConsume bool
	// Clients are the first paging.DefaultLimit clients; Total counts them all, and
	// past the first ones a client is named in a form of its own (Others).
	Clients []ConsumeAgainClient
	Total   int
	// Note explains an empty Clients; Others, when set, says how many more clients
	// there are and leads to the form that names one.
	Note, Others string
	// Refused is why the last request was not sent ("" when it was, or none was made).
	Refused string
	Answer  *ConsumeAgainAnswer
}

// ConsumeAgainClient is one client a message can be consumed again on.
type ConsumeAgainClient struct {
	Group, GroupURL string
	ClientID        string
	ClientAddr      string
	Language        string
	Version         string
	MessageModel    string
}

// ConsumeAgainAnswer is what a client answered.
type ConsumeAgainAnswer struct {
	Group, ClientID string
	// Outcome is the answer in words ("consumed", "consume later", ...) and Class its
	// status class.
	Outcome, Class string
	// Result is the client's CMResult (CR_SUCCESS ...), "" when none came.
	Result     string
	Remark     string
	SpentMs    string
	Order      string
	AutoCommit string
	Broker     string
	// Error is why the message was not consumed.
	Error    string
	EntryURL string
	EntryID  string
}

// BodyRowVM is a message's whole body, opened under its row in a result table.
type BodyRowVM struct {
	// Text is the body rendered (indented JSON, text, or a hex dump), cut when long.
	Text string
	Kind string
	// How says how the body was read; Problem why its topic's decoder did not apply.
	How, Problem string
	Size         string
	// CutNote says the body was cut for the page; the download has it whole.
	CutNote   string
	DetailURL string
	Download  string
	// Masked says what is masked for the reader's role; "" when nothing is.
	Masked string
}

// FilterError reports whether a filter field is wrong, so the filter shows open.
func (vm MessagesVM) FilterError() bool {
	for _, f := range []string{"where", "bodyContains", "bodyRegex", "json", "jsonOp", "jsonValue"} {
		if vm.FieldError(f) != "" {
			return true
		}
	}
	return false
}

// fieldJSONOp names the JSON comparison's field, as the API and filter.FieldJSONOp do.
const fieldJSONOp = "jsonOp"
