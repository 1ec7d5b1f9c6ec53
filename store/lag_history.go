package store

import (
	"context"
	"fmt"
	"time"

	"gorm.io/gorm"
	"gorm.io/gorm/clause"
)

// LagSample is one consumer group's lag at one time, as the background collector read
// it, or a bucket of older samples folded together (Span > 0: At is the bucket's start,
// Lag and LagTimeMs its maxima, so a peak is never smoothed away, and the rates its
// means). A nil value was unknown.
type LagSample struct {
	Group string
	At    time.Time
	Span  time.Duration
	Lag   *int64
	// LagTimeMs is how far behind in time the group was: the age of its oldest
	// unconsumed message.
	LagTimeMs  *int64
	ConsumeTPS *float64
	ProduceTPS *float64
}

type lagRow struct {
	Cluster    string `gorm:"primaryKey"`
	GroupName  string `gorm:"primaryKey"`
	AtMs       int64  `gorm:"primaryKey"`
	SpanMs     int64  `gorm:"primaryKey"`
	Lag        *int64
	LagTimeMs  *int64
	ConsumeTps *float64
	ProduceTps *float64
}

func (lagRow) TableName() string { return "lag_samples" }

func (r lagRow) sample() LagSample {
	return LagSample{Group: r.GroupName, At: time.UnixMilli(r.AtMs).UTC(), Span: time.Duration(r.SpanMs) * time.Millisecond,
		Lag: r.Lag, LagTimeMs: r.LagTimeMs, ConsumeTPS: r.ConsumeTps, ProduceTPS: r.ProduceTps}
}

// MaxLagSamples caps how many samples one read returns (a week of one group at the
// collector's default interval after folding is about 2 300).
const MaxLagSamples = 20000

// AddLagSamples stores one collection's samples in one transaction. A sample of the same
// group at the same millisecond replaces the earlier one.
func (s *Store) AddLagSamples(ctx context.Context, samples []LagSample) error {
	ctx, cancel := s.deadline(ctx)
	defer cancel()
	if len(samples) == 0 {
		return nil
	}
	rows := make([]lagRow, len(samples))
	for i, v := range samples {
		rows[i] = lagRow{Cluster: s.cluster, GroupName: v.Group, AtMs: v.At.UnixMilli(), SpanMs: v.Span.Milliseconds(),
			Lag: v.Lag, LagTimeMs: v.LagTimeMs, ConsumeTps: v.ConsumeTPS, ProduceTps: v.ProduceTPS}
	}
	err := s.DB.WithContext(ctx).Clauses(clause.OnConflict{UpdateAll: true}).CreateInBatches(&rows, 500).Error
	if err != nil {
		return fmt.Errorf("store lag samples of %d groups: %w", len(samples), err)
	}
	return nil
}

// LagSamples returns a group's samples with since <= at < until, oldest first, folded
// buckets and raw samples together, at most MaxLagSamples (the newest).
func (s *Store) LagSamples(ctx context.Context, group string, since, until time.Time) ([]LagSample, error) {
	ctx, cancel := s.deadline(ctx)
	defer cancel()
	var rows []lagRow
	err := s.DB.WithContext(ctx).Where("cluster = ? AND group_name = ? AND at_ms >= ? AND at_ms < ?", s.cluster, group, since.UnixMilli(), until.UnixMilli()).
		Order("at_ms DESC").Limit(MaxLagSamples).Find(&rows).Error
	if err != nil {
		return nil, fmt.Errorf("read lag history of group %q: %w", group, err)
	}
	out := make([]LagSample, len(rows))
	for i, r := range rows {
		out[len(rows)-1-i] = r.sample()
	}
	return out, nil
}

