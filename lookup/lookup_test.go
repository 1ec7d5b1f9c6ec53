package lookup

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sort"
	"strings"
	"testing"
	"time"

	"rmqconsole/cluster/clustertest"
	"rmqconsole/fault"
	"rmqconsole/rocketmq"
)

var _ Admin = (*clustertest.Fake)(nil)

var t0 = time.Date(2026, 11, 29, 10, 0, 0, 0, time.UTC)

// fakeCluster is two brokers with a topic of four queues on each, holding n messages
// whose store times are spread over an hour with the given spacing function.
func fakeCluster(t *testing.T, n int, storeAt func(i int) time.Time) (*clustertest.Fake, []*rocketmq.Message) {
	t.Helper()
	f := clustertest.New()
	f.AddBroker("broker-a", "10.0.0.1:10911")
	f.AddBroker("broker-b", "10.0.0.2:10911")
	f.AddTopic("T", 4, "broker-a", "broker-b")
	rng := rand.New(rand.NewPCG(1, 2))
	var all []*rocketmq.Message
	for i := range n {
		b := []string{"broker-a", "broker-b"}[rng.IntN(2)]
		m := clustertest.NewMessage(fmt.Sprintf("m%d", i), []string{"red", "blue", "blue", "blue"}[i%4],
			[]string{fmt.Sprintf("k%d", i), "shared"}, fmt.Sprintf("U%05d", i), storeAt(i))
		all = append(all, f.Put("T", b, rng.IntN(4), m))
	}
	return f, all
}

func even(n int) func(int) time.Time {
	return func(i int) time.Time { return t0.Add(time.Duration(i) * time.Hour / time.Duration(n)) }
}

// newest returns the messages stored within [b, e] matching tag, newest first by store
// time only (ties in any order).
func newest(all []*rocketmq.Message, b, e time.Time, tag string) []*rocketmq.Message {
	var out []*rocketmq.Message
	for _, m := range all {
		if m.StoreTimestamp >= b.UnixMilli() && m.StoreTimestamp <= e.UnixMilli() && (tag == "" || m.Tags() == tag) {
			out = append(out, m)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].StoreTimestamp > out[j].StoreTimestamp })
	return out
}

// checkNewestN fails unless got is exactly a newest-first answer of limit messages from
// want (ties at the cut may be any of the tied messages).
func checkNewestN(t *testing.T, got []Message, want []*rocketmq.Message, limit int) {
	t.Helper()
	n := min(limit, len(want))
	if len(got) != n {
		t.Fatalf("got %d messages, want %d", len(got), n)
	}
	if n == 0 {
		return
	}
	cut := want[n-1].StoreTimestamp
	have := map[string]bool{}
	for i, m := range got {
		have[m.UniqueKey()] = true
		if m.StoreTimestamp < cut {
			t.Errorf("message %s stored at %d is older than the cut %d", m.UniqueKey(), m.StoreTimestamp, cut)
		}
		if i > 0 && m.StoreTimestamp > got[i-1].StoreTimestamp {
			t.Errorf("not newest first at %d", i)
		}
	}
	for _, m := range want {
		if m.StoreTimestamp > cut && !have[m.UniqueKey()] {
			t.Errorf("missing %s stored at %d, newer than the cut %d", m.UniqueKey(), m.StoreTimestamp, cut)
		}
	}
}

