package lookup

import (
	"context"
	"fmt"
	"net/netip"
	"slices"
	"sort"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/apache/rocketmq-client-go/v2/consumer"
	"github.com/apache/rocketmq-client-go/v2/primitive"

	"rmqconsole/dev"
	"rmqconsole/fault"
	"rmqconsole/rocketmq"
)

// Three groups of messages a second apart: a range over the middle group returns exactly
// that group, newest first; a tag narrows it; a limit keeps the newest.
func TestIntegrationRangeExactSet(t *testing.T) {
	e, topic, p := startIT(t, "lk-range", 4)

	var a, b, c []*primitive.Message
	for i := range 12 {
		a = append(a, msg(topic, fmt.Sprintf("a-%d", i), "TA", nil, nil))
	}
	for i := range 25 {
		b = append(b, msg(topic, fmt.Sprintf("b-%d", i), []string{"TB1", "TB2"}[i%2], []string{fmt.Sprintf("kb-%d", i)}, nil))
	}
	for i := range 9 {
		c = append(c, msg(topic, fmt.Sprintf("c-%d", i), "TC", nil, nil))
	}
	sentA := sendAll(t, p, 4, a...)
	gap()
	sentB := sendAll(t, p, 4, b...)
	gap()
	sentC := sendAll(t, p, 4, c...)
	beginB, endB := span(sentB)
	if _, endA := span(sentA); !endA.Before(beginB) {
		t.Fatalf("groups overlap: A ends %s, B begins %s", endA, beginB)
	}
	if beginC, _ := span(sentC); !endB.Before(beginC) {
		t.Fatalf("groups overlap: B ends %s, C begins %s", endB, beginC)
	}
	ctx := ctxT(t)

	res, err := e.svc.ByRange(ctx, RangeQuery{Topic: topic, Begin: beginB, End: endB})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]bool{}
	for _, s := range sentB {
		want[s.uniq] = true
	}
	if got := uniqs(res.Messages); !mapsEqual(got, want) {
		t.Fatalf("range over group B returned %d messages %v, want exactly the %d of B", len(got), bodies(res.Messages), len(want))
	}
	if res.Total != 25 || res.InRange != 25 || res.Truncated || res.TotalIsLowerBound || len(res.Failures) > 0 {
		t.Errorf("total %d (lower bound %v), in range %d, truncated %v, failures %v; want 25 exact, not truncated",
			res.Total, res.TotalIsLowerBound, res.InRange, res.Truncated, res.Failures)
	}
	checkNewestFirst(t, res.Messages)
	for _, m := range res.Messages {
		if m.BrokerName == "" || m.Topic != topic || m.StoreTimestamp < beginB.UnixMilli() || m.StoreTimestamp > endB.UnixMilli() {
			t.Errorf("message %s: broker %q topic %q stored %d outside [%d, %d]", m.UniqueKey(), m.BrokerName, m.Topic,
				m.StoreTimestamp, beginB.UnixMilli(), endB.UnixMilli())
		}
	}

	// A tag keeps only its messages; the whole range was read, so the count is exact.
	tagged, err := e.svc.ByRange(ctx, RangeQuery{Topic: topic, Begin: beginB, End: endB, Tag: "TB1"})
	if err != nil {
		t.Fatal(err)
	}
	wantTB1 := map[string]bool{}
	for _, s := range sentB {
		if s.tag == "TB1" {
			wantTB1[s.uniq] = true
		}
	}
	if got := uniqs(tagged.Messages); !mapsEqual(got, wantTB1) || tagged.Total != int64(len(wantTB1)) || tagged.TotalIsLowerBound || tagged.Truncated {
		t.Errorf("tag TB1: got %v (total %d, lower bound %v, truncated %v), want the %d TB1 messages of B",
			bodies(tagged.Messages), tagged.Total, tagged.TotalIsLowerBound, tagged.Truncated, len(wantTB1))
	}

	// A limit keeps the newest, and says how many matched.
	limited, err := e.svc.ByRange(ctx, RangeQuery{Topic: topic, Begin: beginB, End: endB, Limit: 10})
	if err != nil {
		t.Fatal(err)
	}
	newest := append([]Message(nil), res.Messages...)
	sort.SliceStable(newest, func(i, j int) bool { return newest[i].StoreTimestamp > newest[j].StoreTimestamp })
	if len(limited.Messages) != 10 || !limited.Truncated || limited.Total != 25 || limited.TotalIsLowerBound {
		t.Fatalf("limit 10: %d messages, truncated %v, total %d (lower bound %v); want 10, truncated, 25 exact",
			len(limited.Messages), limited.Truncated, limited.Total, limited.TotalIsLowerBound)
	}
	cutoff := limited.Messages[9].StoreTimestamp
	for _, m := range newest {
		if m.StoreTimestamp > cutoff && !uniqs(limited.Messages)[m.UniqueKey()] {
			t.Errorf("limit 10 left out %s stored at %d, newer than the oldest returned (%d)", m.Body, m.StoreTimestamp, cutoff)
		}
	}

	// A tag with a limit: the newest matches, and more exist.
	tl, err := e.svc.ByRange(ctx, RangeQuery{Topic: topic, Begin: beginB, End: endB, Tag: "TB2", Limit: 3})
	if err != nil {
		t.Fatal(err)
	}
	if len(tl.Messages) != 3 || !tl.Truncated || tl.Total < 4 {
		t.Errorf("tag TB2 limit 3: %d messages, truncated %v, total %d; want 3, truncated, total >= 4", len(tl.Messages), tl.Truncated, tl.Total)
	}
	for _, m := range tl.Messages {
		if m.Tags() != "TB2" {
			t.Errorf("tag TB2 query returned %s with tag %q", m.Body, m.Tags())
		}
	}

	// The whole time: every message; an empty range: none.
	all, err := e.svc.ByRange(ctx, RangeQuery{Topic: topic, Begin: sentA[0].before.Add(-time.Minute), End: time.Now().Add(time.Minute)})
	if err != nil {
		t.Fatal(err)
	}
	if len(all.Messages) != 46 || all.Total != 46 {
		t.Errorf("whole range: %d messages, total %d; want 46", len(all.Messages), all.Total)
	}
	none, err := e.svc.ByRange(ctx, RangeQuery{Topic: topic, Begin: endB.Add(2 * time.Millisecond), End: endB.Add(500 * time.Millisecond)})
	if err != nil {
		t.Fatal(err)
	}
	if len(none.Messages) != 0 || none.Total != 0 {
		t.Errorf("a range between the groups returned %v (total %d)", bodies(none.Messages), none.Total)
	}

	// An unknown topic is bad input, answered from the NameServer alone.
	_, err = e.svc.ByRange(ctx, RangeQuery{Topic: dev.UniqueName("nosuch"), Begin: beginB, End: endB})
	if fe := fault.As(err); fe == nil || fe.Code != fault.Invalid || fe.Reason != "unknown_topic" {
		t.Errorf("unknown topic: %v, want an unknown_topic input error", err)
	}
}

