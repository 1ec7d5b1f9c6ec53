package handlers

import (
	"context"
	"encoding/json"
	"math"
	"net/http"
	"time"

	"github.com/gin-gonic/gin"

	"rmqconsole/fault"
	"rmqconsole/groups"
	"rmqconsole/i18n"
	"rmqconsole/store"
	"rmqconsole/views"
)

// LagHistory reads the lag history the background collector stores.
type LagHistory interface {
	LagSamples(ctx context.Context, group string, since, until time.Time) ([]store.LagSample, error)
	RecentLag(ctx context.Context, groups []string, since time.Time) (map[string][]store.LagSample, error)
}

// LagSampling says how the lag history is collected, for the pages to explain it.
type LagSampling struct {
	// Every is the collector's interval; 0 when it is off.
	Every time.Duration
	// Keep is the retention; 0 keeps it forever.
	Keep time.Duration
}

// lagRanges are the spans the group page's chart offers, the first the default.
var lagRanges = []struct {
	Key  string
	Span time.Duration
}{{"1h", time.Hour}, {"24h", 24 * time.Hour}, {"7d", 7 * 24 * time.Hour}}

// GroupLagHistory is GET /api/v1/groups/{group}/lag-history.
type GroupLagHistory struct {
	*Env
	History LagHistory
}

// LagSampleJSON is one sample of the lag history in the API. SpanMs > 0 marks a bucket of
// older samples folded together (at is its start; lag and lagTimeMs its maxima, the rates
// its means).
type LagSampleJSON struct {
	At         time.Time `json:"at"`
	SpanMs     int64     `json:"spanMs,omitempty"`
	Lag        *int64    `json:"lag"`
	LagTimeMs  *int64    `json:"lagTimeMs"`
	ConsumeTps *float64  `json:"consumeTps"`
	ProduceTps *float64  `json:"produceTps"`
}

// LagHistoryJSON is the answer.
type LagHistoryJSON struct {
	Group   string          `json:"group"`
	Since   time.Time       `json:"since"`
	Until   time.Time       `json:"until"`
	Samples []LagSampleJSON `json:"samples"`
	// Trend is where the lag was heading at until, from the rates of the samples before.
	Trend groups.Trend `json:"trend"`
}

// API answers [?since=&until=] (RFC 3339 or epoch ms; the last hour by default).
func (h *GroupLagHistory) API(c *gin.Context) {
	group, ok := h.groupParam(c)
	if !ok {
		return
	}
	now := time.Now()
	until, since := now, now.Add(-time.Hour)
	if !h.queryTime(c, "since", &since) || !h.queryTime(c, "until", &until) {
		return
	}
	if !since.Before(until) {
		h.Fail(c, fault.InvalidField("since", "group.error.range").Because("bad_range"))
		return
	}
	samples, err := h.History.LagSamples(c.Request.Context(), group, since, until)
	if err != nil {
		h.Fail(c, err)
		return
	}
	out := LagHistoryJSON{Group: group, Since: since.UTC(), Until: until.UTC(), Samples: make([]LagSampleJSON, len(samples)),
		Trend: groups.TrendOf(samples, until)}
	for i, s := range samples {
		out.Samples[i] = LagSampleJSON{At: s.At, SpanMs: s.Span.Milliseconds(), Lag: s.Lag, LagTimeMs: s.LagTimeMs,
			ConsumeTps: s.ConsumeTPS, ProduceTps: s.ProduceTPS}
	}
	c.JSON(http.StatusOK, out)
}

// storedChartData is the chart series of stored samples (same shape as groupChartData).
func storedChartData(samples []store.LagSample) string {
	c := chartJSON{T: make([]float64, 0, len(samples)), V: make([]*float64, 0, len(samples))}
	var prevEnd time.Time
	for _, s := range samples {
		// A stretch the collector did not read (console stopped, broker down) breaks the
		// line rather than joining the samples either side of it.
		if !prevEnd.IsZero() && s.At.Sub(prevEnd) > 3*max(s.Span, time.Minute) {
			c.T = append(c.T, float64(prevEnd.Add(time.Second).UnixMilli())/1000)
			c.V = append(c.V, nil)
		}
		c.T = append(c.T, float64(s.At.UnixMilli())/1000)
		var v *float64
		if s.Lag != nil {
			f := float64(*s.Lag)
			v = &f
		}
		c.V = append(c.V, v)
		prevEnd = s.At.Add(s.Span)
	}
	b, _ := json.Marshal(c)
	return string(b)
}