func TestRangeNewestAcrossQueues(t *testing.T) {
	for _, tc := range []struct {
		name    string
		n       int
		storeAt func(int) time.Time
	}{
		{"evenly spread", 5000, even(5000)},
		// Most messages in the last minute: interpolation overshoots, bisection must
		// still converge.
		{"burst at the end", 5000, func(i int) time.Time {
			if i < 200 {
				return t0.Add(time.Duration(i) * time.Minute / 4)
			}
			return t0.Add(59*time.Minute + time.Duration(i)*time.Millisecond*10)
		}},
		// Many messages share a millisecond.
		{"same millisecond", 3000, func(i int) time.Time { return t0.Add(time.Duration(i/50) * time.Millisecond) }},
		{"fewer than the limit", 700, even(700)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f, all := fakeCluster(t, tc.n, tc.storeAt)
			svc := New(f, Options{})
			b, e := t0, t0.Add(2*time.Hour)
			res, err := svc.ByRange(context.Background(), RangeQuery{Topic: "T", Begin: b, End: e})
			if err != nil {
				t.Fatal(err)
			}
			want := newest(all, b, e, "")
			checkNewestN(t, res.Messages, want, RangeLimit)
			if res.Total != int64(len(want)) || res.TotalIsLowerBound || res.Truncated != (len(want) > RangeLimit) {
				t.Errorf("total %d (lower bound %v), truncated %v; want %d exact", res.Total, res.TotalIsLowerBound, res.Truncated, len(want))
			}
			// Never read much more than returned: 8 queues cost at most one partial pull each.
			pulls := f.Calls()["Pull"]
			if limit := (len(res.Messages)+int(slack(RangeLimit)))/pullBatch + 8 + 1; pulls > limit {
				t.Errorf("%d pulls for %d messages; at most %d expected", pulls, len(res.Messages), limit)
			}
			t.Logf("%d pulls, %d offset searches", pulls, f.Calls()["SearchOffset"])
		})
	}
}

func TestRangeWindowAndTag(t *testing.T) {
	f, all := fakeCluster(t, 4000, even(4000))
	svc := New(f, Options{})
	b, e := t0.Add(10*time.Minute), t0.Add(40*time.Minute)
	ctx := context.Background()

	res, err := svc.ByRange(ctx, RangeQuery{Topic: "T", Begin: b, End: e, Limit: 500})
	if err != nil {
		t.Fatal(err)
	}
	want := newest(all, b, e, "")
	checkNewestN(t, res.Messages, want, 500)
	if res.Total != int64(len(want)) || !res.Truncated {
		t.Errorf("total %d truncated %v, want %d truncated", res.Total, res.Truncated, len(want))
	}

	// A rare tag (a quarter of the messages): the newest matches, and the count is a
	// lower bound because the search stopped early.
	red, err := svc.ByRange(ctx, RangeQuery{Topic: "T", Begin: b, End: e, Tag: "red", Limit: 100})
	if err != nil {
		t.Fatal(err)
	}
	wantRed := newest(all, b, e, "red")
	checkNewestN(t, red.Messages, wantRed, 100)
	if !red.Truncated || !red.TotalIsLowerBound || red.Total <= 100 || red.Total > int64(len(wantRed)) {
		t.Errorf("tag red: total %d (lower bound %v) truncated %v; want > 100 as a lower bound of %d", red.Total, red.TotalIsLowerBound, red.Truncated, len(wantRed))
	}
	for _, m := range red.Messages {
		if m.Tags() != "red" {
			t.Fatalf("tag red returned a %q message", m.Tags())
		}
	}
	// A tag that never matches reads the whole range and says none.
	none, err := svc.ByRange(ctx, RangeQuery{Topic: "T", Begin: b, End: e, Tag: "green"})
	if err != nil {
		t.Fatal(err)
	}
	if len(none.Messages) != 0 || none.Total != 0 || none.TotalIsLowerBound || none.Truncated || none.InRange != int64(len(want)) {
		t.Errorf("tag green: %d messages, total %d (lower bound %v), in range %d", len(none.Messages), none.Total, none.TotalIsLowerBound, none.InRange)
	}
}

// A broker that times out or fails: the others' messages come back, and the failure
// names the broker and the error.
func TestRangePartialWhenBrokerFails(t *testing.T) {
	for _, op := range []string{"SearchOffset", "Pull"} {
		t.Run(op, func(t *testing.T) {
			f, all := fakeCluster(t, 1000, even(1000))
			f.Fail = func(o, broker string) error {
				if o == op && broker == "broker-b" {
					return &rocketmq.TimeoutError{Addr: "10.0.0.2:10911", Code: rocketmq.CodePullMessage, Elapsed: 5 * time.Second}
				}
				return nil
			}
			svc := New(f, Options{})
			res, err := svc.ByRange(context.Background(), RangeQuery{Topic: "T", Begin: t0, End: t0.Add(time.Hour)})
			if err != nil {
				t.Fatal(err)
			}
			var fromA []*rocketmq.Message
			for _, m := range newest(all, t0, t0.Add(time.Hour), "") {
				if m.StoreHost.String() == "10.0.0.1:10911" {
					fromA = append(fromA, m)
				}
			}
			if len(res.Messages) != len(fromA) {
				t.Errorf("%d messages, want broker-a's %d", len(res.Messages), len(fromA))
			}
			for _, m := range res.Messages {
				if m.BrokerName != "broker-a" {
					t.Fatalf("message from %s in the answer", m.BrokerName)
				}
			}
			if len(res.Failures) != 1 || res.Failures[0].Broker != "broker-b" || !errors.Is(res.Failures[0].Err, context.DeadlineExceeded) {
				t.Fatalf("failures %v, want broker-b timing out", res.Failures)
			}
			if !strings.Contains(res.Failures[0].Error(), "broker-b") || !strings.Contains(res.Failures[0].Error(), "no answer within 5s") {
				t.Errorf("failure reads %q", res.Failures[0].Error())
			}
		})
	}
}

