package groups

import (
	"context"
	"fmt"
	"testing"
	"time"

	"rmqconsole/cluster/clustertest"
	"rmqconsole/cluster/clustertest/sim"
	"rmqconsole/rocketmq"
	"rmqconsole/rocketmq/rocketmqtest"
)

// BenchmarkSweepRotation runs the rebalance sweep after each collection on simulated
// clusters of 100, 1 000 and 10 000 groups (a quarter online with 2 clients each, the
// simulator's default) until every online group has been read once. Reported:
// collections/rotation, the longest a rebalance of a group whose client count did not
// change can go unseen, and broker-calls/sweep, the most one sweep made; a sweep over
// its budget (DefaultRebalanceCalls) fails the benchmark.
func BenchmarkSweepRotation(b *testing.B) {
	for _, groups := range []int{100, 1000, 10000} {
		b.Run(fmt.Sprintf("groups=%d", groups), func(b *testing.B) {
			srv := clustertest.NewRemoting(nil)
			b.Cleanup(srv.Close)
			ns, err := srv.Listen("127.0.0.1:0")
			if err != nil {
				b.Fatal(err)
			}
			addr, err := srv.Listen("127.0.0.1:0")
			if err != nil {
				b.Fatal(err)
			}
			c := sim.New(sim.Shape{Brokers: 1, Groups: groups, Topics: max(groups/10, 1)}, []string{addr})
			srv.Use(c)
			client := rocketmqtest.Client(b, rocketmq.Config{NameServer: ns, Timeout: 30 * time.Second})
			svc := NewService(client, Options{})
			ctx := context.Background()
			// Every OnlineEvery-th group has clients (sim.Shape's default of 4).
			online := groups / 4
			passes, maxCalls := 0, 0
			for b.Loop() {
				sweep := NewRebalanceSweep(svc, NewRebalanceLog(nil, nil), 0, nil)
				passes, maxCalls = 0, 0
				for passes < 200 {
					l, err := svc.List(ctx, true)
					if err != nil {
						b.Fatal(err)
					}
					before := brokerCalls(client)
					sweep.Sweep(ctx, l)
					calls := int(brokerCalls(client) - before)
					maxCalls = max(maxCalls, calls)
					if calls > sweep.Calls() {
						b.Errorf("pass %d: %d broker calls, over the budget of %d", passes, calls, sweep.Calls())
					}
					passes++
					read := 0
					for _, g := range l.Groups {
						if o, ok := sweep.log.last(g.Group); ok && o.clients > 0 {
							read++
						}
					}
					if read >= online {
						break
					}
				}
			}
			b.ReportMetric(float64(passes), "collections/rotation")
			b.ReportMetric(float64(maxCalls), "broker-calls/sweep")
		})
	}
}
