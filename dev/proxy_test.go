package dev

import (
	"context"
	"encoding/json"
	"testing"
	"time"
)

// The Proxy's config names the brokers' cluster (or it refuses to start), its
// two ports, and loopback as the address it serves and writes into routes.
func TestProxyConfigIsClusterModeOnLoopback(t *testing.T) {
	data, err := json.Marshal(newProxyConfig(ClusterName, "127.0.0.1:19876", DefaultPorts))
	if err != nil {
		t.Fatal(err)
	}
	var got map[string]any
	if err := json.Unmarshal(data, &got); err != nil {
		t.Fatal(err)
	}
	want := map[string]any{
		"rocketMQClusterName": "DefaultCluster", "namesrvAddr": "127.0.0.1:19876", "proxyMode": "cluster",
		"grpcServerPort": float64(19081), "remotingListenPort": float64(19080),
		"localServeAddr": "127.0.0.1", "remotingAccessAddr": "127.0.0.1",
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("rmq-proxy.json %s = %v, want %v", k, got[k], v)
		}
	}
}

// Every port of a private port set is distinct, the Proxy's included.
func TestPortsFromKeepsProxyPortsApart(t *testing.T) {
	p := PortsFrom(22000)
	specs, err := withSlaves(p, brokerSpecs(p, true))
	if err != nil {
		t.Fatal(err)
	}
	seen := map[int]bool{p.NameServer: true}
	for _, b := range specs {
		for _, port := range b.ports() {
			seen[port] = true
		}
	}
	for _, port := range []int{p.ProxyRemoting, p.ProxyGRPC} {
		if seen[port] {
			t.Errorf("proxy port %d is also a namesrv or broker port", port)
		}
		if port >= 22000+20 {
			t.Errorf("proxy port %d is outside the set's 20 ports", port)
		}
	}
}

// The Proxy answers on both ports: its remoting server routes the cluster's
// topic (so it reached the NameServer) and its gRPC server takes connections.
func TestProxyAnswersOnBothPorts(t *testing.T) {
	c := RequireProxy(t)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	r, err := queryRoute(ctx, c.ProxyRemoting, c.ClusterName)
	if err != nil {
		t.Fatalf("route of %s from the Proxy's remoting port %s: %v", c.ClusterName, c.ProxyRemoting, err)
	}
	// The Proxy hands out routes to itself, not to the brokers.
	for name, addr := range r.masters() {
		if addr != c.ProxyRemoting {
			t.Errorf("the Proxy routes %s to %s, want itself (%s)", name, addr, c.ProxyRemoting)
		}
	}
	if err := dialOK(ctx, c.ProxyGRPC); err != nil {
		t.Fatal(err)
	}
}

// A gRPC producer (Apache's Go SDK) sends through the Proxy, and gets back the 5.x
// message id its client made: 34 hex characters starting with version 01.
func TestGRPCProducerSendsThroughTheProxy(t *testing.T) {
	c := RequireProxy(t)
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	topic := UniqueName("grpc")
	if err := c.CreateTopic(ctx, topic, 2); err != nil {
		t.Fatal(err)
	}
	sent, err := GRPCSend(ctx, c, topic, 2, "k")
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range sent {
		if len(s.MessageID) != 34 || s.MessageID[:2] != "01" {
			t.Errorf("message id %q is not a 5.x v1 id", s.MessageID)
		}
	}
	if sent[0].Key != "k-1" || sent[1].Key != "k-2" {
		t.Errorf("keys = %q, %q; want k-1, k-2", sent[0].Key, sent[1].Key)
	}
}