// lagRange reads the group page's ?range=, answering the default for anything else.
func lagRange(s string) (string, time.Duration) {
	for _, r := range lagRanges {
		if r.Key == s {
			return r.Key, r.Span
		}
	}
	return lagRanges[0].Key, lagRanges[0].Span
}

// lagChartVM is the chart part of the group page: the stored history of the range asked
// for, the links to the other ranges, and how the history is kept.
func lagChartVM(l *i18n.Localizer, group, rangeKey string, samples []store.LagSample, sampling LagSampling, readErr error) views.LagChart {
	vm := views.LagChart{Stored: storedChartData(samples), Range: rangeKey, StoredSamples: len(samples)}
	for _, r := range lagRanges {
		u := views.GroupURL(group)
		if r.Key != lagRanges[0].Key {
			u += "?range=" + r.Key
		}
		vm.Ranges = append(vm.Ranges, views.RangeLink{Label: l.T("group.chart.last", "Range", r.Key), URL: u, Active: r.Key == rangeKey})
	}
	switch {
	case readErr != nil:
		vm.Note = l.T("group.chart.note.readError", "Error", groupErrText(l, readErr))
	case sampling.Every <= 0:
		vm.Note = l.T("group.chart.note.off")
	default:
		keep := l.T("group.chart.keep.forever")
		if sampling.Keep > 0 {
			keep = l.T("group.chart.keep.for", "Span", views.DurationIn(l, sampling.Keep))
		}
		vm.Note = l.T("group.chart.note", "Every", views.DurationIn(l, sampling.Every), "Keep", keep,
			"Raw", views.DurationIn(l, groups.RawLagFor), "Bucket", views.DurationIn(l, groups.LagBucket))
	}
	return vm
}

// sparkValues are the lags of stored samples, for a sparkline (NaN where unknown).
func sparkValues(samples []store.LagSample) []float64 {
	out := make([]float64, len(samples))
	for i, s := range samples {
		out[i] = math.NaN()
		if s.Lag != nil {
			out[i] = float64(*s.Lag)
		}
	}
	return out
}

// GroupTrend is GET /groups/{group}/trend: the trend fragment the group page refreshes.
type GroupTrend struct {
	*Env
	History  LagHistory
	Sampling LagSampling
}

// Show renders the fragment.
func (h *GroupTrend) Show(c *gin.Context) {
	group, ok := h.groupParam(c)
	if !ok {
		return
	}
	now := time.Now()
	samples, err := h.History.LagSamples(c.Request.Context(), group, now.Add(-groups.TrendWindow), now.Add(time.Second))
	if err != nil {
		h.Fail(c, err)
		return
	}
	h.renderFragment(c, http.StatusOK, views.LagTrend(trendVM(i18n.From(c.Request.Context()), group, groups.TrendOf(samples, now), h.Sampling)))
}

// trendVM puts a trend in words; with a group and a running collector, the fragment
// refreshes itself each collection.
func trendVM(l *i18n.Localizer, group string, t groups.Trend, sampling LagSampling) views.TrendVM {
	vm := views.TrendVM{Direction: t.Direction, How: l.SayText(t.How), Never: t.Never}
	switch d, ok := t.Drain(); {
	case t.CaughtUp:
		vm.Drain = l.T("group.trend.caughtUp")
	case t.Never:
		vm.Drain = l.T("group.trend.never")
	case ok:
		vm.Drain = l.T("group.trend.drain", "Span", groups.FormatSpanIn(l, d))
	case t.Holding:
		vm.Drain = l.T("group.trend.holding")
	}
	if group != "" && sampling.Every > 0 {
		vm.URL, vm.Every = views.GroupURL(group)+"/trend", views.Duration(sampling.Every)
	}
	return vm
}
