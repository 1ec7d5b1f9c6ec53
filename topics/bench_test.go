package topics

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"rmqconsole/dev"
	"rmqconsole/rocketmq"
)

// benchTopics is how many topics the cold list is measured with.
const benchTopics = 1000

// The first page of the topic list on a cluster with 1000 more topics, the way before
// (a cold read: every broker's topic configs, then GET_TOPIC_STATS_INFO for each topic
// and broker, DefaultConcurrency in flight) against the way now (the configs alone, the
// figures from the collector's memory), in the same run: ms and broker calls per page
// for both, their ratio, and what one collector round costs. Requests are all the client
// sent, the NameServer's cluster info included (a round's budget counts broker calls).
//
//	RMQC_TEST_NAMESRV=127.0.0.1:19876 go test -run '^$' -bench TopicList -benchtime 5x ./topics/
func BenchmarkTopicList1000Cold(b *testing.B) {
	if testing.Short() {
		b.Skip("needs the local RocketMQ")
	}
	cl := dev.RequireCluster(b)
	c, err := rocketmq.New(rocketmq.Config{NameServer: cl.NameServer, Timeout: 10 * time.Second, Credentials: rocketmq.Credentials(dev.TestAccount(cl.NameServer))})
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	ctx := context.Background()
	prefix := dev.UniqueName("bench-topics")
	names := make([]string, benchTopics)
	for i := range names {
		names[i] = fmt.Sprintf("%s-%04d", prefix, i)
	}
	forEach := func(f func(addr, topic string) error) {
		var wg sync.WaitGroup
		sem := make(chan struct{}, DefaultConcurrency)
		for _, br := range cl.Brokers {
			for _, n := range names {
				wg.Add(1)
				sem <- struct{}{}
				go func() {
					defer wg.Done()
					defer func() { <-sem }()
					if err := f(br.Addr, n); err != nil {
						b.Error(err)
					}
				}()
			}
		}
		wg.Wait()
	}
	forEach(func(addr, topic string) error {
		return c.CreateTopic(ctx, addr, rocketmq.TopicConfig{TopicName: topic, ReadQueueNums: 4, WriteQueueNums: 4, Perm: 6})
	})
	defer func() {
		forEach(func(addr, topic string) error { return c.DeleteTopicInBroker(ctx, addr, topic) })
		for _, n := range names {
			_ = c.DeleteTopicInNameServers(ctx, n)
		}
	}()

	// Before: the cold read the list made, once per page.
	coldRead := func() int {
		var pairs []struct{ addr, topic string }
		for _, br := range cl.Brokers {
			t, err := c.TopicConfigs(ctx, br.Addr)
			if err != nil {
				b.Fatal(err)
			}
			for n := range t.Topics {
				if !rocketmq.IsSystemTopic(n) {
					pairs = append(pairs, struct{ addr, topic string }{br.Addr, n})
				}
			}
		}
		var wg sync.WaitGroup
		sem := make(chan struct{}, DefaultConcurrency)
		for _, p := range pairs {
			wg.Add(1)
			sem <- struct{}{}
			go func() {
				defer wg.Done()
				defer func() { <-sem }()
				_, _ = c.TopicStats(ctx, p.addr, p.topic)
			}()
		}
		wg.Wait()
		return len(pairs)
	}
	const coldRuns = 3
	calls0 := c.TotalCalls()
	coldStart := time.Now()
	var all int
	for range coldRuns {
		all = coldRead()
	}
	cold := time.Since(coldStart) / coldRuns
	coldCalls := float64(c.TotalCalls()-calls0) / coldRuns

	// Now: a fresh service (nothing cached) answers the first page from the configs.
	var listed int
	calls0 = c.TotalCalls()
	start := time.Now()
	for b.Loop() {
		svc := New(c, Options{})
		l, err := svc.List(ctx, false, true)
		if err != nil {
			b.Fatal(err)
		}
		if len(l.Failures) > 0 {
			b.Fatalf("failures: %v", l.Failures)
		}
		q := ListQuery{Sort: "messages", Desc: true}
		if _, err := PageOf(Select(l, q), q, 50, ""); err != nil {
			b.Fatal(err)
		}
		listed = len(l.Topics)
	}
	per := time.Since(start) / time.Duration(b.N)
	newCalls := float64(c.TotalCalls()-calls0) / float64(b.N)

	// One collector round at the default budget, on a service that has read nothing yet.
	col := New(c, Options{}).Figures(0, 0)
	calls0 = c.TotalCalls()
	roundStart := time.Now()
	rd := col.Collect(ctx)
	b.ReportMetric(float64(time.Since(roundStart).Microseconds())/1000, "ms/round")
	b.ReportMetric(float64(c.TotalCalls()-calls0), "requests/round")
	b.ReportMetric(float64(rd.Budget), "budget/round")

	b.ReportMetric(float64(per.Microseconds())/1000, "ms/page")
	b.ReportMetric(float64(cold.Microseconds())/1000, "ms/page-before")
	b.ReportMetric(float64(cold)/float64(per), "before/now")
	b.ReportMetric(newCalls, "requests/page")
	b.ReportMetric(coldCalls, "requests/page-before")
	b.ReportMetric(float64(listed), "topics/list")
	if listed < benchTopics || all < benchTopics {
		b.Errorf("listed %d topics (before %d), want at least %d", listed, all, benchTopics)
	}
}
