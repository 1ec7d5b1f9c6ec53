package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"time"

	rmq "github.com/apache/rocketmq-client-go/v2"
	"github.com/apache/rocketmq-client-go/v2/primitive"
	"github.com/apache/rocketmq-client-go/v2/producer"
)

// produceOne sends -n messages to one topic and prints each as `sent <msgId>
// <offsetMsgId> <key>`: `demo produce -topic T [-n 1] [-group G] [-key K] [-tag T]
// [-trace]`. Tests send traced messages this way, so the client library's trace
// dispatcher runs in its own process.
func produceOne(ctx context.Context, ns []string, args []string) error {
	fs := flag.NewFlagSet("produce", flag.ContinueOnError)
	topic := fs.String("topic", "", "topic to send to")
	n := fs.Int("n", 1, "how many messages")
	group := fs.String("group", fmt.Sprintf("demo-produce-%d", os.Getpid()), "producer group")
	key := fs.String("key", "", "the messages' key (message i gets <key>-i when -n > 1)")
	tag := fs.String("tag", "", "the messages' tag")
	tr := addTraceFlags(fs)
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *topic == "" {
		return fmt.Errorf("produce: -topic is required")
	}
	opts := []producer.Option{
		producer.WithNameServer(ns),
		producer.WithGroupName(*group),
		producer.WithInstanceName(fmt.Sprintf("produce-%d", os.Getpid())),
		producer.WithRetry(2),
		producer.WithSendMsgTimeout(10 * time.Second),
	}
	if cr, ok := credentials(); ok {
		opts = append(opts, producer.WithCredentials(cr))
	}
	if cfg := tr.config(ns); cfg != nil {
		opts = append(opts, producer.WithTrace(cfg))
	}
	p, err := rmq.NewProducer(opts...)
	if err != nil {
		return err
	}
	if err := p.Start(); err != nil {
		return fmt.Errorf("start producer on %v: %w", ns, err)
	}
	for i := 1; i <= *n; i++ {
		m := primitive.NewMessage(*topic, fmt.Appendf(nil, `{"seq":%d}`, i))
		k := *key
		if k != "" && *n > 1 {
			k = fmt.Sprintf("%s-%d", k, i)
		}
		if k != "" {
			m.WithKeys([]string{k})
		}
		if *tag != "" {
			m.WithTag(*tag)
		}
		sctx, cancel := context.WithTimeout(ctx, 15*time.Second)
		r, err := p.SendSync(sctx, m)
		cancel()
		if err != nil {
			_ = p.Shutdown()
			return fmt.Errorf("send to %s: %w", *topic, err)
		}
		fmt.Printf("sent %s %s %s\n", r.MsgID, r.OffsetMsgID, k)
	}
	if *tr.on {
		// The trace dispatcher sends its records asynchronously, a few milliseconds
		// after each send; Shutdown does not wait for those sends to be answered.
		time.Sleep(time.Second)
	}
	return p.Shutdown()
}
