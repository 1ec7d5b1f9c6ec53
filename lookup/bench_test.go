package lookup

import (
	"context"
	"fmt"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	rmq "github.com/apache/rocketmq-client-go/v2"
	"github.com/apache/rocketmq-client-go/v2/primitive"
	"golang.org/x/sync/errgroup"

	"rmqconsole/cluster"
	"rmqconsole/dev/rmqclient"
	"rmqconsole/rocketmq"
)

// The benchmarks run against the local RocketMQ on a topic seeded once and reused by
// later runs: benchQueues queues holding benchMessages() messages of 1 KiB, sent over
// at least a minute so their store times spread out, plus benchKeyed messages with one
// key.
const (
	benchTopic  = "bench-lookup-1k"
	benchQueues = 8
	benchKey    = "bench-key"
	benchKeyed  = 40
)

// benchMessages is how many messages the topic holds: RMQC_BENCH_MESSAGES, default
// 100 000 (8 queues × 12 500).
func benchMessages() int {
	if n, err := strconv.Atoi(os.Getenv("RMQC_BENCH_MESSAGES")); err == nil && n > 0 {
		return n
	}
	return 100_000
}

type benchEnv struct {
	*itEnv
	route  *rocketmq.TopicRoute
	begin  time.Time // the middle half of the stored time span
	end    time.Time
	stored int64
}

var (
	benchOnce sync.Once
	benchData *benchEnv
	benchErr  error
)

// seeded returns the seeded topic, seeding it first when it holds fewer messages than
// asked (a fresh cluster, or a run that was interrupted).
func seeded(b *testing.B) *benchEnv {
	b.Helper()
	e := newIT(b)
	benchOnce.Do(func() { benchData, benchErr = seed(b, e) })
	if benchErr != nil {
		b.Fatal(benchErr)
	}
	benchData.itEnv = e
	return benchData
}

func seed(b *testing.B, e *itEnv) (*benchEnv, error) {
	ctx := context.Background()
	want := int64(benchMessages())
	held, err := topicSize(ctx, e.c)
	if err != nil { // no such topic yet
		cctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
		err = e.cl.CreateTopic(cctx, benchTopic, benchQueues)
		cancel()
		if err != nil {
			return nil, err
		}
		held = 0
	}
	if held < want+benchKeyed {
		start := time.Now()
		if err := sendBench(b, e.cl.NameServer, int(want+benchKeyed-held)); err != nil {
			return nil, err
		}
		fmt.Fprintf(os.Stderr, "seeded %s with %d messages of 1 KiB in %s\n", benchTopic, want+benchKeyed-held, time.Since(start).Round(time.Second))
	}
	route, err := e.c.TopicRoute(ctx, benchTopic)
	if err != nil {
		return nil, err
	}
	// The store-time span: the earliest and latest message of every queue.
	var first, last time.Time
	var stored int64
	for _, mq := range route.ReadQueues() {
		addr, _ := route.MasterAddr(mq.BrokerName)
		t, err := e.c.EarliestStoreTime(ctx, addr, mq)
		if err != nil {
			return nil, err
		}
		if !t.IsZero() && (first.IsZero() || t.Before(first)) {
			first = t
		}
		st, err := e.c.TopicStats(ctx, addr, benchTopic)
		if err != nil {
			return nil, err
		}
		o := st.Offsets[mq]
		stored += o.MaxOffset - o.MinOffset
		if l := time.UnixMilli(o.LastUpdateTimestamp); l.After(last) {
			last = l
		}
	}
	span := last.Sub(first)
	return &benchEnv{route: route, begin: first.Add(span / 4), end: first.Add(3 * span / 4), stored: stored}, nil
}

func topicSize(ctx context.Context, c *rocketmq.Client) (int64, error) {
	route, err := c.TopicRoute(ctx, benchTopic)
	if err != nil {
		return 0, err
	}
	var n int64
	for name, addr := range route.MasterAddrs() {
		st, err := c.TopicStats(ctx, addr, benchTopic)
		if err != nil {
			return 0, fmt.Errorf("%s: %w", name, err)
		}
		for _, o := range st.Offsets {
			n += o.MaxOffset - o.MinOffset
		}
	}
	return n, nil
}

