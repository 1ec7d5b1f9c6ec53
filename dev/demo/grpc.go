package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	rmqv5 "github.com/apache/rocketmq-clients/golang/v5"
	grpccreds "github.com/apache/rocketmq-clients/golang/v5/credentials"
)

// The gRPC side of the demo: Apache's Go gRPC SDK (rocketmq-clients) talking to
// the RocketMQ Proxy, as RocketMQ 5 recommends. Its consumers register with the
// Proxy, not with the brokers, and consume through POP.

// grpcEndpointEnv names the Proxy's gRPC address; rmqdev run sets it when the
// Proxy runs.
const grpcEndpointEnv = "RMQDEV_PROXY_GRPC"

// Demo traffic through the Proxy (when it runs): one topic, a producer, a
// PushConsumer group and a SimpleConsumer (POP) group that leaves one message
// in ten unacknowledged, so some are revived into its POP retry topic.
const (
	grpcTopic      = "demo-grpc-orders"
	grpcPushGroup  = "demo-grpc-push"
	grpcSimpleGrp  = "demo-grpc-pop"
	grpcRate       = 4 // messages a second
	grpcLeaveEvery = 10
)

var grpcSetup sync.Once

// grpcConfig is the SDK's configuration for the Proxy at endpoint. The SDK
// insists on credentials; empty ones sign nothing, and TLS stays off (the
// local Proxy serves plain gRPC). Its log goes to a file in the temp dir
// instead of ~/logs.
func grpcConfig(endpoint, group string) *rmqv5.Config {
	grpcSetup.Do(func() {
		rmqv5.EnableSsl = false
		os.Setenv("rocketmq.client.logRoot", filepath.Join(os.TempDir(), "rmqdemo-grpc-logs"))
		os.Setenv("rocketmq.client.logLevel", "error")
		rmqv5.ResetLogger()
	})
	cr := &grpccreds.SessionCredentials{}
	if ak, sk := os.Getenv("RMQC_ACCESS_KEY"), os.Getenv("RMQC_SECRET_KEY"); ak != "" {
		cr.AccessKey, cr.AccessSecret = ak, sk
	}
	return &rmqv5.Config{Endpoint: endpoint, ConsumerGroup: group, Credentials: cr}
}

func grpcEndpointFlag(fs *flag.FlagSet) *string {
	return fs.String("endpoint", os.Getenv(grpcEndpointEnv), "the Proxy's gRPC address (default $"+grpcEndpointEnv+")")
}

// grpcProduce sends -n messages through the Proxy and prints each as `sent
// <messageId> <key>`: `demo grpc-produce -topic T [-n 1] [-key K] [-tag T]`.
func grpcProduce(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("grpc-produce", flag.ContinueOnError)
	endpoint := grpcEndpointFlag(fs)
	topic := fs.String("topic", "", "topic to send to")
	n := fs.Int("n", 1, "how many messages")
	key := fs.String("key", "", "the messages' key (message i gets <key>-i when -n > 1)")
	tag := fs.String("tag", "", "the messages' tag")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *topic == "" || *endpoint == "" {
		return fmt.Errorf("grpc-produce: -topic and -endpoint are required")
	}
	p, err := rmqv5.NewProducer(grpcConfig(*endpoint, ""), rmqv5.WithTopics(*topic))
	if err != nil {
		return err
	}
	if err := p.Start(); err != nil {
		return fmt.Errorf("start gRPC producer on %s: %w", *endpoint, err)
	}
	defer p.GracefulStop()
	for i := 1; i <= *n; i++ {
		k := *key
		if k != "" && *n > 1 {
			k = fmt.Sprintf("%s-%d", k, i)
		}
		id, err := grpcSend(ctx, p, *topic, *tag, k, fmt.Appendf(nil, `{"seq":%d}`, i))
		if err != nil {
			return err
		}
		if k == "" {
			k = "-"
		}
		fmt.Printf("sent %s %s\n", id, k)
	}
	return nil
}

func grpcSend(ctx context.Context, p rmqv5.Producer, topic, tag, key string, body []byte) (string, error) {
	m := &rmqv5.Message{Topic: topic, Body: body}
	if tag != "" {
		m.SetTag(tag)
	}
	if key != "" {
		m.SetKeys(key)
	}
	sctx, cancel := context.WithTimeout(ctx, 15*time.Second)
	defer cancel()
	r, err := p.Send(sctx, m)
	if err != nil {
		return "", fmt.Errorf("send to %s through the Proxy: %w", topic, err)
	}
	if len(r) == 0 {
		return "", fmt.Errorf("send to %s through the Proxy: no receipt", topic)
	}
	return r[0].MessageID, nil
}

