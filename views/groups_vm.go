package views

import (
	"context"
	"math"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/a-h/templ"

	"rmqconsole/i18n"
)

// GroupsVM is the consumer group list.
type GroupsVM struct {
	Configured bool
	// Error is shown instead of the table when the list could not be read at all.
	Error string
	// FormError is a sentence about bad filter input, shown next to the form.
	FormError string
	Rows      []GroupRow
	// Total counts the groups the filter keeps, on every page; Hidden the system groups
	// left out.
	Total, Hidden int
	// Shown counts the rows up to this page's last (earlier pages included).
	Shown int
	// NextURL is the page after this one ("" on the last); MoreURL fetches its rows
	// alone, for htmx to put in place of the "More" row. FirstURL is set past page one.
	NextURL, MoreURL, FirstURL string
	Filter                     string
	System                     bool
	Sort                       string
	Desc                       bool
	SortLinks                  map[string]SortLink
	CheckedAt                  string
	CheckedISO                 string
	Took                       string
	RefreshURL                 string
	Failures                   []string
	// Needs5x says gRPC clients, the Proxy and POP need RocketMQ 5.x (4.x clusters).
	Needs5x string
	// MaxOffsets says how many groups' lag counts max offsets kept from an earlier
	// read, and since when (MaxOffsetsAt, MaxOffsetsISO); "" when none does.
	MaxOffsets, MaxOffsetsAt, MaxOffsetsISO string
}

// SortLink is a column header's link.
type SortLink struct {
	URL    string
	Active bool
	Desc   bool
}

// Arrow returns the sort direction marker of an active column.
func (s SortLink) Arrow() string {
	switch {
	case !s.Active:
		return ""
	case s.Desc:
		return " ▼"
	default:
		return " ▲"
	}
}

// AriaSort returns the aria-sort value of a column header.
func (s SortLink) AriaSort() string {
	switch {
	case !s.Active:
		return "none"
	case s.Desc:
		return "descending"
	default:
		return "ascending"
	}
}

// GroupRow is one group in the list.
type GroupRow struct {
	Group   string
	URL     string
	System  bool
	Online  bool
	Clients int
	// ClientsUnknown: the clients were not listed yet; ClientsAt is when they were.
	ClientsUnknown bool
	ClientsAt      string
	ConsumeType    string
	MessageModel   string
	// ConsumeMode is orderly, concurrent or mixed; "" when unknown.
	ConsumeMode string
	Topics      []string
	Lag         LagCell
	Behind      BehindCell
	TPS         string
	Last        string
	LastISO     string
	Failures    []string
	// Spark is the group's stored lag over the last hour; Trend where it is heading.
	Spark Sparkline
	Trend TrendVM
}

// BehindCell is a time behind as a table shows it: how old the oldest unconsumed message
// is, or "unknown" and why.
type BehindCell struct {
	Known bool
	Ms    int64
	// Note explains an unknown time, or what a group's maximum leaves out.
	Note string
}

// Text is the age the short way: "0 s", "4.2 s", "3 min 12 s", "2 h 5 min", "3 d 4 h".
func (b BehindCell) Text(ctx context.Context) string {
	if !b.Known {
		return T(ctx, "group.unknown")
	}
	return BehindIn(i18n.From(ctx), time.Duration(b.Ms)*time.Millisecond)
}

// Title is the cell's hover text.
func (b BehindCell) Title(ctx context.Context) string {
	what := T(ctx, "group.behind.title")
	if b.Note != "" {
		return what + " " + b.Note
	}
	return what
}

// LagCell is a lag as a table shows it: a number, or "unknown" and why.
type LagCell struct {
	Known bool
	Value int64
	// Note explains an unknown lag, or what a partial total leaves out.
	Note string
	// Growing marks a lag that rose over the recent samples.
	Growing bool
}

// LagAlert is the lag from which a queue or group is shown as an alert.
const LagAlert = 10000

// Text is the cell's text.
func (l LagCell) Text(ctx context.Context) string {
	if !l.Known {
		return T(ctx, "group.unknown")
	}
	return Thousands(l.Value)
}

