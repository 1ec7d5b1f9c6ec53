// Command demo makes a local RocketMQ look like a small production system, so a newcomer
// running `make run` sees lag and rebalances move in the console: it sends keyed messages
// to a few topics and runs consumer groups whose members join and leave about every
// half-minute. It reads RMQC_NAMESRV and stops on SIGINT or SIGTERM within a few
// seconds.
//
// It says nothing while it runs, so the console's ready line stays on screen: only a
// failure that stops part of it is printed. `demo -v` (or RMQC_DEMO_VERBOSE=1) also
// says what it does: members joining and leaving, failed sends, its stop.
//
// `demo -trace` has its producer and consumers record message traces.
//
// `demo consume -group G -topics A,B` runs just one push consumer instead, and `demo
// produce -topic T` sends a few messages (tests use both).
//
// When RMQDEV_PROXY_GRPC names a RocketMQ Proxy (rmqdev run sets it), the demo also
// runs gRPC clients through it (Apache's Go gRPC SDK): a producer, a PushConsumer group
// and a SimpleConsumer (POP) group. `demo grpc-produce`, `demo grpc-push` and `demo
// grpc-simple` run one of each for tests.
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"math/rand/v2"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	rmq "github.com/apache/rocketmq-client-go/v2"
	"github.com/apache/rocketmq-client-go/v2/consumer"
	"github.com/apache/rocketmq-client-go/v2/primitive"
	"github.com/apache/rocketmq-client-go/v2/producer"
	"github.com/apache/rocketmq-client-go/v2/rlog"
)

// Topics the demo writes, with how many messages a second and their tags.
var topics = []struct {
	name string
	rate float64
	tags []string
}{
	{"demo-orders", 6, []string{"created", "paid", "shipped"}},
	{"demo-payments", 3, []string{"authorised", "captured", "refunded"}},
	{"demo-audit", 2, []string{"login", "change"}},
}

// A group the demo runs: its topics, how slowly it consumes, and how many members come
// and go.
type groupSpec struct {
	name string
	// subs lists each member's subscription, by member index modulo its length; a group
	// whose members subscribe differently shows the console's warning.
	subs         [][]string
	perMessage   time.Duration // work per message: more than the send rate makes lag grow
	minM, maxM   int           // members churn between these counts
	churnEvery   time.Duration // about how often a member joins or leaves
	initialCount int
}

var groups = []groupSpec{
	// Scales between one and three members: queues move at every change.
	{name: "demo-order-service", subs: [][]string{{"demo-orders"}}, perMessage: 50 * time.Millisecond,
		minM: 1, maxM: 3, churnEvery: 30 * time.Second, initialCount: 2},
	// Two steady members, too slow for the send rate: lag grows, then drains when a
	// third member joins for a while.
	{name: "demo-billing", subs: [][]string{{"demo-payments"}}, perMessage: 900 * time.Millisecond,
		minM: 2, maxM: 3, churnEvery: 45 * time.Second, initialCount: 2},
	// One member always there.
	{name: "demo-audit-archiver", subs: [][]string{{"demo-audit"}}, perMessage: 10 * time.Millisecond,
		minM: 1, maxM: 1, initialCount: 1},
	// Members subscribe differently (a deploy gone half-way): some queues go unconsumed
	// and the group page warns.
	{name: "demo-half-deployed", subs: [][]string{{"demo-orders"}, {"demo-orders", "demo-audit"}},
		perMessage: 20 * time.Millisecond, minM: 2, maxM: 2, initialCount: 2},
}