// RecentLag returns the named groups' samples since a time, oldest first, by group: the
// group list's sparklines, in one read.
func (s *Store) RecentLag(ctx context.Context, groups []string, since time.Time) (map[string][]LagSample, error) {
	ctx, cancel := s.deadline(ctx)
	defer cancel()
	out := make(map[string][]LagSample, len(groups))
	if len(groups) == 0 {
		return out, nil
	}
	// SQLite allows 32 766 parameters; stay well below it.
	for start := 0; start < len(groups); start += 5000 {
		chunk := groups[start:min(start+5000, len(groups))]
		var rows []lagRow
		err := s.DB.WithContext(ctx).Where("cluster = ? AND at_ms >= ? AND group_name IN ?", s.cluster, since.UnixMilli(), chunk).
			Order("group_name, at_ms").Find(&rows).Error
		if err != nil {
			return nil, fmt.Errorf("read recent lag of %d groups: %w", len(groups), err)
		}
		for _, r := range rows {
			out[r.GroupName] = append(out[r.GroupName], r.sample())
		}
	}
	return out, nil
}

// LagCompaction says what CompactLagHistory did.
type LagCompaction struct {
	Folded, Buckets, Pruned int64
}

// CompactLagHistory keeps the lag history bounded: samples older than rawFor are folded
// into buckets of width bucket (one row per group and bucket), and everything older than
// retention is deleted. Only buckets that ended before the cut are folded, so each bucket
// is written once, from every sample it covers. Only this store's cluster's history:
// each cluster's recorder compacts its own, under its cluster's lease.
func (s *Store) CompactLagHistory(ctx context.Context, now time.Time, rawFor, bucket, retention time.Duration) (LagCompaction, error) {
	ctx, cancel := s.batchDeadline(ctx)
	defer cancel()
	var c LagCompaction
	b := bucket.Milliseconds()
	if b <= 0 {
		return c, fmt.Errorf("compact lag history: bucket %s is not a width", bucket)
	}
	cut := now.Add(-rawFor).UnixMilli() / b * b
	err := s.DB.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		// A bucket folded again (samples of it arrived late) is replaced by the new fold.
		r := tx.Exec(`INSERT INTO lag_samples (cluster, group_name, at_ms, span_ms, lag, lag_time_ms, consume_tps, produce_tps)
			SELECT cluster, group_name, bucket * ?, ?, MAX(lag), MAX(lag_time_ms), AVG(consume_tps), AVG(produce_tps)
			FROM (SELECT cluster, group_name, at_ms / ? AS bucket, lag, lag_time_ms, consume_tps, produce_tps
				FROM lag_samples WHERE cluster = ? AND span_ms = 0 AND at_ms < ?) AS raw
			GROUP BY cluster, group_name, bucket
			ON CONFLICT (cluster, group_name, at_ms, span_ms) DO UPDATE SET lag = excluded.lag, lag_time_ms = excluded.lag_time_ms,
				consume_tps = excluded.consume_tps, produce_tps = excluded.produce_tps`, b, b, b, s.cluster, cut)
		if r.Error != nil {
			return fmt.Errorf("fold samples before %s: %w", time.UnixMilli(cut).UTC().Format(time.RFC3339), r.Error)
		}
		c.Buckets = r.RowsAffected
		r = tx.Exec(`DELETE FROM lag_samples WHERE cluster = ? AND span_ms = 0 AND at_ms < ?`, s.cluster, cut)
		if r.Error != nil {
			return fmt.Errorf("drop folded samples: %w", r.Error)
		}
		c.Folded = r.RowsAffected
		if retention > 0 {
			r = tx.Exec(`DELETE FROM lag_samples WHERE cluster = ? AND at_ms < ?`, s.cluster, now.Add(-retention).UnixMilli())
			if r.Error != nil {
				return fmt.Errorf("prune lag history older than %s: %w", retention, r.Error)
			}
			c.Pruned = r.RowsAffected
		}
		return nil
	})
	if err != nil {
		return LagCompaction{}, fmt.Errorf("compact lag history: %w", err)
	}
	return c, nil
}
