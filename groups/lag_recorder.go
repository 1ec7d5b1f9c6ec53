package groups

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"rmqconsole/store"
)

// LagHistoryStore keeps every group's lag over time; *store.Store implements it.
type LagHistoryStore interface {
	AddLagSamples(ctx context.Context, samples []store.LagSample) error
	CompactLagHistory(ctx context.Context, now time.Time, rawFor, bucket, retention time.Duration) (store.LagCompaction, error)
}

// How the lag history is kept bounded: samples are kept as read for RawLagFor, then
// folded into LagBucket-wide buckets until the retention ends. At the collector's default
// 30 s that is 240 rows per group for the last two hours and 288 rows per group per day
// before them.
const (
	RawLagFor      = 2 * time.Hour
	LagBucket      = 5 * time.Minute
	compactLagEach = 10 * time.Minute
)

// LagRecorder writes each collection of the group list to the lag history: every
// application group's total lag, time behind, and consume and produce rates (committed
// and broker offsets advanced per second since the previous collection). It compacts the
// history now and then so it stays bounded.
type LagRecorder struct {
	store     LagHistoryStore
	retention time.Duration
	log       *slog.Logger

	mu          sync.Mutex
	prev        map[string]Offsets
	lastCompact time.Time
}

// NewLagRecorder returns a recorder keeping retention of history (0: forever).
func NewLagRecorder(st LagHistoryStore, retention time.Duration, log *slog.Logger) *LagRecorder {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &LagRecorder{store: st, retention: retention, log: log, prev: map[string]Offsets{}}
}

// Record stores l's samples; it is the collector's hook (LagCollector.Then).
func (r *LagRecorder) Record(ctx context.Context, l *List) {
	samples := r.samples(l)
	if err := r.store.AddLagSamples(ctx, samples); err != nil {
		if ctx.Err() == nil {
			r.log.Error("store lag history", "groups", len(samples), "err", err)
		}
		return
	}
	r.mu.Lock()
	due := l.CheckedAt.Sub(r.lastCompact) >= compactLagEach
	if due {
		r.lastCompact = l.CheckedAt
	}
	r.mu.Unlock()
	if due {
		c, err := r.store.CompactLagHistory(ctx, l.CheckedAt, RawLagFor, LagBucket, r.retention)
		switch {
		case err != nil && ctx.Err() == nil:
			r.log.Error("compact lag history", "err", err)
		case c.Folded > 0 || c.Pruned > 0:
			r.log.Debug("compacted lag history", "folded", c.Folded, "buckets", c.Buckets, "pruned", c.Pruned)
		}
	}
}

// samples turns a group list into lag samples, computing rates against the previous
// list. Groups gone from the list are forgotten.
func (r *LagRecorder) samples(l *List) []store.LagSample {
	r.mu.Lock()
	defer r.mu.Unlock()
	next := make(map[string]Offsets, len(r.prev))
	out := make([]store.LagSample, 0, len(l.Groups))
	for _, g := range l.Groups {
		if g.System {
			continue
		}
		cur := OffsetsOf(g, l.CheckedAt)
		next[g.Group] = cur
		s := store.LagSample{Group: g.Group, At: l.CheckedAt, Lag: g.TotalLag, LagTimeMs: g.MaxLagTimeMs}
		if p, ok := r.prev[g.Group]; ok {
			s.ProduceTPS, s.ConsumeTPS = rates(p, cur)
		}
		out = append(out, s)
	}
	r.prev = next
	return out
}

// rates are the offsets advanced per second between two collections, over the queues
// both saw (Advanced).
func rates(prev, cur Offsets) (produce, consume *float64) {
	secs := cur.At.Sub(prev.At).Seconds()
	if secs <= 0 {
		return nil, nil
	}
	p, c, common := Advanced(prev, cur)
	if common == 0 {
		return nil, nil
	}
	pr, cr := float64(p)/secs, float64(c)/secs
	return &pr, &cr
}
