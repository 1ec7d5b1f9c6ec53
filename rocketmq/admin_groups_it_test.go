package rocketmq

import (
	"errors"
	"fmt"
	"strconv"
	"testing"
	"time"

	"rmqconsole/dev"
	"rmqconsole/dev/rmqclient"
)

// TestIntegrationConsumerGroup runs two rocketmq-client-go push consumers in
// one group and checks what the console shows about them: connections,
// which client holds which queue, lag, and offset changes online and
// offline.
func TestIntegrationConsumerGroup(t *testing.T) {
	t.Parallel()
	e := newITEnv(t)
	const queues = 4
	topic := e.createTopic(t, "it-grp", queues)
	group := dev.UniqueName("it-cg")
	pgroup := dev.UniqueName("it-pg")
	p := rmqclient.StartProducer(t, e.cluster.NameServer, pgroup)
	const n = 20
	var msgs []sent
	for i := range n {
		msgs = append(msgs, sendGo(t, p, topic, fmt.Sprintf("m%d", i), []string{fmt.Sprintf("key%d", i)}, "T", nil))
	}
	ctx := t.Context() // each call gets the client's default timeout
	route, err := e.c.TopicRoute(ctx, topic)
	if err != nil {
		t.Fatal(err)
	}
	allQueues := route.ReadQueues()

	c1 := rmqclient.StartCountingConsumer(t, e.cluster.NameServer, group, topic)
	c2 := rmqclient.StartCountingConsumer(t, e.cluster.NameServer, group, topic)

	// Every message consumed (between the two of them).
	dev.Eventually(t, 60*time.Second, "consumers consume every message", func() error {
		d1, _ := c1.Counts()
		d2, _ := c2.Counts()
		if d1+d2 < n {
			return fmt.Errorf("consumed %d+%d of %d", d1, d2, n)
		}
		return nil
	})

	// Two connections, push consumers in clustering mode.
	var conns *ConsumerConnection
	dev.Eventually(t, 30*time.Second, "two connections", func() error {
		conns, err = e.c.ConsumerConnections(ctxT(t), e.addr, group)
		if err != nil {
			return err
		}
		if len(conns.Connections) != 2 {
			return fmt.Errorf("%d connections", len(conns.Connections))
		}
		return nil
	})
	if conns.ConsumeType != "CONSUME_PASSIVELY" || conns.MessageModel != "CLUSTERING" {
		t.Errorf("consume type %q model %q", conns.ConsumeType, conns.MessageModel)
	}
	if sub, ok := conns.Subscriptions[topic]; !ok || sub.SubString != "*" {
		t.Errorf("subscriptions %v lack %s with *", keysOf(conns.Subscriptions), topic)
	}
	var clientIDs []string
	for _, cn := range conns.Connections {
		if cn.Language != "GO" || cn.ClientAddr == "" {
			t.Errorf("connection %+v", cn)
		}
		clientIDs = append(clientIDs, cn.ClientID)
	}
	ids, err := e.c.ConsumerIDs(ctx, e.addr, group)
	if err != nil || fmt.Sprint(ids) != fmt.Sprint(clientIDs) {
		t.Errorf("ConsumerIDs = %v, %v; connections say %v", ids, err, clientIDs)
	}

	// Running info: together the two clients hold every queue exactly once.
	var infos map[string]*ConsumerRunningInfo
	dev.Eventually(t, 60*time.Second, "queue tables cover every queue once", func() error {
		infos = map[string]*ConsumerRunningInfo{}
		owner := map[MessageQueue]string{}
		for _, id := range clientIDs {
			info, err := e.c.ConsumerRunningInfo(ctxT(t), e.addr, group, id, false)
			if err != nil {
				return err
			}
			infos[id] = info
			for _, mq := range info.Queues() {
				if mq.Topic != topic {
					continue // %RETRY%<group>
				}
				if prev, dup := owner[mq]; dup {
					return fmt.Errorf("%v held by %s and %s", mq, prev, id)
				}
				owner[mq] = id
			}
		}
		if len(owner) != len(allQueues) {
			return fmt.Errorf("%d of %d queues held", len(owner), len(allQueues))
		}
		for _, mq := range allQueues {
			if owner[mq] == "" {
				return fmt.Errorf("%v held by nobody", mq)
			}
		}
		for id, info := range infos {
			if len(info.Queues()) == 0 {
				return fmt.Errorf("%s holds nothing", id)
			}
		}
		return nil
	})
	for id, info := range infos {
		if info.ConsumeType() != "CONSUME_PASSIVELY" || info.Properties["PROP_CLIENT_VERSION"] == "" {
			t.Errorf("%s: properties %v", id, info.Properties)
		}
		if _, ok := info.StatusTable[topic]; !ok {
			t.Errorf("%s: no status for %s in %v", id, topic, keysOf(info.StatusTable))
		}
	}
	if _, err := e.c.ConsumerRunningInfo(ctx, e.addr, group, "10.9.9.9@nobody", false); !errors.Is(err, ErrConsumerNotOnline) {
		t.Errorf("running info of an unknown client: %v, want ErrConsumerNotOnline", err)
	}

	// Lag: everything consumed, once the clients have committed.
	var stats *ConsumeStats
	dev.Eventually(t, 30*time.Second, "lag drops to zero", func() error {
		stats, err = e.c.ConsumeStats(ctxT(t), e.addr, group, topic)
		if err != nil {
			return err
		}
		if len(stats.Offsets) != queues {
			return fmt.Errorf("%d queues in consume stats", len(stats.Offsets))
		}
		if lag := stats.TotalLag(); lag != 0 {
			return fmt.Errorf("lag %d", lag)
		}
		return nil
	})
	e.checkConsumerProgress(t, group, topic, stats)

	groups, err := e.c.TopicConsumerGroups(ctx, e.addr, topic)
	if err != nil || !contains(groups, group) || contains(groups, topic) {
		t.Errorf("TopicConsumerGroups = %v, %v; want %s among them", groups, err, group)
	}
	spans, err := e.c.ConsumeTimeSpan(ctx, e.addr, topic, group)
	if err != nil || len(spans) != queues {
		t.Errorf("ConsumeTimeSpan = %v, %v", spans, err)
	}
	for _, s := range spans {
		if s.MessageQueue.Topic != topic || s.MaxTimeStamp < s.MinTimeStamp {
			t.Errorf("time span %+v", s)
		}
	}
	dev.Eventually(t, 40*time.Second, "producer connection", func() error {
		pc, err := e.c.ProducerConnections(ctxT(t), e.addr, pgroup)
		if err != nil {
			return err
		}
		if len(pc) != 1 || pc[0].Language != "GO" {
			return fmt.Errorf("%+v", pc)
		}
		return nil
	})
	if _, err := e.c.ProducerConnections(ctx, e.addr, dev.UniqueName("nopg")); !errors.Is(err, ErrProducerNotOnline) {
		t.Errorf("unknown producer group: %v", err)
	}

	// Consume one message directly on one client.
	cmd, err := e.c.ConsumeMessageDirectly(ctx, e.addr, group, clientIDs[0], msgs[3].offsetMsgID, topic)
	if err != nil || cmd.ConsumeResult != "CR_SUCCESS" {
		t.Errorf("ConsumeMessageDirectly = %+v, %v", cmd, err)
	}

	if captureOn() {
		e.capture(t, "consumer_connection", CodeGetConsumerConnectionList, e.addr, map[string]string{"consumerGroup": group})
		e.capture(t, "consumer_ids", CodeGetConsumerListByGroup, e.addr, map[string]string{"consumerGroup": group})
		e.capture(t, "consume_stats", CodeGetConsumeStats, e.addr, map[string]string{"consumerGroup": group, "topic": topic})
		e.capture(t, "consume_stats_all_topics", CodeGetConsumeStats, e.addr, map[string]string{"consumerGroup": group})
		dev.Eventually(t, 30*time.Second, "running info with a body", func() error {
			// rocketmq-client-go sometimes answers without a body (see ConsumerRunningInfo).
			resp, err := e.c.call(ctxT(t), e.addr, CodeGetConsumerRunningInfo, map[string]string{"consumerGroup": group, "clientId": clientIDs[0], "jstackEnable": "false"}, nil)
			if err != nil || len(resp.Body) == 0 {
				return fmt.Errorf("%v %+v", err, resp)
			}
			writeCapture(t, e.version, "running_info_go", resp.Body)
			return nil
		})
		e.capture(t, "topic_consume_by_who", CodeQueryTopicConsumeByWho, e.addr, map[string]string{"topic": topic})
		e.capture(t, "consume_time_span", CodeQueryConsumeTimeSpan, e.addr, map[string]string{"topic": topic, "group": group})
		e.capture(t, "producer_connection", CodeGetProducerConnectionList, e.addr, map[string]string{"producerGroup": pgroup})
		e.capture(t, "consume_message_directly_go", CodeConsumeMessageDirectly, e.addr, map[string]string{"consumerGroup": group, "clientId": clientIDs[0], "msgId": msgs[4].offsetMsgID})
	}

	// Reset online, back to the start: the clients consume everything again.
	_, before1 := c1.Counts()
	_, before2 := c2.Counts()
	table, err := e.c.ResetOffset(ctx, e.addr, ResetByTimestamp(topic, group, 0, true))
	if err != nil {
		t.Fatalf("online reset: %v", err)
	}
	if len(table) != queues {
		t.Errorf("reset answered %d queues: %v", len(table), table)
	}
	for mq, off := range table {
		if off != 0 {
			t.Errorf("reset %v to %d, want 0", mq, off)
		}
	}
	dev.Eventually(t, 60*time.Second, "clients consume again after the reset", func() error {
		_, a1 := c1.Counts()
		_, a2 := c2.Counts()
		if a1+a2-before1-before2 < n {
			return fmt.Errorf("%d redeliveries of %d", a1+a2-before1-before2, n)
		}
		return nil
	})
	dev.Eventually(t, 30*time.Second, "lag back to zero after re-consuming", func() error {
		s, err := e.c.ConsumeStats(ctxT(t), e.addr, group, topic)
		if err != nil {
			return err
		}
		if lag := s.TotalLag(); lag != 0 {
			return fmt.Errorf("lag %d", lag)
		}
		return nil
	})

	// Offline: the consumers leave, more messages arrive, lag = produced - consumed.
	_ = c1.Shutdown()
	_ = c2.Shutdown()
	dev.Eventually(t, 30*time.Second, "group goes offline", func() error {
		_, err := e.c.ConsumerConnections(ctxT(t), e.addr, group)
		if errors.Is(err, ErrConsumerNotOnline) {
			return nil
		}
		return fmt.Errorf("connections: %v", err)
	})
	if _, err := e.c.ConsumerIDs(ctx, e.addr, group); !errors.Is(err, ErrConsumerNotOnline) {
		t.Errorf("ConsumerIDs of an offline group: %v", err)
	}
	const more = 7
	for i := range more {
		sendGo(t, p, topic, fmt.Sprintf("late%d", i), nil, "", nil)
	}
	// The consume queue (hence brokerOffset) is built asynchronously after
	// the send is acknowledged, so the last message may take a moment.
	dev.Eventually(t, 10*time.Second, "offline lag = produced - consumed", func() error {
		stats, err = e.c.ConsumeStats(ctxT(t), e.addr, group, topic)
		if err != nil {
			return err
		}
		if lag := stats.TotalLag(); lag != more {
			return fmt.Errorf("offline lag %d, want %d (produced %d, consumed %d)", lag, more, n+more, n)
		}
		return nil
	})
	e.checkConsumerProgress(t, group, topic, stats)

	// Update and query a consumer offset while offline.
	q0 := allQueues[0]
	target := stats.Offsets[q0].ConsumerOffset - 1
	if target < 0 {
		target = 0
	}
	if err := e.c.UpdateConsumerOffset(ctx, e.addr, group, q0, target); err != nil {
		t.Fatal(err)
	}
	if got, err := e.c.QueryConsumerOffset(ctx, e.addr, group, q0); err != nil || got != target {
		t.Errorf("QueryConsumerOffset after update = %d, %v; want %d", got, err, target)
	}
	// A group that never committed: while the queue still starts at offset
	// 0, both versions answer 0 rather than "not found".
	if never, err := e.c.QueryConsumerOffset(ctx, e.addr, dev.UniqueName("never"), q0); err != nil || never != 0 {
		t.Errorf("offset of a group that never committed on %s: %d, %v", e.version, never, err)
	}
	if _, err := e.c.ResetOffset(ctx, e.addr, ResetByTimestamp(dev.UniqueName("nosuchtopic"), group, 0, true)); !errors.Is(err, ErrTopicNotFound) {
		t.Errorf("reset on a missing topic: %v, want ErrTopicNotFound", err)
	}

	// Reset offline: 5.2+ brokers reset on the server; older ones need a
	// client online and say CONSUMER_NOT_ONLINE.
	cfg, err := e.c.BrokerConfig(ctx, e.addr)
	if err != nil {
		t.Fatal(err)
	}
	serverSide := cfg["useServerSideResetOffset"] == "true"
	_, err = e.c.ResetOffset(ctx, e.addr, ResetByTimestamp(topic, group, -1, true))
	if serverSide {
		if err != nil {
			t.Fatalf("offline reset on a server-side-reset broker: %v", err)
		}
		s, err := e.c.ConsumeStats(ctx, e.addr, group, topic)
		if err != nil || s.TotalLag() != 0 {
			t.Errorf("after resetting to the end offline: lag %v, %v", s, err)
		}
		if captureOn() { // resetting to the end again changes nothing
			e.capture(t, "reset_offset", CodeInvokeBrokerToResetOffset, e.addr, map[string]string{
				"topic": topic, "group": group, "timestamp": "-1", "isForce": "true", "queueId": "-1", "offset": "-1"})
		}
		// One queue to an exact offset (5.1+).
		tbl, err := e.c.ResetOffset(ctx, e.addr, ResetQueueToOffset(topic, group, q0.QueueID, 1))
		if err != nil || len(tbl) != 1 || tbl[q0] != 1 {
			t.Errorf("reset one queue: %v, %v", tbl, err)
		}
		if got, err := e.c.QueryConsumerOffset(ctx, e.addr, group, q0); err != nil || got != 1 {
			t.Errorf("offset after one-queue reset = %d, %v; want 1", got, err)
		}
	} else {
		if !errors.Is(err, ErrConsumerNotOnline) {
			t.Fatalf("offline reset on a client-side-reset broker: %v, want ErrConsumerNotOnline", err)
		}
		var be *BrokerError
		if !errors.As(err, &be) || be.Code != CodeConsumerNotOnline {
			t.Errorf("err = %#v, want code 206", err)
		}
		if got, err := e.c.QueryConsumerOffset(ctx, e.addr, group, q0); err != nil || got != target {
			t.Errorf("a refused reset changed the offset: %d, %v; want %d", got, err, target)
		}
		if !e.version.AtLeast(VersionOrdinal5_1_0) {
			_, err := e.c.ResetOffset(ctx, e.addr, ResetQueueToOffset(topic, group, q0.QueueID, 1))
			if !errors.Is(err, ErrNotSupported) {
				t.Errorf("one-queue reset on %s: %v, want ErrNotSupported", e.version, err)
			}
		}
	}
	if captureOn() {
		e.capture(t, "consume_stats_offline", CodeGetConsumeStats, e.addr, map[string]string{"consumerGroup": group, "topic": topic})
	}
}

