package groups

import (
	"math"
	"strconv"
	"time"

	"rmqconsole/i18n"
	"rmqconsole/store"
)

// The trend uses the rates of the last TrendReads reads of the collector within
// TrendWindow: long enough to smooth a batch or a commit (clients commit every 5 s), short
// enough to follow a consumer that just slowed down or caught up. At the collector's
// default 30 s that is the last 5 minutes.
const (
	TrendWindow = 5 * time.Minute
	TrendReads  = 10
)

// Where a group's lag is heading.
const (
	TrendGrowing   = "growing"
	TrendShrinking = "shrinking"
	TrendSteady    = "steady"
	TrendUnknown   = "unknown"
)

// Trend is where a group's lag is heading, from the consume and produce rates of its
// recent lag history, and when it will have caught up at those rates.
type Trend struct {
	Direction string `json:"direction"`
	// Lag is the newest known total lag the estimate starts from.
	Lag *int64 `json:"lag"`
	// ProduceTPS and ConsumeTPS are the mean rates over the samples used (broker offsets
	// and committed offsets advanced per second).
	ProduceTPS float64 `json:"produceTps"`
	ConsumeTPS float64 `json:"consumeTps"`
	// Samples is how many samples were used, over Window.
	Samples int           `json:"samples"`
	Window  time.Duration `json:"-"`
	// CaughtUp: no lag, and not producing faster than consuming.
	CaughtUp bool `json:"caughtUp"`
	// Never: a backlog with producers at least as fast as consumers: at this rate it is
	// never consumed.
	Never bool `json:"never"`
	// Holding: a backlog that neither grows nor shrinks while consumers keep pace with
	// producers (neither CaughtUp nor Never).
	Holding bool `json:"holding"`
	// DrainMs is the estimated time until caught up (when neither CaughtUp nor Never and
	// the direction is known).
	DrainMs *int64 `json:"drainMs"`
	// How says in a sentence how this was computed (the page shows it on hover).
	How i18n.Text `json:"how"`
}

// explain sets How from messages said one after the other.
func (t *Trend) explain(ms ...i18n.Message) { t.How = i18n.TextOf(ms...) }

// TrendOf computes the trend at now from a group's samples (oldest first): the mean
// produce and consume rates of the last TrendReads samples of TrendWindow that have both, and
// the newest known lag. The lag is steady when at the net rate it would move by less
// than max(10 messages, 1 % of itself) over a window; the time to drain is lag divided
// by how much faster consumers are than producers.
func TrendOf(samples []store.LagSample, now time.Time) Trend {
	t := Trend{Direction: TrendUnknown}
	from := now.Add(-TrendWindow)
	var used []store.LagSample
	for _, s := range samples {
		if s.At.Before(from) || s.At.After(now) {
			continue
		}
		if s.Lag != nil {
			t.Lag = s.Lag
		}
		if s.Span == 0 && s.ProduceTPS != nil && s.ConsumeTPS != nil {
			used = append(used, s)
		}
	}
	used = used[max(0, len(used)-TrendReads):]
	for _, s := range used {
		t.Samples++
		t.ProduceTPS += *s.ProduceTPS
		t.ConsumeTPS += *s.ConsumeTPS
	}
	var first, last time.Time
	if len(used) > 0 {
		first, last = used[0].At, used[len(used)-1].At
	}
	if t.Samples == 0 || t.Lag == nil {
		t.explain(i18n.M("group.trend.how.short", "Window", spanArg(TrendWindow)))
		t.Samples = 0
		t.ProduceTPS, t.ConsumeTPS = 0, 0
		return t
	}
	t.ProduceTPS /= float64(t.Samples)
	t.ConsumeTPS /= float64(t.Samples)
	t.Window = last.Sub(first)
	lag := float64(*t.Lag)
	net := t.ProduceTPS - t.ConsumeTPS
	switch {
	case math.Abs(net)*TrendWindow.Seconds() < math.Max(10, 0.01*lag):
		t.Direction = TrendSteady
	case net > 0:
		t.Direction = TrendGrowing
	default:
		t.Direction = TrendShrinking
	}
	how := i18n.M("group.trend.how", "Reads", t.Samples, "Window", spanArg(max(t.Window, time.Second)),
		"Produce", fmtRate(t.ProduceTPS), "Consume", fmtRate(t.ConsumeTPS), "Lag", strconv.FormatInt(*t.Lag, 10))
	switch {
	case *t.Lag == 0 && net <= 0:
		t.CaughtUp = true
		t.explain(how, i18n.M("group.trend.how.caughtUp"))
	case t.Direction == TrendSteady && net >= 0 && t.ConsumeTPS > 0:
		// Consumers keep pace and the backlog holds: the normal state of a busy group,
		// nothing to warn about. Only a backlog nobody consumes, or one that grows, never drains.
		t.Holding = true
		t.explain(how, i18n.M("group.trend.how.holding"))
	case net >= 0:
		t.Never = true
		t.explain(how, i18n.M("group.trend.how.never", "Net", fmtRate(net)))
	default:
		d := time.Duration(lag / -net * float64(time.Second))
		ms := d.Milliseconds()
		t.DrainMs = &ms
		t.explain(how, i18n.M("group.trend.how.drain", "Net", fmtRate(-net), "Lag", strconv.FormatInt(*t.Lag, 10), "Span", spanArg(d)))
	}
	return t
}

// Drain returns the estimated time until caught up, if there is one.
func (t Trend) Drain() (time.Duration, bool) {
	if t.DrainMs == nil {
		return 0, false
	}
	return time.Duration(*t.DrainMs) * time.Millisecond, true
}

// spanArg is a span as a Message's value, said in the sentence's language.
type spanArg = i18n.Span

func fmtRate(r float64) string {
	switch {
	case r == 0:
		return "0"
	case math.Abs(r) < 10:
		return strconv.FormatFloat(r, 'f', 2, 64)
	}
	return strconv.FormatFloat(r, 'f', 0, 64)
}

// FormatSpan writes a duration rounded to what a person reads: "45s", "12m", "3h20m", "2d5h".
func FormatSpan(d time.Duration) string { return i18n.FormatSpan(d) }

// FormatSpanIn is FormatSpan in l's language: the same in English, in words in Chinese
// ("3 小时 20 分钟").
func FormatSpanIn(l *i18n.Localizer, d time.Duration) string { return l.Span(d) }
