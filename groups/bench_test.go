package groups

import (
	"context"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/sync/errgroup"

	"rmqconsole/dev"
	"rmqconsole/groups/groupstest"
	"rmqconsole/rocketmq"
)

// benchSizes are the group counts BenchmarkGroupList seeds and reads, smallest first
// (RMQC_BENCH_GROUPS, comma-separated; default 1000,10000).
func benchSizes() []int {
	var out []int
	for f := range strings.SplitSeq(os.Getenv("RMQC_BENCH_GROUPS"), ",") {
		if n, err := strconv.Atoi(strings.TrimSpace(f)); err == nil && n > 0 {
			out = append(out, n)
		}
	}
	if len(out) == 0 {
		return []int{1000, 10000}
	}
	return out
}

// brokerCalls counts requests to brokers (NameServer requests apart).
func brokerCalls(c *rocketmq.Client) uint64 {
	n := c.TotalCalls()
	for _, code := range []rocketmq.RequestCode{rocketmq.CodeGetRouteInfoByTopic, rocketmq.CodeGetBrokerClusterInfo, rocketmq.CodeGetAllTopicListFromNameSrv} {
		n -= c.CallCount(code)
	}
	return n
}

// perGroupList is how the list was read before GET_BROKER_CONSUME_STATS, kept as the
// baseline: every master's subscription groups, then each group's connection list and
// GET_CONSUME_STATS on each master, DefaultConcurrency at a time.
func perGroupList(ctx context.Context, c *rocketmq.Client) (int, error) {
	ci, err := c.ClusterInfo(ctx)
	if err != nil {
		return 0, err
	}
	var g errgroup.Group
	g.SetLimit(DefaultConcurrency)
	groups := map[string]bool{}
	for _, bd := range ci.Brokers {
		addr := bd.Addrs[0]
		t, err := c.SubscriptionGroups(ctx, addr)
		if err != nil {
			return 0, err
		}
		for name := range t.Groups {
			groups[name] = true
			g.Go(func() error {
				if _, err := c.ConsumerConnections(ctx, addr, name); err != nil && !notThere(err) {
					return err
				}
				if _, err := c.ConsumeStats(ctx, addr, name, ""); err != nil && !notThere(err) {
					return err
				}
				return nil
			})
		}
	}
	return len(groups), g.Wait()
}

// BenchmarkGroupList reads every group of a cluster seeded with each of benchSizes
// groups (each with offsets on a 4-queue topic):
//   - per-group: the way before, one connection list and one GET_CONSUME_STATS per group
//     (the baseline);
//   - broker-requests: the list's requests per broker alone (subscription groups and
//     every group's offsets), the least any list costs;
//   - cold: the list as a fresh console reads it (nothing cached): two requests per
//     broker plus at most ClientLookups connection lists;
//   - collector: one background refresh after the first (what the metrics collector
//     costs per interval): the next ClientLookups groups' clients;
//   - warm: a request answered from the cache.
//
// Reported: ms/list, broker-calls/list, and cold's speed-up over per-group
// (x-faster). The page itself is measured by e2e's BenchmarkGroupsPage.
func BenchmarkGroupList(b *testing.B) {
	cl := dev.RequireCluster(b)
	c, err := rocketmq.New(rocketmq.Config{NameServer: cl.NameServer, Timeout: 10 * time.Second})
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	ctx := context.Background()
	for _, n := range benchSizes() {
		groupstest.SeedGroups(b, cl, c, n)
		var perGroupMs float64
		measure := func(b *testing.B, list func() int) float64 {
			calls, start, groups := brokerCalls(c), time.Now(), 0
			for b.Loop() {
				groups = list()
			}
			if groups < n {
				b.Fatalf("listed %d groups, want at least %d", groups, n)
			}
			ms := float64(time.Since(start).Microseconds()) / 1000 / float64(b.N)
			b.ReportMetric(ms, "ms/list")
			b.ReportMetric(float64(brokerCalls(c)-calls)/float64(b.N), "broker-calls/list")
			b.ReportMetric(float64(groups), "groups")
			return ms
		}
		b.Run("groups="+strconv.Itoa(n), func(b *testing.B) {
			b.Run("per-group", func(b *testing.B) {
				perGroupMs = measure(b, func() int {
					k, err := perGroupList(ctx, c)
					if err != nil {
						b.Fatal(err)
					}
					return k
				})
			})
			b.Run("broker-requests", func(b *testing.B) {
				s := NewService(c, Options{})
				measure(b, func() int {
					ci, err := c.ClusterInfo(ctx)
					if err != nil {
						b.Fatal(err)
					}
					k := 0
					for _, bd := range ci.Brokers {
						r, err := s.brokerGroups(ctx, bd.BrokerName, bd.Addrs[0], DefaultMaxOffsetReads)
						if err != nil || r.statsErr != nil {
							b.Fatal(err, r.statsErr)
						}
						k += len(r.groups)
					}
					return k
				})
			})
			b.Run("cold", func(b *testing.B) {
				ms := measure(b, func() int {
					l, err := NewService(c, Options{}).List(ctx, true)
					if err != nil {
						b.Fatal(err)
					}
					return len(l.Groups)
				})
				if perGroupMs > 0 {
					b.ReportMetric(perGroupMs/ms, "x-faster")
				}
			})
			b.Run("collector", func(b *testing.B) {
				s := NewService(c, Options{ListTTL: time.Nanosecond})
				col := NewLagCollector(s, time.Minute)
				col.refresh(ctx)
				measure(b, func() int {
					col.refresh(ctx)
					return len(col.last.Groups)
				})
			})
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
		})
	}
}
