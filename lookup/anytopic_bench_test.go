package lookup

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"golang.org/x/sync/errgroup"

	"rmqconsole/dev"
	"rmqconsole/dev/rmqclient"
	"rmqconsole/rocketmq"
)

// anyTopicBenchTopics is how many topics the cluster holds for the search of a unique
// key without its topic; the target is at most 2 s at 1 000 topics.
const anyTopicBenchTopics = 1000

// BenchmarkUniqueKeyWithoutTopic times finding a client message id without its topic
// on a cluster of at least 1 000 topics (created once, one queue each, kept for later
// runs), against the lookup of the same id with its topic, alternating the two. "found"
// finds a message sent to the last topic created; "nowhere" reads every topic's index
// for an id no message has, the bound of the search. Metrics: ms of each, and topics.
func BenchmarkUniqueKeyWithoutTopic(b *testing.B) {
	e := newIT(b)
	ctx := context.Background()
	topics := anyTopicBenchSeed(b, e)
	last := topics[len(topics)-1]
	p := rmqclient.StartProducer(b, e.cl.NameServer, "")
	one := sendAll(b, p, 1, msg(last, "find me", "T", nil, nil))[0]
	var known *IDResult
	dev.Eventually(b, 30*time.Second, "the message is indexed", func() error {
		var err error
		known, err = e.svc.ByID(ctx, IDQuery{ID: one.uniq, Topic: last})
		return err
	})
	// The same producer and time, a counter it has not reached.
	nowhere := one.uniq[:len(one.uniq)-4] + "FFFF"
	for _, c := range []struct {
		name string
		id   string
		ok   bool
	}{{"found", one.uniq, true}, {"nowhere", nowhere, false}} {
		b.Run(c.name, func(b *testing.B) {
			var searched *TopicSearch
			var anyTook, knownTook time.Duration
			versus(b, func() {
				start := time.Now()
				r, err := e.svc.ByID(ctx, IDQuery{ID: c.id})
				anyTook += time.Since(start)
				if c.ok && (err != nil || r.Message.OffsetMsgID() != known.Message.OffsetMsgID()) {
					b.Fatalf("without its topic: %v", err)
				}
				if !c.ok && err == nil {
					b.Fatalf("an id no message has was found: %+v", r.Message)
				}
				if r != nil {
					searched = r.Searched
				}
			}, func() {
				start := time.Now()
				_, _ = e.svc.ByID(ctx, IDQuery{ID: c.id, Topic: last})
				knownTook += time.Since(start)
			})
			n := float64(b.N)
			b.ReportMetric(float64(anyTook.Milliseconds())/n, "ms-without-topic")
			b.ReportMetric(float64(knownTook.Milliseconds())/n, "ms-with-topic")
			if searched != nil {
				b.ReportMetric(float64(searched.Topics), "topics")
				b.ReportMetric(float64(searched.Asked), "asked")
			}
		})
	}
}

// anyTopicBenchSeed creates the bench topics on every master through the admin API
// (mqadmin would take a JVM start per topic) and waits until the NameServer lists them.
func anyTopicBenchSeed(b *testing.B, e *itEnv) []string {
	ctx := context.Background()
	topics := make([]string, anyTopicBenchTopics)
	for i := range topics {
		topics[i] = fmt.Sprintf("bench-anytopic-%04d", i)
	}
	have, err := e.c.TopicList(ctx)
	if err != nil {
		b.Fatal(err)
	}
	known := map[string]bool{}
	for _, t := range have {
		known[t] = true
	}
	var g errgroup.Group
	g.SetLimit(8)
	for _, t := range topics {
		if known[t] {
			continue
		}
		for _, br := range e.cl.Brokers {
			g.Go(func() error {
				return e.c.CreateTopic(ctx, br.Addr, rocketmq.TopicConfig{TopicName: t, ReadQueueNums: 1, WriteQueueNums: 1, Perm: 6})
			})
		}
	}
	if err := g.Wait(); err != nil {
		b.Fatal(err)
	}
	dev.Eventually(b, 2*time.Minute, "the NameServer lists every bench topic", func() error {
		have, err := e.c.TopicList(ctx)
		if err != nil {
			return err
		}
		n := 0
		for _, t := range have {
			if strings.HasPrefix(t, "bench-anytopic-") {
				n++
			}
		}
		if n < len(topics) {
			return fmt.Errorf("%d of %d listed", n, len(topics))
		}
		return nil
	})
	return topics
}
