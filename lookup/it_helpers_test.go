package lookup

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	rmq "github.com/apache/rocketmq-client-go/v2"
	"github.com/apache/rocketmq-client-go/v2/consumer"
	"github.com/apache/rocketmq-client-go/v2/primitive"
	"github.com/apache/rocketmq-client-go/v2/rlog"

	"rmqconsole/dev"
	"rmqconsole/dev/rmqclient"
	"rmqconsole/rocketmq"
	"rmqconsole/rocketmq/rocketmqtest"
)

func init() { rlog.SetLogLevel("error") }

// itEnv is an integration test's cluster, our client on it and the service under test.
type itEnv struct {
	cl  *dev.Cluster
	c   *rocketmq.Client
	svc *Service
}

func newIT(t testing.TB) *itEnv {
	t.Helper()
	cl := dev.RequireCluster(t)
	c := rocketmqtest.Client(t, rocketmq.Config{NameServer: cl.NameServer, Timeout: 10 * time.Second, Credentials: rocketmq.Credentials(dev.TestAccount(cl.NameServer))})
	t.Logf("RocketMQ %s at %s", cl.Version, cl.NameServer)
	return &itEnv{cl: cl, c: c, svc: New(c, Options{})}
}

// startIT begins an integration test: the cluster, a new topic with n queues on every
// broker, and a producer. It skips under -short.
func startIT(t *testing.T, prefix string, n int) (*itEnv, string, rmq.Producer) {
	t.Helper()
	if testing.Short() {
		t.Skip("needs the local RocketMQ")
	}
	e := newIT(t)
	topic := e.topic(t, prefix, n)
	return e, topic, rmqclient.StartProducer(t, e.cl.NameServer, "")
}

// topic creates a topic with n queues on every broker.
func (e *itEnv) topic(t testing.TB, prefix string, n int) string {
	t.Helper()
	topic := dev.UniqueName(prefix)
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	if err := e.cl.CreateTopic(ctx, topic, n); err != nil {
		t.Fatal(err)
	}
	return topic
}

func ctxT(t testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// sent is what the producer reported for one message, and when it was sent.
type sent struct {
	uniq, offsetID string
	broker         string
	queueID        int
	queueOffset    int64
	body, tag      string
	keys           []string
	before, after  time.Time // the store time lies between (same clock, ms precision)
}

// msg builds a message.
func msg(topic, body, tag string, keys []string, props map[string]string) *primitive.Message {
	m := primitive.NewMessage(topic, []byte(body))
	if tag != "" {
		m.WithTag(tag)
	}
	if len(keys) > 0 {
		m.WithKeys(keys)
	}
	for k, v := range props {
		m.WithProperty(k, v)
	}
	return m
}

// sendAll sends the messages with workers goroutines and returns what was sent, in the
// order of msgs.
func sendAll(t testing.TB, p rmq.Producer, workers int, msgs ...*primitive.Message) []sent {
	t.Helper()
	out := make([]sent, len(msgs))
	errs := make(chan error, len(msgs))
	var wg sync.WaitGroup
	next := make(chan int)
	for range max(workers, 1) {
		wg.Go(func() {
			for i := range next {
				m := msgs[i]
				var before, after time.Time
				var r *primitive.SendResult
				var err error
				// A broker under flow control refuses a send it did not store ("broker
				// busy"), and real producers send again: so does this, a few times.
				for attempt := 0; attempt < 4; attempt++ {
					if attempt > 0 {
						time.Sleep(time.Duration(attempt) * 500 * time.Millisecond)
					}
					before = time.Now().Truncate(time.Millisecond)
					ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
					r, err = p.SendSync(ctx, m)
					cancel()
					after = time.Now()
					if err == nil || !strings.Contains(err.Error(), "broker busy") {
						break
					}
				}
				if err != nil || r.Status != primitive.SendOK {
					errs <- fmt.Errorf("send %q: %v %v", m.Body, err, r)
					continue
				}
				out[i] = sent{uniq: r.MsgID, offsetID: r.OffsetMsgID, broker: r.MessageQueue.BrokerName, queueID: r.MessageQueue.QueueId, queueOffset: r.QueueOffset,
					body: string(m.Body), tag: m.GetTags(), keys: strings.Fields(m.GetKeys()), before: before, after: after}
			}
		})
	}
	for i := range msgs {
		next <- i
	}
	close(next)
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	return out
}

// span is the time range that holds exactly the store times of ss.
func span(ss []sent) (time.Time, time.Time) {
	b, e := ss[0].before, ss[0].after
	for _, s := range ss {
		if s.before.Before(b) {
			b = s.before
		}
		if s.after.After(e) {
			e = s.after
		}
	}
	return b, e
}

// gap waits long enough that the next messages are stored in a later second than the
// previous ones, so ranges can separate them.
func gap() { time.Sleep(1100 * time.Millisecond) }

// startConsumer starts a push consumer of topic in group; handle decides each delivery.
func startConsumer(t testing.TB, ns, group, topic string, handle func(*primitive.MessageExt) consumer.ConsumeResult) rmq.PushConsumer {
	t.Helper()
	opts := []consumer.Option{
		consumer.WithNameServer([]string{ns}),
		consumer.WithGroupName(group),
		consumer.WithInstance(dev.UniqueName("c")),
		consumer.WithConsumeFromWhere(consumer.ConsumeFromFirstOffset),
		consumer.WithConsumerModel(consumer.Clustering),
	}
	if cr, ok := rmqclient.Credentials(ns); ok {
		opts = append(opts, consumer.WithCredentials(cr))
	}
	c, err := rmq.NewPushConsumer(opts...)
	if err != nil {
		t.Fatal(err)
	}
	err = c.Subscribe(topic, consumer.MessageSelector{}, func(_ context.Context, msgs ...*primitive.MessageExt) (consumer.ConsumeResult, error) {
		for _, m := range msgs {
			if r := handle(m); r != consumer.ConsumeSuccess {
				return r, nil
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
	return c
}

func uniqs(ms []Message) map[string]bool {
	out := map[string]bool{}
	for _, m := range ms {
		out[m.UniqueKey()] = true
	}
	return out
}