func TestKeyMergesCapsAndReportsCap(t *testing.T) {
	f := clustertest.New()
	f.AddBroker("broker-a", "10.0.0.1:10911")
	f.AddBroker("broker-b", "10.0.0.2:10911")
	f.AddTopic("T", 2, "broker-a", "broker-b")
	for i := range 40 {
		f.Put("T", "broker-a", i%2, clustertest.NewMessage(fmt.Sprint("a", i), "", []string{"K", "J"}, fmt.Sprint("UA", i), t0.Add(time.Duration(2*i)*time.Second)))
		f.Put("T", "broker-b", i%2, clustertest.NewMessage(fmt.Sprint("b", i), "", []string{"K"}, fmt.Sprint("UB", i), t0.Add(time.Duration(2*i+1)*time.Second)))
	}
	for i := range 70 {
		f.Put("T", "broker-b", 0, clustertest.NewMessage(fmt.Sprint("c", i), "", []string{"MANY"}, fmt.Sprint("UC", i), t0.Add(time.Duration(i)*time.Second)))
	}
	svc := New(f, Options{})
	ctx := context.Background()

	res, err := svc.ByKey(ctx, KeyQuery{Topic: "T", Key: "K"})
	if err != nil {
		t.Fatal(err)
	}
	// 80 matches, 40 per broker: no broker capped, the merge keeps the newest 64.
	if len(res.Messages) != 64 || !res.Truncated || res.Total != 80 || res.TotalIsLowerBound || len(res.CappedBrokers) != 0 {
		t.Errorf("K: %d messages, truncated %v, total %d (lower bound %v), capped %v", len(res.Messages), res.Truncated, res.Total, res.TotalIsLowerBound, res.CappedBrokers)
	}
	if oldest := res.Messages[63].StoreTime(); !oldest.Equal(t0.Add(16 * time.Second)) {
		t.Errorf("the 64th newest was stored at %s, want %s", oldest, t0.Add(16*time.Second))
	}
	many, err := svc.ByKey(ctx, KeyQuery{Topic: "T", Key: "MANY"})
	if err != nil {
		t.Fatal(err)
	}
	if len(many.Messages) != 64 || !many.Truncated || !many.TotalIsLowerBound || len(many.CappedBrokers) != 1 || many.CappedBrokers[0] != "broker-b" {
		t.Errorf("MANY: %d, truncated %v, lower bound %v, capped %v; want broker-b capped", len(many.Messages), many.Truncated, many.TotalIsLowerBound, many.CappedBrokers)
	}
	// A time range applies exactly, to the millisecond.
	win, err := svc.ByKey(ctx, KeyQuery{Topic: "T", Key: "J", Begin: t0.Add(10 * time.Second), End: t0.Add(20*time.Second - time.Millisecond)})
	if err != nil {
		t.Fatal(err)
	}
	if len(win.Messages) != 5 {
		t.Errorf("J in [10 s, 20 s): %d messages, want 5 (a10..a18)", len(win.Messages))
	}
	// The index compares whole seconds counted from its file's first message: with that
	// at 0.5 s, a message stored at 30.3 s is indexed at 29.5 s, and a range beginning
	// at 30 s must still find it.
	late := clustertest.New()
	late.AddBroker("broker-a", "10.0.0.1:10911")
	late.AddTopic("T", 1, "broker-a")
	late.Put("T", "broker-a", 0, clustertest.NewMessage("first", "", []string{"other"}, "U0", t0.Add(500*time.Millisecond)))
	late.Put("T", "broker-a", 0, clustertest.NewMessage("early", "", []string{"L"}, "U1", t0.Add(29800*time.Millisecond)))
	late.Put("T", "broker-a", 0, clustertest.NewMessage("in range", "", []string{"L"}, "U2", t0.Add(30300*time.Millisecond)))
	in, err := New(late, Options{}).ByKey(ctx, KeyQuery{Topic: "T", Key: "L", Begin: t0.Add(30 * time.Second), End: t0.Add(31 * time.Second)})
	if err != nil {
		t.Fatal(err)
	}
	if len(in.Messages) != 1 || string(in.Messages[0].Body) != "in range" {
		t.Errorf("L in [30 s, 31 s]: %d messages %v, want only the one stored at 30.3 s", len(in.Messages), in.Messages)
	}
	// One broker failing: the other's matches, and the failure.
	f.Fail = func(op, broker string) error {
		if broker == "broker-a" {
			return errors.New("connection reset")
		}
		return nil
	}
	part, err := svc.ByKey(ctx, KeyQuery{Topic: "T", Key: "K"})
	if err != nil {
		t.Fatal(err)
	}
	if len(part.Messages) != 40 || len(part.Failures) != 1 || part.Failures[0].Broker != "broker-a" {
		t.Errorf("with broker-a failing: %d messages, failures %v", len(part.Messages), part.Failures)
	}
}

