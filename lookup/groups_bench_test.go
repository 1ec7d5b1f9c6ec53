package lookup

import (
	"context"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/sync/errgroup"

	"rmqconsole/cluster"
	"rmqconsole/dev/rmqclient"
	"rmqconsole/groups/groupstest"
	"rmqconsole/rocketmq"
)

// benchTopicGroups is how many groups BenchmarkMessageGroups seeds on its topic: the
// first of RMQC_BENCH_GROUPS (comma-separated, as the groups benchmark reads it), default
// 1000. The groups are groupstest's, shared with that benchmark.
func benchTopicGroups() int {
	first, _, _ := strings.Cut(os.Getenv("RMQC_BENCH_GROUPS"), ",")
	if n, err := strconv.Atoi(strings.TrimSpace(first)); err == nil && n > 0 {
		return n
	}
	return 1000
}

// perGroupStates is how a message's page read its groups before: for each group the
// topic's brokers name, its connection list and its committed offset on the message's
// queue, cluster.DefaultParallelism at a time. The baseline.
func perGroupStates(ctx context.Context, c *rocketmq.Client, route *rocketmq.TopicRoute, m Message) (int, error) {
	masters := route.MasterAddrs()
	var names []string
	for _, addr := range masters {
		gs, err := c.TopicConsumerGroups(ctx, addr, m.Topic)
		if err != nil {
			return 0, err
		}
		names = append(names, gs...)
	}
	addr := masterOf(route, m.BrokerName)
	mq := rocketmq.MessageQueue{Topic: m.Topic, BrokerName: m.BrokerName, QueueID: m.QueueID}
	var g errgroup.Group
	g.SetLimit(cluster.DefaultParallelism)
	for _, name := range names {
		g.Go(func() error {
			c.ConsumerConnections(ctx, addr, name)
			c.QueryConsumerOffset(ctx, addr, name, mq)
			return nil
		})
	}
	return len(names), g.Wait()
}

// BenchmarkMessageGroups times the part of a message's page that says, for every group
// of its topic, whether it consumed the message, with benchTopicGroups groups (committed
// offsets, no client online):
//   - per-group: one connection list and one committed offset per group (the baseline);
//   - bare: the two requests every page makes (the topic's groups, the offset table);
//   - cold: a console that has seen none of the groups' clients (a fresh one): two
//     requests plus at most ClientLookups connection lists;
//   - warm: a console whose group list has seen every group's clients: two requests.
//
// Reported: ms/page, broker-calls/page, and each one's speed-up over per-group.
func BenchmarkMessageGroups(b *testing.B) {
	e := newIT(b)
	n := benchTopicGroups()
	groupstest.SeedGroups(b, e.cl, e.c, n)
	p := rmqclient.StartProducer(b, e.cl.NameServer, "bench-msg-groups-pg")
	sent := sendAll(b, p, 1, msg(groupstest.Topic, "which groups consumed me", "T", nil, nil))
	ctx := context.Background()
	found, err := e.svc.ByID(ctx, IDQuery{ID: sent[0].offsetID})
	if err != nil {
		b.Fatal(err)
	}
	route, err := e.c.TopicRoute(ctx, groupstest.Topic)
	if err != nil {
		b.Fatal(err)
	}
	var baseMs float64
	measure := func(b *testing.B, page func() int) float64 {
		calls, start, groups := e.c.TotalCalls(), time.Now(), 0
		for b.Loop() {
			groups = page()
		}
		if groups < n {
			b.Fatalf("%d groups on the page, want at least %d", groups, n)
		}
		ms := float64(time.Since(start).Microseconds()) / 1000 / float64(b.N)
		b.ReportMetric(ms, "ms/page")
		b.ReportMetric(float64(e.c.TotalCalls()-calls)/float64(b.N), "broker-calls/page")
		b.ReportMetric(float64(groups), "groups")
		if baseMs > 0 {
			b.ReportMetric(baseMs/ms, "x-faster")
		}
		return ms
	}
	states := func(svc *Service) int {
		gs, err := svc.Groups(ctx, found.Message)
		if err != nil || len(gs.Failures) > 0 {
			b.Fatal(err, gs)
		}
		return len(gs.States)
	}
	b.Run("per-group", func(b *testing.B) {
		baseMs = measure(b, func() int {
			k, err := perGroupStates(ctx, e.c, route, found.Message)
			if err != nil {
				b.Fatal(err)
			}
			return k
		})
	})
	b.Run("bare", func(b *testing.B) {
		addr := masterOf(route, found.Message.BrokerName)
		measure(b, func() int {
			gs, err := e.c.TopicConsumerGroups(ctx, addr, groupstest.Topic)
			if err != nil {
				b.Fatal(err)
			}
			if _, err := e.c.ConsumerOffsets(ctx, addr); err != nil {
				b.Fatal(err)
			}
			return len(gs)
		})
	})
	b.Run("cold", func(b *testing.B) {
		measure(b, func() int { return states(New(e.c, Options{})) })
	})
	b.Run("warm", func(b *testing.B) {
		cl := cluster.New(e.c, cluster.Options{})
		svc := New(e.c, Options{Cluster: cl})
		gs, err := svc.Groups(ctx, found.Message)
		if err != nil {
			b.Fatal(err)
		}
		for _, s := range gs.States {
			cl.NoteConsumers(s.Group, nil, time.Now().Add(time.Hour)) // seen offline, as the list saw them
		}
		measure(b, func() int { return states(svc) })
	})
}

func masterOf(route *rocketmq.TopicRoute, broker string) string {
	for _, bd := range route.BrokerDatas {
		if bd.BrokerName == broker {
			return bd.Addrs[0]
		}
	}
	return ""
}
