package lookup

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/sync/errgroup"

	"rmqconsole/filter"
	"rmqconsole/rocketmq"
)

// BenchmarkDeepScan times a deep scan of the whole seeded topic (every message, the
// handful with the bench key matching) against bare pulls of the same offsets, in
// batches of 32 with the same parallelism, alternating the two in every iteration.
// Metrics: messages/s of each and scan/bare, their ratio (the target is at least 0.8).
func BenchmarkDeepScan(b *testing.B) {
	e := seeded(b)
	ctx := context.Background()
	// The whole topic: from a second before the span seeded to a minute after it.
	span := e.end.Sub(e.begin)
	begin, end := e.begin.Add(-span).Add(-time.Second), e.end.Add(span).Add(time.Minute)
	f, err := filter.Compile(filter.Query{Where: "TAGS = 'keyed'"})
	if err != nil {
		b.Fatal(err)
	}
	q := ScanQuery{RangeQuery: RangeQuery{Topic: benchTopic, Begin: begin, End: end, Filter: f}, Time: 5 * time.Minute}
	res, err := e.svc.Scan(ctx, q, ScanSink{}) // warm the connection and the route cache
	if err != nil || res.Ended != ScanDone || res.Scanned < e.stored || res.Matched < 1 {
		b.Fatalf("warm-up: %v; %+v ended %v, %d stored", err, res.ScanProgress, res.Ended, e.stored)
	}
	spans := queueSpans(b, e)
	var scanTook, bareTook time.Duration
	var bareN int64
	versus(b, func() {
		start := time.Now()
		res, err = e.svc.Scan(ctx, q, ScanSink{Matches: func([]Message, ScanProgress) {}})
		scanTook += time.Since(start)
		if err != nil || res.Ended != ScanDone {
			b.Fatalf("%v, ended %s", err, res.Ended)
		}
	}, func() {
		start := time.Now()
		bareN, err = barePullAll(ctx, e.c, e.route, spans, scanParallel)
		bareTook += time.Since(start)
		if err != nil {
			b.Fatal(err)
		}
	})
	scanRate := float64(res.Scanned) * float64(b.N) / scanTook.Seconds()
	bareRate := float64(bareN) * float64(b.N) / bareTook.Seconds()
	b.ReportMetric(scanRate, "msgs/s-scan")
	b.ReportMetric(bareRate, "msgs/s-bare")
	b.ReportMetric(scanRate/bareRate, "scan/bare")
	b.ReportMetric(float64(res.Scanned), "scanned")
	b.ReportMetric(float64(res.Matched), "matched")
}

// queueSpans are the offsets [min, max) every queue of the seeded topic holds.
func queueSpans(b *testing.B, e *benchEnv) map[rocketmq.MessageQueue][2]int64 {
	out := map[rocketmq.MessageQueue][2]int64{}
	for name, addr := range e.route.MasterAddrs() {
		st, err := e.c.TopicStats(context.Background(), addr, benchTopic)
		if err != nil {
			b.Fatal(err)
		}
		for mq, o := range st.Offsets {
			if mq.BrokerName == name {
				out[mq] = [2]int64{o.MinOffset, o.MaxOffset}
			}
		}
	}
	return out
}

// barePullAll pulls every offset of spans in batches of 32, parallelism at a time.
func barePullAll(ctx context.Context, c *rocketmq.Client, route *rocketmq.TopicRoute, spans map[rocketmq.MessageQueue][2]int64, parallelism int) (int64, error) {
	var g errgroup.Group
	g.SetLimit(parallelism)
	var got atomic.Int64
	for mq, s := range spans {
		addr, _ := route.MasterAddr(mq.BrokerName)
		for from := s[0]; from < s[1]; from += pullBatch {
			g.Go(func() error {
				msgs, _, err := c.PullRange(ctx, addr, mq, from, min(from+pullBatch, s[1]), 0)
				got.Add(int64(len(msgs)))
				return err
			})
		}
	}
	err := g.Wait()
	return got.Load(), err
}