// More than 2000 messages in range: the newest 2000 across all queues come back, the
// total is exact, and the broker is asked for little more than what is returned.
func TestIntegrationRangeNewest2000(t *testing.T) {
	e, topic, p := startIT(t, "lk-2000", 8)
	const n = 2300
	ms := make([]*primitive.Message, n)
	for i := range ms {
		ms[i] = msg(topic, fmt.Sprintf("m-%04d %s", i, strings.Repeat("x", 200)), "T", nil, nil)
	}
	ss := sendAll(t, p, 8, ms...)
	begin, end := span(ss)
	ctx := ctxT(t)

	// Every message, read directly, for the expected answer.
	route, err := e.c.TopicRoute(ctx, topic)
	if err != nil {
		t.Fatal(err)
	}
	var every []*rocketmq.Message
	for _, mq := range route.ReadQueues() {
		addr, _ := route.MasterAddr(mq.BrokerName)
		got, _, err := e.c.PullRange(ctx, addr, mq, 0, 1<<40, 0)
		if err != nil {
			t.Fatal(err)
		}
		every = append(every, got...)
	}
	if len(every) != n {
		t.Fatalf("topic holds %d messages, sent %d", len(every), n)
	}
	sort.Slice(every, func(i, j int) bool { return every[i].StoreTimestamp > every[j].StoreTimestamp })
	cut := every[RangeLimit-1].StoreTimestamp

	pullsBefore := e.c.CallCount(rocketmq.CodePullMessage)
	res, err := e.svc.ByRange(ctx, RangeQuery{Topic: topic, Begin: begin, End: end})
	if err != nil {
		t.Fatal(err)
	}
	pulls := e.c.CallCount(rocketmq.CodePullMessage) - pullsBefore
	if len(res.Messages) != RangeLimit || !res.Truncated || res.Total != n || res.TotalIsLowerBound {
		t.Fatalf("%d messages, truncated %v, total %d (lower bound %v); want %d, truncated, %d exact",
			len(res.Messages), res.Truncated, res.Total, res.TotalIsLowerBound, RangeLimit, n)
	}
	got := uniqs(res.Messages)
	for _, m := range every {
		if m.StoreTimestamp > cut && !got[m.UniqueKey()] {
			t.Fatalf("%s stored at %d is among the newest 2000 (cut %d) but was not returned", m.UniqueKey(), m.StoreTimestamp, cut)
		}
	}
	for _, m := range res.Messages {
		if m.StoreTimestamp < cut {
			t.Fatalf("%s stored at %d is older than the 2000th newest (%d)", m.UniqueKey(), m.StoreTimestamp, cut)
		}
	}
	checkNewestFirst(t, res.Messages)
	// 2000 messages need at least 63 pulls of 32; a few more go to queue edges. Where
	// offset searches are inexact (4.x, 5.5), trimming the windows costs up to three
	// one-message pulls per queue more.
	maxPulls := uint64(RangeLimit/pullBatch + 3*8)
	addr, _ := route.MasterAddr(route.ReadQueues()[0].BrokerName)
	if v, err := e.c.BrokerVersion(ctx, addr); err == nil && inexactSearch(v) {
		maxPulls += uint64(maxTrim+1) * uint64(len(route.ReadQueues()))
	}
	if pulls > maxPulls {
		t.Errorf("the query sent %d PULL_MESSAGE requests, more than %d: it reads more than it returns", pulls, maxPulls)
	}
	t.Logf("newest 2000 of %d: %d pulls", n, pulls)
}