// Class is the cell's CSS class: colour says zero, some, growing or high, and the
// Word says the same for those who do not see the colour.
func (l LagCell) Class() string {
	switch {
	case !l.Known:
		return "num lag-unknown"
	case l.Value >= LagAlert:
		return "num lag-high"
	case l.Growing:
		return "num lag-growing"
	case l.Value == 0:
		return "num lag-zero"
	}
	return "num"
}

// Word is a short state next to the number, so colour is never the only signal.
func (l LagCell) Word(ctx context.Context) string {
	switch {
	case !l.Known:
		return ""
	case l.Value >= LagAlert:
		return T(ctx, "group.lag.high")
	case l.Growing:
		return T(ctx, "group.lag.growing")
	}
	return ""
}

// Title is the hover text of the cell.
func (l LagCell) Title(ctx context.Context) string {
	if l.Note != "" {
		return l.Note
	}
	if l.Known {
		return T(ctx, "group.lag.title")
	}
	return ""
}

// Sparkline is a small inline SVG line of recent values; Path is its "d" attribute.
type Sparkline struct {
	Path  string
	Title string
	Empty bool
}

// Sparkline dimensions, in SVG user units.
const (
	SparkWidth  = 80
	SparkHeight = 18
)

// NewSparkline draws values (oldest first; NaN for unknown) scaled to the box, its title
// in l's language. Unknown values break the line.
func NewSparkline(l *i18n.Localizer, values []float64) Sparkline {
	return NewSparklineOver(l, values, l.N("group.spark.samples", len(values)))
}

// NewSparklineOver is NewSparkline whose title names the span drawn ("the last hour").
func NewSparklineOver(l *i18n.Localizer, values []float64, over string) Sparkline {
	lo, hi := math.Inf(1), math.Inf(-1)
	n := 0
	for _, v := range values {
		if math.IsNaN(v) {
			continue
		}
		lo, hi = math.Min(lo, v), math.Max(hi, v)
		n++
	}
	if n == 0 {
		return Sparkline{Empty: true}
	}
	if hi == lo {
		hi = lo + 1
	}
	var b strings.Builder
	step := float64(SparkWidth)
	if len(values) > 1 {
		step = float64(SparkWidth) / float64(len(values)-1)
	}
	pen := false
	for i, v := range values {
		if math.IsNaN(v) {
			pen = false
			continue
		}
		x := float64(i) * step
		if len(values) == 1 {
			x = SparkWidth
		}
		y := float64(SparkHeight-1) - (v-lo)/(hi-lo)*float64(SparkHeight-2)
		if pen {
			b.WriteString(" L")
		} else {
			if b.Len() > 0 {
				b.WriteByte(' ')
			}
			b.WriteString("M")
		}
		b.WriteString(strconv.FormatFloat(x, 'f', 1, 64))
		b.WriteByte(',')
		b.WriteString(strconv.FormatFloat(y, 'f', 1, 64))
		pen = true
	}
	last := values[len(values)-1]
	title := l.T("group.spark.over", "Over", over)
	if !math.IsNaN(last) {
		title += l.T("group.spark.now", "Now", Thousands(int64(last)))
	}
	title += l.T("group.spark.range", "Min", Thousands(int64(lo)), "Max", Thousands(int64(hi)))
	return Sparkline{Path: b.String(), Title: title}
}

// GroupVM is one consumer group's page.
type GroupVM struct {
	Configured bool
	Group      string
	// ResetURL is the group's reset form; "" hides the link (the caller may not reset it).
	ResetURL string
	WSURL    string
	// Poll is the live view's poll interval, as text.
	Poll string
	GroupHeader
	Clients             []ClientRow
	SubscriptionsDiffer bool
	Topics              []TopicRow
	Queues              []QueueRow
	Assignment          AssignmentVM
	Timeline            []EventRow
	// TimelineNote says what the timeline cannot show for this group (POP: no queue moves).
	TimelineNote string
	// ChartData is the total lag series as JSON: {"t":[unix s...],"v":[lag or null...]}.
	ChartData string
	// LagChart is the stored history drawn before the live samples.
	LagChart LagChart
	// Trend is where the lag is heading, from the stored rates.
	Trend TrendVM
	// Alerts are the rules covering the group and where each stands.
	Alerts []GroupAlert
	// Diagnosis is what is wrong with the group now.
	Diagnosis DiagnosisVM
	// HistoryURL is the JSON rebalance history.
	HistoryURL string
	Cost       CostVM
	// DeadLetters are the group's retry and dead-letter topics.
	DeadLetters GroupDeadLettersVM
}