func main() {
	ns := os.Getenv("RMQC_NAMESRV")
	if ns == "" {
		ns = "127.0.0.1:19876"
	}
	rlog.SetLogLevel("fatal") // the client logs every retry; the demo says what matters
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	log.SetPrefix("demo: ")
	log.SetFlags(log.Ltime)
	// One client for a test: its log is the test's to read.
	verbose = len(os.Args) > 1 && !strings.HasPrefix(os.Args[1], "-")
	if len(os.Args) > 1 && os.Args[1] == "consume" {
		if err := consume(ctx, strings.Split(ns, ";"), os.Args[2:]); err != nil {
			log.Fatal(err)
		}
		return
	}
	if len(os.Args) > 1 && os.Args[1] == "produce" {
		if err := produceOne(ctx, strings.Split(ns, ";"), os.Args[2:]); err != nil {
			log.Fatal(err)
		}
		return
	}
	grpcModes := map[string]func(context.Context, []string) error{
		"grpc-produce": grpcProduce, "grpc-push": grpcPush, "grpc-simple": grpcSimple}
	if len(os.Args) > 1 && grpcModes[os.Args[1]] != nil {
		if err := grpcModes[os.Args[1]](ctx, os.Args[2:]); err != nil {
			log.Fatal(err)
		}
		return
	}
	fs := flag.NewFlagSet("demo", flag.ExitOnError)
	tr := addTraceFlags(fs)
	fs.BoolVar(&verbose, "v", verboseFromEnv(), "say what the demo does (members joining and leaving, failed sends); RMQC_DEMO_VERBOSE=1 does the same")
	_ = fs.Parse(os.Args[1:])
	if err := run(ctx, strings.Split(ns, ";"), tr.config(strings.Split(ns, ";"))); err != nil {
		log.Fatal(err)
	}
	say("stopped")
}

// verbose has the demo say what it does, not only what failed; the one-client modes
// always do.
var verbose bool

func verboseFromEnv() bool {
	v, _ := strconv.ParseBool(os.Getenv("RMQC_DEMO_VERBOSE"))
	return v
}

// say logs progress, which only a verbose demo prints: under `make run` the demo's
// chatter would push the console's ready line off screen.
func say(format string, args ...any) {
	if verbose {
		log.Printf(format, args...)
	}
}

// stopWithin bounds the demo's stop: its clients' graceful shutdown (committing
// offsets, unregistering, the gRPC SDK's wait for receive calls in flight) can take
// ten seconds and more, and nothing of the demo needs it. The brokers see the
// connections close and rebalance the groups; the offsets of the last few seconds are
// consumed again at the next start.
const stopWithin = 2 * time.Second

func run(ctx context.Context, ns []string, trace *primitive.TraceConfig) error {
	names := []string{}
	for _, t := range topics {
		names = append(names, t.name)
	}
	endpoint := os.Getenv(grpcEndpointEnv)
	if endpoint != "" {
		names = append(names, grpcTopic)
	}
	if err := createTopics(ctx, ns, names); err != nil {
		return err
	}
	popts := []producer.Option{
		producer.WithNameServer(ns),
		producer.WithGroupName("demo-producer"),
		producer.WithInstanceName(fmt.Sprintf("demo-producer-%d", os.Getpid())),
		producer.WithRetry(2),
		producer.WithSendMsgTimeout(5 * time.Second),
	}
	if trace != nil {
		popts = append(popts, producer.WithTrace(trace))
	}
	p, err := rmq.NewProducer(popts...)
	if err != nil {
		return fmt.Errorf("new producer: %w", err)
	}
	if err := p.Start(); err != nil {
		return fmt.Errorf("start producer on %v: %w", ns, err)
	}

	say("sending to %d topics, running %d consumer groups (NameServer %s); Ctrl-C stops", len(topics), len(groups), strings.Join(ns, ";"))

	var wg sync.WaitGroup
	for _, t := range topics {
		wg.Go(func() { produce(ctx, p, t.name, t.rate, t.tags) })
	}
	for _, g := range groups {
		wg.Go(func() { runGroup(ctx, ns, g, trace) })
	}
	if endpoint != "" {
		wg.Go(func() { runGRPC(ctx, endpoint) })
	}
	stopped := make(chan struct{})
	go func() {
		wg.Wait()
		_ = p.Shutdown()
		close(stopped)
	}()
	<-ctx.Done()
	select {
	case <-stopped:
	case <-time.After(stopWithin):
		say("clients still stopping after %s; leaving them", stopWithin)
	}
	return nil
}

