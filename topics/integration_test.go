package topics

import (
	"fmt"
	"os"
	"slices"
	"testing"
	"time"

	"github.com/apache/rocketmq-client-go/v2/primitive"
	"github.com/apache/rocketmq-client-go/v2/rlog"

	"rmqconsole/dev"
	"rmqconsole/dev/rmqclient"
	"rmqconsole/fault"
	"rmqconsole/rocketmq"
	"rmqconsole/rocketmq/rocketmqtest"
)

// One local RocketMQ serves the integration tests of this package (or the one named by
// RMQC_TEST_NAMESRV); the unit tests never start it.
func TestMain(m *testing.M) {
	rlog.SetLogLevel("error") // the Go client logs every rebalance at info
	os.Exit(dev.RunTests(m))
}

// A topic with a running producer and a consuming group, read through the service: the
// list's figures, the page's queues, the group's lag and the producer's connection are
// what the real cluster holds.
func TestIntegrationTopicListAndDetail(t *testing.T) {
	if testing.Short() {
		t.Skip("needs the local RocketMQ")
	}
	cl := dev.RequireCluster(t)
	c := rocketmqtest.Client(t, rocketmq.Config{NameServer: cl.NameServer, Timeout: 10 * time.Second, Credentials: rocketmq.Credentials(dev.TestAccount(cl.NameServer))})
	svc := New(c, Options{})
	ctx := t.Context()
	v, err := c.BrokerVersion(ctx, cl.Brokers[0].Addr)
	if err != nil {
		t.Fatal(err)
	}

	topic := dev.UniqueName("it-topic")
	if err := cl.CreateTopic(ctx, topic, 2); err != nil {
		t.Fatal(err)
	}
	pgroup := dev.UniqueName("it-topic-pg")
	p := rmqclient.StartProducer(t, cl.NameServer, pgroup)
	const n = 7
	for i := range n {
		if _, err := p.SendSync(ctx, primitive.NewMessage(topic, fmt.Appendf(nil, "m%d", i))); err != nil {
			t.Fatal(err)
		}
	}
	group := dev.UniqueName("it-topic-cg")
	cons := rmqclient.StartCountingConsumer(t, cl.NameServer, group, topic)
	dev.Eventually(t, 60*time.Second, "consumer consumes every message", func() error {
		if d, _ := cons.Counts(); d < n {
			return fmt.Errorf("consumed %d of %d", d, n)
		}
		return nil
	})

	wantType := TypeUnknown
	if v.Is5() {
		wantType = TypeNormal
	}
	// The list's figures come from the collector's rounds: the topic on screen is read
	// first, and shows how old its figures are.
	col := svc.Figures(time.Second, 0)
	svc.Viewing([]string{topic})
	dev.Eventually(t, 30*time.Second, "topic listed with its messages", func() error {
		col.Collect(ctx)
		l, err := svc.List(ctx, false, true)
		if err != nil {
			return err
		}
		i := slices.IndexFunc(l.Topics, func(s Summary) bool { return s.Topic == topic })
		if i < 0 {
			return fmt.Errorf("%s not listed", topic)
		}
		s := l.Topics[i]
		if s.Messages != n || s.ReadQueues != 2*len(cl.Brokers) || s.Type != wantType || s.Perm != 6 || len(s.Brokers) != len(cl.Brokers) || s.StatsFrom != len(cl.Brokers) {
			return fmt.Errorf("%+v", s)
		}
		if s.FiguresAt == nil || time.Since(*s.FiguresAt) > 20*time.Second || s.FiguresUnknown != "" {
			return fmt.Errorf("figures of %s as of %v (%q)", topic, s.FiguresAt, s.FiguresUnknown)
		}
		if v.AtLeast(rocketmq.VersionOrdinal5_3_3) != (s.PutTPS != nil) {
			return fmt.Errorf("put TPS %v on %s", s.PutTPS, v)
		}
		if slices.ContainsFunc(l.Topics, func(s Summary) bool { return s.System }) {
			return fmt.Errorf("system topics listed without asking")
		}
		return nil
	})

	dev.Eventually(t, 60*time.Second, "topic page", func() error {
		d, err := svc.Detail(ctx, DetailQuery{Topic: topic})
		if err != nil {
			return err
		}
		if len(d.Failures) > 0 {
			return fmt.Errorf("failures %v", d.Failures)
		}
		var stored int64
		for _, q := range d.Queues {
			stored += q.MaxOffset - q.MinOffset
			if q.MaxOffset > 0 && q.LastUpdate == 0 {
				return fmt.Errorf("queue %+v without its last store time", q)
			}
		}
		if stored != n || len(d.Queues) != 2*len(cl.Brokers) || d.Messages != n || len(d.Route) != len(cl.Brokers) || d.Route[0].Master == "" {
			return fmt.Errorf("queues %+v route %+v", d.Queues, d.Route)
		}
		gi := slices.IndexFunc(d.Groups, func(g GroupLag) bool { return g.Group == group })
		if gi < 0 || d.Groups[gi].Lag != 0 {
			return fmt.Errorf("group %s not listed with lag 0: %+v", group, d.Groups)
		}
		if !d.Producers.Listed {
			return fmt.Errorf("producers not listed on %s", v)
		}
		if err := hasProducer(d.Producers, pgroup); err != nil {
			return err
		}
		return nil
	})

	// On every version, a named producer group is looked up on the topic's brokers.
	d, err := svc.Detail(ctx, DetailQuery{Topic: topic, ProducerGroup: pgroup})
	if err != nil {
		t.Fatal(err)
	}
	if err := hasProducer(d.Producers, pgroup); err != nil {
		t.Error(err)
	}

	if _, err := svc.Detail(ctx, DetailQuery{Topic: dev.UniqueName("it-topic-none")}); !fault.Is(err, fault.NotFound) {
		t.Errorf("unknown topic: %v", err)
	}
}

func hasProducer(ps Producers, group string) error {
	i := slices.IndexFunc(ps.Groups, func(g ProducerGroup) bool { return g.Group == group })
	if i < 0 || len(ps.Groups[i].Connections) != 1 {
		return fmt.Errorf("producer group %s not listed with one connection: %+v", group, ps.Groups)
	}
	pc := ps.Groups[i].Connections[0]
	if pc.ClientID == "" || pc.ClientAddr == "" || pc.Language != "GO" || pc.Version == 0 || len(pc.Brokers) == 0 {
		return fmt.Errorf("producer connection %+v", pc)
	}
	return nil
}
