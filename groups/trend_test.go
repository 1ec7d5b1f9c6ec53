package groups

import (
	"strings"
	"testing"
	"time"

	"rmqconsole/store"
)

func fptr(v float64) *float64 { return &v }

// samplesEvery30s makes a group's history ending at now: lag and rates per sample.
func samplesEvery30s(now time.Time, lag []int64, produce, consume float64) []store.LagSample {
	out := make([]store.LagSample, len(lag))
	for i, l := range lag {
		out[i] = store.LagSample{Group: "G", At: now.Add(-time.Duration(len(lag)-1-i) * 30 * time.Second), Lag: ptr(l)}
		if i > 0 {
			out[i].ProduceTPS, out[i].ConsumeTPS = fptr(produce), fptr(consume)
		}
	}
	return out
}

// What an on-call engineer reads: whether the lag grows, shrinks or holds, when it will
// be caught up, "never" when producers outrun consumers, and the sum on hover.
func TestTrendFromRates(t *testing.T) {
	now := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	for _, c := range []struct {
		name            string
		samples         []store.LagSample
		direction       string
		drain           time.Duration // 0: none
		never, caughtUp bool
		holding         bool
		howHas          []string
	}{
		{name: "consumer slower than producer", samples: samplesEvery30s(now, []int64{100, 1600, 3100}, 100, 50),
			direction: TrendGrowing, never: true, howHas: []string{"producing 100/s", "consuming 50/s", "never drains"}},
		{name: "consumer catching up", samples: samplesEvery30s(now, []int64{9000, 6000, 3000}, 100, 200),
			direction: TrendShrinking, drain: 30 * time.Second, howHas: []string{"3000 ÷ 100/s ≈ 30s"}},
		{name: "backlog held, consumers stopped, nobody producing", samples: samplesEvery30s(now, []int64{500, 500, 500}, 0, 0),
			direction: TrendSteady, never: true, howHas: []string{"never drains"}},
		{name: "a small backlog held while consumers keep pace is no alarm", samples: samplesEvery30s(now, []int64{8, 8, 8}, 40, 40),
			direction: TrendSteady, holding: true, howHas: []string{"holds"}},
		{name: "caught up", samples: samplesEvery30s(now, []int64{0, 0, 0}, 40, 40),
			direction: TrendSteady, caughtUp: true, howHas: []string{"caught up"}},
		{name: "slow drain of a big backlog is still steady", samples: samplesEvery30s(now, []int64{1_000_000, 1_000_000}, 100, 100.2),
			direction: TrendSteady, drain: time.Duration(1_000_000/0.2) * time.Second},
		{name: "one read: no rates yet", samples: samplesEvery30s(now, []int64{10}, 0, 0), direction: TrendUnknown,
			howHas: []string{"Not enough history"}},
		{name: "only the last reads count", samples: append(samplesEvery30s(now.Add(-2*time.Minute), []int64{0, 100, 200, 300}, 200, 0),
			samplesEvery30s(now, []int64{1000, 900, 800, 700, 600, 500, 400, 300, 200, 100, 50}, 0, 10)...),
			direction: TrendShrinking, drain: 5 * time.Second},
		{name: "rates older than the window", samples: samplesEvery30s(now.Add(-time.Hour), []int64{10, 20, 30}, 5, 1), direction: TrendUnknown},
	} {
		t.Run(c.name, func(t *testing.T) {
			tr := TrendOf(c.samples, now)
			d, ok := tr.Drain()
			if tr.Direction != c.direction || tr.Never != c.never || tr.CaughtUp != c.caughtUp || tr.Holding != c.holding || ok != (c.drain != 0) ||
				(ok && (d-c.drain).Abs() > time.Second) {
				t.Errorf("trend %+v (drain %s): want %s, drain %s, never %v, caught up %v", tr, d, c.direction, c.drain, c.never, c.caughtUp)
			}
			for _, h := range c.howHas {
				if !strings.Contains(tr.How.String(), h) {
					t.Errorf("how %q does not say %q", tr.How.String(), h)
				}
			}
		})
	}
}