func TestIDBothKinds(t *testing.T) {
	f := clustertest.New()
	f.AddBroker("broker-a", "10.0.0.1:10911")
	f.AddBroker("broker-b", "10.0.0.2:10911")
	f.AddTopic("T", 2, "broker-a", "broker-b")
	one := f.Put("T", "broker-b", 1, clustertest.NewMessage("one", "", nil, "7F0000010001000000000000000A0001", t0))
	f.Put("T", "broker-a", 0, clustertest.NewMessage("filler", "", nil, "X1", t0))
	first := f.Put("T", "broker-a", 0, clustertest.NewMessage("first", "", nil, "DUP", t0.Add(time.Second)))
	resent := f.Put("T", "broker-b", 0, clustertest.NewMessage("resent", "", nil, "DUP", t0.Add(2*time.Second)))
	svc := New(f, Options{})
	ctx := context.Background()

	r, err := svc.ByID(ctx, IDQuery{ID: one.OffsetMsgID()})
	if err != nil {
		t.Fatal(err)
	}
	if r.Kind != rocketmq.IDOffsetMsgID || string(r.Message.Body) != "one" || r.Message.BrokerName != "broker-b" {
		t.Errorf("offsetMsgId: kind %v body %q broker %q", r.Kind, r.Message.Body, r.Message.BrokerName)
	}
	if c := f.Calls(); c["QueryMessageByUniqueKey"] != 0 || c["ViewMessageAt"] != 1 {
		t.Errorf("an offsetMsgId lookup made calls %v; want one VIEW_MESSAGE_BY_ID", c)
	}
	r, err = svc.ByID(ctx, IDQuery{ID: "DUP", Topic: "T"})
	if err != nil {
		t.Fatal(err)
	}
	if r.Kind != rocketmq.IDUniqueKey || r.Message.OffsetMsgID() != first.OffsetMsgID() || len(r.Copies) != 1 || r.Copies[0].OffsetMsgID() != resent.OffsetMsgID() {
		t.Errorf("unique key stored twice: kind %v, shown %q, copies %d", r.Kind, r.Message.Body, len(r.Copies))
	}
	// One broker failing: the message is found on the other, and the failure is listed.
	f.Fail = func(op, broker string) error {
		if broker == "broker-a" {
			return errors.New("connection reset")
		}
		return nil
	}
	r, err = svc.ByID(ctx, IDQuery{ID: one.UniqueKey(), Topic: "T"})
	if err != nil {
		t.Fatal(err)
	}
	if string(r.Message.Body) != "one" || len(r.Failures) != 1 || r.Failures[0].Broker != "broker-a" {
		t.Errorf("with broker-a failing: %q, failures %v", r.Message.Body, r.Failures)
	}
	// Not found anywhere, but a broker failed: not "not found", an error naming it.
	_, err = svc.ByID(ctx, IDQuery{ID: "NOPE", Topic: "T"})
	if err == nil || fault.Is(err, fault.NotFound) || !strings.Contains(err.Error(), "broker-a") {
		t.Errorf("missing id with a failing broker: %v; want an error naming broker-a", err)
	}
	f.Fail = nil
	_, err = svc.ByID(ctx, IDQuery{ID: "NOPE", Topic: "T"})
	if !fault.Is(err, fault.NotFound) {
		t.Errorf("missing id: %v, want not found", err)
	}
	// An id shaped like an offsetMsgId of a host outside the cluster never connects.
	before := f.Calls()["ViewMessageAt"]
	foreign := rocketmq.OffsetMsgID{StoreHost: netipPort("192.168.1.1:10911"), CommitLogOffset: 5}.String()
	if _, err := svc.ByID(ctx, IDQuery{ID: foreign}); !fault.Is(err, fault.NotFound) {
		t.Errorf("foreign offsetMsgId: %v", err)
	}
	if f.Calls()["ViewMessageAt"] != before {
		t.Errorf("a foreign host was asked for the message")
	}
}