// grpcPush runs one gRPC PushConsumer until ctx ends and prints `recv
// <messageId>` for each message it consumes: `demo grpc-push -group G -topic T`.
func grpcPush(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("grpc-push", flag.ContinueOnError)
	endpoint := grpcEndpointFlag(fs)
	group := fs.String("group", "", "consumer group")
	topic := fs.String("topic", "", "topic to subscribe to")
	printMsgs := fs.Bool("print", false, "print every message consumed: recv <messageId>")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *group == "" || *topic == "" || *endpoint == "" {
		return fmt.Errorf("grpc-push: -group, -topic and -endpoint are required")
	}
	c, err := startGRPCPush(*endpoint, *group, *topic, func(m *rmqv5.MessageView) {
		if *printMsgs {
			fmt.Printf("recv %s\n", m.GetMessageId())
		}
	})
	if err != nil {
		return err
	}
	fmt.Printf("consuming group=%s topics=%s protocol=grpc-push\n", *group, *topic)
	<-ctx.Done()
	stopGRPC(*group, c)
	fmt.Println("stopped")
	return nil
}

func startGRPCPush(endpoint, group, topic string, each func(*rmqv5.MessageView)) (rmqv5.PushConsumer, error) {
	c, err := rmqv5.NewPushConsumer(grpcConfig(endpoint, group),
		rmqv5.WithPushAwaitDuration(5*time.Second),
		rmqv5.WithPushSubscriptionExpressions(map[string]*rmqv5.FilterExpression{topic: rmqv5.SUB_ALL}),
		rmqv5.WithPushConsumptionThreadCount(2),
		rmqv5.WithPushMessageListener(&rmqv5.FuncMessageListener{Consume: func(m *rmqv5.MessageView) rmqv5.ConsumerResult {
			each(m)
			return rmqv5.SUCCESS
		}}))
	if err != nil {
		return nil, err
	}
	if err := c.Start(); err != nil {
		return nil, fmt.Errorf("start gRPC push consumer of %s on %s: %w", group, endpoint, err)
	}
	return c, nil
}

// simpleOptions shape `demo grpc-simple`: how many messages to receive (pop),
// how many of those to acknowledge, and how long the others stay invisible
// before the broker revives them into the group's POP retry topic.
type simpleOptions struct {
	receive    int           // stop receiving after this many (0: never stop)
	ack        int           // acknowledge only the first ack received (-1: all)
	leaveEvery int           // besides, leave every n-th unacknowledged (0: none)
	invisible  time.Duration // invisible duration of each receive
}

// grpcSimple runs one gRPC SimpleConsumer (POP) until ctx ends: `demo
// grpc-simple -group G -topic T [-receive N] [-ack A] [-invisible 20s]`. It
// prints `recv <messageId> acked|left` for each message it receives and
// `received N` once it has received -receive messages; then it stays
// connected (heartbeating) without receiving more, so what it left
// unacknowledged is revived and stays in the retry topic for tests to count.
func grpcSimple(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("grpc-simple", flag.ContinueOnError)
	endpoint := grpcEndpointFlag(fs)
	group := fs.String("group", "", "consumer group")
	topic := fs.String("topic", "", "topic to subscribe to")
	var o simpleOptions
	fs.IntVar(&o.receive, "receive", 0, "stop receiving after this many messages (0: never)")
	fs.IntVar(&o.ack, "ack", -1, "acknowledge only the first N messages received (-1: all)")
	fs.DurationVar(&o.invisible, "invisible", 20*time.Second, "invisible duration of received messages (the Proxy's minimum is 10 s)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *group == "" || *topic == "" || *endpoint == "" {
		return fmt.Errorf("grpc-simple: -group, -topic and -endpoint are required")
	}
	c, err := startGRPCSimple(*endpoint, *group, *topic)
	if err != nil {
		return err
	}
	fmt.Printf("consuming group=%s topics=%s protocol=grpc-simple\n", *group, *topic)
	n := receiveLoop(ctx, c, o, func(m *rmqv5.MessageView, acked bool) {
		what := "left"
		if acked {
			what = "acked"
		}
		fmt.Printf("recv %s %s\n", m.GetMessageId(), what)
	})
	if o.receive > 0 && n >= o.receive {
		fmt.Printf("received %d\n", n)
	}
	<-ctx.Done()
	stopGRPC(*group, c)
	fmt.Println("stopped")
	return nil
}

func startGRPCSimple(endpoint, group, topic string) (rmqv5.SimpleConsumer, error) {
	c, err := rmqv5.NewSimpleConsumer(grpcConfig(endpoint, group),
		rmqv5.WithSimpleAwaitDuration(5*time.Second),
		rmqv5.WithSimpleSubscriptionExpressions(map[string]*rmqv5.FilterExpression{topic: rmqv5.SUB_ALL}))
	if err != nil {
		return nil, err
	}
	if err := c.Start(); err != nil {
		return nil, fmt.Errorf("start gRPC simple consumer of %s on %s: %w", group, endpoint, err)
	}
	return c, nil
}

