package rocketmq

import (
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"rmqconsole/dev"
	"rmqconsole/dev/rmqclient"
)

// TestIntegrationMessages produces messages with rocketmq-client-go and
// mqadmin, then finds each of them by every route the console offers:
// offsets, pull, timestamp, key, unique key and offsetMsgId.
func TestIntegrationMessages(t *testing.T) {
	t.Parallel()
	e := newITEnv(t)
	const queues = 4
	topic := e.createTopic(t, "it-msg", queues)
	p := rmqclient.StartProducer(t, e.cluster.NameServer, dev.UniqueName("pg"))
	shared := dev.UniqueName("shared")

	var goSent []sent
	for i := range 6 { // group A
		goSent = append(goSent, sendGo(t, p, topic, fmt.Sprintf("hello A%d", i),
			[]string{fmt.Sprintf("k-A%d", i), shared}, []string{"TagA", "TagB"}[i%2], map[string]string{"color": fmt.Sprintf("red-%d", i)}))
	}
	// A gap of more than a second between the groups, so a timestamp falls
	// unambiguously between them.
	time.Sleep(1100 * time.Millisecond)
	for i := range 6 { // group B
		goSent = append(goSent, sendGo(t, p, topic, fmt.Sprintf("hello B%d ✓", i),
			[]string{fmt.Sprintf("k-B%d", i), shared}, "TagB", map[string]string{"color": fmt.Sprintf("blue-%d", i), "n": fmt.Sprint(i)}))
	}
	adminKey := dev.UniqueName("adminkey")
	var adminSent []sent
	for i := range 2 {
		adminSent = append(adminSent, e.sendMQAdmin(t, topic, fmt.Sprintf("from mqadmin %d", i), adminKey, "TagM"))
	}
	total := len(goSent) + len(adminSent)
	perQueue := map[int]int64{}
	for _, s := range append(append([]sent{}, goSent...), adminSent...) {
		perQueue[s.queueID]++
	}
	ctx := t.Context() // each call gets the client's default timeout

	// Route and stats.
	route, err := e.c.TopicRoute(ctx, topic)
	if err != nil {
		t.Fatal(err)
	}
	rq := route.ReadQueues()
	if len(rq) != queues*len(e.cluster.Brokers) {
		t.Fatalf("route has read queues %s, want %d per broker", fmtQueues(rq), queues)
	}
	addr, ok := route.MasterAddr(e.broker)
	if !ok || addr != e.addr {
		t.Fatalf("master of %s = %q, want %s", e.broker, addr, e.addr)
	}
	// The consume queue is built asynchronously after a send is
	// acknowledged: wait until the stats count every message.
	var stats *TopicStats
	dev.Eventually(t, 10*time.Second, "topic stats count every message", func() error {
		stats, err = e.c.TopicStats(ctxT(t), e.addr, topic)
		if err != nil {
			return err
		}
		var n int64
		for _, o := range stats.Offsets {
			n += o.MaxOffset - o.MinOffset
		}
		if n != int64(total) {
			return fmt.Errorf("%d of %d messages", n, total)
		}
		return nil
	})
	var stored int64
	for mq, o := range stats.Offsets {
		if mq.Topic != topic || mq.BrokerName != e.broker {
			t.Errorf("stats queue %v is not of %s on %s", mq, topic, e.broker)
		}
		stored += o.MaxOffset - o.MinOffset
		if o.MaxOffset != perQueue[mq.QueueID] {
			t.Errorf("queue %d: max offset %d, but %d messages were sent to it", mq.QueueID, o.MaxOffset, perQueue[mq.QueueID])
		}
		if (o.MaxOffset > 0) != (o.LastUpdateTimestamp > 0) {
			t.Errorf("queue %d: max offset %d with last update %d", mq.QueueID, o.MaxOffset, o.LastUpdateTimestamp)
		}
		mn, err := e.c.MinOffset(ctx, e.addr, mq)
		if err != nil || mn != o.MinOffset {
			t.Errorf("MinOffset(%d) = %d, %v; stats say %d", mq.QueueID, mn, err, o.MinOffset)
		}
		mx, err := e.c.MaxOffset(ctx, e.addr, mq)
		if err != nil || mx != o.MaxOffset {
			t.Errorf("MaxOffset(%d) = %d, %v; stats say %d", mq.QueueID, mx, err, o.MaxOffset)
		}
	}
	if len(stats.Offsets) != queues || stored != int64(total) {
		t.Fatalf("stats: %d queues holding %d messages, want %d holding %d", len(stats.Offsets), stored, queues, total)
	}

	// Pull every queue completely: exactly the produced messages come back.
	byUniq := map[string]*Message{}
	for _, mq := range rq {
		o := stats.Offsets[mq]
		msgs, next, err := e.c.PullRange(ctx, e.addr, mq, o.MinOffset, o.MaxOffset, 0)
		if err != nil {
			t.Fatal(err)
		}
		if next != o.MaxOffset || int64(len(msgs)) != o.MaxOffset-o.MinOffset {
			t.Fatalf("PullRange(%d) gave %d messages up to %d, want %d up to %d", mq.QueueID, len(msgs), next, o.MaxOffset-o.MinOffset, o.MaxOffset)
		}
		for i, m := range msgs {
			if m.QueueOffset != o.MinOffset+int64(i) || m.QueueID != mq.QueueID || m.Topic != topic {
				t.Errorf("queue %d message %d: topic %q queue %d offset %d", mq.QueueID, i, m.Topic, m.QueueID, m.QueueOffset)
			}
			if byUniq[m.UniqueKey()] != nil {
				t.Errorf("unique key %s pulled twice", m.UniqueKey())
			}
			byUniq[m.UniqueKey()] = m
		}
	}
	if len(byUniq) != total {
		t.Fatalf("pulled %d distinct messages, sent %d", len(byUniq), total)
	}
	for _, s := range goSent {
		m := byUniq[s.msgID]
		if m == nil {
			t.Errorf("message %s (%q) not pulled", s.msgID, s.body)
			continue
		}
		if string(m.Body) != s.body || m.Tags() != s.tag || !slices.Equal(m.Keys(), s.keys) {
			t.Errorf("%s: body %q tags %q keys %v; sent %q %q %v", s.msgID, m.Body, m.Tags(), m.Keys(), s.body, s.tag, s.keys)
		}
		for k, v := range s.props {
			if m.Properties[k] != v {
				t.Errorf("%s: property %s=%q, sent %q", s.msgID, k, m.Properties[k], v)
			}
		}
		if m.OffsetMsgID() != s.offsetMsgID || m.QueueID != s.queueID || m.QueueOffset != s.queueOffset {
			t.Errorf("%s: offsetMsgId %s queue %d offset %d; producer reported %s queue %d offset %d",
				s.msgID, m.OffsetMsgID(), m.QueueID, m.QueueOffset, s.offsetMsgID, s.queueID, s.queueOffset)
		}
	}
	for _, s := range adminSent {
		m := byUniq[s.msgID]
		if m == nil || string(m.Body) != s.body || m.Tags() != s.tag || !slices.Equal(m.Keys(), s.keys) || m.QueueID != s.queueID {
			t.Errorf("mqadmin message %s: pulled %+v", s.msgID, m)
		}
	}

	// Pull statuses at and past the end.
	q0 := rq[0]
	end := stats.Offsets[q0].MaxOffset
	if r, err := e.c.Pull(ctx, e.addr, q0, end, 32); err != nil || r.Status != PullNoNewMsg || len(r.Messages) != 0 {
		t.Errorf("pull at max offset: %+v, %v; want NO_NEW_MSG", r, err)
	}
	if r, err := e.c.Pull(ctx, e.addr, q0, end+1000, 32); err != nil || r.Status != PullOffsetIllegal || r.NextBeginOffset > end {
		t.Errorf("pull far past max offset: %+v, %v; want OFFSET_ILLEGAL pointing back into the queue", r, err)
	}

	// Offset by timestamp: the first message of group B in its queue.
	firstB := byUniq[goSent[6].msgID]
	qB := MessageQueue{Topic: topic, BrokerName: e.broker, QueueID: firstB.QueueID}
	if off, err := e.c.SearchOffset(ctx, e.addr, qB, firstB.StoreTime(), BoundaryLower); err != nil || off != firstB.QueueOffset {
		t.Errorf("SearchOffset(store time of %s) = %d, %v; want %d", firstB.UniqueKey(), off, err, firstB.QueueOffset)
	}
	first := byUniq[goSent[0].msgID]
	if off, err := e.c.SearchOffset(ctx, e.addr, qB, first.StoreTime().Add(-time.Hour), BoundaryLower); err != nil || off != 0 {
		t.Errorf("SearchOffset(an hour before everything) = %d, %v; want 0", off, err)
	}
	for _, mq := range rq {
		var oldest *Message
		for _, m := range byUniq {
			if m.QueueID == mq.QueueID && m.QueueOffset == 0 {
				oldest = m
			}
		}
		got, err := e.c.EarliestStoreTime(ctx, e.addr, mq)
		if err != nil {
			t.Fatal(err)
		}
		if oldest == nil && !got.IsZero() || oldest != nil && !got.Equal(oldest.StoreTime()) {
			t.Errorf("EarliestStoreTime(%d) = %v, want the store time of offset 0 (%v)", mq.QueueID, got, oldest)
		}
	}

	// Key query: the index is built asynchronously, so poll.
	wantShared := map[string]bool{}
	for _, s := range goSent {
		wantShared[s.msgID] = true
	}
	dev.Eventually(t, 20*time.Second, "key query finds every keyed message", func() error {
		r, err := e.c.QueryMessageByKey(ctxT(t), e.addr, topic, shared, 64, time.Time{}, time.Time{})
		if err != nil {
			return err
		}
		got := map[string]bool{}
		for _, m := range r.Messages {
			got[m.UniqueKey()] = true
		}
		if len(got) != len(wantShared) {
			return fmt.Errorf("found %d of %d", len(got), len(wantShared))
		}
		for id := range wantShared {
			if !got[id] {
				return fmt.Errorf("missing %s", id)
			}
		}
		return nil
	})
	r, err := e.c.QueryMessageByKey(ctx, e.addr, topic, "k-B3", 64, first.StoreTime().Add(-time.Minute), time.Now().Add(time.Minute))
	if err != nil || len(r.Messages) != 1 || r.Messages[0].UniqueKey() != goSent[9].msgID {
		t.Errorf("key k-B3 in a time range: %v, %v; want only %s", r, err, goSent[9].msgID)
	}
	if r, err := e.c.QueryMessageByKey(ctx, e.addr, topic, "no-such-key", 64, time.Time{}, time.Time{}); err != nil || len(r.Messages) != 0 {
		t.Errorf("unknown key: %v, %v; want nothing", r, err)
	}
	var adminFound []string
	dev.Eventually(t, 20*time.Second, "key query finds the mqadmin messages", func() error {
		r, err := e.c.QueryMessageByKey(ctxT(t), e.addr, topic, adminKey, 64, time.Time{}, time.Time{})
		if err != nil {
			return err
		}
		adminFound = adminFound[:0]
		for _, m := range r.Messages {
			adminFound = append(adminFound, m.UniqueKey())
		}
		if len(adminFound) != len(adminSent) {
			return fmt.Errorf("found %d of %d", len(adminFound), len(adminSent))
		}
		return nil
	})
	// mqadmin's own key query agrees.
	out, err := e.cluster.MQAdmin(ctxJVM(t), "queryMsgByKey", "-t", topic, "-k", shared)
	if err != nil {
		t.Fatal(err)
	}
	var mqadminIDs []string
	for _, line := range strings.Split(out, "\n") {
		// "#Message ID #QID #Offset" rows; 5.5's mqadmin adds a fourth column, #IndexKey.
		f := strings.Fields(line)
		if (len(f) == 3 || len(f) == 4) && (wantShared[f[0]] || len(f[0]) == 32) {
			mqadminIDs = append(mqadminIDs, f[0])
		}
	}
	var ours []string
	for id := range wantShared {
		ours = append(ours, id)
	}
	sort.Strings(ours)
	sort.Strings(mqadminIDs)
	if !slices.Equal(ours, mqadminIDs) {
		t.Errorf("mqadmin queryMsgByKey found %v, we found %v\n%s", mqadminIDs, ours, out)
	}

	// Unique key and offsetMsgId find the message whose ids the producer reported.
	for _, s := range []sent{goSent[0], goSent[7], goSent[11]} {
		dev.Eventually(t, 20*time.Second, "unique key query "+s.msgID, func() error {
			r, err := e.c.QueryMessageByUniqueKey(ctxT(t), e.addr, topic, s.msgID, time.Time{}, time.Time{})
			if err != nil {
				return err
			}
			if len(r.Messages) != 1 {
				return fmt.Errorf("%d messages", len(r.Messages))
			}
			if m := r.Messages[0]; m.UniqueKey() != s.msgID || m.OffsetMsgID() != s.offsetMsgID || string(m.Body) != s.body {
				return fmt.Errorf("got %s/%s %q", m.UniqueKey(), m.OffsetMsgID(), m.Body)
			}
			return nil
		})
		m, err := e.c.ViewMessage(ctx, s.offsetMsgID, topic)
		if err != nil {
			t.Fatal(err)
		}
		if m.UniqueKey() != s.msgID || string(m.Body) != s.body || m.OffsetMsgID() != s.offsetMsgID {
			t.Errorf("ViewMessage(%s) = %s %q", s.offsetMsgID, m.UniqueKey(), m.Body)
		}
	}
	for _, s := range adminSent {
		r, err := e.c.QueryMessageByUniqueKey(ctx, e.addr, topic, strings.ToLower(s.msgID), time.Time{}, time.Time{})
		if err != nil || len(r.Messages) != 1 || r.Messages[0].UniqueKey() != s.msgID {
			t.Errorf("unique key %s typed in lower case: %v %v", s.msgID, r, err)
		}
	}
	_, err = e.c.ViewMessageAt(ctx, e.addr, 1<<40, topic)
	if !errors.Is(err, ErrMessageNotFound) {
		t.Errorf("view at a commit-log offset beyond the log: %v, want ErrMessageNotFound", err)
	}
	// An offset inside a stored message (a made-up or mistyped offsetMsgId naming a real
	// broker): the broker answers the bytes found there, which are no message.
	firstID, err := ParseOffsetMsgID(goSent[0].offsetMsgID)
	if err != nil {
		t.Fatal(err)
	}
	for inside := int64(1); inside <= 64; inside++ {
		if _, err := e.c.ViewMessageAt(ctx, e.addr, firstID.CommitLogOffset+inside, topic); !errors.Is(err, ErrMessageNotFound) {
			t.Errorf("view %d bytes inside a stored message: %v, want ErrMessageNotFound", inside, err)
		}
	}

	// Errors for a topic nobody created.
	if _, err := e.c.TopicRoute(ctx, dev.UniqueName("missing")); !errors.Is(err, ErrTopicNotFound) {
		t.Errorf("route of a missing topic: %v", err)
	}
	if _, err := e.c.TopicStats(ctx, e.addr, dev.UniqueName("missing")); !errors.Is(err, ErrTopicNotFound) {
		t.Errorf("stats of a missing topic: %v", err)
	}

	if t.Failed() {
		return
	}
	e.capture(t, "topic_stats", CodeGetTopicStatsInfo, e.addr, map[string]string{"topic": topic})
	e.capture(t, "route", CodeGetRouteInfoByTopic, "", map[string]string{"topic": topic, "acceptStandardJsonOnly": "true"})
	e.captureLegacyRoute(t, topic)
	e.capture(t, "cluster_info", CodeGetBrokerClusterInfo, "", nil)
	e.capture(t, "topic_list", CodeGetAllTopicListFromNameSrv, "", nil)
	e.capture(t, "topic_configs", CodeGetAllTopicConfig, e.addr, nil)
	e.capture(t, "runtime_info", CodeGetBrokerRuntimeInfo, e.addr, nil)
	e.capture(t, "subscription_groups", CodeGetAllSubscriptionGroup, e.addr, nil)
}

// captureLegacyRoute records the route as an old client gets it: version
// below 401 and no acceptStandardJsonOnly, so fastjson's bare numeric keys.
func (e *itEnv) captureLegacyRoute(t *testing.T, topic string) {
	t.Helper()
	if !captureOn() {
		return
	}
	cn, _, err := e.c.pool.get(ctxT(t), e.cluster.NameServer)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := cn.call(ctxT(t), &command{Code: int(CodeGetRouteInfoByTopic), Language: "GO", Version: 317, ExtFields: map[string]string{"topic": topic}})
	if err != nil || resp.Code != 0 {
		t.Fatalf("legacy route: %v %+v", err, resp)
	}
	writeCapture(t, e.version, "route_legacy", resp.Body)
}
