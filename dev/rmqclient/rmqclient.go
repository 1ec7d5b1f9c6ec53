// Package rmqclient starts real, independent RocketMQ clients (rocketmq-client-go
// producers and push consumers) for integration tests. Only test files import it, so
// the client library never reaches the console binary.
package rmqclient

import (
	"context"
	"sync"
	"testing"
	"time"

	rmq "github.com/apache/rocketmq-client-go/v2"
	"github.com/apache/rocketmq-client-go/v2/consumer"
	"github.com/apache/rocketmq-client-go/v2/primitive"
	"github.com/apache/rocketmq-client-go/v2/producer"

	"rmqconsole/dev"
)

// Credentials are what a client of the test cluster at nameServer signs with, when
// that cluster has ACL on (dev.AccountFor).
func Credentials(nameServer string) (primitive.Credentials, bool) {
	a, ok := dev.AccountFor(nameServer)
	return primitive.Credentials{AccessKey: a.AccessKey, SecretKey: a.SecretKey}, ok
}

// StartProducer starts a producer of group ("" for a unique one), shut down when the
// test ends.
func StartProducer(t testing.TB, nameServer, group string) rmq.Producer {
	t.Helper()
	if group == "" {
		group = dev.UniqueName("pg")
	}
	opts := []producer.Option{
		producer.WithNameServer([]string{nameServer}),
		producer.WithGroupName(group),
		producer.WithInstanceName(dev.UniqueName("p")),
		producer.WithRetry(2),
		producer.WithSendMsgTimeout(10 * time.Second),
	}
	if cr, ok := Credentials(nameServer); ok {
		opts = append(opts, producer.WithCredentials(cr))
	}
	p, err := rmq.NewProducer(opts...)
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = p.Shutdown() })
	return p
}

// CountingConsumer is a running clustering push consumer that acknowledges everything
// and counts what it was delivered.
type CountingConsumer struct {
	rmq.PushConsumer
	// Instance is the consumer's instance name (part of its client id).
	Instance string

	mu      sync.Mutex
	seen    map[string]int // UNIQ_KEY -> deliveries
	lowest  map[int]*primitive.MessageExt
	total   int
	stopped bool
}

// StartCountingConsumer subscribes a new consumer of group to every message of topic,
// from the first offset; it is shut down when the test ends (or earlier with Stop).
func StartCountingConsumer(t testing.TB, nameServer, group, topic string) *CountingConsumer {
	t.Helper()
	cc := &CountingConsumer{Instance: dev.UniqueName("c"), seen: map[string]int{}, lowest: map[int]*primitive.MessageExt{}}
	opts := []consumer.Option{
		consumer.WithNameServer([]string{nameServer}),
		consumer.WithGroupName(group),
		consumer.WithInstance(cc.Instance),
		consumer.WithConsumeFromWhere(consumer.ConsumeFromFirstOffset),
		consumer.WithConsumerModel(consumer.Clustering),
	}
	if cr, ok := Credentials(nameServer); ok {
		opts = append(opts, consumer.WithCredentials(cr))
	}
	c, err := rmq.NewPushConsumer(opts...)
	if err != nil {
		t.Fatal(err)
	}
	err = c.Subscribe(topic, consumer.MessageSelector{}, func(_ context.Context, msgs ...*primitive.MessageExt) (consumer.ConsumeResult, error) {
		cc.mu.Lock()
		defer cc.mu.Unlock()
		for _, m := range msgs {
			cc.seen[m.MsgId]++
			cc.total++
			if l := cc.lowest[m.Queue.QueueId]; l == nil || m.QueueOffset < l.QueueOffset {
				cc.lowest[m.Queue.QueueId] = m
			}
		}
		return consumer.ConsumeSuccess, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	cc.PushConsumer = c
	t.Cleanup(cc.Stop)
	return cc
}

// Stop shuts the consumer down; later calls do nothing.
func (c *CountingConsumer) Stop() {
	c.mu.Lock()
	stopped := c.stopped
	c.stopped = true
	c.mu.Unlock()
	if !stopped {
		_ = c.Shutdown()
	}
}

// Lowest returns the message of the lowest queue offset delivered from the queue
// (nil when none was): where the consumer started on it.
func (c *CountingConsumer) Lowest(queueID int) *primitive.MessageExt {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.lowest[queueID]
}

// Counts returns how many distinct messages and how many deliveries the consumer had.
func (c *CountingConsumer) Counts() (distinct, total int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.seen), c.total
}
