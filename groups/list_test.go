package groups

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"
)

// manyGroups makes n offline groups with offsets on broker-a, plus a system group.
func manyGroups(n int) *fakeAdmin {
	f := newFakeAdmin()
	addr := f.brokers["broker-a"]
	for i := range n {
		g := fmt.Sprintf("g%04d", i)
		f.groups[addr] = append(f.groups[addr], g)
		f.setOffsets(g, "broker-a", "T", map[int][2]int64{0: {int64(i), 0}})
	}
	f.groups[addr] = append(f.groups[addr], "TOOLS_CONSUMER")
	return f
}

func TestListBoundsConcurrentBrokerCalls(t *testing.T) {
	f := manyGroups(60)
	f.delay = 2 * time.Millisecond
	s := NewService(f, Options{Concurrency: 4})
	l, err := s.List(context.Background(), false)
	if err != nil {
		t.Fatal(err)
	}
	if len(l.Groups) != 61 {
		t.Fatalf("%d groups, want 61", len(l.Groups))
	}
	// ClusterInfo and the subscription-group reads come before the bounded part.
	if m := f.maxInflight.Load(); m > 4 || m < 2 {
		t.Errorf("%d broker calls in flight at once, want at most 4 (and some parallelism)", m)
	}
	g := l.Groups[6] // after TOOLS_CONSUMER and g0000..g0004
	if g.Group != "g0005" || g.TotalLag == nil || *g.TotalLag != 5 || g.Online || len(g.Topics) != 1 {
		t.Errorf("group %+v: want g0005 offline with lag 5 on topic T", g)
	}
}

func TestListIsCachedWithItsAgeAndRefreshedOnRequest(t *testing.T) {
	f := manyGroups(3)
	now := time.Unix(1_700_000_000, 0)
	var mu sync.Mutex
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	s := NewService(f, Options{ListTTL: 30 * time.Second, Now: clock})
	l1, _ := s.List(context.Background(), false)
	calls := f.calls.Load()
	mu.Lock()
	now = now.Add(10 * time.Second)
	mu.Unlock()
	l2, _ := s.List(context.Background(), false)
	if f.calls.Load() != calls || l2 != l1 {
		t.Fatal("a list younger than the TTL was recomputed")
	}
	l3, _ := s.List(context.Background(), true)
	if f.calls.Load() == calls || !l3.CheckedAt.After(l1.CheckedAt) {
		t.Fatal("refresh did not read the brokers again")
	}
	mu.Lock()
	now = now.Add(31 * time.Second)
	mu.Unlock()
	calls = f.calls.Load()
	s.List(context.Background(), false)
	if f.calls.Load() == calls {
		t.Fatal("a list older than the TTL was served")
	}
}

func TestConcurrentListRequestsShareOneReadOfTheCluster(t *testing.T) {
	f := manyGroups(20)
	f.delay = 5 * time.Millisecond
	s := NewService(f, Options{})
	var wg sync.WaitGroup
	for range 10 {
		wg.Go(func() {
			if _, err := s.List(context.Background(), true); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	// One pass: ClusterInfo + SubscriptionGroups + 20 × (connections + stats).
	if c := f.calls.Load(); c > 2*(2+20*2) {
		t.Errorf("%d calls for 10 concurrent refreshes of 20 groups: they should share passes", c)
	}
}

func TestListSaysWhyLagIsUnknownAndNamesFailingBrokers(t *testing.T) {
	f := newFakeAdmin()
	addr := f.brokers["broker-a"]
	f.groups[addr] = []string{"fresh", "broken"}
	s := NewService(f, Options{})
	l, err := s.List(context.Background(), false)
	if err != nil {
		t.Fatal(err)
	}
	for _, g := range l.Groups {
		if g.TotalLag != nil || !strings.Contains(g.LagNote, "No offsets") {
			t.Errorf("%s: lag %v note %q, want unknown: no offsets", g.Group, g.TotalLag, g.LagNote)
		}
	}
	f.mu.Lock()
	f.failStat[addr] = errors.New("connection refused")
	f.mu.Unlock()
	l, _ = s.List(context.Background(), true)
	g := l.Groups[0]
	if g.TotalLag != nil || len(g.Failures) != 1 || !strings.Contains(g.LagNote, "broker-a") || !strings.Contains(g.LagNote, "connection refused") {
		t.Errorf("group %+v: want lag unknown naming broker-a and its error", g)
	}
}

func TestSelectFiltersHidesSystemGroupsAndSorts(t *testing.T) {
	lag := func(v int64) *int64 { return &v }
	l := &List{Groups: []Summary{
		{Group: "orders", Topics: []string{"order-events"}, TotalLag: lag(5), Clients: 2},
		{Group: "billing", Topics: []string{"payments"}, TotalLag: nil, Clients: 1},
		{Group: "audit", Topics: []string{"audit"}, TotalLag: lag(500), Clients: 0},
		{Group: "TOOLS_CONSUMER", System: true},
	}}
	names := func(s []Summary) string {
		var out []string
		for _, g := range s {
			out = append(out, g.Group)
		}
		return strings.Join(out, ",")
	}
	for _, c := range []struct {
		q    ListQuery
		want string
	}{
		{ListQuery{}, "audit,billing,orders"},
		{ListQuery{System: true}, "TOOLS_CONSUMER,audit,billing,orders"},
		{ListQuery{Filter: "PAY"}, "billing"},
		{ListQuery{Filter: "order"}, "orders"},
		{ListQuery{Sort: "lag", Desc: true}, "audit,orders,billing"},
		{ListQuery{Sort: "lag"}, "orders,audit,billing"},
		{ListQuery{Sort: "clients", Desc: true}, "orders,billing,audit"},
		{ListQuery{Desc: true}, "orders,billing,audit"},
	} {
		if got := names(Select(l, c.q)); got != c.want {
			t.Errorf("%+v: %s, want %s", c.q, got, c.want)
		}
	}
}
