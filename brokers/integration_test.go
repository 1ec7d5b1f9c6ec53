package brokers

import (
	"fmt"
	"os"
	"slices"
	"testing"
	"time"

	"rmqconsole/dev"
	"rmqconsole/fault"
	"rmqconsole/rocketmq"
	"rmqconsole/rocketmq/rocketmqtest"
)

func TestMain(m *testing.M) { os.Exit(dev.RunTests(m)) }

func newIT(t testing.TB) (*dev.Cluster, *rocketmq.Client, *Service) {
	t.Helper()
	if testing.Short() {
		t.Skip("needs the local RocketMQ")
	}
	cl := dev.RequireCluster(t)
	c := rocketmqtest.Client(t, rocketmq.Config{NameServer: cl.NameServer, Timeout: 10 * time.Second, Credentials: rocketmq.Credentials(dev.TestAccount(cl.NameServer))})
	return cl, c, New(c, nil)
}

// Every broker process of the real cluster is listed with the figures its runtime info
// holds, and a broker's page has its configuration as the broker reports it.
func TestIntegrationBrokers(t *testing.T) {
	cl, c, svc := newIT(t)
	ctx := t.Context()
	// A fresh broker refuses runtime info until it has a tps sample (protocol notes).
	var l *List
	dev.Eventually(t, 60*time.Second, "runtime info of every broker", func() error {
		var err error
		if l, err = svc.List(ctx, true); err != nil {
			return err
		}
		if len(l.Failures) > 0 {
			return fmt.Errorf("%v", l.Failures)
		}
		return nil
	})
	if len(l.Brokers) != len(cl.Brokers)+len(cl.Slaves) {
		t.Errorf("%d broker processes listed, the cluster runs %d", len(l.Brokers), len(cl.Brokers)+len(cl.Slaves))
	}
	for _, b := range cl.Brokers {
		i := slices.IndexFunc(l.Brokers, func(r Runtime) bool { return r.Addr == b.Addr })
		if i < 0 {
			t.Fatalf("%s at %s not listed: %+v", b.Name, b.Addr, l.Brokers)
		}
		r := l.Brokers[i]
		rt, err := c.BrokerRuntimeInfo(ctx, b.Addr)
		if err != nil {
			t.Fatal(err)
		}
		if boot, _ := intOf(rt, "bootTimestamp"); r.Role != "master" || r.Name != b.Name || r.Version != cl.Version || r.StartedAt <= 0 || r.DiskRatio <= 0 ||
			r.CommitLogMaxOffset < r.CommitLogMinOffset || r.StartedAt != boot {
			t.Errorf("%s: %+v", b.Name, r)
		}
	}

	d, err := svc.Detail(ctx, cl.Brokers[0].Name)
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Members) == 0 || d.Members[0].Addr != cl.Brokers[0].Addr {
		t.Fatalf("members %+v", d.Members)
	}
	i := slices.IndexFunc(d.Members[0].Config, func(e ConfigEntry) bool { return e.Key == "brokerName" })
	if i < 0 || d.Members[0].Config[i].Value != cl.Brokers[0].Name {
		t.Errorf("config lacks brokerName=%s", cl.Brokers[0].Name)
	}
	for _, e := range d.Members[0].Config {
		if IsSecret(e.Key, e.Value) && !e.Masked {
			t.Errorf("secret %s shown", e.Key)
		}
	}
	if _, err := svc.Detail(ctx, dev.UniqueName("nobroker")); !fault.Is(err, fault.NotFound) {
		t.Errorf("unknown broker: %v", err)
	}
}
