package sqlfilter

import (
	"context"
	"fmt"
	"maps"
	"os"
	"slices"
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

// One local RocketMQ (or RMQC_TEST_NAMESRV's) serves the package's integration test.
// Its push consumers are rocketmq-client-go's, whose own data races keep this
// package's integration test out of -race (Makefile CLIENT_GO_PKGS).
func TestMain(m *testing.M) {
	rlog.SetLogLevel("error")
	os.Exit(dev.RunTests(m))
}

// brokerExpressions cover every operator and the corners where the broker is not SQL:
// conversions that fail and sink the whole expression, Long and Double literals, the
// asymmetry of = with NULL, NOT's precedence, two properties compared, and the string
// matches of 5.1.3.
var brokerExpressions = []string{
	"n = 5",
	"n > 10",
	"n >= 10 OR region = 'eu'",
	"region = 'eu' OR n > 10",
	"n < 3000000000",
	"price > 9.5",
	"price <= 10.0 AND price >= 1.5",
	"n BETWEEN 3 AND 50",
	"n NOT BETWEEN 3 AND 50",
	"region IN ('eu', 'us')",
	"region NOT IN ('eu')",
	"region IS NULL",
	"region IS NOT NULL AND flag = TRUE",
	"flag <> FALSE",
	"'eu' <> region",
	"NOT region = 'eu'",
	"NOT (region = 'eu') AND TAGS <> 'TagA'",
	"n = price",
	"n > price",
	"note CONTAINS '支付'",
	"note NOT CONTAINS 'x'",
	"region STARTSWITH 'eu' OR note ENDSWITH '🎉'",
	"TAGS = 'TagA' AND KEYS CONTAINS 'k2'",
	"KEYS = 'k1' OR TAGS IS NULL",
	"-n < -20 OR n = -5",
}

// propertyValues are what the messages carry, cycled with different periods so the
// properties combine in many ways; "" leaves the property out.
var propertyValues = map[string][]string{
	"n":      {"5", "12", "0", "-5", "+7", "007", " 5", "3000000000", "٤٢", "1.5", "abc", "NaN", "2.5f", "50", "3", "", "10", "99"},
	"price":  {"9.99", "10", "1e2", "0x1p3", " 12.5 ", "Infinity", "-0.0", "", "1.5", "free", "10.0", "5"},
	"region": {"eu", "us", "apac", "EU", "订单", "eu-west", "", "us"},
	"flag":   {"true", "TRUE", "false", "yes", "", "True", "0"},
	"note":   {"支付成功", "emoji 🎉", "it's", "", "x marks", "订单已支付 🎉", "plain"},
	"tag":    {"TagA", "TagB", "TagC", ""},
	"keys":   {"k1", "k1 k2", "", "k3 k2"},
}

// TestIntegrationVerdictsEqualTheBrokers: a real broker (enablePropertyFilter=true)
// delivers to a real bySql consumer exactly the messages this package selects from the
// same messages read back through the console's own client.
func TestIntegrationVerdictsEqualTheBrokers(t *testing.T) {
	if testing.Short() {
		t.Skip("needs the local RocketMQ")
	}
	cl := dev.RequireCluster(t)
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Minute)
	defer cancel()
	topic := dev.UniqueName("sql92")
	if err := cl.CreateTopic(ctx, topic, 4); err != nil {
		t.Fatal(err)
	}

	const total = 300
	p := rmqclient.StartProducer(t, cl.NameServer, "")
	for i := range total {
		m := primitive.NewMessage(topic, fmt.Appendf(nil, "message %d", i))
		for name, values := range propertyValues {
			v := values[(i*(len(name)+1)+i/len(values))%len(values)]
			switch {
			case v == "":
			case name == "tag":
				m.WithTag(v)
			case name == "keys":
				m.WithKeys(strings.Fields(v))
			default:
				m.WithProperty(name, v)
			}
		}
		if _, err := p.SendSync(ctx, m); err != nil {
			t.Fatal(err)
		}
	}

	admin := rocketmqtest.Client(t, rocketmq.Config{NameServer: cl.NameServer, Timeout: 10 * time.Second, Credentials: rocketmq.Credentials(dev.TestAccount(cl.NameServer))})
	stored, ends := readBack(ctx, t, admin, topic)
	if len(stored) != total {
		t.Fatalf("read back %d messages, sent %d", len(stored), total)
	}

	var consumers []*sqlConsumer
	for _, expr := range brokerExpressions {
		consumers = append(consumers, startSQLConsumer(t, cl.NameServer, topic, expr))
	}
	seen := map[Verdict]int{}
	for _, c := range consumers {
		e := MustParse(c.expr)
		want := map[string]bool{}
		for id, props := range stored {
			v := e.Evaluate(props)
			seen[v]++
			if v == True {
				want[id] = true
			}
		}
		// The group's committed offsets reach the end of every queue only after
		// everything the broker delivered was handed to the listener.
		dev.Eventually(t, 2*time.Minute, "group of "+c.expr+" consumed the topic", func() error {
			for mq, end := range ends {
				off, err := admin.QueryConsumerOffset(ctx, end.addr, c.group, mq)
				if err != nil {
					return err
				}
				if off < end.offset {
					return fmt.Errorf("%s at %d of %d", mq, off, end.offset)
				}
			}
			return nil
		})
		got := c.received()
		if missing, extra := diff(want, got); len(missing)+len(extra) > 0 {
			t.Errorf("%s: the broker delivered %d, the console selects %d\n  only the console: %s\n  only the broker:  %s",
				c.expr, len(got), len(want), describeMsgs(stored, missing), describeMsgs(stored, extra))
		}
		t.Logf("%-45s %3d of %d", c.expr, len(want), total)
	}
	// The messages exercised every outcome, failures and NULLs included.
	for _, v := range []Verdict{True, False, Unknown, Failed} {
		if seen[v] == 0 {
			t.Errorf("no message evaluated to %s: the test data lost its edge cases", v)
		}
	}
}