// sendBench sends n messages one by one from 16 senders, paced to take at least a
// minute, so store times spread out and the producer's round-robin spreads them evenly
// over the queues, as on a topic with steady traffic; then benchKeyed messages with
// benchKey.
func sendBench(b *testing.B, ns string, n int) error {
	p := rmqclient.StartProducer(b, ns, "")
	body := []byte(strings.Repeat("0123456789abcdef", 64)) // 1 KiB
	bulk := max(n-benchKeyed, 0)
	var g errgroup.Group
	g.SetLimit(16)
	tick := time.NewTicker(max(time.Minute/time.Duration(max(bulk, 1)), 50*time.Microsecond))
	defer tick.Stop()
	for range bulk {
		<-tick.C
		g.Go(func() error {
			m := primitive.NewMessage(benchTopic, body)
			m.WithTag("bulk")
			return sendOne(p, m)
		})
	}
	if err := g.Wait(); err != nil {
		return err
	}
	for i := range min(n, benchKeyed) {
		m := primitive.NewMessage(benchTopic, body)
		m.WithTag("keyed").WithKeys([]string{benchKey, fmt.Sprint("k", i)})
		if err := sendOne(p, m); err != nil {
			return err
		}
	}
	return nil
}

func sendOne(p rmq.Producer, msgs ...*primitive.Message) error {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	r, err := p.SendSync(ctx, msgs...)
	if err == nil && r.Status != primitive.SendOK {
		err = fmt.Errorf("send status %v", r.Status)
	}
	return err
}

// barePull pulls exactly the offsets the answer came from, per queue, in batches of 32
// with the same parallelism as the service: what any tool must do at least.
func barePull(ctx context.Context, c *rocketmq.Client, route *rocketmq.TopicRoute, msgs []Message, parallelism int) (int, error) {
	type span struct{ lo, hi int64 }
	spans := map[rocketmq.MessageQueue]*span{}
	for _, m := range msgs {
		mq := rocketmq.MessageQueue{Topic: m.Topic, BrokerName: m.BrokerName, QueueID: m.QueueID}
		s := spans[mq]
		if s == nil {
			s = &span{m.QueueOffset, m.QueueOffset + 1}
			spans[mq] = s
		}
		s.lo, s.hi = min(s.lo, m.QueueOffset), max(s.hi, m.QueueOffset+1)
	}
	var g errgroup.Group
	g.SetLimit(parallelism)
	var got atomic.Int64
	for mq, s := range spans {
		addr, _ := route.MasterAddr(mq.BrokerName)
		for from := s.lo; from < s.hi; from += pullBatch {
			g.Go(func() error {
				msgs, _, err := c.PullRange(ctx, addr, mq, from, min(from+pullBatch, s.hi), 0)
				got.Add(int64(len(msgs)))
				return err
			})
		}
	}
	err := g.Wait()
	return int(got.Load()), err
}

// timed runs f and returns how long it took.
func timed(f func()) time.Duration {
	start := time.Now()
	f()
	return time.Since(start)
}

// versus runs the console's query and the bare broker requests once each per iteration,
// alternating which goes first so neither always inherits the other's garbage or warm
// caches. It reports the median of each (the machine is shared, and a median shrugs
// off the iterations another process stole) and the ratio of the medians.
func versus(b *testing.B, console, bare func()) {
	var tc, tb []time.Duration
	i := 0
	for b.Loop() {
		if i%2 == 0 {
			tc = append(tc, timed(console))
			tb = append(tb, timed(bare))
		} else {
			tb = append(tb, timed(bare))
			tc = append(tc, timed(console))
		}
		i++
	}
	mc, mb := median(tc), median(tb)
	b.ReportMetric(float64(mc.Microseconds())/1000, "ms/console")
	b.ReportMetric(float64(mb.Microseconds())/1000, "ms/bare")
	b.ReportMetric(float64(mc)/float64(mb), "console/bare")
}

func median(ds []time.Duration) time.Duration {
	ds = slices.Clone(ds)
	slices.Sort(ds)
	return ds[len(ds)/2]
}

// BenchmarkRangeNewest2000 times the range query that returns the newest 2000 of the
// seeded range against the bare parallel pulls of the same messages, alternating the
// two in every iteration so both see the same machine load. Metrics: ms of each, and
// console/bare (the target is at most 1.3).
func BenchmarkRangeNewest2000(b *testing.B) {
	e := seeded(b)
	ctx := context.Background()
	q := RangeQuery{Topic: benchTopic, Begin: e.begin, End: e.end}
	res, err := e.svc.ByRange(ctx, q) // warm the connection and the route cache
	if err != nil || len(res.Messages) != RangeLimit || !res.Truncated {
		b.Fatalf("warm-up: %v, %d messages, truncated %v", err, len(res.Messages), res != nil && res.Truncated)
	}
	pullsBefore := e.c.CallCount(rocketmq.CodePullMessage)
	searchesBefore := e.c.CallCount(rocketmq.CodeSearchOffsetByTimestamp)
	var pulled int
	versus(b, func() {
		res, err = e.svc.ByRange(ctx, q)
		if err != nil || len(res.Messages) != RangeLimit {
			b.Fatalf("%v, %d messages", err, len(res.Messages))
		}
	}, func() {
		pulled, err = barePull(ctx, e.c, e.route, res.Messages, cluster.DefaultParallelism)
		if err != nil || pulled < RangeLimit {
			b.Fatalf("bare pulls: %v, %d messages", err, pulled)
		}
	})
	n := float64(b.N)
	pulls := float64(e.c.CallCount(rocketmq.CodePullMessage)-pullsBefore) / n
	b.ReportMetric(float64(e.c.CallCount(rocketmq.CodeSearchOffsetByTimestamp)-searchesBefore)/n, "searches/query")
	b.ReportMetric(pulls/2, "pulls/query") // the bare side pulls about as often
	b.ReportMetric(float64(res.Total), "matched")
}