// produce sends keyed messages at about rate per second until ctx ends.
func produce(ctx context.Context, p rmq.Producer, topic string, rate float64, tags []string) {
	tick := time.NewTicker(time.Duration(float64(time.Second) / rate))
	defer tick.Stop()
	var lastErr time.Time
	failed := 0
	for n := 1; ; n++ {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		err := send(ctx, p, topic, tags[n%len(tags)], n)
		if err == nil || ctx.Err() != nil {
			continue
		}
		// While a broker is down every send fails: say so every 10 s, not every send.
		failed++
		if time.Since(lastErr) > 10*time.Second {
			say("send to %s: %v (%d failed sends)", topic, err, failed)
			lastErr = time.Now()
		}
	}
}

func send(ctx context.Context, p rmq.Producer, topic, tag string, n int) error {
	body := fmt.Sprintf(`{"seq":%d,"topic":%q,"tag":%q,"at":%q}`, n, topic, tag, time.Now().UTC().Format(time.RFC3339Nano))
	m := primitive.NewMessage(topic, []byte(body))
	m.WithTag(tag)
	m.WithKeys([]string{fmt.Sprintf("%s-%d", strings.TrimPrefix(topic, "demo-"), n)})
	sctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	_, err := p.SendSync(sctx, m)
	return err
}

// member is one running consumer of a group.
type member struct {
	c    rmq.PushConsumer
	name string
}

// runGroup keeps the group's members between minM and maxM, adding or removing one
// about every churnEvery, and shuts every member down when ctx ends.
func runGroup(ctx context.Context, ns []string, g groupSpec, trace *primitive.TraceConfig) {
	var members []member
	next := 0
	start := func() {
		idx := next
		next++
		m, err := startMember(ns, g, idx, trace)
		if err != nil {
			log.Printf("%s: start member %d: %v", g.name, idx, err)
			return
		}
		members = append(members, m)
		say("%s: member %s joined (%d running)", g.name, m.name, len(members))
	}
	stopOne := func() {
		m := members[0]
		members = members[1:]
		_ = m.c.Shutdown()
		say("%s: member %s left (%d running)", g.name, m.name, len(members))
	}
	defer func() {
		for _, m := range members {
			_ = m.c.Shutdown()
		}
	}()
	for range g.initialCount {
		start()
	}
	if g.churnEvery == 0 || g.minM == g.maxM {
		<-ctx.Done()
		return
	}
	for {
		// ±30 % around churnEvery, so groups do not change in lockstep.
		wait := time.Duration(float64(g.churnEvery) * (0.7 + 0.6*rand.Float64()))
		select {
		case <-ctx.Done():
			return
		case <-time.After(wait):
		}
		switch {
		case len(members) <= g.minM:
			start()
		case len(members) >= g.maxM:
			stopOne()
		case rand.IntN(2) == 0:
			start()
		default:
			stopOne()
		}
	}
}

func startMember(ns []string, g groupSpec, idx int, trace *primitive.TraceConfig) (member, error) {
	name := fmt.Sprintf("%s-%d-%d", g.name, os.Getpid(), idx)
	opts := []consumer.Option{
		consumer.WithNameServer(ns),
		consumer.WithGroupName(g.name),
		consumer.WithInstance(name),
		consumer.WithConsumerModel(consumer.Clustering),
		consumer.WithConsumeFromWhere(consumer.ConsumeFromLastOffset),
		consumer.WithConsumeGoroutineNums(1),
		consumer.WithPullBatchSize(8),
	}
	if trace != nil {
		opts = append(opts, consumer.WithTrace(trace))
	}
	c, err := rmq.NewPushConsumer(opts...)
	if err != nil {
		return member{}, err
	}
	work := g.perMessage
	handler := func(ctx context.Context, msgs ...*primitive.MessageExt) (consumer.ConsumeResult, error) {
		for range msgs {
			select {
			case <-time.After(work):
			case <-ctx.Done():
				return consumer.ConsumeRetryLater, nil
			}
		}
		return consumer.ConsumeSuccess, nil
	}
	for _, topic := range g.subs[idx%len(g.subs)] {
		if err := c.Subscribe(topic, consumer.MessageSelector{}, handler); err != nil {
			return member{}, fmt.Errorf("subscribe to %s: %w", topic, err)
		}
	}
	if err := c.Start(); err != nil {
		return member{}, err
	}
	return member{c: c, name: name}, nil
}