// The key index: at most 64 per query, the newest, and the cap is reported; a time range
// narrows the search.
func TestIntegrationKey(t *testing.T) {
	e, topic, p := startIT(t, "lk-key", 4)
	many, few := dev.UniqueName("many"), dev.UniqueName("few")
	var ms []*primitive.Message
	for i := range 70 {
		ms = append(ms, msg(topic, fmt.Sprintf("many-%d", i), "K", []string{many, fmt.Sprintf("other-%d", i)}, nil))
	}
	sentMany := sendAll(t, p, 4, ms...)
	var sentFew []sent
	for i := range 3 {
		gap()
		sentFew = append(sentFew, sendAll(t, p, 1, msg(topic, fmt.Sprintf("few-%d", i), "K", []string{few}, nil))...)
	}
	ctx := ctxT(t)

	var res *Result
	dev.Eventually(t, 30*time.Second, "index the 70 messages", func() error {
		var err error
		res, err = e.svc.ByKey(ctx, KeyQuery{Topic: topic, Key: many})
		if err != nil {
			return err
		}
		if len(res.Messages) < KeyLimit {
			return fmt.Errorf("%d found", len(res.Messages))
		}
		return nil
	})
	// One broker holds all 70 and answers its cap of 64: the total is a lower bound.
	// Spread over several brokers, none may reach the cap, and the total is exact.
	capped := len(res.CappedBrokers) > 0
	if len(res.Messages) != KeyLimit || !res.Truncated || res.TotalIsLowerBound != capped ||
		(len(e.cl.Brokers) == 1 && !capped) || (!capped && res.Total != 70) {
		t.Errorf("key with 70 messages on %d broker(s): %d returned, truncated %v, total %d, lower bound %v, capped %v; want 64, truncated, capped or exactly 70",
			len(e.cl.Brokers), len(res.Messages), res.Truncated, res.Total, res.TotalIsLowerBound, res.CappedBrokers)
	}
	sentUniq := map[string]bool{}
	for _, s := range sentMany {
		sentUniq[s.uniq] = true
	}
	for _, m := range res.Messages {
		if !sentUniq[m.UniqueKey()] || !slices.Contains(m.Keys(), many) {
			t.Errorf("key query returned %s (%q, keys %v), not one of the 70", m.UniqueKey(), m.Body, m.Keys())
		}
	}
	if got := uniqs(res.Messages); len(got) != len(res.Messages) {
		t.Errorf("duplicates in the answer: %d distinct of %d", len(got), len(res.Messages))
	}
	checkNewestFirst(t, res.Messages)

	var fewRes *Result
	dev.Eventually(t, 30*time.Second, "index the 3 messages", func() error {
		var err error
		fewRes, err = e.svc.ByKey(ctx, KeyQuery{Topic: topic, Key: few})
		if err != nil {
			return err
		}
		if len(fewRes.Messages) != 3 {
			return fmt.Errorf("%d found", len(fewRes.Messages))
		}
		return nil
	})
	if fewRes.Truncated || fewRes.TotalIsLowerBound || fewRes.Total != 3 {
		t.Errorf("3 messages: truncated %v, lower bound %v, total %d", fewRes.Truncated, fewRes.TotalIsLowerBound, fewRes.Total)
	}
	b, en := span(sentFew[1:2])
	mid, err := e.svc.ByKey(ctx, KeyQuery{Topic: topic, Key: few, Begin: b, End: en})
	if err != nil {
		t.Fatal(err)
	}
	if len(mid.Messages) != 1 || mid.Messages[0].UniqueKey() != sentFew[1].uniq {
		t.Errorf("key with the middle message's time range: %v, want only %s", bodies(mid.Messages), sentFew[1].body)
	}
}

