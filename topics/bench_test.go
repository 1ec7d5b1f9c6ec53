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

// The topic list of a cluster with 1000 more topics, cold (a new service each time, so
// nothing is cached): ms per list and broker calls per list, against the bare calls for
// the same data made one after another (all topic configs, then each topic's stats).
// The list's fan-out is bounded (DefaultConcurrency calls in flight).
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

	// Baseline: the same broker calls, one after another.
	baseStart := time.Now()
	var all []string
	for _, br := range cl.Brokers {
		t, err := c.TopicConfigs(ctx, br.Addr)
		if err != nil {
			b.Fatal(err)
		}
		for n := range t.Topics {
			if !rocketmq.IsSystemTopic(n) {
				all = append(all, n)
				if _, err := c.TopicStats(ctx, br.Addr, n); err != nil {
					b.Fatal(err)
				}
			}
		}
	}
	bare := time.Since(baseStart)

	var listed int
	calls0 := c.TotalCalls()
	start := time.Now()
	for b.Loop() {
		l, err := New(c, Options{}).List(ctx, false, true)
		if err != nil {
			b.Fatal(err)
		}
		if len(l.Failures) > 0 {
			b.Fatalf("failures: %v", l.Failures)
		}
		listed = len(l.Topics)
	}
	per := time.Since(start) / time.Duration(b.N)
	b.ReportMetric(float64(per.Microseconds())/1000, "ms/list")
	b.ReportMetric(float64(bare.Microseconds())/1000, "ms/bare-sequential")
	b.ReportMetric(float64(per)/float64(bare), "list/bare")
	b.ReportMetric(float64(c.TotalCalls()-calls0)/float64(b.N), "broker-calls/list")
	b.ReportMetric(float64(listed), "topics/list")
	if listed < benchTopics || len(all) < benchTopics {
		b.Errorf("listed %d topics (bare %d), want at least %d", listed, len(all), benchTopics)
	}
}