// CostVM is what the group's rebalances cost: per rebalance (the recent timeline) and
// per UTC day (the stored history).
type CostVM struct {
	Rebalances []RebalanceRow
	Days       []DayRow
	// DaysError says the daily sums could not be read.
	DaysError string
	Note      string
}

// RebalanceRow sums one rebalance.
type RebalanceRow struct {
	Start, StartISO, End string
	Moves, LockHandovers int
	Duplicates           string
	MaxUnowned           string
}

// DayRow sums one UTC day of moves.
type DayRow struct {
	Day        string
	Moves      string
	Duplicates string
	Unowned    string
}

// GroupHeader is the group's header: the figures that change every tick.
type GroupHeader struct {
	Online bool
	// ClientsUnknown: no broker or Proxy listed the clients (Failures says why), so
	// not online means unknown, not offline.
	ClientsUnknown bool
	Clients        int
	ConsumeType    string
	MessageModel   string
	TotalLag       LagCell
	Behind         BehindCell
	TPS            string
	// ConsumeMode is orderly, concurrent or mixed; Blocked the orderly queues nobody
	// can consume, in sentences.
	ConsumeMode string
	Blocked     []string
	CheckedAt   string
	CheckedISO  string
	Failures    []string
	// FromSlaves say which brokers' offsets were read from a slave, and why.
	FromSlaves []string
	// LiveError says the last poll failed (the figures are from the poll before).
	LiveError string
	// Pop is the backlog of a group consuming with POP; nil for other groups.
	Pop *PopVM
	// MixedNote explains a group with remoting and gRPC clients.
	MixedNote string
	// Needs5x says gRPC clients, the Proxy and POP need RocketMQ 5.x (4.x clusters).
	Needs5x string
	// HiddenTopics says how many topics the caller's rights leave out; "" when none.
	HiddenTopics string
}

// PopVM splits a POP group's backlog: never popped, revived for retry, in flight.
type PopVM struct {
	Ready, Retry string
	// InFlight is "" when the broker does not report it (InFlightNote says so).
	InFlight, InFlightNote string
	// Polling counts the receive requests parked on the brokers ("" when unknown, see PollingNote).
	Polling, PollingNote string
	Note                 string
}

// ClientRow is one online client.
type ClientRow struct {
	ID, Addr, Language, Version string
	// VersionNote says why Version is unknown (a gRPC client behind a Proxy).
	VersionNote       string
	Protocol, KnownTo string
	// Note is shown instead of the client's queues when it has none by design.
	Note          string
	Strategy      string
	ConsumeMode   string
	URL           string
	Subscriptions []string
	Differs       bool
	Queues        int
	Idle          bool
	TPS           string
	Error         string
}

// TopicRow sums one topic.
type TopicRow struct {
	Topic, URL string
	Retry      bool
	Queues     int
	Owned      int
	// OwnerUnknown counts queues whose owner is unknown (a client did not report).
	OwnerUnknown int
	Lag          LagCell
	Last         string
	LastISO      string
}

// QueueRow is one queue of the group.
type QueueRow struct {
	DOMID          string
	Topic          string
	TopicURL       string
	Retry          bool
	Broker         string
	QueueID        int
	BrokerOffset   string
	ConsumerOffset string
	Lag            LagCell
	Behind         BehindCell
	InFlight       string
	Last           string
	LastISO        string
	Owner          string
	Owners         []string
	OwnerUnknown   bool
	// Popped: the group consumes with POP, where no client owns a queue.
	Popped bool
	Spark  Sparkline
	// Lock is the orderly lock (nil for concurrent groups).
	Lock *LockCell
}

// LockCell is an orderly queue's lock under its owner.
type LockCell struct {
	Holder, HolderURL string
	Locked            bool
	HolderOnline      bool
	// Renewed/RenewedISO: the holder's last lock (lastLockTimestamp); Since/SinceISO:
	// when the console first saw it hold the lock ("" when unknown).
	Renewed, RenewedISO string
	Since, SinceISO     string
	Blocked             bool
	Warning             string
}

