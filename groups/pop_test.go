package groups

import (
	"slices"
	"strings"
	"testing"

	"rmqconsole/cluster"
	"rmqconsole/rocketmq"
)

// proxyAnswer is a Proxy's connection list as 5.3.3 answers it (captured live): gRPC
// clients carry the Proxy's own version (479, V5_3_3), a Simple consumer registers
// CONSUME_ACTIVELY and a Push consumer CONSUME_PASSIVELY.
func proxyAnswer(consumeType string, conns ...rocketmq.Connection) *rocketmq.ConsumerConnection {
	return &rocketmq.ConsumerConnection{ServerVersion: 479, ConsumeType: consumeType, MessageModel: "CLUSTERING",
		Subscriptions: map[string]rocketmq.SubscriptionData{"T": {Topic: "T", SubString: "*", ExpressionType: "TAG"}},
		Connections:   conns}
}

var grpcConn = rocketmq.Connection{ClientID: "host@123@1@abc", ClientAddr: "127.0.0.1:50000", Language: "GO", Version: 479}

// Clients only a Proxy knows are listed as gRPC, known to that Proxy, with the
// Proxy's subscriptions and without the Proxy's version passed off as theirs; the
// group's consume type says how gRPC consumers really consume.
func TestMergeProxiedClients(t *testing.T) {
	for _, c := range []struct{ brokerType, want string }{
		{"CONSUME_ACTIVELY", ConsumeTypePop},
		{"CONSUME_PASSIVELY", ConsumeTypeGRPCPush},
	} {
		d := &Detail{Group: "g"}
		subs := d.mergeConnections(nil, []cluster.ProxyConsumers{{Proxy: "10.0.0.1:8080", Conns: proxyAnswer(c.brokerType, grpcConn)}})
		if !d.Online || d.ConsumeType != c.want || !subs["T"] {
			t.Errorf("%s: online %v, consume type %q, subs %v; want online, %q, T", c.brokerType, d.Online, d.ConsumeType, subs, c.want)
		}
		if len(d.Clients) != 1 {
			t.Fatalf("%s: clients %+v", c.brokerType, d.Clients)
		}
		got := d.Clients[0]
		if got.Protocol != ProtocolGRPC || got.KnownTo != "Proxy 10.0.0.1:8080" || got.Version != "" ||
			!strings.Contains(got.VersionNote.String(), "its own") || len(got.Subscriptions) != 1 || got.RunningInfoError.String() == "" {
			t.Errorf("%s: client %+v", c.brokerType, got)
		}
	}
}

// A remoting client connected through a Proxy reports its own version: it is not gRPC,
// and its group's consume type is the broker's word.
func TestMergeProxiedRemotingClient(t *testing.T) {
	d := &Detail{Group: "g"}
	remoting := rocketmq.Connection{ClientID: "10.0.0.9@x", Language: "GO", Version: 317}
	d.mergeConnections(nil, []cluster.ProxyConsumers{{Proxy: "p:8080", Conns: proxyAnswer("CONSUME_PASSIVELY", remoting)}})
	if d.ConsumeType != "push" || d.Clients[0].Protocol != ProtocolRemoting || d.Clients[0].Version == "" {
		t.Errorf("consume type %q, client %+v", d.ConsumeType, d.Clients[0])
	}
}

// A group with remoting clients on the brokers and gRPC clients on a Proxy is
// explained, and the broker's clients keep their place.
func TestMixedGroupIsExplained(t *testing.T) {
	d := &Detail{Group: "g"}
	broker := brokerAnswer{broker: cluster.Broker{Name: "broker-a", Master: "10.0.0.2:10911"}, conns: &rocketmq.ConsumerConnection{
		ConsumeType: "CONSUME_PASSIVELY", MessageModel: "CLUSTERING",
		Connections: []rocketmq.Connection{{ClientID: "10.0.0.9@remote", Language: "JAVA", Version: 479}}}}
	d.mergeConnections([]brokerAnswer{broker}, []cluster.ProxyConsumers{{Proxy: "p:8080", Conns: proxyAnswer("CONSUME_ACTIVELY", grpcConn)}})
	if len(d.Clients) != 2 || d.ConsumeType != "push" || !strings.Contains(d.MixedNote.String(), "two kinds") {
		t.Errorf("clients %d, consume type %q, mixed note %q", len(d.Clients), d.ConsumeType, d.MixedNote.String())
	}
	for _, c := range d.Clients {
		if (c.KnownTo == KnownToBroker) != (c.Protocol == ProtocolRemoting) {
			t.Errorf("client %s: known to %q, protocol %q", c.ClientID, c.KnownTo, c.Protocol)
		}
	}
	// The assignment is the remoting clients': the gRPC one is neither expected to own
	// a queue nor idle.
	if a := d.assign(map[string]bool{}); slices.Contains(a.IdleClients, grpcConn.ClientID) {
		t.Errorf("the gRPC client is counted in the assignment: %+v", a)
	}
}