// BenchmarkRangeMemory measures the heap one 2000-message answer holds, against the
// bytes of the messages as stored (the target is at most 3×).
func BenchmarkRangeMemory(b *testing.B) {
	e := seeded(b)
	ctx := context.Background()
	q := RangeQuery{Topic: benchTopic, Begin: e.begin, End: e.end}
	if _, err := e.svc.ByRange(ctx, q); err != nil {
		b.Fatal(err)
	}
	var held, stored float64
	var ms runtime.MemStats
	for b.Loop() {
		runtime.GC()
		runtime.ReadMemStats(&ms)
		before := ms.HeapAlloc
		res, err := e.svc.ByRange(ctx, q)
		if err != nil {
			b.Fatal(err)
		}
		runtime.GC()
		runtime.ReadMemStats(&ms)
		held += float64(ms.HeapAlloc) - float64(before)
		for _, m := range res.Messages {
			stored += float64(m.StoreSize)
		}
		runtime.KeepAlive(res)
	}
	b.ReportMetric(held/float64(b.N)/1024, "KiB-held")
	b.ReportMetric(stored/float64(b.N)/1024, "KiB-messages")
	b.ReportMetric(held/stored, "held/messages")
}

// BenchmarkKeyQuery times the key query against bare QUERY_MESSAGEs to every broker of
// the topic (the target is at most 1.2×).
func BenchmarkKeyQuery(b *testing.B) {
	e := seeded(b)
	ctx := context.Background()
	q := KeyQuery{Topic: benchTopic, Key: benchKey}
	res, err := e.svc.ByKey(ctx, q)
	if err != nil || len(res.Messages) < benchKeyed {
		b.Fatalf("warm-up: %v, %d messages", err, len(res.Messages))
	}
	masters := e.route.MasterAddrs()
	versus(b, func() {
		if res, err = e.svc.ByKey(ctx, q); err != nil {
			b.Fatal(err)
		}
	}, func() {
		var g errgroup.Group
		for _, addr := range masters {
			g.Go(func() error {
				_, err := e.c.QueryMessageByKey(ctx, addr, benchTopic, benchKey, KeyLimit, time.Time{}, time.Time{})
				return err
			})
		}
		if err := g.Wait(); err != nil {
			b.Fatal(err)
		}
	})
}

// BenchmarkIDQuery times both kinds of id lookup against their bare broker request:
// VIEW_MESSAGE_BY_ID for an offsetMsgId, QUERY_MESSAGE by unique key to every broker for
// a unique key (the target is at most 1.2×).
func BenchmarkIDQuery(b *testing.B) {
	e := seeded(b)
	ctx := context.Background()
	keyed, err := e.svc.ByKey(ctx, KeyQuery{Topic: benchTopic, Key: benchKey})
	if err != nil || len(keyed.Messages) == 0 {
		b.Fatalf("no keyed message: %v", err)
	}
	m := keyed.Messages[0]
	id, _ := rocketmq.ParseOffsetMsgID(m.OffsetMsgID())
	masters := e.route.MasterAddrs()
	for _, tc := range []struct {
		name string
		q    IDQuery
		bare func() error
	}{
		{"offsetMsgId", IDQuery{ID: m.OffsetMsgID()}, func() error {
			_, err := e.c.ViewMessageAt(ctx, id.StoreHost.String(), id.CommitLogOffset, "")
			return err
		}},
		{"uniqueKey", IDQuery{ID: m.UniqueKey(), Topic: benchTopic}, func() error {
			var g errgroup.Group
			for _, addr := range masters {
				g.Go(func() error {
					_, err := e.c.QueryMessageByUniqueKey(ctx, addr, benchTopic, m.UniqueKey(), time.Time{}, time.Time{})
					return err
				})
			}
			return g.Wait()
		}},
	} {
		b.Run(tc.name, func(b *testing.B) {
			if _, err := e.svc.ByID(ctx, tc.q); err != nil {
				b.Fatal(err)
			}
			versus(b, func() {
				if _, err := e.svc.ByID(ctx, tc.q); err != nil {
					b.Fatal(err)
				}
			}, func() {
				if err := tc.bare(); err != nil {
					b.Fatal(err)
				}
			})
		})
	}
}
