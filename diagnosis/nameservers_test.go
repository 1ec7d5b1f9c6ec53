package diagnosis

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"rmqconsole/groups"
	"rmqconsole/i18n"
	"rmqconsole/rocketmq"
)

// nameServers answers each NameServer's cluster info from views: broker name → its
// processes by id; a NameServer absent from views does not answer.
type nameServers struct {
	addrs []string
	views map[string]map[string]map[int64]string
	asked atomic.Int64 // the NameServers are asked at once
}

func (n *nameServers) NameServers() []string { return n.addrs }

func (n *nameServers) ClusterInfoAt(_ context.Context, addr string) (*rocketmq.ClusterInfo, error) {
	n.asked.Add(1)
	v, ok := n.views[addr]
	if !ok {
		return nil, errors.New("connection refused")
	}
	ci := &rocketmq.ClusterInfo{Brokers: map[string]rocketmq.BrokerData{}}
	for name, addrs := range v {
		ci.Brokers[name] = rocketmq.BrokerData{BrokerName: name, Addrs: addrs}
	}
	return ci, nil
}

// A NameServer that lacks a broker the others route, or routes it to another address, is
// named with what differs; a NameServer that does not answer, or one NameServer alone,
// is none. Each NameServer is asked once per read.
func TestNameServersThatRouteDifferentBrokersAreFound(t *testing.T) {
	a := map[int64]string{0: "10.0.0.1:10911", 1: "10.0.0.2:10911"}
	b := map[int64]string{0: "10.0.0.3:10911"}
	ns := &nameServers{addrs: []string{"ns1:9876", "ns2:9876", "ns3:9876", "ns4:9876"}, views: map[string]map[string]map[int64]string{
		"ns1:9876": {"broker-a": a, "broker-b": b},
		"ns2:9876": {"broker-a": a, "broker-b": b},
		"ns3:9876": {"broker-a": a, "broker-b": {0: "10.0.0.9:10911"}}, // broker-b elsewhere
		// ns4 does not answer
	}}
	e := New(Options{NameServers: ns})
	at := time.Date(2026, 12, 6, 10, 0, 0, 0, time.UTC)
	e.Observe(t.Context(), &groups.List{CheckedAt: at})
	if n := ns.asked.Load(); n != 4 {
		t.Errorf("asked %d times, want each of the 4 NameServers once", n)
	}
	fs, _ := e.Findings()
	if len(fs) != 1 || fs[0].Kind != KindNameServers || fs[0].NameServer != "ns3:9876" || fs[0].Severity != Warning || fs[0].Action != "/" {
		t.Fatalf("findings %+v, want nameServersDisagree of ns3", fs)
	}
	if got, want := i18n.Match("en").Say(fs[0].Evidence), "NameServer ns3:9876 does not route what the others (ns1:9876, ns2:9876, ns4:9876) route: it has broker broker-b at 0=10.0.0.9:10911, the others at 0=10.0.0.3:10911. Clients that ask it send to and consume from other brokers than the rest. Make every broker's namesrvAddr list every NameServer, or take this one out of the clients' lists."; got != want {
		t.Errorf("evidence %q, want %q", got, want)
	}
	if got := i18n.Match("zh-CN").Say(fs[0].Evidence); got == "" || got == i18n.Match("en").Say(fs[0].Evidence) {
		t.Errorf("Chinese evidence %q", got)
	}
	// A NameServer no broker registers with lacks every broker.
	ns.views["ns4:9876"] = map[string]map[int64]string{}
	ns.views["ns3:9876"]["broker-b"] = b
	e.Observe(t.Context(), &groups.List{CheckedAt: at.Add(30 * time.Second)})
	fs, _ = e.Findings()
	if len(fs) != 1 || fs[0].NameServer != "ns4:9876" {
		t.Fatalf("findings %+v, want ns4 alone", fs)
	}
	if got, want := i18n.Match("en").Say(fs[0].Evidence), "NameServer ns4:9876 does not route what the others (ns1:9876, ns2:9876, ns3:9876) route: it knows no broker broker-a (the others: 0=10.0.0.1:10911, 1=10.0.0.2:10911); it knows no broker broker-b (the others: 0=10.0.0.3:10911). Clients that ask it send to and consume from other brokers than the rest. Make every broker's namesrvAddr list every NameServer, or take this one out of the clients' lists."; got != want {
		t.Errorf("evidence %q, want %q", got, want)
	}
	// Only one NameServer configured: nothing to compare.
	e = New(Options{NameServers: &nameServers{addrs: []string{"ns4:9876"}, views: ns.views}})
	e.Observe(t.Context(), &groups.List{CheckedAt: at})
	if k := kinds(e); len(k) != 0 {
		t.Errorf("one NameServer: %v, want nothing", k)
	}
}
