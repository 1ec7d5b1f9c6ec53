package cluster_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"rmqconsole/cluster"
	"rmqconsole/cluster/clustertest"
	"rmqconsole/rocketmq"
)

// proxyLister answers connection lists as Proxies (at proxies) and brokers do, and
// counts the requests.
type proxyLister struct {
	mu      sync.Mutex
	proxies map[string]*rocketmq.ConsumerConnection // addr -> the group's clients there (nil: none)
	asked   map[string]int
}

func (l *proxyLister) ConsumerConnections(ctx context.Context, addr, group string) (*rocketmq.ConsumerConnection, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.asked[addr]++
	cc, isProxy := l.proxies[addr]
	switch {
	case !isProxy:
		return nil, fmt.Errorf("dial %s: connection refused", addr)
	case cc == nil || group == cluster.ProxySyncGroup:
		return nil, fmt.Errorf("connections of %s on %s: %w", group, addr, rocketmq.ErrConsumerNotOnline)
	}
	return cc, nil
}

var grpcClients = &rocketmq.ConsumerConnection{ServerVersion: 479, ConsumeType: "CONSUME_ACTIVELY",
	Connections: []rocketmq.Connection{{ClientID: "h@1@1@x", ClientAddr: "10.0.0.5:40000", Language: "GO", Version: 479}}}

// The console asks the configured Proxies for a group's clients, and finds a Proxy it
// was not told of from the brokers' heartbeat-sync connections, on the default port.
func TestProxyConsumersConfiguredAndDiscovered(t *testing.T) {
	f := twoBrokers()
	now := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	c := cluster.New(f, cluster.Options{Proxies: []string{"10.0.0.8:8080"}, Now: func() time.Time { return now }})
	l := &proxyLister{asked: map[string]int{}, proxies: map[string]*rocketmq.ConsumerConnection{
		"10.0.0.8:8080": grpcClients, "10.0.0.9:8080": grpcClients}}
	ctx := context.Background()

	got, failures := c.ProxyConsumers(ctx, l, "g")
	if len(got) != 1 || got[0].Proxy != "10.0.0.8:8080" || len(failures) != 0 {
		t.Fatalf("before discovery: %+v, failures %v", got, failures)
	}
	// The group list noted the heartbeat-sync group's connections: one per Proxy.
	c.NoteConsumers(cluster.ProxySyncGroup, &rocketmq.ConsumerConnection{Connections: []rocketmq.Connection{
		{ClientID: "a", ClientAddr: "10.0.0.8:51000"}, {ClientID: "b", ClientAddr: "10.0.0.9:52000"}}}, now)
	got, _ = c.ProxyConsumers(ctx, l, "g")
	if len(got) != 2 || got[1].Proxy != "10.0.0.9:8080" {
		t.Fatalf("after discovery: %+v", got)
	}
	if !cluster.IsGRPC(got[1].Conns, got[1].Conns.Connections[0]) {
		t.Error("a client carrying the Proxy's own version is a gRPC client")
	}
	// Discovery is not repeated for every request.
	probes := l.asked["10.0.0.9:8080"]
	c.ProxyConsumers(ctx, l, "g")
	if l.asked["10.0.0.9:8080"] != probes+1 {
		t.Errorf("10.0.0.9:8080 asked %d times for one more request, want 1 (no new probe)", l.asked["10.0.0.9:8080"]-probes)
	}
	if n := f.Calls()["ConsumerConnections"]; n != 0 {
		t.Errorf("discovery asked the brokers %d times; it reads what the group list noted", n)
	}
}

// A Proxy that fails is named; one that knows none of the group's clients is not.
func TestProxyConsumersNamesAFailingProxy(t *testing.T) {
	c := cluster.New(clustertest.New(), cluster.Options{Proxies: []string{"10.0.0.8:8080", "10.0.0.7:8080"}})
	l := &proxyLister{asked: map[string]int{}, proxies: map[string]*rocketmq.ConsumerConnection{"10.0.0.8:8080": nil}}
	got, failures := c.ProxyConsumers(context.Background(), l, "g")
	if len(got) != 0 || len(failures) != 1 || failures[0].Addr != "10.0.0.7:8080" {
		t.Errorf("answers %+v, failures %v; want none, and 10.0.0.7:8080 named", got, failures)
	}
}

