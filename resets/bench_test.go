package resets

import (
	"context"
	"testing"
	"time"

	"rmqconsole/dev"
	"rmqconsole/rocketmq"
	"rmqconsole/store"
)

// BenchmarkResetRealBroker measures, against the real broker, a preview and an apply of
// a reset of one offline group on an 8-queue topic: time and broker requests per
// operation, next to the bare GET_CONSUME_STATS that reads the same offsets (the least
// any preview must ask). The console's client is used as configured in production
// (routes cached for 3 s). An apply includes its one-second settle before reading back.
// Applies are measured with the audit log on a SQLite file and on PostgreSQL.
//
//	RMQC_TEST_NAMESRV=127.0.0.1:19876 go test ./resets/ -run '^$' -bench ResetRealBroker -benchtime 20x
func BenchmarkResetRealBroker(b *testing.B) {
	e := newITQueues(b, false, 8)
	c, err := rocketmq.New(rocketmq.Config{NameServer: e.cl.NameServer})
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	svc := New(Config{Admin: c, Audit: e.st.Audit(), NameServers: e.cl.NameServer})
	addr := e.cl.Brokers[0].Addr
	ctx := context.Background()
	req := Request{Group: e.group, Topic: e.topic, Mode: ModeTimestamp, Timestamp: e.between, QueueID: AllQueues}

	perOp := func(b *testing.B, calls uint64, start time.Time) {
		b.ReportMetric(float64(c.TotalCalls()-calls)/float64(b.N), "calls/op")
		b.ReportMetric(float64(time.Since(start).Microseconds())/1000/float64(b.N), "ms/op")
	}
	b.Run("consume-stats-baseline", func(b *testing.B) {
		calls, start := c.TotalCalls(), time.Now()
		for b.Loop() {
			if _, err := c.ConsumeStats(ctx, addr, e.group, e.topic); err != nil {
				b.Fatal(err)
			}
		}
		perOp(b, calls, start)
	})
	b.Run("preview", func(b *testing.B) {
		calls, start := c.TotalCalls(), time.Now()
		for b.Loop() {
			if _, err := svc.Plan(ctx, req); err != nil {
				b.Fatal(err)
			}
		}
		perOp(b, calls, start)
	})
	pg, err := store.Open(ctx, dev.RequirePostgres(b).NewDatabase(b))
	if err != nil {
		b.Fatal(err)
	}
	defer pg.Close()
	for _, db := range []struct {
		name string
		st   *store.Store
	}{{"apply/sqlite", e.st}, {"apply/postgres", pg}} {
		svc := New(Config{Admin: c, Audit: db.st.Audit(), NameServers: e.cl.NameServer})
		b.Run(db.name, func(b *testing.B) { benchApply(b, c, svc, req) })
	}
}

// benchApply applies previews of req, alternately to the earliest and the latest
// offsets, timing only the applies.
func benchApply(b *testing.B, c *rocketmq.Client, svc *Service, req Request) {
	ctx := context.Background()
	var calls uint64
	var took time.Duration
	modes := []Mode{ModeEarliest, ModeLatest}
	i := 0
	for b.Loop() {
		b.StopTimer()
		r := req
		r.Mode = modes[i%2]
		i++
		p, err := svc.Plan(ctx, r)
		if err != nil {
			b.Fatal(err)
		}
		before, start := c.TotalCalls(), time.Now()
		b.StartTimer()
		entry, err := svc.Apply(ctx, Confirmation{PlanID: p.ID, Request: p.Request, Confirmed: true, Who: alice})
		if err != nil || entry.Status != "applied" {
			b.Fatalf("apply: %v %v", entry, err)
		}
		calls += c.TotalCalls() - before
		took += time.Since(start)
	}
	b.ReportMetric(float64(calls)/float64(b.N), "calls/op")
	b.ReportMetric(float64(took.Microseconds())/1000/float64(b.N), "ms/op")
}