// Both kinds of id find the message and say which kind matched; a unique key stored
// twice shows one message and lists the other copy; ids that name nothing are not found.
func TestIntegrationID(t *testing.T) {
	e, topic, p := startIT(t, "lk-id", 2)
	one := sendAll(t, p, 1, msg(topic, "the one", "TI", []string{"k-one"}, map[string]string{"color": "green"}))[0]
	dupID := strings.ToUpper(strings.ReplaceAll(dev.UniqueName("0A0B0C0D0E0F"), "-", "")) // 22 chars, not an offsetMsgId
	d1 := sendAll(t, p, 1, msg(topic, "first send", "TD", nil, map[string]string{"UNIQ_KEY": dupID}))[0]
	gap()
	d2 := sendAll(t, p, 1, msg(topic, "resend", "TD", nil, map[string]string{"UNIQ_KEY": dupID}))[0]
	ctx := ctxT(t)

	byOffset, err := e.svc.ByID(ctx, IDQuery{ID: one.offsetID})
	if err != nil {
		t.Fatal(err)
	}
	if byOffset.Kind != rocketmq.IDOffsetMsgID || byOffset.Message.UniqueKey() != one.uniq || string(byOffset.Message.Body) != "the one" ||
		byOffset.Message.BrokerName != one.broker || byOffset.Message.Properties["color"] != "green" {
		t.Errorf("by offsetMsgId: kind %v, uniq %s, body %q, broker %q, props %v", byOffset.Kind, byOffset.Message.UniqueKey(),
			byOffset.Message.Body, byOffset.Message.BrokerName, byOffset.Message.Properties)
	}
	// Lower case works too.
	if r, err := e.svc.ByID(ctx, IDQuery{ID: strings.ToLower(one.offsetID)}); err != nil || r.Message.UniqueKey() != one.uniq {
		t.Errorf("lower-case offsetMsgId: %v", err)
	}

	var byUniq *IDResult
	dev.Eventually(t, 30*time.Second, "find by unique key", func() error {
		byUniq, err = e.svc.ByID(ctx, IDQuery{ID: one.uniq, Topic: topic})
		return err
	})
	if byUniq.Kind != rocketmq.IDUniqueKey || byUniq.Message.OffsetMsgID() != one.offsetID || len(byUniq.Copies) != 0 {
		t.Errorf("by unique key: kind %v, offsetMsgId %s (want %s), copies %d", byUniq.Kind, byUniq.Message.OffsetMsgID(), one.offsetID, len(byUniq.Copies))
	}

	// Without its topic, the id the client made is found by the time it carries, in
	// every topic's index; one that no message has is said to be nowhere, with what
	// was read.
	anyTopic, err := e.svc.ByID(ctx, IDQuery{ID: one.uniq})
	if err != nil {
		t.Fatalf("unique key without its topic: %v", err)
	}
	if s := anyTopic.Searched; anyTopic.Message.OffsetMsgID() != one.offsetID || anyTopic.Message.Topic != topic || s == nil ||
		s.Asked < 1 || s.Asked > s.Topics || !s.Begin.Before(one.before) || !s.End.After(one.after) {
		t.Errorf("unique key without its topic: found %s in %s, searched %+v; want %s in %s", anyTopic.Message.OffsetMsgID(),
			anyTopic.Message.Topic, anyTopic.Searched, one.offsetID, topic)
	}
	t.Logf("unique key without its topic: found after %d of %d topics in %s", anyTopic.Searched.Asked, anyTopic.Searched.Topics, anyTopic.Searched.Took)
	nowhere := one.uniq[:len(one.uniq)-4] + "FFFF" // the same producer and time, a counter it has not reached
	if _, err := e.svc.ByID(ctx, IDQuery{ID: nowhere}); !fault.Is(err, fault.NotFound) || !strings.Contains(err.Error(), "No topic holds") {
		t.Errorf("a client id no message has, without a topic: %v", err)
	}

	var dup *IDResult
	dev.Eventually(t, 30*time.Second, "find both copies", func() error {
		dup, err = e.svc.ByID(ctx, IDQuery{ID: dupID, Topic: topic})
		if err != nil {
			return err
		}
		if len(dup.Copies) != 1 {
			return fmt.Errorf("%d copies", len(dup.Copies))
		}
		return nil
	})
	if dup.Message.OffsetMsgID() != d1.offsetID || dup.Copies[0].OffsetMsgID() != d2.offsetID {
		t.Errorf("resent unique key: shown %s, copy %s; want the first send %s shown and %s listed",
			dup.Message.OffsetMsgID(), dup.Copies[0].OffsetMsgID(), d1.offsetID, d2.offsetID)
	}

	// An offsetMsgId of this broker at an offset where nothing starts, and one naming a
	// host that is not a broker: not found, and the second never connects anywhere.
	id, _ := rocketmq.ParseOffsetMsgID(one.offsetID)
	id.CommitLogOffset += 3
	if _, err := e.svc.ByID(ctx, IDQuery{ID: id.String()}); !fault.Is(err, fault.NotFound) {
		t.Errorf("offsetMsgId at a bad commit-log offset: %v, want not found", err)
	}
	elsewhere := rocketmq.OffsetMsgID{StoreHost: netipPort("10.255.255.1:10911"), CommitLogOffset: 0}.String()
	before := e.c.CallCount(rocketmq.CodeViewMessageByID)
	if _, err := e.svc.ByID(ctx, IDQuery{ID: elsewhere}); !fault.Is(err, fault.NotFound) || !strings.Contains(err.Error(), "not a broker of this cluster") {
		t.Errorf("offsetMsgId of a foreign host: %v", err)
	}
	if e.c.CallCount(rocketmq.CodeViewMessageByID) != before {
		t.Errorf("an offsetMsgId naming a foreign host was sent a VIEW_MESSAGE_BY_ID")
	}
	if _, err := e.svc.ByID(ctx, IDQuery{ID: "0A0B0C0D0E0F101112131415161718191A1B", Topic: topic}); !fault.Is(err, fault.NotFound) {
		t.Errorf("unknown unique key: %v, want not found", err)
	}
}