// AssignmentVM sets expected against actual owners.
type AssignmentVM struct {
	Applicable            bool
	Note                  string
	Strategy              string
	Matches               bool
	Unowned               int
	OwnedTwice            int
	Differs               int
	OwnerUnknown          int
	IdleClients           []string
	MoreClientsThanQueues bool
	Rows                  []AssignmentRow
}

// AssignmentRow is one queue's expected and actual owner.
type AssignmentRow struct {
	Topic, Broker string
	QueueID       int
	Expected      string
	Actual        []string
	Problem       string
}

// ProblemText is the problem in words.
func (r AssignmentRow) ProblemText(ctx context.Context) string {
	switch r.Problem {
	case "unowned", "owned-twice", "differs", "owner-unknown":
		return T(ctx, "group.problem."+r.Problem)
	}
	return T(ctx, "group.problem.none")
}

// EventRow is one entry of the rebalance timeline.
type EventRow struct {
	At, ISO string
	Kind    string
	Text    string
}

// ConsumeModeTitle explains a consume mode on hover.
func ConsumeModeTitle(ctx context.Context, mode string) string {
	switch mode {
	case "orderly", "concurrent", "mixed":
		return T(ctx, "group.mode.title."+mode)
	}
	return ""
}

// hiddenNote says how many system groups the filter hid, if any.
func hiddenNote(ctx context.Context, vm GroupsVM) string {
	if vm.Hidden == 0 {
		return ""
	}
	return T(ctx, "groups.hidden.note", "Count", i18n.From(ctx).Int(int64(vm.Hidden)))
}

// TopicMessagesURL links a topic to its messages (the last hour of the range tab).
func TopicMessagesURL(topic string) string {
	return "/messages?tab=range&topic=" + url.QueryEscape(topic)
}

// GroupURL links a group to its page.
func GroupURL(group string) string {
	return "/groups/" + url.PathEscape(group)
}

// ClientURL links a client of a group to its page.
func ClientURL(group, clientID string) string {
	return GroupURL(group) + "/clients/" + url.PathEscape(clientID)
}

// oobAttrs marks an element for an out-of-band swap when it travels in a live frame.
func oobAttrs(oob bool) templ.Attributes {
	if oob {
		return templ.Attributes{"hx-swap-oob": "true"}
	}
	return nil
}

// LagChart is the stored part of the group's lag chart.
type LagChart struct {
	// Stored is the stored series, same JSON shape as ChartData.
	Stored        string
	StoredSamples int
	// Range is the span shown ("1h", "24h", "7d"); Ranges link to each.
	Range  string
	Ranges []RangeLink
	// Note says how the history is collected and kept.
	Note string
}

// RangeLink is one of the chart's span choices.
type RangeLink struct {
	Label, URL string
	Active     bool
}

// TrendVM is where a group's lag is heading, in words: an arrow and a word (never colour
// alone), the estimated time to drain, and how it was computed (on hover).
type TrendVM struct {
	// Direction is growing, shrinking, steady or unknown.
	Direction string
	// Drain is "caught up", "caught up in about 12m", "never at this rate" or "".
	Drain string
	// Never: at this rate the lag never drains.
	Never bool
	How   string
	// URL refreshes the fragment; Every is how often, in htmx's words ("30s").
	URL, Every string
}

// Arrow is the direction's sign.
func (t TrendVM) Arrow() string {
	switch t.Direction {
	case "growing":
		return "↑"
	case "shrinking":
		return "↓"
	case "steady":
		return "→"
	}
	return "?"
}

// Class colours a growing lag as a warning.
func (t TrendVM) Class() string {
	if t.Direction == "growing" || t.Never {
		return "trend lag-growing"
	}
	return "trend"
}

// Pager is the list's paging links and More row.
func (vm GroupsVM) Pager() Pager {
	return Pager{ID: "groups", FirstURL: vm.FirstURL, NextURL: vm.NextURL, MoreURL: vm.MoreURL,
		CountID: "groups.count", Shown: vm.Shown, Total: vm.Total}
}