func TestGroupStates(t *testing.T) {
	f := clustertest.New()
	f.AddBroker("broker-a", "10.0.0.1:10911")
	f.AddTopic("T", 1, "broker-a")
	var msgs []*rocketmq.Message
	for i := range 10 {
		msgs = append(msgs, f.Put("T", "broker-a", 0, clustertest.NewMessage(fmt.Sprint(i), "red", nil, fmt.Sprint("U", i), t0.Add(time.Duration(i)*time.Second))))
	}
	m := msgs[5]
	mq := rocketmq.MessageQueue{Topic: "T", BrokerName: "broker-a", QueueID: 0}
	f.AddGroup(&clustertest.Group{Name: "g-done", Topics: []string{"T"}, Online: true, Offsets: map[rocketmq.MessageQueue]int64{mq: 8}})
	f.AddGroup(&clustertest.Group{Name: "g-behind", Topics: []string{"T"}, Online: true, Offsets: map[rocketmq.MessageQueue]int64{mq: 5}})
	f.AddGroup(&clustertest.Group{Name: "g-new", Topics: []string{"T"}, Online: true})
	f.AddGroup(&clustertest.Group{Name: "g-gone", Topics: []string{"T"}, Offsets: map[rocketmq.MessageQueue]int64{mq: 9}})
	f.AddGroup(&clustertest.Group{Name: "g-blue", Topics: []string{"T"}, Online: true, Subscription: "blue || green", Offsets: map[rocketmq.MessageQueue]int64{mq: 10}})
	f.AddGroup(&clustertest.Group{Name: "g-bcast", Topics: []string{"T"}, Online: true, MessageModel: "BROADCASTING"})
	svc := New(f, Options{})
	gs, err := svc.Groups(context.Background(), Message{BrokerName: "broker-a", Message: m})
	if err != nil {
		t.Fatal(err)
	}
	states, fails := gs.States, gs.Failures
	if err != nil || len(fails) > 0 {
		t.Fatal(err, fails)
	}
	want := map[string]ConsumeState{
		"g-done": Consumed, "g-behind": NotConsumed, "g-new": NotConsumed, "g-gone": Offline,
		"g-blue": Filtered, "g-bcast": Unknown,
	}
	if len(states) != len(want) {
		t.Fatalf("%d groups, want %d", len(states), len(want))
	}
	for _, s := range states {
		if s.State != want[s.Group] {
			t.Errorf("%s: %s (%s), want %s", s.Group, s.State, s.Reason, want[s.Group])
		}
		if s.State != Consumed && s.State != NotConsumed && len(s.Reason) == 0 {
			t.Errorf("%s: %s without a reason", s.Group, s.State)
		}
	}
}

