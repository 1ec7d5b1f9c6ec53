package diagnosis

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"rmqconsole/brokers"
	"rmqconsole/store"
)

// Each read that fails is named beside the findings with its cause: the dead-letter
// counts, the rebalance counts of a closed database, the brokers' list, one broker
// process's runtime, one NameServer. A group's page is told what its findings need (the
// counts), not the brokers or NameServers; a read that reads everything again says
// nothing more.
func TestWhatAReadCouldNotReadIsSaidWithItsCause(t *testing.T) {
	st, err := store.Open(context.Background(), filepath.Join(t.TempDir(), "console.db"))
	if err != nil {
		t.Fatal(err)
	}
	dlq := &dlqCounter{written: map[string]int64{}, fail: true}
	rt := &runtimes{rs: []brokers.Runtime{
		{Name: "broker-a", Addr: "10.0.0.1:10911", Role: "master"},
		{Name: "broker-b", Addr: "10.0.0.2:10911", Role: "master", Error: "GET_BROKER_RUNTIME_INFO: timeout"},
		{Name: "broker-c", Addr: "10.0.0.3:10911", Role: "slave", Gone: true},
	}}
	ns := &nameServers{addrs: []string{"ns1:9876", "ns2:9876"}, views: map[string]map[string]map[int64]string{
		"ns1:9876": {"broker-a": {0: "10.0.0.1:10911"}},
	}}
	e := New(Options{DeadLetters: dlq, Rebalances: st, Brokers: rt, NameServers: ns})
	at := time.Date(2026, 12, 6, 10, 0, 0, 0, time.UTC)
	e.Observe(t.Context(), consumerRead(at, 1, "g"))
	if err := st.Close(); err != nil { // every later query of the store fails
		t.Fatal(err)
	}
	e.Observe(t.Context(), consumerRead(at.Add(30*time.Second), 5, "g")) // g consumed: its dead letters are counted
	got := map[string]Unread{}
	for _, u := range e.Unread() {
		got[u.What+" "+u.Subject] = u
	}
	want := map[string]string{
		"deadLetters ":     "timeout",
		"rebalanceCounts ": "closed",
		"brokerRuntime broker-b (10.0.0.2:10911)": "timeout",
		"nameServer ns2:9876":                     "connection refused",
	}
	if len(got) != len(want) {
		t.Errorf("unread %+v, want %v", got, want)
	}
	for k, cause := range want {
		if u, ok := got[k]; !ok || !strings.Contains(u.Cause, cause) {
			t.Errorf("unread %q: %+v, want a cause saying %q", k, u, cause)
		}
	}
	forG := e.UnreadFor("g")
	if len(forG) != 2 || forG[0].What != UnreadRebalances && forG[1].What != UnreadRebalances {
		t.Errorf("unread for g %+v, want the dead-letter and rebalance counts alone", forG)
	}
	if s := got["rebalanceCounts "].Message().String(); !strings.Contains(s, "Could not read the rebalance counts from the store") {
		t.Errorf("said %q", s)
	}

	// The brokers' list itself fails.
	rt.err = errors.New("no broker answered")
	e.Observe(t.Context(), consumerRead(at.Add(60*time.Second), 5, "g"))
	found := false
	for _, u := range e.Unread() {
		found = found || u.What == UnreadBrokers && strings.Contains(u.Cause, "no broker answered")
	}
	if !found {
		t.Errorf("unread %+v, want the brokers' list", e.Unread())
	}

	// Everything answers again (a store that works, every NameServer): nothing is said.
	st2, err := store.Open(context.Background(), filepath.Join(t.TempDir(), "console.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st2.Close() })
	e.opts.Rebalances = st2
	dlq.fail, rt.err = false, nil
	rt.rs = rt.rs[:1]
	ns.views["ns2:9876"] = ns.views["ns1:9876"]
	e.Observe(t.Context(), consumerRead(at.Add(90*time.Second), 9, "g"))
	if u := e.Unread(); len(u) != 0 {
		t.Errorf("unread %+v after a read that read everything", u)
	}
}