// A group no broker knows a client of is noted with the clients a Proxy lists, marked as
// known to that Proxy; a group no Proxy knows is not noted.
func TestSeenThroughProxiesNotesWhatAProxyLists(t *testing.T) {
	at := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	c := cluster.New(clustertest.New(), cluster.Options{Proxies: []string{"10.0.0.8:8080"}})
	l := &proxyLister{asked: map[string]int{}, proxies: map[string]*rocketmq.ConsumerConnection{"10.0.0.8:8080": grpcClients}}
	s, ok := c.SeenThroughProxies(context.Background(), l, "g", at)
	noted, known := c.Consumers("g")
	if !ok || s.Proxy != "10.0.0.8:8080" || !known || noted.Proxy != s.Proxy || !noted.At.Equal(at) || !noted.Online() {
		t.Errorf("returned %+v (%v), noted %+v (%v)", s, ok, noted, known)
	}
	l.proxies["10.0.0.8:8080"] = nil
	if _, ok := c.SeenThroughProxies(context.Background(), l, "other", at); ok {
		t.Error("a group no Proxy knows came back as seen")
	}
	if _, known := c.Consumers("other"); known {
		t.Error("a group no Proxy knows was noted")
	}
}

// versionedLister is a proxyLister over brokers that tell their versions.
type versionedLister struct {
	*proxyLister
	*clustertest.Fake
}

func (l versionedLister) ConsumerConnections(ctx context.Context, addr, group string) (*rocketmq.ConsumerConnection, error) {
	return l.proxyLister.ConsumerConnections(ctx, addr, group)
}

// A cluster is 4.x only when every master that told its version runs 4.x; then the
// configured Proxies are not asked, since no Proxy serves a 4.x cluster. One 5.x master
// (an upgrade under way) is enough for the console to look for gRPC clients.
func TestRelease4AndNoProxyAskedOn4x(t *testing.T) {
	v497 := rocketmq.BrokerVersion{Ordinal: 407, Name: "V4_9_7"}
	for _, tc := range []struct {
		name     string
		versions map[string]rocketmq.BrokerVersion
		want     string
	}{
		{"all 4.9.7", map[string]rocketmq.BrokerVersion{"broker-a": v497, "broker-b": v497}, "4.9.7"},
		{"4.9.7 and 4.9.4", map[string]rocketmq.BrokerVersion{"broker-a": v497, "broker-b": {Ordinal: 401}}, "4.9.4, 4.9.7"},
		{"one 5.x", map[string]rocketmq.BrokerVersion{"broker-a": v497}, ""}, // broker-b: the fake's 5.3.3
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := twoBrokers()
			for b, v := range tc.versions {
				f.SetVersion(b, v)
			}
			c := cluster.New(f, cluster.Options{Proxies: []string{"10.0.0.8:8080"}})
			l := &proxyLister{asked: map[string]int{}, proxies: map[string]*rocketmq.ConsumerConnection{"10.0.0.8:8080": grpcClients}}
			ctx := context.Background()
			if got := c.Release4(ctx, f); got != tc.want {
				t.Errorf("Release4 = %q, want %q", got, tc.want)
			}
			got, failures := c.ProxyConsumers(ctx, versionedLister{l, f}, "g")
			if asked := l.asked["10.0.0.8:8080"] > 0; asked != (tc.want == "") {
				t.Errorf("Proxy asked %v (found %+v, failures %v); want asked only on 5.x", asked, got, failures)
			}
			ms := c.Needs5Messages(tc.want)
			if s := fmt.Sprint(ms); (len(ms) != 0) != (tc.want != "") || (len(ms) != 0 && !strings.Contains(s, "RMQC_PROXY names 10.0.0.8:8080")) {
				t.Errorf("sentences %q", s)
			}
		})
	}
}