// A message's page reads every group's offset with one request to the message's broker,
// and lists the clients of at most ClientLookups groups it has not seen recently; the
// others say so, and the next page lists the next ones.
func TestGroupStatesCostOneOffsetRequestAndBoundedClientLists(t *testing.T) {
	f := clustertest.New()
	f.AddBroker("broker-a", "10.0.0.1:10911")
	f.AddTopic("T", 1, "broker-a")
	var m *rocketmq.Message
	for i := range 10 {
		m = f.Put("T", "broker-a", 0, clustertest.NewMessage(fmt.Sprint(i), "red", nil, fmt.Sprint("U", i), t0.Add(time.Duration(i)*time.Second)))
	}
	mq := rocketmq.MessageQueue{Topic: "T", BrokerName: "broker-a", QueueID: 0}
	for i := range 40 {
		f.AddGroup(&clustertest.Group{Name: fmt.Sprintf("g%02d", i), Topics: []string{"T"}, Online: true, Offsets: map[rocketmq.MessageQueue]int64{mq: 10}})
	}
	svc := New(f, Options{ClientLookups: 5})
	for page := range 2 {
		before := f.Calls()
		gs, err := svc.Groups(context.Background(), Message{BrokerName: "broker-a", Message: m})
		if err != nil || len(gs.Failures) > 0 {
			t.Fatal(err, gs)
		}
		states := gs.States
		after := f.Calls()
		for op, want := range map[string]int{"ConsumerOffsets": 1, "ConsumerConnections": 5, "QueryConsumerOffset": 0} {
			if got := after[op] - before[op]; got != want {
				t.Errorf("page %d: %d %s calls, want %d", page, got, op, want)
			}
		}
		checked := 0
		for _, s := range states {
			if s.State != Consumed || s.ConsumerOffset != 10 {
				t.Errorf("page %d: %s %s offset %d, want consumed at 10", page, s.Group, s.State, s.ConsumerOffset)
			}
			if s.Online {
				checked++
			} else if !strings.Contains(s.Reason.String(), "not checked") {
				t.Errorf("page %d: %s neither online nor saying its clients were not checked: %q", page, s.Group, s.Reason)
			}
		}
		if checked != 5*(page+1) {
			t.Errorf("page %d: %d groups online, want %d", page, checked, 5*(page+1))
		}
	}
	// The message's broker cannot say the offsets: every group says why, no guess.
	f.FailOn("ConsumerOffsets", "10.0.0.1:10911", errors.New("broker busy"))
	gs, _ := svc.Groups(context.Background(), Message{BrokerName: "broker-a", Message: m})
	for _, s := range gs.States {
		if s.State != Unknown || !strings.Contains(s.Reason.String(), "broker busy") {
			t.Errorf("%s: %s (%s), want unknown naming the error", s.Group, s.State, s.Reason)
		}
	}
}

func TestBadInputAsksNoBroker(t *testing.T) {
	f, _ := fakeCluster(t, 10, even(10))
	svc := New(f, Options{})
	ctx := context.Background()
	for _, tc := range []struct {
		name string
		run  func() error
		code string
	}{
		{"range without topic", func() error { _, err := svc.ByRange(ctx, RangeQuery{Begin: t0, End: t0.Add(time.Hour)}); return err }, "missing_topic"},
		{"range begins after end", func() error {
			_, err := svc.ByRange(ctx, RangeQuery{Topic: "T", Begin: t0.Add(time.Hour), End: t0})
			return err
		}, "bad_range"},
		{"range without times", func() error { _, err := svc.ByRange(ctx, RangeQuery{Topic: "T"}); return err }, "missing_range"},
		{"range limit too high", func() error {
			_, err := svc.ByRange(ctx, RangeQuery{Topic: "T", Begin: t0, End: t0, Limit: 2001})
			return err
		}, "bad_limit"},
		{"topic with a space", func() error { _, err := svc.ByRange(ctx, RangeQuery{Topic: "a b", Begin: t0, End: t0}); return err }, "bad_topic"},
		{"unknown topic", func() error { _, err := svc.ByRange(ctx, RangeQuery{Topic: "Nope", Begin: t0, End: t0}); return err }, "unknown_topic"},
		{"key without key", func() error { _, err := svc.ByKey(ctx, KeyQuery{Topic: "T"}); return err }, "missing_key"},
		{"key with spaces", func() error { _, err := svc.ByKey(ctx, KeyQuery{Topic: "T", Key: "a b"}); return err }, "bad_key"},
		{"key unknown topic", func() error { _, err := svc.ByKey(ctx, KeyQuery{Topic: "Nope", Key: "a"}); return err }, "unknown_topic"},
		{"empty id", func() error { _, err := svc.ByID(ctx, IDQuery{}); return err }, "missing_id"},
		{"malformed id", func() error { _, err := svc.ByID(ctx, IDQuery{ID: "<script>"}); return err }, "bad_id"},
		{"unique key without topic", func() error { _, err := svc.ByID(ctx, IDQuery{ID: "ABCDEF0123"}); return err }, "missing_topic"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := f.BrokerCalls()
			err := tc.run()
			ie := fault.As(err)
			if ie == nil || ie.Code != fault.Invalid || ie.Reason != tc.code {
				t.Fatalf("error %v, want input error %s", err, tc.code)
			}
			if ie.Field == "" || !strings.HasSuffix(ie.Error(), ".") {
				t.Errorf("input error %+v lacks a field or a full sentence", ie)
			}
			if n := f.BrokerCalls() - before; n != 0 {
				t.Errorf("%d broker calls for bad input", n)
			}
		})
	}
	// The id error explains both forms.
	_, err := svc.ByID(ctx, IDQuery{ID: "zz"})
	if !strings.Contains(err.Error(), "offsetMsgId") || !strings.Contains(err.Error(), "unique key") {
		t.Errorf("malformed id message %q does not explain both id forms", err)
	}
}