type queueEnd struct {
	addr   string
	offset int64
}

// readBack pulls every message of topic with the console's client, keyed by where it
// is stored, and says where each queue ends.
func readBack(ctx context.Context, t *testing.T, c *rocketmq.Client, topic string) (map[string]map[string]string, map[rocketmq.MessageQueue]queueEnd) {
	t.Helper()
	route, err := c.TopicRoute(ctx, topic)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]map[string]string{}
	ends := map[rocketmq.MessageQueue]queueEnd{}
	for _, mq := range route.ReadQueues() {
		addr, _ := route.MasterAddr(mq.BrokerName)
		maxOff, err := c.MaxOffset(ctx, addr, mq)
		if err != nil {
			t.Fatal(err)
		}
		msgs, _, err := c.PullRange(ctx, addr, mq, 0, maxOff, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range msgs {
			out[storedID(mq.BrokerName, mq.QueueID, m.QueueOffset)] = m.Properties
		}
		ends[mq] = queueEnd{addr: addr, offset: maxOff}
	}
	return out, ends
}

func storedID(broker string, queue int, offset int64) string {
	return fmt.Sprintf("%s/%d/%d", broker, queue, offset)
}

func diff(want, got map[string]bool) (missing, extra []string) {
	for id := range want {
		if !got[id] {
			missing = append(missing, id)
		}
	}
	for id := range got {
		if !want[id] {
			extra = append(extra, id)
		}
	}
	return missing, extra
}

func describeMsgs(stored map[string]map[string]string, ids []string) string {
	slices.Sort(ids)
	var b strings.Builder
	for i, id := range ids {
		if i == 5 {
			fmt.Fprintf(&b, " ... %d more", len(ids)-5)
			break
		}
		props := stored[id]
		keys := slices.Sorted(maps.Keys(props))
		fmt.Fprintf(&b, "\n    %s {", id)
		for _, k := range keys {
			if k == "n" || k == "price" || k == "region" || k == "flag" || k == "note" || k == "TAGS" || k == "KEYS" {
				fmt.Fprintf(&b, "%s=%q ", k, props[k])
			}
		}
		b.WriteString("}")
	}
	return b.String()
}

// sqlConsumer is a rocketmq-client-go push consumer subscribed with bySql.
type sqlConsumer struct {
	expr, group string
	mu          sync.Mutex
	got         map[string]bool
}

func startSQLConsumer(t *testing.T, nameServer, topic, expr string) *sqlConsumer {
	t.Helper()
	sc := &sqlConsumer{expr: expr, group: dev.UniqueName("sql92-g"), got: map[string]bool{}}
	opts := []consumer.Option{
		consumer.WithNameServer([]string{nameServer}),
		consumer.WithGroupName(sc.group),
		consumer.WithInstance(dev.UniqueName("c")),
		consumer.WithConsumeFromWhere(consumer.ConsumeFromFirstOffset),
		consumer.WithConsumerModel(consumer.Clustering),
	}
	if cr, ok := rmqclient.Credentials(nameServer); ok {
		opts = append(opts, consumer.WithCredentials(cr))
	}
	c, err := rmq.NewPushConsumer(opts...)
	if err != nil {
		t.Fatal(err)
	}
	err = c.Subscribe(topic, consumer.MessageSelector{Type: consumer.SQL92, Expression: expr}, func(_ context.Context, msgs ...*primitive.MessageExt) (consumer.ConsumeResult, error) {
		sc.mu.Lock()
		defer sc.mu.Unlock()
		for _, m := range msgs {
			sc.got[storedID(m.Queue.BrokerName, m.Queue.QueueId, m.QueueOffset)] = true
		}
		return consumer.ConsumeSuccess, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Start(); err != nil {
		t.Fatalf("%s: %v", expr, err)
	}
	t.Cleanup(func() { _ = c.Shutdown() })
	return sc
}

func (c *sqlConsumer) received() map[string]bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return maps.Clone(c.got)
}
