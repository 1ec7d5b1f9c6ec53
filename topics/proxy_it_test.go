package topics

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"rmqconsole/cluster"
	"rmqconsole/dev"
	"rmqconsole/dev/rmqclient"
	"rmqconsole/rocketmq"
	"rmqconsole/rocketmq/rocketmqtest"
)

// The topic page lists the clients of the groups consuming the topic, gRPC clients
// included: a real gRPC PushConsumer through the Proxy, which no broker lists, shows as
// gRPC and known to the Proxy, beside a remoting consumer the brokers list
// (rocketmq-dashboard issue 356: gRPC consumers missing from a topic's consumers).
func TestIntegrationTopicPageListsGRPCConsumers(t *testing.T) {
	if testing.Short() {
		t.Skip("needs the local RocketMQ and its Proxy")
	}
	cl := dev.RequireProxy(t)
	c := rocketmqtest.Client(t, rocketmq.Config{NameServer: cl.NameServer, Timeout: 10 * time.Second, Credentials: rocketmq.Credentials(dev.TestAccount(cl.NameServer))})
	svc := New(c, Options{Cluster: cluster.New(c, cluster.Options{Proxies: []string{cl.ProxyRemoting}})})
	ctx, cancel := context.WithTimeout(t.Context(), 3*time.Minute)
	defer cancel()
	topic := dev.UniqueName("tp-grpc")
	if err := cl.CreateTopicOn(ctx, topic, 2, cl.Brokers[0]); err != nil {
		t.Fatal(err)
	}
	grpcGroup, remotingGroup := dev.UniqueName("tp-grpc-g"), dev.UniqueName("tp-rem-g")
	dev.StartGRPCConsumer(t, cl, grpcGroup, topic, dev.GRPCConsumerOptions{})
	rmqclient.StartCountingConsumer(t, cl.NameServer, remotingGroup, topic)
	if _, err := dev.GRPCSend(ctx, cl, topic, 4, ""); err != nil {
		t.Fatal(err)
	}
	var d *Detail
	dev.Eventually(t, 2*time.Minute, "both groups on the topic page with their clients", func() error {
		var err error
		if d, err = svc.Detail(ctx, DetailQuery{Topic: topic}); err != nil {
			return err
		}
		for _, g := range []string{grpcGroup, remotingGroup} {
			i := slices.IndexFunc(d.Groups, func(gl GroupLag) bool { return gl.Group == g })
			if i < 0 || len(d.Groups[i].Clients) != 1 {
				return fmt.Errorf("groups %+v, failures %v: want %s with its one client", d.Groups, d.Failures, g)
			}
		}
		return nil
	})
	for _, g := range d.Groups {
		cl0 := g.Clients[0]
		switch g.Group {
		case grpcGroup:
			if cl0.Protocol != "gRPC" || cl0.KnownTo != "Proxy "+cl.ProxyRemoting || cl0.Language != "GO" {
				t.Errorf("gRPC group's client %+v: want gRPC, known to Proxy %s, GO", cl0, cl.ProxyRemoting)
			}
		case remotingGroup:
			if cl0.Protocol != "remoting" || cl0.KnownTo != "broker" {
				t.Errorf("remoting group's client %+v: want remoting, known to the broker", cl0)
			}
		}
	}
}