// A group that consumed the message says so; a group that is online but has not reached
// it says not consumed; a group whose clients left is offline.
func TestIntegrationGroups(t *testing.T) {
	e, topic, p := startIT(t, "lk-grp", 1)
	m1 := sendAll(t, p, 1, msg(topic, "consume me", "TG", nil, nil))[0]

	done, stuck := dev.UniqueName("g-done"), dev.UniqueName("g-stuck")
	var consumed atomic.Int32
	cDone := startConsumer(t, e.cl.NameServer, done, topic, func(*primitive.MessageExt) consumer.ConsumeResult {
		consumed.Add(1)
		return consumer.ConsumeSuccess
	})
	release := make(chan struct{})
	cStuck := startConsumer(t, e.cl.NameServer, stuck, topic, func(*primitive.MessageExt) consumer.ConsumeResult {
		<-release
		return consumer.ConsumeSuccess
	})
	defer func() { close(release); cStuck.Shutdown() }()
	ctx := ctxT(t)

	found, err := e.svc.ByID(ctx, IDQuery{ID: m1.offsetID})
	if err != nil {
		t.Fatal(err)
	}
	stateOf := func(states []GroupState, g string) GroupState {
		for _, s := range states {
			if s.Group == g {
				return s
			}
		}
		return GroupState{State: "absent"}
	}
	// Each look gets a deadline of its own: the two waits together may take longer than
	// one ctxT, and a look on an expired context would only say it was never sent.
	look := func(m Message) (*GroupStates, error) {
		ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
		defer cancel()
		return e.svc.Groups(ctx, m)
	}
	dev.Eventually(t, 60*time.Second, "see the group consume", func() error {
		gs, err := look(found.Message)
		if err != nil {
			return err
		}
		states, fails := gs.States, gs.Failures
		if len(fails) > 0 {
			return fmt.Errorf("failures %v", fails)
		}
		d, s := stateOf(states, done), stateOf(states, stuck)
		if d.State != Consumed || s.State != NotConsumed || !d.Online || !s.Online {
			return fmt.Errorf("%s: %s online %v (%s); %s: %s online %v (%s)", done, d.State, d.Online, d.Reason, stuck, s.State, s.Online, s.Reason)
		}
		return nil
	})

	cDone.Shutdown()
	// The group left with an offset stored for m1's queue; on a topic with queues on two
	// masters it has none for the other broker's queue, which it never consumed. The
	// message it has not reached goes to m1's queue (the producer takes the queues in
	// turn).
	var m2 sent
	for i := 0; ; i++ {
		m2 = sendAll(t, p, 1, msg(topic, "after the group left", "TG", nil, nil))[0]
		if m2.broker == m1.broker && m2.queueID == m1.queueID {
			break
		}
		if i == 10 {
			t.Fatalf("11 messages sent, none to %s queue %d", m1.broker, m1.queueID)
		}
	}
	found2, err := e.svc.ByID(ctx, IDQuery{ID: m2.offsetID})
	if err != nil {
		t.Fatal(err)
	}
	dev.Eventually(t, 60*time.Second, "see the group offline", func() error {
		gs, err := look(found2.Message)
		if err != nil {
			return err
		}
		states := gs.States
		d := stateOf(states, done)
		if d.State != Offline || d.Online || !strings.Contains(d.Reason.String(), "has not reached") {
			return fmt.Errorf("%s: %s online %v (%s)", done, d.State, d.Online, d.Reason)
		}
		return nil
	})
}

func checkNewestFirst(t *testing.T, ms []Message) {
	t.Helper()
	for i := 1; i < len(ms); i++ {
		if ms[i].StoreTimestamp > ms[i-1].StoreTimestamp {
			t.Fatalf("not newest first: message %d stored at %d after message %d at %d", i, ms[i].StoreTimestamp, i-1, ms[i-1].StoreTimestamp)
		}
	}
}

func bodies(ms []Message) []string {
	var out []string
	for _, m := range ms {
		out = append(out, string(m.Body))
	}
	return out
}

func mapsEqual(a, b map[string]bool) bool {
	if len(a) != len(b) {
		return false
	}
	for k := range a {
		if !b[k] {
			return false
		}
	}
	return true
}

func netipPort(s string) netip.AddrPort { return netip.MustParseAddrPort(s) }