// checkConsumerProgress compares ConsumeStats with mqadmin consumerProgress.
func (e *itEnv) checkConsumerProgress(t *testing.T, group, topic string, stats *ConsumeStats) {
	t.Helper()
	out, err := e.cluster.MQAdmin(ctxJVM(t), "consumerProgress", "-g", group)
	if err != nil {
		t.Fatal(err)
	}
	rows := parseTable(out, topic)
	if len(rows) != len(stats.Offsets) {
		t.Fatalf("consumerProgress shows %d queues of %s, we %d:\n%s", len(rows), topic, len(stats.Offsets), out)
	}
	for _, r := range rows {
		// #Topic #Broker Name #QID #Broker Offset #Consumer Offset #Diff ...
		qid, _ := strconv.Atoi(r[2])
		bo, _ := strconv.ParseInt(r[3], 10, 64)
		co, _ := strconv.ParseInt(r[4], 10, 64)
		diff, _ := strconv.ParseInt(r[5], 10, 64)
		o, ok := stats.Offsets[MessageQueue{Topic: topic, BrokerName: r[1], QueueID: qid}]
		if !ok || o.BrokerOffset != bo || o.ConsumerOffset != co || o.Lag() != diff {
			t.Errorf("queue %s/%d: mqadmin says broker %d consumer %d diff %d; we say %+v", r[1], qid, bo, co, diff, o)
		}
	}
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}
