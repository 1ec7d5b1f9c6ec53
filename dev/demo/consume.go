package main

import (
	"context"
	"flag"
	"fmt"
	"net/url"
	"os"
	"strings"
	"time"

	rmq "github.com/apache/rocketmq-client-go/v2"
	"github.com/apache/rocketmq-client-go/v2/consumer"
	"github.com/apache/rocketmq-client-go/v2/primitive"
)

// consume runs one push consumer until ctx ends: `demo consume -group G -topics A,B
// -instance NAME [-trace]`. Tests start real consumers this way, each in its own process, so a
// consumer joins when the process starts and leaves when it gets SIGTERM, and the
// client library's own data races stay out of the race-checked test binary.
func consume(ctx context.Context, ns []string, args []string) error {
	fs := flag.NewFlagSet("consume", flag.ContinueOnError)
	group := fs.String("group", "", "consumer group")
	topics := fs.String("topics", "", "comma-separated topics to subscribe to")
	instance := fs.String("instance", fmt.Sprintf("consume-%d", os.Getpid()), "instance name (the client id is ip@instance)")
	work := fs.Duration("work", 0, "time spent on each message")
	orderly := fs.Bool("orderly", false, "consume orderly (MessageListenerOrderly: one client per queue, holding its lock)")
	lockInterval := fs.Duration("lock-interval", 0, "how often an orderly consumer renews its locks (0: the client's default, 20 s)")
	goroutines := fs.Int("goroutines", 0, "messages consumed at once per topic (0: the client's default, 20)")
	printMsgs := fs.Bool("print", false, "print every message given to the listener: recv <topic> <broker> <queue> <offset> <keys> <offsetMsgId>")
	printProps := fs.Bool("print-props", false, "with -print, add the message's properties (tags included) and body as one query string")
	fail := fs.Bool("fail", false, "fail every message (ConsumeRetryLater): it goes to the group's retry topic, then to its dead-letter topic")
	maxReconsume := fs.Int("max-reconsume", 0, "deliveries of a failed message again before it goes to the dead-letter topic (0: the client's default, 16)")
	retryDelayLevel := fs.Int("retry-delay-level", 0, "delay level of a failed message's next delivery (0: the broker's, 3 + reconsume times; 1 is one second)")
	tr := addTraceFlags(fs)
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *group == "" || *topics == "" {
		return fmt.Errorf("consume: -group and -topics are required")
	}
	opts := []consumer.Option{
		consumer.WithNameServer(ns),
		consumer.WithGroupName(*group),
		consumer.WithInstance(*instance),
		consumer.WithConsumerModel(consumer.Clustering),
		consumer.WithConsumeFromWhere(consumer.ConsumeFromFirstOffset),
		consumer.WithConsumerOrder(*orderly),
	}
	if *lockInterval > 0 {
		opts = append(opts, consumer.WithRebalanceLockInterval(*lockInterval))
	}
	if *goroutines > 0 {
		opts = append(opts, consumer.WithConsumeGoroutineNums(*goroutines))
	}
	if *maxReconsume > 0 {
		opts = append(opts, consumer.WithMaxReconsumeTimes(int32(*maxReconsume)))
	}
	// A cluster with ACL on: sign with the console's own settings' names.
	if cr, ok := credentials(); ok {
		opts = append(opts, consumer.WithCredentials(cr))
	}
	if cfg := tr.config(ns); cfg != nil {
		opts = append(opts, consumer.WithTrace(cfg))
	}
	c, err := rmq.NewPushConsumer(opts...)
	if err != nil {
		return err
	}
	for _, t := range strings.Split(*topics, ",") {
		err := c.Subscribe(t, consumer.MessageSelector{}, func(ctx context.Context, msgs ...*primitive.MessageExt) (consumer.ConsumeResult, error) {
			if *printMsgs {
				// os.Stdout is unbuffered: a line written is kept even if the process is
				// killed right after, which tests that count redeliveries rely on.
				for _, m := range msgs {
					keys := m.GetKeys()
					if keys == "" {
						keys = "-"
					}
					// A message consumed directly (CONSUME_MESSAGE_DIRECTLY) comes without its
					// broker's name; its offsetMsgId tells it apart all the same.
					broker := m.Queue.BrokerName
					if broker == "" {
						broker = "-"
					}
					extra := ""
					if *printProps {
						q := url.Values{"body": {string(m.Body)}}
						for k, v := range m.GetProperties() {
							q.Set(k, v)
						}
						extra = " " + q.Encode()
					}
					fmt.Printf("recv %s %s %d %d %s %s%s\n", m.Topic, broker, m.Queue.QueueId, m.QueueOffset, strings.ReplaceAll(keys, " ", ","), m.OffsetMsgId, extra)
				}
			}
			if *fail {
				if cc, ok := primitive.GetConcurrentlyCtx(ctx); ok && *retryDelayLevel > 0 {
					cc.DelayLevelWhenNextConsume = *retryDelayLevel
				}
				return consumer.ConsumeRetryLater, nil
			}
			if *work > 0 {
				select {
				case <-time.After(*work * time.Duration(len(msgs))):
				case <-ctx.Done():
					return consumer.ConsumeRetryLater, nil
				}
			}
			return consumer.ConsumeSuccess, nil
		})
		if err != nil {
			return fmt.Errorf("subscribe to %s: %w", t, err)
		}
	}
	if err := c.Start(); err != nil {
		return fmt.Errorf("start consumer of %s: %w", *group, err)
	}
	fmt.Printf("consuming group=%s topics=%s instance=%s\n", *group, *topics, *instance)
	<-ctx.Done()
	if err := c.Shutdown(); err != nil {
		return err
	}
	fmt.Println("stopped")
	return nil
}