// receiveLoop receives (pops) until ctx ends or o.receive messages came,
// acknowledging as o says, and returns how many it received.
func receiveLoop(ctx context.Context, c rmqv5.SimpleConsumer, o simpleOptions, each func(*rmqv5.MessageView, bool)) int {
	n := 0
	for ctx.Err() == nil && (o.receive == 0 || n < o.receive) {
		batch := int32(16)
		if o.receive > 0 {
			batch = int32(min(16, o.receive-n))
		}
		msgs, err := c.Receive(ctx, batch, o.invisible)
		if err != nil {
			// "no new message" is an error to the SDK: the long poll simply ended.
			if ctx.Err() == nil && !strings.Contains(err.Error(), "MESSAGE_NOT_FOUND") {
				say("receive: %v", err)
				sleepCtx(ctx, time.Second)
			}
			continue
		}
		for _, m := range msgs {
			n++
			ack := (o.ack < 0 || n <= o.ack) && (o.leaveEvery == 0 || n%o.leaveEvery != 0)
			if ack {
				if err := c.Ack(ctx, m); err != nil {
					say("ack %s: %v", m.GetMessageId(), err)
					ack = false
				}
			}
			each(m, ack)
		}
	}
	return n
}

// stopGRPC stops a gRPC client, waiting at most 10 s: the SDK's PushConsumer can wait
// far longer for receive requests it counts as in flight (seen with v5.1.4), and a demo
// must stop when asked.
func stopGRPC(what string, c interface{ GracefulStop() error }) {
	done := make(chan error, 1)
	go func() { done <- c.GracefulStop() }()
	select {
	case err := <-done:
		if err != nil {
			say("stop %s: %v", what, err)
		}
	case <-time.After(10 * time.Second):
		say("stop %s: still stopping after 10 s; leaving it", what)
	}
}

func sleepCtx(ctx context.Context, d time.Duration) {
	select {
	case <-ctx.Done():
	case <-time.After(d):
	}
}

// runGRPC is the demo's gRPC traffic: a producer at grpcRate, a PushConsumer
// group and a SimpleConsumer group, until ctx ends.
func runGRPC(ctx context.Context, endpoint string) {
	var p rmqv5.Producer
	err := retryStart(ctx, "gRPC producer", func() (err error) {
		if p, err = rmqv5.NewProducer(grpcConfig(endpoint, ""), rmqv5.WithTopics(grpcTopic)); err == nil {
			err = p.Start()
		}
		return err
	})
	if err != nil {
		log.Printf("gRPC producer on the Proxy %s: %v (no gRPC traffic)", endpoint, err)
		return
	}
	defer stopGRPC("gRPC producer", p)
	var push rmqv5.PushConsumer
	err = retryStart(ctx, grpcPushGroup, func() (err error) {
		push, err = startGRPCPush(endpoint, grpcPushGroup, grpcTopic, func(*rmqv5.MessageView) {})
		return err
	})
	if err != nil {
		log.Printf("%s: %v", grpcPushGroup, err)
	} else {
		defer stopGRPC(grpcPushGroup, push)
	}
	var simple rmqv5.SimpleConsumer
	err = retryStart(ctx, grpcSimpleGrp, func() (err error) {
		simple, err = startGRPCSimple(endpoint, grpcSimpleGrp, grpcTopic)
		return err
	})
	if err != nil {
		log.Printf("%s: %v", grpcSimpleGrp, err)
	} else {
		defer stopGRPC(grpcSimpleGrp, simple)
		go receiveLoop(ctx, simple, simpleOptions{ack: -1, leaveEvery: grpcLeaveEvery, invisible: 15 * time.Second},
			func(*rmqv5.MessageView, bool) { sleepCtx(ctx, 100*time.Millisecond) })
	}
	say("gRPC through the Proxy %s: sending to %s, groups %s (push) and %s (simple, POP)", endpoint, grpcTopic, grpcPushGroup, grpcSimpleGrp)
	tick := time.NewTicker(time.Second / grpcRate)
	defer tick.Stop()
	var lastErr time.Time
	for n := 1; ; n++ {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		_, err := grpcSend(ctx, p, grpcTopic, "grpc", fmt.Sprintf("grpc-%d", n), fmt.Appendf(nil, `{"seq":%d,"via":"grpc"}`, n))
		if err != nil && ctx.Err() == nil && time.Since(lastErr) > 10*time.Second {
			say("%v", err)
			lastErr = time.Now()
		}
	}
}

// retryStart runs start until it succeeds, for up to a minute: a Proxy that has just
// started can miss the SDK's start-up deadlines on a busy machine, and the demo should
// not run without its gRPC traffic for that.
func retryStart(ctx context.Context, what string, start func() error) error {
	deadline := time.Now().Add(time.Minute)
	for {
		err := start()
		if err == nil || ctx.Err() != nil || time.Now().After(deadline) {
			return err
		}
		say("start %s: %v (trying again)", what, err)
		sleepCtx(ctx, 2*time.Second)
	}
}