// Queues that differ: one queue took all the recent traffic, the others hold older
// messages. The proportional first read falls short on that queue, and the top-up must
// still give exactly the newest messages.
func TestRangeSkewedQueues(t *testing.T) {
	f := clustertest.New()
	f.AddBroker("broker-a", "10.0.0.1:10911")
	f.AddBroker("broker-b", "10.0.0.2:10911")
	f.AddTopic("T", 4, "broker-a", "broker-b")
	var all []*rocketmq.Message
	for i := range 3000 { // old messages, spread over every queue but one
		q := i % 7
		b := []string{"broker-a", "broker-b"}[q/4]
		all = append(all, f.Put("T", b, q%4, clustertest.NewMessage(fmt.Sprint("old", i), "", nil, fmt.Sprint("O", i), t0.Add(time.Duration(i)*time.Second))))
	}
	for i := range 2500 { // the newest, all in broker-b queue 3
		all = append(all, f.Put("T", "broker-b", 3, clustertest.NewMessage(fmt.Sprint("new", i), "", nil, fmt.Sprint("N", i), t0.Add(time.Hour+time.Duration(i)*time.Millisecond))))
	}
	svc := New(f, Options{})
	b, e := t0, t0.Add(3*time.Hour)
	res, err := svc.ByRange(context.Background(), RangeQuery{Topic: "T", Begin: b, End: e})
	if err != nil {
		t.Fatal(err)
	}
	checkNewestN(t, res.Messages, newest(all, b, e, ""), RangeLimit)
	if res.Total != 5500 || !res.Truncated {
		t.Errorf("total %d truncated %v", res.Total, res.Truncated)
	}
	t.Logf("%d pulls, %d offset searches", f.Calls()["Pull"], f.Calls()["SearchOffset"])
}

// A tag that matches nothing in a big range stops at the scan budget and says how far
// back it read, instead of pulling the whole range.
func TestRangeTagScanBudget(t *testing.T) {
	f, all := fakeCluster(t, 20000, even(20000))
	svc := New(f, Options{MaxScan: 3000})
	res, err := svc.ByRange(context.Background(), RangeQuery{Topic: "T", Begin: t0, End: t0.Add(time.Hour), Tag: "green"})
	if err != nil {
		t.Fatal(err)
	}
	if !res.ScanLimited || !res.TotalIsLowerBound || len(res.Messages) != 0 {
		t.Fatalf("scan limited %v, lower bound %v, %d messages", res.ScanLimited, res.TotalIsLowerBound, len(res.Messages))
	}
	if res.Scanned < 3000 || res.Scanned > 3000+3000/32+16*8 {
		t.Errorf("read %d messages for a budget of 3000", res.Scanned)
	}
	// Everything stored at or after ScannedBackTo was read.
	var newer int64
	for _, m := range all {
		if m.StoreTimestamp >= res.ScannedBackTo.UnixMilli() {
			newer++
		}
	}
	if newer > res.Scanned || res.ScannedBackTo.Before(t0) || !res.ScannedBackTo.Before(t0.Add(time.Hour)) {
		t.Errorf("claims to have read back to %s, but %d messages are newer and %d were read", res.ScannedBackTo, newer, res.Scanned)
	}
	if pulls := f.Calls()["Pull"]; pulls > 3000/pullBatch+3*8+8 {
		t.Errorf("%d pulls for a budget of 3000 messages", pulls)
	}
}

