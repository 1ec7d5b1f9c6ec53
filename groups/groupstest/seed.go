// Package groupstest prepares consumer groups on a real cluster for the groups
// benchmarks (package groups and the browser benchmarks in e2e).
package groupstest

import (
	"context"
	"fmt"
	"testing"
	"time"

	"golang.org/x/sync/errgroup"

	"rmqconsole/dev"
	"rmqconsole/rocketmq"
)

// Topic is the 4-queue topic every seeded group has committed offsets on.
const Topic = "bench-groups-t"

// SeedGroups makes n subscription groups bench-grp-NNNN on every broker of the cluster,
// each with a committed offset on every queue of Topic, so the group list has real
// consume stats to read. Groups that exist already are reused: seeding 1000 groups
// costs a minute once, then nothing.
func SeedGroups(tb testing.TB, cl *dev.Cluster, c *rocketmq.Client, n int) {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Minute)
	defer cancel()
	if _, err := c.TopicRoute(ctx, Topic); err != nil {
		if err := cl.CreateTopic(ctx, Topic, 4); err != nil {
			tb.Fatal(err)
		}
	}
	c.InvalidateRoute(Topic)
	route, err := c.TopicRoute(ctx, Topic)
	if err != nil {
		tb.Fatal(err)
	}
	for _, br := range cl.Brokers {
		have, err := c.SubscriptionGroups(ctx, br.Addr)
		if err != nil {
			tb.Fatal(err)
		}
		var g errgroup.Group
		g.SetLimit(8)
		made := 0
		for i := range n {
			name := fmt.Sprintf("bench-grp-%04d", i)
			if _, ok := have.Groups[name]; ok {
				continue
			}
			made++
			g.Go(func() error {
				err := c.UpdateSubscriptionGroup(ctx, br.Addr, rocketmq.SubscriptionGroupConfig{GroupName: name, ConsumeEnable: true,
					ConsumeBroadcastEnable: true, ConsumeFromMinEnable: true, NotifyConsumerIdsChangedEnable: true, WhichBrokerWhenConsumeSlowly: 1})
				for _, mq := range route.ReadQueues() {
					if err == nil && mq.BrokerName == br.Name {
						err = c.UpdateConsumerOffset(ctx, br.Addr, name, mq, 0)
					}
				}
				return err
			})
		}
		if err := g.Wait(); err != nil {
			tb.Fatal(err)
		}
		if made > 0 {
			tb.Logf("created %d groups on %s", made, br.Name)
		}
	}
}
