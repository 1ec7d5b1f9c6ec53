package groups

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"rmqconsole/cluster"
	"rmqconsole/cluster/clustertest"
	"rmqconsole/fault"
	"rmqconsole/i18n"
	"rmqconsole/rocketmq"
)

// manyGroups makes n offline groups with offsets on broker-a (group i i messages behind),
// plus a system group.
func manyGroups(n int) scenario {
	f := newScenario()
	for i := range n {
		f.setOffsets(fmt.Sprintf("g%04d", i), "broker-a", "T", map[int][2]int64{0: {int64(n), int64(n - i)}})
	}
	f.group("TOOLS_CONSUMER")
	return f
}

func TestListBoundsConcurrentBrokerCalls(t *testing.T) {
	f := manyGroups(60)
	f.SlowAll(2 * time.Millisecond)
	s := NewService(f, Options{Concurrency: 4})
	l, err := s.List(context.Background(), false)
	if err != nil {
		t.Fatal(err)
	}
	if len(l.Groups) != 61 {
		t.Fatalf("%d groups, want 61", len(l.Groups))
	}
	// ClusterInfo and the subscription-group reads come before the bounded part.
	if m := f.PeakInFlight(); m > 4 || m < 2 {
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
	s := NewService(f, Options{ListTTL: 30 * time.Second, ListStale: 2 * time.Minute, Now: clock})
	l1, _ := s.List(context.Background(), false)
	calls := f.TotalCalls()
	mu.Lock()
	now = now.Add(10 * time.Second)
	mu.Unlock()
	l2, _ := s.List(context.Background(), false)
	if f.TotalCalls() != calls || l2 != l1 {
		t.Fatal("a list younger than the TTL was recomputed")
	}
	l3, _ := s.List(context.Background(), true)
	if f.TotalCalls() == calls || !l3.CheckedAt.After(l1.CheckedAt) {
		t.Fatal("refresh did not read the brokers again")
	}
	// Past the TTL, the list is served at once while a fresh one is read; the next
	// caller gets that one.
	mu.Lock()
	now = now.Add(31 * time.Second)
	mu.Unlock()
	l4, _ := s.List(context.Background(), false)
	if l4 != l3 {
		t.Fatal("a list older than the TTL (but not stale) was not served at once")
	}
	var l5 *List
	for range 500 {
		if l5, _ = s.List(context.Background(), false); l5 != l3 {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	if l5 == l3 || !l5.CheckedAt.After(l3.CheckedAt) {
		t.Fatal("no fresh list was read after the stale one was served")
	}
	// A list older than ListStale (2 minutes here) is not served: the caller waits.
	mu.Lock()
	now = now.Add(3 * time.Minute)
	mu.Unlock()
	if l6, _ := s.List(context.Background(), false); l6 == l5 || !l6.CheckedAt.After(l5.CheckedAt) {
		t.Fatal("a stale list was served")
	}
}

func TestConcurrentListRequestsShareOneReadOfTheCluster(t *testing.T) {
	f := manyGroups(20)
	f.SlowAll(5 * time.Millisecond)
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
	if c := f.TotalCalls(); c > 2*(2+20*2) {
		t.Errorf("%d calls for 10 concurrent refreshes of 20 groups: they should share passes", c)
	}
}

func TestListSaysWhyLagIsUnknownAndNamesFailingBrokers(t *testing.T) {
	f := newScenario()
	addr := "10.0.0.1:10911"
	f.group("fresh")
	f.group("broken")
	s := NewService(f, Options{})
	l, err := s.List(context.Background(), false)
	if err != nil {
		t.Fatal(err)
	}
	for _, g := range l.Groups {
		if g.TotalLag != nil || !strings.Contains(g.LagNote.String(), "No offsets") {
			t.Errorf("%s: lag %v note %q, want unknown: no offsets", g.Group, g.TotalLag, g.LagNote.String())
		}
	}
	f.FailOn("BrokerConsumeStats", addr, errors.New("connection refused"))
	l, _ = s.List(context.Background(), true)
	g := l.Groups[0]
	if g.TotalLag != nil || len(g.Failures) != 1 || !strings.Contains(g.LagNote.String(), "broker-a") || !strings.Contains(g.LagNote.String(), "connection refused") {
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

// A frozen broker costs the list about one timeout: the groups' calls go out at once, and
// once the broker did not answer, the rest of its calls in the pass are not made (each
// group still names it). Asked group after group, it cost two timeouts per group.
func TestListWaitsForASilentBrokerOnce(t *testing.T) {
	f := manyGroups(20)
	f.AddBroker("broker-b", "10.0.0.2:10911")
	f.CallTimeout = 50 * time.Millisecond
	f.Silent("broker-b")
	const concurrency = 4
	l, err := NewService(f, Options{Concurrency: concurrency}).List(context.Background(), true)
	if err != nil {
		t.Fatal(err)
	}
	// broker-b answered neither its subscription groups nor its consume stats (asked at
	// once), so no group is asked there; the list's failures name it.
	if len(l.Failures) == 0 || slices.ContainsFunc(l.Failures, func(f BrokerFailure) bool { return f.Broker != "broker-b" }) {
		t.Errorf("list failures %v, want broker-b", l.Failures)
	}
	if n := f.CallsTo("broker-b"); n > 2 {
		t.Errorf("broker-b asked %d times, want its two per-broker requests only", n)
	}
	if len(l.Groups) != 21 {
		t.Errorf("%d groups, want broker-a's 21", len(l.Groups))
	}
}

func TestListAsksABrokerThatStopsAnsweringOncePerPass(t *testing.T) {
	f := manyGroups(20)
	f.AddBroker("broker-b", "10.0.0.2:10911")
	f.CallTimeout = 50 * time.Millisecond
	const concurrency = 4
	s := NewService(f, Options{Concurrency: concurrency})
	// broker-b lists the groups, then freezes before their stats are read.
	f.Fail = func(op, broker string) error {
		if broker == "broker-b" && op == "SubscriptionGroups" {
			f.Silent("broker-b")
		}
		return nil
	}
	l, err := s.List(context.Background(), true)
	if err != nil {
		t.Fatal(err)
	}
	named := 0
	for _, g := range l.Groups {
		for _, fl := range g.Failures {
			if fl.Broker == "broker-b" {
				named++
				break
			}
		}
	}
	if named != len(l.Groups) {
		t.Errorf("%d of %d groups name broker-b", named, len(l.Groups))
	}
	// The first calls in flight time out together; the others are not made. One group
	// after another, each group would wait for two timeouts.
	if n := f.CallsTo("broker-b"); n > 1+2*concurrency {
		t.Errorf("broker-b asked %d times in one pass, want at most %d: the list waits for it again and again", n, 1+2*concurrency)
	}
}

// The list's broker calls do not grow with the groups: two per broker, plus at most
// ClientLookups connection lists, each pass starting with the groups it has not seen.
func TestListAsksTwicePerBrokerAndABoundedNumberOfClientLists(t *testing.T) {
	f := manyGroups(60)
	now := time.Unix(1_700_000_000, 0)
	var mu sync.Mutex
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	s := NewService(f, Options{ClientLookups: 10, Now: clock})
	seen := map[string]bool{}
	for pass := range 2 {
		before := f.Calls()
		l, err := s.List(context.Background(), true)
		if err != nil {
			t.Fatal(err)
		}
		after := f.Calls()
		for op, want := range map[string]int{"SubscriptionGroups": 1, "BrokerConsumeStats": 1, "ConsumerConnections": 10, "ConsumeStats": 0} {
			if got := after[op] - before[op]; got != want {
				t.Errorf("pass %d: %d %s calls, want %d", pass, got, op, want)
			}
		}
		listed := 0
		for _, g := range l.Groups {
			if g.ClientsUnknown {
				continue
			}
			listed++
			seen[g.Group] = true
		}
		if listed != 10*(pass+1) || len(seen) != listed {
			t.Errorf("pass %d: clients known for %d groups (%d distinct seen), want %d", pass, listed, len(seen), 10*(pass+1))
		}
		if g := l.Groups[6]; g.Group != "g0005" || g.TotalLag == nil || *g.TotalLag != 5 {
			t.Errorf("pass %d: group %+v: want g0005 with lag 5", pass, g)
		}
		mu.Lock()
		now = now.Add(time.Second)
		mu.Unlock()
	}
}

// A broker with more groups than BrokerStatsMaxGroups is read from its offset table and
// its topics' max offsets, not GET_BROKER_CONSUME_STATS; the lags are the same, and each
// group says what that leaves out.
func TestListReadsABrokerWithManyGroupsFromItsOffsetTable(t *testing.T) {
	f := manyGroups(60)
	f.AddTopic("T", 1, "broker-a")
	s := NewService(f, Options{BrokerStatsMaxGroups: 10})
	l, err := s.List(context.Background(), true)
	if err != nil {
		t.Fatal(err)
	}
	calls := f.Calls()
	for op, want := range map[string]int{"SubscriptionGroups": 1, "ConsumerOffsets": 1, "TopicStats": 1, "BrokerConsumeStats": 0, "ConsumeStats": 0} {
		if calls[op] != want {
			t.Errorf("%d %s calls, want %d", calls[op], op, want)
		}
	}
	if g := l.Groups[6]; g.Group != "g0005" || g.TotalLag == nil || *g.TotalLag != 5 || !strings.Contains(g.LagNote.String(), "offset table") {
		t.Errorf("group %+v: want g0005 with lag 5, saying it was read from the offset table", g)
	}
}

// Read from the offset table, every topic's max offsets are asked once, side by side,
// and each group's lag is its own topic's.
func TestListReadsEveryTopicOfAnOffsetTableOnce(t *testing.T) {
	f := thirtyTopics()
	f.SlowAll(time.Millisecond)
	s := NewService(f, Options{BrokerStatsMaxGroups: 10, Concurrency: 4})
	l, err := s.List(context.Background(), true)
	if err != nil {
		t.Fatal(err)
	}
	if n := f.Calls()["TopicStats"]; n != 30 {
		t.Errorf("%d TopicStats calls, want one per topic (30)", n)
	}
	for _, g := range l.Groups {
		var i int
		if _, err := fmt.Sscanf(g.Group, "g%02d", &i); err != nil {
			continue
		}
		if g.TotalLag == nil || *g.TotalLag != int64(i) {
			t.Errorf("group %s: lag %v, want %d", g.Group, g.TotalLag, i)
		}
	}
}

// Read from the offset table, a broker's topics are all read once, then at most
// MaxOffsetReads a pass: first those a committed offset has passed, then the oldest. The
// lag of a group counted from kept max offsets says when they were read.
func TestListReadsABoundedNumberOfMaxOffsetsAfterTheFirstPass(t *testing.T) {
	f := thirtyTopics()
	var mu sync.Mutex
	now := time.Now().Truncate(time.Second)
	first := now
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	s := NewService(f, Options{BrokerStatsMaxGroups: 10, MaxOffsetReads: 5, Now: clock})
	said := "as read at " + first.UTC().Format("2006-01-02 15:04:05 UTC")
	l, err := s.List(t.Context(), true)
	if err != nil {
		t.Fatal(err)
	}
	if n := f.Calls()["TopicStats"]; n != 30 {
		t.Fatalf("first pass: %d TopicStats calls, want every topic read (30)", n)
	}
	if g := find(l, "g20"); g == nil || g.MaxOffsetsAt != nil {
		t.Fatalf("first pass, g20: %+v; want every max offset read in the pass", g)
	}

	// g25 consumes past what was kept of T25: its max offsets are read first.
	f.setOffsets("g25", "broker-a", "T25", map[int][2]int64{0: {110, 105}})
	mu.Lock()
	now = now.Add(30 * time.Second)
	mu.Unlock()
	l, err = s.List(t.Context(), true)
	if err != nil {
		t.Fatal(err)
	}
	if n := f.Calls()["TopicStats"]; n != 35 {
		t.Errorf("second pass: %d TopicStats calls, want 5 more (35)", n-30)
	}
	if g := find(l, "g25"); g == nil || g.TotalLag == nil || *g.TotalLag != 5 || g.MaxOffsetsAt != nil {
		t.Errorf("g25: %+v; want lag 5 from T25's max offsets read again", g)
	}
	fresh := 0
	for _, g := range l.Groups {
		if !strings.HasPrefix(g.Group, "g") {
			continue
		}
		if g.MaxOffsetsAt == nil {
			fresh++
			continue
		}
		if !g.MaxOffsetsAt.Equal(first) || !strings.Contains(g.LagNote.String(), said) {
			t.Errorf("%s: max offsets at %v, note %q; want those of the first pass, said", g.Group, g.MaxOffsetsAt, g.LagNote.String())
		}
	}
	if fresh != 5 {
		t.Errorf("%d groups counted from max offsets read in the second pass, want 5", fresh)
	}

	// T25 grew between its two reads: a topic in use is read before older ones that did
	// not, though it was read a pass ago.
	mu.Lock()
	now = now.Add(30 * time.Second)
	mu.Unlock()
	if l, err = s.List(t.Context(), true); err != nil {
		t.Fatal(err)
	}
	if g := find(l, "g25"); g == nil || g.MaxOffsetsAt != nil {
		t.Errorf("third pass, g25: %+v; want T25, in use, read again", g)
	}
	if g := find(l, "g29"); g == nil || g.MaxOffsetsAt == nil || !g.MaxOffsetsAt.Equal(first) {
		t.Errorf("third pass, g29: %+v; want T29, quiet, left to a later pass", g)
	}
}

// thirtyTopics is broker-a with topics T00..T29 of one queue each, at max offset 100, and
// groups g00..g29, group gNN consuming TNN with a lag of NN.
func thirtyTopics() scenario {
	f := newScenario()
	for i := range 30 {
		topic := fmt.Sprintf("T%02d", i)
		f.AddTopic(topic, 1, "broker-a")
		f.setOffsets(fmt.Sprintf("g%02d", i), "broker-a", topic, map[int][2]int64{0: {100, int64(100 - i)}})
	}
	return f
}

// With no more groups than ClientLookups, a refresh lists every group's clients again,
// so a client that just joined shows at once.
func TestListRefreshSeesAClientThatJustJoined(t *testing.T) {
	f := manyGroups(3)
	s := NewService(f, Options{})
	if _, err := s.List(context.Background(), true); err != nil {
		t.Fatal(err)
	}
	f.SetClients("g0001", clustertest.Client{ID: "10.0.0.8@1"})
	l, err := s.List(context.Background(), true)
	if err != nil {
		t.Fatal(err)
	}
	if g := find(l, "g0001"); g == nil || !g.Online || g.Clients != 1 {
		t.Errorf("g0001 after its client joined: %+v", g)
	}
}

// Read from the offset table, a topic whose max offsets the broker cannot say leaves the
// broker's lags unknown and names its failure.
func TestListNamesATopicStatsFailureOfAnOffsetTable(t *testing.T) {
	f := newScenario()
	for i, topic := range []string{"T0", "T1"} {
		f.AddTopic(topic, 1, "broker-a")
		f.setOffsets(fmt.Sprintf("g%d", i), "broker-a", topic, map[int][2]int64{0: {10, 5}})
	}
	boom := errors.New("boom")
	f.Fail = func(op, broker string) error {
		if op == "TopicStats" {
			return boom
		}
		return nil
	}
	l, err := NewService(f, Options{BrokerStatsMaxGroups: 1}).List(context.Background(), true)
	if err != nil {
		t.Fatal(err)
	}
	for _, g := range l.Groups {
		if g.TotalLag != nil || len(g.Failures) != 1 || g.Failures[0].Op != "consume stats" || !errors.Is(g.Failures[0].Err, boom) {
			t.Errorf("group %s: lag %v, failures %v; want the lag unknown and broker-a's failure named", g.Group, g.TotalLag, g.Failures)
		}
	}
}

// A broker that stops answering, or leaves the cluster, takes nothing off the list: the
// queues it held for a group when it last answered show with their lag unknown, and the
// group's total is the known part only, saying so.
func TestListKeepsWhatABrokerHeldWhenItStopsAnsweringOrLeaves(t *testing.T) {
	f := newScenario()
	f.AddBroker("broker-b", "10.0.0.2:10911")
	f.CallTimeout = 50 * time.Millisecond
	f.setOffsets("orders", "broker-a", "T", map[int][2]int64{0: {5, 3}})
	f.setOffsets("orders", "broker-b", "T", map[int][2]int64{0: {4, 0}, 1: {4, 0}})
	s := NewService(f, Options{})
	l, err := s.List(context.Background(), true)
	if err != nil {
		t.Fatal(err)
	}
	if g := l.Groups[0]; g.TotalLag == nil || *g.TotalLag != 10 {
		t.Fatalf("before: %+v", g)
	}
	check := func(when string, gone bool) {
		t.Helper()
		l, err := s.List(context.Background(), true)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.ContainsFunc(l.Failures, func(fl BrokerFailure) bool { return fl.Broker == "broker-b" && fl.Gone() == gone }) {
			t.Errorf("%s: list failures %v, want broker-b (gone: %v)", when, l.Failures, gone)
		}
		g := l.Groups[0]
		unknown := 0
		for _, q := range g.Queues {
			if q.Lag == nil && q.BrokerName == "broker-b" && strings.Contains(q.LagUnknown.String(), "broker-b could not be read") {
				unknown++
			}
		}
		if g.TotalLag == nil || *g.TotalLag != 2 || unknown != 2 || !strings.Contains(g.LagNote.String(), "Leaves out") ||
			!slices.ContainsFunc(g.Failures, func(fl BrokerFailure) bool { return fl.Broker == "broker-b" }) {
			t.Errorf("%s: group %+v; want lag 2 known, broker-b's 2 queues unknown and named", when, g)
		}
	}
	f.Silent("broker-b")
	check("broker-b frozen", false)
	f.RemoveBroker("broker-b")
	check("broker-b gone", true)
}

// NameServers that do not answer are said one by one in the cluster layer's words and
// the reader's language, without the words wrapped around them on the way up; the API
// keeps the code it answered for such a failure.
func TestUnansweringNameServersAreSaidOneByOne(t *testing.T) {
	joined := errors.Join(&rocketmq.ConnError{Addr: "10.0.0.1:9876", Err: errors.New("connection refused")},
		&rocketmq.TimeoutError{Addr: "10.0.0.2:9876", Code: rocketmq.CodeGetBrokerClusterInfo, Elapsed: 3 * time.Second})
	err := clusterUnavailable(fmt.Errorf("list brokers: %w", fmt.Errorf("no NameServer answered (10.0.0.1:9876;10.0.0.2:9876): %w", joined)))
	fe := fault.As(err)
	if fe == nil || fe.Code != fault.Unavailable || fe.APICode() != "broker_timeout" {
		t.Fatalf("%v (%+v): want an unavailable cluster, code broker_timeout", err, fe)
	}
	zh := i18n.Match("zh-CN")
	if got, want := fe.Say(zh), "没有 NameServer 应答：连接 10.0.0.1:9876 失败：connection refused；向 10.0.0.2:9876 发送 GET_BROKER_CLUSTER_INFO 请求，3s 内未应答"; got != want {
		t.Errorf("Chinese %q, want %q", got, want)
	}
	if got, want := fe.Msg.String(), "no NameServer answered: connection to 10.0.0.1:9876: connection refused and GET_BROKER_CLUSTER_INFO to 10.0.0.2:9876: no answer within 3s"; got != want {
		t.Errorf("English %q, want %q", got, want)
	}
	if !errors.As(err, new(*rocketmq.ConnError)) {
		t.Error("the NameServers' errors are no longer in the chain, for logs")
	}
	for _, kept := range []error{cluster.ErrNoBrokers, context.Canceled} {
		if got := clusterUnavailable(fmt.Errorf("list brokers: %w", kept)); fault.As(got) != nil {
			t.Errorf("%v became %v", kept, got)
		}
	}
}
