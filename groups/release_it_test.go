package groups

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"rmqconsole/cluster"
	"rmqconsole/dev"
)

// On a 4.x cluster (no Proxy, no POP) the group page and the group list say that gRPC
// clients, the Proxy and POP need RocketMQ 5.x, naming the version the brokers report,
// and a Proxy named in RMQC_PROXY is not asked (nor reported as failing). On 5.x none
// of it is said.
func TestIntegrationPOPAndGRPCNeed5xOn4x(t *testing.T) {
	it := newIT(t)
	const deadProxy = "127.0.0.1:1" // nothing listens there
	view := cluster.New(it.c, cluster.Options{Proxies: []string{deadProxy}})
	svc := NewService(it.c, Options{Cluster: view})
	topic := it.topic(t, "rel", 2)
	group := dev.UniqueName("rel-g")
	dev.StartConsumerProcess(t, it.cl.NameServer, group, topic)
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()

	on4 := strings.HasPrefix(it.cl.Version, "4.")
	var d *Detail
	dev.Eventually(t, time.Minute, "the group online", func() error {
		var err error
		if d, err = svc.Detail(ctx, group); err != nil {
			return err
		}
		if !d.Online {
			return fmt.Errorf("offline; failures %v", d.Failures)
		}
		return nil
	})
	l, err := svc.List(ctx, true)
	if err != nil {
		t.Fatal(err)
	}
	if !on4 {
		if d.Needs5x.String() != "" || l.Needs5x.String() != "" {
			t.Errorf("on %s the pages say %q / %q; 5.x has the Proxy and POP", it.cl.Version, d.Needs5x.String(), l.Needs5x.String())
		}
		return
	}
	for what, s := range map[string]string{"group": d.Needs5x.String(), "list": l.Needs5x.String()} {
		if !strings.Contains(s, "need RocketMQ 5.x") || !strings.Contains(s, it.cl.Version) || !strings.Contains(s, deadProxy) {
			t.Errorf("%s on %s says %q; want that it needs 5.x, the brokers' version and the configured Proxy not asked", what, it.cl.Version, s)
		}
	}
	for _, f := range d.Failures {
		if strings.Contains(f.Error(), deadProxy) {
			t.Errorf("the configured Proxy of a 4.x cluster was asked: %v", f)
		}
	}
	if d.ConsumeType != "push" || d.Clients[0].Protocol != ProtocolRemoting {
		t.Errorf("consume type %q, protocol %q; want push, remoting", d.ConsumeType, d.Clients[0].Protocol)
	}
}
