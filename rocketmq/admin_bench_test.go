package rocketmq

import (
	"bytes"
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/apache/rocketmq-client-go/v2/primitive"

	"rmqconsole/dev"
)

// The pull benchmark's data: 2000 messages of 1 KiB in a topic of 4 queues,
// produced once per test binary.
var benchPull struct {
	once   sync.Once
	topic  string
	queues []MessageQueue
	stats  *TopicStats
	err    error
}

const (
	benchPullMessages = 2000
	benchPullBodySize = 1024
)

func seedBenchPull(b *testing.B, e *itEnv) {
	benchPull.once.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
		defer cancel()
		topic := dev.UniqueName("bench-pull")
		if benchPull.err = e.cluster.CreateTopic(ctx, topic, 4); benchPull.err != nil {
			return
		}
		p := startBenchProducer(b, e.cluster.NameServer)
		body := bytes.Repeat([]byte("x"), benchPullBodySize)
		batch := make([]*primitive.Message, 0, 50)
		for i := 0; i < benchPullMessages; i++ {
			m := primitive.NewMessage(topic, body)
			m.WithKeys([]string{fmt.Sprintf("bench-%d", i)})
			batch = append(batch, m)
			if len(batch) == cap(batch) {
				if _, err := p.SendSync(ctx, batch...); err != nil {
					benchPull.err = err
					return
				}
				batch = batch[:0]
			}
		}
		route, err := e.c.TopicRoute(ctx, topic)
		if err != nil {
			benchPull.err = err
			return
		}
		benchPull.topic, benchPull.queues = topic, route.ReadQueues()
		if benchPull.stats, benchPull.err = e.c.TopicStats(ctx, e.addr, topic); benchPull.err != nil {
			return
		}
		// Read everything a few times first, so the broker's JIT and page
		// cache are warm before anything is measured.
		for range 5 {
			for _, mq := range benchPull.queues {
				o := benchPull.stats.Offsets[mq]
				if _, _, benchPull.err = e.c.PullRange(ctx, e.addr, mq, o.MinOffset, o.MaxOffset, 0); benchPull.err != nil {
					return
				}
			}
		}
	})
	if benchPull.err != nil {
		b.Fatal(benchPull.err)
	}
}

// BenchmarkPull2000 reads 2000 messages of 1 KiB from the real broker over
// loopback with PullRange (32 per request), decoding them. The raw
// sub-benchmark sends the same PULL_MESSAGE requests without decoding the
// bodies: the baseline the decoded figure is compared with.
func BenchmarkPull2000(b *testing.B) {
	e := newITEnv(b)
	seedBenchPull(b, e)
	ctx := context.Background()

	b.Run("decoded", func(b *testing.B) {
		b.SetBytes(benchPullMessages * benchPullBodySize)
		var n int
		for b.Loop() {
			n = 0
			for _, mq := range benchPull.queues {
				o := benchPull.stats.Offsets[mq]
				msgs, _, err := e.c.PullRange(ctx, e.addr, mq, o.MinOffset, o.MaxOffset, 0)
				if err != nil {
					b.Fatal(err)
				}
				n += len(msgs)
			}
			if n != benchPullMessages {
				b.Fatalf("pulled %d messages, want %d", n, benchPullMessages)
			}
		}
		b.ReportMetric(float64(n), "msgs/op")
	})
	b.Run("raw", func(b *testing.B) {
		b.SetBytes(benchPullMessages * benchPullBodySize)
		for b.Loop() {
			for _, mq := range benchPull.queues {
				o := benchPull.stats.Offsets[mq]
				for off := o.MinOffset; off < o.MaxOffset; {
					resp, err := e.c.invoke(ctx, e.addr, CodePullMessage, pullHeader(mq, off, 32), nil)
					if err != nil || resp.Code != 0 {
						b.Fatalf("pull: %v %+v", err, resp)
					}
					next := headerInt64Or(resp, "nextBeginOffset", off)
					if next <= off {
						b.Fatal("no progress")
					}
					off = next
				}
			}
		}
		b.ReportMetric(benchPullMessages, "msgs/op")
	})
}
