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

// BenchmarkAuditListPage measures a page of the audit list (50 entries, newest first)
// and the count of every entry its filter keeps beside it, over auditBenchEntries
// entries of one cluster: the count's cost against the page's it comes with.
//
//	go test ./store/ -run '^$' -bench AuditListPage -benchtime 50x
func BenchmarkAuditListPage(b *testing.B) {
	const auditBenchEntries = 5000
	for _, d := range []Dialect{SQLite, Postgres} {
		b.Run(string(d), func(b *testing.B) {
			dsn := filepath.Join(b.TempDir(), "console.db")
			if d == Postgres {
				dsn = dev.RequirePostgres(b).NewDatabase(b)
			}
			l := testDB{dialect: d, dsn: dsn}.open(b).Audit()
			ctx := context.Background()
			at := time.Now().Add(-auditBenchEntries * time.Minute)
			for i := range auditBenchEntries {
				e := &AuditEntry{StartedAt: at, FinishedAt: at, Actor: "alice", Cluster: "127.0.0.1:9876",
					Group: fmt.Sprintf("g%d", i%40), Topics: []string{"orders"}, Mode: "latest", Status: AuditApplied}
				if err := l.Record(ctx, e); err != nil {
					b.Fatal(err)
				}
				at = at.Add(time.Minute)
			}
			f := AuditFilter{Limit: 50}
			var list, count time.Duration
			for b.Loop() {
				t0 := time.Now()
				if _, _, err := l.List(ctx, f); err != nil {
					b.Fatal(err)
				}
				t1 := time.Now()
				if n, err := l.Count(ctx, f); err != nil || n != auditBenchEntries {
					b.Fatalf("counted %d (%v), want %d", n, err, auditBenchEntries)
				}
				list += t1.Sub(t0)
				count += time.Since(t1)
			}
			b.ReportMetric(float64(list.Microseconds())/1000/float64(b.N), "page-ms/op")
			b.ReportMetric(float64(count.Microseconds())/1000/float64(b.N), "count-ms/op")
			b.ReportMetric(float64(count)/float64(list), "count/page")
		})
	}
}
