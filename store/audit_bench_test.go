package store

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"rmqconsole/dev"
)

// BenchmarkAuditResetWrites measures what the database adds to every reset: the pending
// entry written before any broker is asked, and the outcome sealed into the chain after,
// on a SQLite file and on PostgreSQL (the test binary's own server, on loopback).
//
//	go test ./store/ -run '^$' -bench AuditResetWrites -benchtime 200x
func BenchmarkAuditResetWrites(b *testing.B) {
	for _, d := range []Dialect{SQLite, Postgres} {
		b.Run(string(d), func(b *testing.B) {
			dsn := filepath.Join(b.TempDir(), "console.db")
			if d == Postgres {
				dsn = dev.RequirePostgres(b).NewDatabase(b)
			}
			s := testDB{dialect: d, dsn: dsn}.open(b)
			l := s.Audit()
			ctx := context.Background()
			i := 0
			var begin, finish time.Duration
			for b.Loop() {
				e := pendingEntry(fmt.Sprintf("g%d", i%8))
				i++
				t0 := time.Now()
				if err := l.Begin(ctx, e); err != nil {
					b.Fatal(err)
				}
				t1 := time.Now()
				e.Status = AuditApplied
				if err := l.Finish(ctx, e); err != nil {
					b.Fatal(err)
				}
				begin += t1.Sub(t0)
				finish += time.Since(t1)
			}
			b.ReportMetric(float64(begin.Microseconds())/1000/float64(b.N), "begin-ms/op")
			b.ReportMetric(float64(finish.Microseconds())/1000/float64(b.N), "seal-ms/op")
		})
	}
}
