package lookup

import (
	"context"
	"strings"
	"testing"
	"time"

	"rmqconsole/cluster/clustertest"
)

// A broker killed a moment ago is dropped from the route by the NameServer: the range
// result must say its queues are missing rather than answer a silently smaller total.
func TestRangeNamesABrokerGoneFromTheRoute(t *testing.T) {
	f, all := fakeCluster(t, 200, even(200))
	svc := New(f, Options{})
	ctx := context.Background()
	q := RangeQuery{Topic: "T", Begin: t0, End: t0.Add(time.Hour)}
	full, err := svc.ByRange(ctx, q)
	if err != nil || full.Total != int64(len(all)) || len(full.Failures) != 0 {
		t.Fatalf("both brokers up: total %d of %d, failures %v, err %v", full.Total, len(all), full.Failures, err)
	}
	f.RemoveBroker("broker-b")
	part, err := svc.ByRange(ctx, q)
	if err != nil {
		t.Fatal(err)
	}
	onA := 0
	for _, m := range all {
		if m.StoreHost.String() == "10.0.0.1:10911" {
			onA++
		}
	}
	if part.Total != int64(onA) {
		t.Errorf("total %d, want broker-a's %d", part.Total, onA)
	}
	if len(part.Failures) != 1 || part.Failures[0].Broker != "broker-b" || !part.Failures[0].Gone() ||
		!strings.Contains(part.Failures[0].Err.Error(), "no longer in its route") {
		t.Errorf("failures %v, want broker-b named as gone from the route", part.Failures)
	}
	// The key index answers the same way.
	kr, err := svc.ByKey(ctx, KeyQuery{Topic: "T", Key: "shared"})
	if err != nil || len(kr.Failures) != 1 || kr.Failures[0].Broker != "broker-b" {
		t.Errorf("key query without broker-b: failures %v, err %v", kr.Failures, err)
	}
}

// A frozen broker is waited for once per page: the message detail (the unique-key lookup,
// then each group's state) does not ask it again after it timed out.
func TestMessageDetailWaitsForASilentBrokerOnce(t *testing.T) {
	f := clustertest.New()
	f.AddBroker("broker-a", "10.0.0.1:10911")
	f.AddBroker("broker-b", "10.0.0.2:10911")
	f.AddTopic("T", 2, "broker-a", "broker-b")
	m := f.Put("T", "broker-a", 0, clustertest.NewMessage("one", "", nil, "U1", t0))
	f.AddGroup(&clustertest.Group{Name: "g", Topics: []string{"T"}})
	f.CallTimeout = 50 * time.Millisecond
	f.Silent("broker-b")
	svc := New(f, Options{})
	ctx := context.Background()

	r, err := svc.ByID(ctx, IDQuery{ID: m.UniqueKey(), Topic: "T"})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Failures) != 1 || r.Failures[0].Broker != "broker-b" || r.Failures[0].Elapsed < 50*time.Millisecond {
		t.Fatalf("failures %+v, want broker-b after its timeout", r.Failures)
	}
	gs, err := svc.Groups(ctx, r.Message, r.Failures...)
	if err != nil {
		t.Fatal(err)
	}
	states, fails := gs.States, gs.Failures
	if len(states) != 1 || states[0].Group != "g" {
		t.Fatalf("groups: %+v %v", states, err)
	}
	if len(fails) != 0 {
		t.Errorf("broker-b named again: %v", fails)
	}
	if n := f.AskedAgain("broker-b"); n != 0 {
		t.Errorf("broker-b was asked %d more time(s) after it timed out: the page waits that many timeouts more", n)
	}
}
