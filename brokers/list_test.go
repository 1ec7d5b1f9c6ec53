package brokers

import (
	"testing"

	"rmqconsole/cluster"
	"rmqconsole/cluster/clustertest"
)

// The broker list's pages cut from one copy within ListTTL: a second page asks no
// process again, and the page's Refresh reads every one afresh.
func TestListIsReusedWithinItsTTLUnlessRefreshed(t *testing.T) {
	f := clustertest.New()
	f.AddBroker("broker-a", "10.0.0.1:10911")
	f.AddBroker("broker-b", "10.0.0.2:10911")
	s := New(f, cluster.New(f, cluster.Options{}))
	first, err := s.List(t.Context(), false)
	if err != nil || len(first.Brokers) != 2 {
		t.Fatalf("list: %v, %v", first, err)
	}
	asked := f.BrokerCalls()
	again, err := s.List(t.Context(), false)
	if err != nil || again != first || f.BrokerCalls() != asked {
		t.Fatalf("a list within its TTL asked the brokers %d times; want none", f.BrokerCalls()-asked)
	}
	fresh, err := s.List(t.Context(), true)
	if err != nil || fresh == first || f.BrokerCalls() < asked+2 {
		t.Fatalf("a refreshed list asked the brokers %d times; want each again", f.BrokerCalls()-asked)
	}
}
