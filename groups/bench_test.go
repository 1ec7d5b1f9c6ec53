package groups

import (
	"context"
	"os"
	"strconv"
	"testing"
	"time"

	"rmqconsole/dev"
	"rmqconsole/groups/groupstest"
	"rmqconsole/rocketmq"
)

// benchGroups is how many consumer groups BenchmarkGroupList reads
// (RMQC_BENCH_GROUPS, default 1000).
func benchGroups() int {
	if n, err := strconv.Atoi(os.Getenv("RMQC_BENCH_GROUPS")); err == nil && n > 0 {
		return n
	}
	return 1000
}

// brokerCalls counts requests to brokers (NameServer requests apart).
func brokerCalls(c *rocketmq.Client) uint64 {
	n := c.TotalCalls()
	for _, code := range []rocketmq.RequestCode{rocketmq.CodeGetRouteInfoByTopic, rocketmq.CodeGetBrokerClusterInfo, rocketmq.CodeGetAllTopicListFromNameSrv} {
		n -= c.CallCount(code)
	}
	return n
}

// BenchmarkGroupList reads every group of a cluster with RMQC_BENCH_GROUPS groups:
//   - cold: a full pass over the brokers (the list's cache empty), bounded to the
//     default concurrency;
//   - sequential: the same pass one call at a time, as consoles that loop over groups
//     do: the baseline;
//   - warm: a request answered from the cache.
//
// Reported: ms/refresh and broker-calls/refresh (warm: ns/op and broker calls, zero).
// The page itself, rendered by the real binary, is measured by e2e's BenchmarkGroupsPage.
func BenchmarkGroupList(b *testing.B) {
	cl := dev.RequireCluster(b)
	c, err := rocketmq.New(rocketmq.Config{NameServer: cl.NameServer, Timeout: 10 * time.Second})
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	n := benchGroups()
	groupstest.SeedGroups(b, cl, c, n)
	ctx := context.Background()

	pass := func(b *testing.B, concurrency int) {
		calls, start, groups := brokerCalls(c), time.Now(), 0
		for b.Loop() {
			s := NewService(c, Options{Concurrency: concurrency})
			l, err := s.List(ctx, true)
			if err != nil {
				b.Fatal(err)
			}
			groups = len(l.Groups)
		}
		if groups < n {
			b.Fatalf("listed %d groups, want at least %d", groups, n)
		}
		b.ReportMetric(float64(time.Since(start).Milliseconds())/float64(b.N), "ms/refresh")
		b.ReportMetric(float64(brokerCalls(c)-calls)/float64(b.N), "broker-calls/refresh")
		b.ReportMetric(float64(groups), "groups")
	}
	b.Run("cold", func(b *testing.B) { pass(b, DefaultConcurrency) })
	b.Run("sequential", func(b *testing.B) { pass(b, 1) })
	b.Run("warm", func(b *testing.B) {
		s := NewService(c, Options{})
		if _, err := s.List(ctx, true); err != nil {
			b.Fatal(err)
		}
		calls := c.TotalCalls()
		for b.Loop() {
			if _, err := s.List(ctx, false); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(c.TotalCalls()-calls)/float64(b.N), "broker-calls/request")
	})
}
