package store

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
	"time"
)

func i64(v int64) *int64       { return &v }
func f64(v float64) *float64   { return &v }
func lagOf(s LagSample) string { return fmt.Sprint(*s.Lag) }

// The lag history is read back after the file is closed and opened again (a console
// restart), oldest first, only the group and range asked for; unknown values stay
// unknown rather than becoming 0.
func TestLagSamplesSurviveReopen(t *testing.T) {
	eachDB(t, func(t *testing.T, db testDB) {
		ctx := context.Background()
		path := db.dsn
		s, err := Open(ctx, path)
		if err != nil {
			t.Fatal(err)
		}
		base := time.UnixMilli(1_700_000_000_000).UTC()
		if err := s.AddLagSamples(ctx, []LagSample{
			{Group: "G", At: base, Lag: i64(10)},
			{Group: "G", At: base.Add(30 * time.Second), Lag: i64(20), LagTimeMs: i64(4000), ConsumeTPS: f64(1.5), ProduceTPS: f64(2)},
			{Group: "other", At: base, Lag: i64(99)},
		}); err != nil {
			t.Fatal(err)
		}
		if err := s.AddLagSamples(ctx, []LagSample{{Group: "G", At: base.Add(time.Minute)}}); err != nil {
			t.Fatal(err)
		}
		s.Close()

		s, err = Open(ctx, path)
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		got, err := s.LagSamples(ctx, "G", base, base.Add(time.Hour))
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != 3 || *got[0].Lag != 10 || *got[1].Lag != 20 || got[2].Lag != nil {
			t.Fatalf("read back %+v: want G's 10, 20, unknown", got)
		}
		if s1 := got[1]; *s1.LagTimeMs != 4000 || *s1.ConsumeTPS != 1.5 || *s1.ProduceTPS != 2 || !s1.At.Equal(base.Add(30*time.Second)) {
			t.Errorf("second sample read back as %+v", s1)
		}
		if got[0].ConsumeTPS != nil || got[0].LagTimeMs != nil {
			t.Errorf("unknown rates read back as %v, %v", got[0].ConsumeTPS, got[0].LagTimeMs)
		}
		later, _ := s.LagSamples(ctx, "G", base.Add(time.Second), base.Add(time.Minute))
		if len(later) != 1 || lagOf(later[0]) != "20" {
			t.Errorf("since +1s until +1m: %+v, want only the sample at +30s", later)
		}
		recent, err := s.RecentLag(ctx, []string{"G", "other", "absent"}, base.Add(time.Second))
		if err != nil || len(recent["G"]) != 2 || len(recent["other"]) != 0 {
			t.Errorf("recent lag since +1s: %v, %v; want G's two newer samples and none of other's", recent, err)
		}
	})
}

// Compaction folds samples older than the raw window into one bucket per group and
// width, keeping each bucket's peak lag and mean rates; it never folds a bucket that is
// still open, and drops what is past the retention.
func TestCompactLagHistoryFoldsAndPrunes(t *testing.T) {
	eachDB(t, func(t *testing.T, db testDB) {
		ctx := context.Background()
		s, err := Open(ctx, db.dsn)
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		day := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
		var in []LagSample
		// 30 minutes of samples every 30 s, from 00:00; lag climbs 0, 1, 2, ... consume rate 1 or 3.
		for i := range 60 {
			in = append(in, LagSample{Group: "G", At: day.Add(time.Duration(i) * 30 * time.Second), Lag: i64(int64(i)), ConsumeTPS: f64(float64(1 + 2*(i%2)))})
		}
		// One sample far older than the retention.
		in = append(in, LagSample{Group: "G", At: day.Add(-10 * 24 * time.Hour), Lag: i64(5)})
		if err := s.AddLagSamples(ctx, in); err != nil {
			t.Fatal(err)
		}
		// Now is 00:22:30 + 5 min raw window: the cut is at 00:15 (the bucket 00:15–00:20 is
		// not complete before 00:17:30, so it stays raw).
		now := day.Add(22*time.Minute + 30*time.Second)
		c, err := s.CompactLagHistory(ctx, now, 5*time.Minute, 5*time.Minute, 7*24*time.Hour)
		if err != nil {
			t.Fatal(err)
		}
		if c.Folded != 31 || c.Buckets != 4 || c.Pruned != 1 {
			t.Errorf("compaction %+v: want 31 samples folded (30 of 00:00–00:15 and the old one) into 4 buckets, the old one then pruned", c)
		}
		got, _ := s.LagSamples(ctx, "G", day.Add(-30*24*time.Hour), day.Add(time.Hour))
		if len(got) != 3+30 {
			t.Fatalf("%d rows after compaction, want 3 buckets and 30 raw samples", len(got))
		}
		b := got[1] // 00:05–00:10: samples 10..19
		if b.Span != 5*time.Minute || !b.At.Equal(day.Add(5*time.Minute)) || *b.Lag != 19 || *b.ConsumeTPS != 2 {
			t.Errorf("bucket 00:05 read back as %+v (lag %d, consume %v), want the peak 19 and mean rate 2", b, *b.Lag, *b.ConsumeTPS)
		}
		if r := got[3]; r.Span != 0 || !r.At.Equal(day.Add(15*time.Minute)) {
			t.Errorf("first raw sample after the buckets: %+v, want the one at 00:15", r)
		}
		// Compacting again changes nothing: folded buckets are not folded twice.
		if c, err := s.CompactLagHistory(ctx, now, 5*time.Minute, 5*time.Minute, 7*24*time.Hour); err != nil || c != (LagCompaction{}) {
			t.Errorf("second compaction: %+v, %v; want nothing to do", c, err)
		}
	})
}

