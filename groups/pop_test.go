package groups

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"rmqconsole/cluster"
	"rmqconsole/cluster/clustertest"
	"rmqconsole/i18n"
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

// The parked receive requests of a POP group are asked through the cluster's bounded
// fan-out, however many topics the group consumes; a master that answers is enough, and
// when none does, each is named in the reader's language.
func TestPollingIsAskedThroughTheBoundedFanout(t *testing.T) {
	f := clustertest.New()
	f.AddBroker("broker-a", "10.0.0.1:10911")
	f.AddBroker("broker-b", "10.0.0.2:10911")
	f.SlowAll(20 * time.Millisecond)
	topics := make([]string, 40)
	for i := range topics {
		topics[i] = fmt.Sprintf("T%d", i)
	}
	s := NewService(f, Options{Cluster: cluster.New(f, cluster.Options{Parallelism: 4})})
	brokers, err := s.cluster.Brokers(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if n, failures := s.polling(t.Context(), "g", topics, brokers); n != 0 || failures != nil {
		t.Errorf("polling: %d, %v", n, failures)
	}
	if peak := f.PeakInFlight(); peak > 4 {
		t.Errorf("%d calls in flight at once, want at most the fan-out's 4", peak)
	}

	f.FailOn("PollingInfo", "10.0.0.1:10911", errors.New("boom"))
	if _, failures := s.polling(t.Context(), "g", topics[:1], brokers); failures != nil {
		t.Errorf("broker-b answered, yet %v", failures)
	}
	f.FailOn("PollingInfo", "10.0.0.2:10911", errors.New("boom"))
	_, failures := s.polling(t.Context(), "g", topics[:1], brokers)
	ms := make([]i18n.Message, len(failures))
	for i, fl := range failures {
		ms[i] = fl.Message()
	}
	got := i18n.Match("zh-CN").Say(i18n.M("group.pop.note.polling", "Error", oneByOne(ms)))
	if want := "无法读取挂起的接收请求：broker-a（10.0.0.1:10911，主题 T0）：挂起的接收请求：boom；broker-b（10.0.0.2:10911，主题 T0）：挂起的接收请求：boom"; got != want {
		t.Errorf("no master answered:\n got %s\nwant %s", got, want)
	}
}