// Brokers whose offset search is off by one (4.x answers the closest message; 5.5 a
// window one message wider per queue): the range still counts exactly what it holds, with
// messages stored before and after it in every queue, whether the result is truncated
// (the count comes from the windows) or not (from the messages read).
func TestRangeCountsExactlyWhereOffsetSearchesAreInexact(t *testing.T) {
	for _, v := range []rocketmq.BrokerVersion{
		{Ordinal: 515, Name: "V5_5_1"},
		{Ordinal: rocketmq.VersionOrdinal4_9_8, Name: "V4_9_8"},
		{Ordinal: rocketmq.VersionOrdinal5_3_3, Name: "V5_3_3"},
	} {
		t.Run(v.String(), func(t *testing.T) {
			// 6000 messages over an hour; the range is the middle third.
			f, all := fakeCluster(t, 6000, even(6000))
			f.SetVersion("broker-a", v)
			f.SetVersion("broker-b", v)
			svc := New(f, Options{})
			for _, r := range []struct{ b, e time.Time }{
				{t0.Add(20 * time.Minute), t0.Add(40*time.Minute - time.Millisecond)}, // about 2000: truncated or not
				{t0.Add(20 * time.Minute), t0.Add(50 * time.Minute)},                  // truncated
				{t0.Add(20 * time.Minute), t0.Add(25 * time.Minute)},                  // read whole
				{t0.Add(50 * time.Minute), t0.Add(2 * time.Hour)},                     // ends after the last message
			} {
				want := newest(all, r.b, r.e, "")
				res, err := svc.ByRange(context.Background(), RangeQuery{Topic: "T", Begin: r.b, End: r.e})
				if err != nil {
					t.Fatal(err)
				}
				if res.InRange != int64(len(want)) || res.Total != int64(len(want)) {
					t.Errorf("%v to %v: in range %d, total %d; the range holds %d", r.b, r.e, res.InRange, res.Total, len(want))
				}
				checkNewestN(t, res.Messages, want, RangeLimit)
			}
		})
	}
}

// A range search walked in pieces, each continuing from the Cursor after the rows it
// returned, gives exactly the list the whole search gives: no row twice, none left out,
// even where a piece ends inside a millisecond that many messages share.
func TestRangeContinuesAfterTheRowsShown(t *testing.T) {
	f, _ := fakeCluster(t, 3000, func(i int) time.Time { return t0.Add(time.Duration(i/50) * time.Millisecond) })
	svc := New(f, Options{})
	for _, tag := range []string{"", "blue"} {
		whole, err := svc.ByRange(context.Background(), RangeQuery{Topic: "T", Begin: t0, End: t0.Add(time.Hour), Tag: tag})
		if err != nil {
			t.Fatal(err)
		}
		var walked []string
		q := RangeQuery{Topic: "T", Begin: t0, End: t0.Add(time.Hour), Tag: tag, Limit: 130}
		for len(walked) < len(whole.Messages) {
			q.Limit = min(130, len(whole.Messages)-len(walked))
			piece, err := svc.ByRange(context.Background(), q)
			if err != nil || len(piece.Messages) == 0 {
				t.Fatalf("tag %q: piece after %d rows: %v, %d rows", tag, len(walked), err, len(piece.Messages))
			}
			for _, m := range piece.Messages {
				walked = append(walked, m.UniqueKey())
			}
			c := piece.After(q, len(piece.Messages))
			q.End, q.Skip = c.End, c.Skip
		}
		for i, m := range whole.Messages {
			if walked[i] != m.UniqueKey() {
				t.Fatalf("tag %q: row %d is %s in pieces, %s in the whole search", tag, i+1, walked[i], m.UniqueKey())
			}
		}
	}
}