// BenchmarkLagHistoryBytesPerGroupDay measures what the lag history costs on disk: 50
// groups sampled every 30 s (the collector's default) for three simulated days, compacted
// as the recorder does (raw 2 h, 5-minute buckets); the growth of the vacuumed file over
// the last day, per group. Run: go test -run '^$' -bench LagHistoryBytes -benchtime 1x ./store/
func BenchmarkLagHistoryBytesPerGroupDay(b *testing.B) {
	const groups, every = 50, 30 * time.Second
	for b.Loop() {
		ctx := context.Background()
		s, err := Open(ctx, filepath.Join(b.TempDir(), "console.db"))
		if err != nil {
			b.Fatal(err)
		}
		size := func() int64 {
			if _, err := s.SQL().ExecContext(ctx, "VACUUM"); err != nil {
				b.Fatal(err)
			}
			var pages, pageSize int64
			_ = s.SQL().QueryRowContext(ctx, "PRAGMA page_count").Scan(&pages)
			_ = s.SQL().QueryRowContext(ctx, "PRAGMA page_size").Scan(&pageSize)
			return pages * pageSize
		}
		start := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
		var afterDay2 int64
		batch := make([]LagSample, groups)
		for tick := range int(3 * 24 * time.Hour / every) {
			at := start.Add(time.Duration(tick) * every)
			for g := range groups {
				batch[g] = LagSample{Group: fmt.Sprintf("order-service-consumer-%03d", g), At: at,
					Lag: i64(int64(tick*7+g) % 10000), LagTimeMs: i64(int64(tick) * 13), ConsumeTPS: f64(123.4), ProduceTPS: f64(125.1)}
			}
			if err := s.AddLagSamples(ctx, batch); err != nil {
				b.Fatal(err)
			}
			if at.Sub(start)%(10*time.Minute) == 0 {
				if _, err := s.CompactLagHistory(ctx, at, 2*time.Hour, 5*time.Minute, 7*24*time.Hour); err != nil {
					b.Fatal(err)
				}
			}
			if tick+1 == int(2*24*time.Hour/every) {
				afterDay2 = size()
			}
		}
		b.ReportMetric(float64(size()-afterDay2)/groups, "bytes/group/day")
		s.Close()
	}
}

// Each cluster's lag recorder compacts its own cluster's history, under that cluster's
// lease: compacting one cluster's never folds nor prunes another's samples, which
// another console may be compacting at the same time.
func TestCompactLagHistoryKeepsToItsCluster(t *testing.T) {
	eachDB(t, func(t *testing.T, db testDB) {
		ctx := context.Background()
		s := db.open(t)
		prod, test := s.ForCluster("prod"), s.ForCluster("test")
		now := time.Now()
		lag := int64(3)
		for _, st := range []*Store{prod, test} {
			if err := st.AddLagSamples(ctx, []LagSample{{Group: "G", At: now.Add(-time.Hour), Lag: &lag},
				{Group: "G", At: now.Add(-30 * 24 * time.Hour), Lag: &lag}}); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := prod.CompactLagHistory(ctx, now, 5*time.Minute, 5*time.Minute, 7*24*time.Hour); err != nil {
			t.Fatal(err)
		}
		all := func(st *Store) []LagSample {
			got, err := st.LagSamples(ctx, "G", now.Add(-60*24*time.Hour), now)
			if err != nil {
				t.Fatal(err)
			}
			return got
		}
		if got := all(prod); len(got) != 1 || got[0].Span != 5*time.Minute {
			t.Errorf("prod after its compaction: %+v, want one bucket", got)
		}
		if got := all(test); len(got) != 2 || got[0].Span != 0 || got[1].Span != 0 {
			t.Errorf("test after prod's compaction: %+v, want its two raw samples", got)
		}
	})
}
