package rocketmq

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"

	"rmqconsole/dev"
)

// capturedOps calls the operation that decodes each captured body and
// checks what a page would show from it. The bodies are raw replies of real
// brokers (testdata/captured/<version>/<op>.json, written by the
// integration tests with RMQC_CAPTURE=1), replayed by a fake server, so
// decoding is tested offline on exactly what brokers send.
var capturedOps = map[string]func(c *Client, addr string) error{
	"cluster_info": func(c *Client, _ string) error {
		ci, err := c.ClusterInfo(bg())
		if err != nil {
			return err
		}
		if len(ci.Brokers) == 0 || len(ci.Clusters) == 0 {
			return fmt.Errorf("empty: %+v", ci)
		}
		for name, b := range ci.Brokers {
			if a, ok := b.MasterAddr(); !ok || !strings.Contains(a, ":") || b.BrokerName != name {
				return fmt.Errorf("broker %s: %+v", name, b)
			}
		}
		return nil
	},
	"broker_consume_stats": func(c *Client, addr string) error {
		s, err := c.BrokerConsumeStats(bg(), addr)
		if err != nil || s.BrokerAddr == "" || len(s.Groups) == 0 {
			return fmt.Errorf("%+v %v", s, err)
		}
		queues := 0
		for g, cs := range s.Groups {
			for mq, o := range cs.Offsets {
				if mq.Topic == "" || mq.BrokerName == "" || o.ConsumerOffset > o.BrokerOffset {
					return fmt.Errorf("%s %v: %+v", g, mq, o)
				}
				queues++
			}
		}
		if queues == 0 {
			return fmt.Errorf("no group has offsets: %+v", s.Groups)
		}
		return nil
	},
	"consumer_offsets": func(c *Client, addr string) error {
		t, err := c.ConsumerOffsets(bg(), addr)
		if err != nil || len(t) == 0 {
			return fmt.Errorf("%v %v", t, err)
		}
		for g, byTopic := range t {
			for topic, qs := range byTopic {
				if g == "" || topic == "" || len(qs) == 0 {
					return fmt.Errorf("%q %q: %v", g, topic, qs)
				}
			}
		}
		return nil
	},
	"route":        checkRoute,
	"route_legacy": checkRoute,
	"topic_list": func(c *Client, _ string) error {
		tl, err := c.TopicList(bg())
		if err != nil || len(tl) == 0 {
			return fmt.Errorf("%v %v", tl, err)
		}
		return nil
	},
	"topic_configs": func(c *Client, addr string) error {
		tc, err := c.TopicConfigs(bg(), addr)
		if err != nil || len(tc.Topics) == 0 || tc.DataVersion.Timestamp == 0 {
			return fmt.Errorf("%+v %v", tc, err)
		}
		for name, cfg := range tc.Topics {
			if cfg.TopicName != name || cfg.Perm == 0 {
				return fmt.Errorf("topic %s: %+v", name, cfg)
			}
		}
		return nil
	},
	"topic_stats": func(c *Client, addr string) error {
		s, err := c.TopicStats(bg(), addr, "T")
		if err != nil || len(s.Offsets) == 0 {
			return fmt.Errorf("%+v %v", s, err)
		}
		var total int64
		for mq, o := range s.Offsets {
			if mq.Topic == "" || mq.BrokerName == "" || o.MaxOffset < o.MinOffset {
				return fmt.Errorf("%v: %+v", mq, o)
			}
			total += o.MaxOffset
		}
		if total == 0 {
			return fmt.Errorf("no messages in %+v", s.Offsets)
		}
		return nil
	},
	"runtime_info": func(c *Client, addr string) error {
		ri, err := c.BrokerRuntimeInfo(bg(), addr)
		if err != nil {
			return err
		}
		v := ri.Version()
		if v.Ordinal < 300 || !strings.HasPrefix(v.Name, "V") {
			return fmt.Errorf("version %+v", v)
		}
		if _, ok := ri.CommitLogDiskRatio(); !ok {
			return fmt.Errorf("no commitLogDiskRatio in %v", keysOf(ri.Table))
		}
		if _, ok := ri.Float("putTps"); !ok {
			return fmt.Errorf("putTps %q", ri.Table["putTps"])
		}
		return nil
	},
	"subscription_groups": func(c *Client, addr string) error {
		sg, err := c.SubscriptionGroups(bg(), addr)
		if err != nil {
			return err
		}
		tools, ok := sg.Groups[ToolsConsumerGroup]
		if !ok || !tools.ConsumeEnable || tools.RetryMaxTimes == 0 {
			return fmt.Errorf("TOOLS_CONSUMER: %+v (groups %v)", tools, keysOf(sg.Groups))
		}
		for name, g := range sg.Groups {
			if g.GroupName != name {
				return fmt.Errorf("group %s named %q", name, g.GroupName)
			}
		}
		return nil
	},
	"consumer_connection": func(c *Client, addr string) error {
		cc, err := c.ConsumerConnections(bg(), addr, "g")
		if err != nil || len(cc.Connections) == 0 || cc.ConsumeType == "" || cc.MessageModel == "" || len(cc.Subscriptions) == 0 {
			return fmt.Errorf("%+v %v", cc, err)
		}
		return nil
	},
	"consumer_ids": func(c *Client, addr string) error {
		ids, err := c.ConsumerIDs(bg(), addr, "g")
		if err != nil || len(ids) == 0 || !strings.Contains(ids[0], "@") {
			return fmt.Errorf("%v %v", ids, err)
		}
		return nil
	},
	"consume_stats":            checkConsumeStats,
	"consume_stats_all_topics": checkConsumeStats,
	"consume_stats_offline":    checkConsumeStats,
	"running_info_go": func(c *Client, addr string) error {
		ri, err := c.ConsumerRunningInfo(bg(), addr, "g", "cid", false)
		if err != nil {
			return err
		}
		if len(ri.MQTable) == 0 || ri.ConsumeType() == "" || len(ri.Subscriptions) == 0 || len(ri.StatusTable) == 0 {
			return fmt.Errorf("%+v", ri)
		}
		for mq := range ri.MQTable {
			if mq.Topic == "" || mq.BrokerName == "" {
				return fmt.Errorf("queue %+v", mq)
			}
		}
		return nil
	},
	"topic_consume_by_who": func(c *Client, addr string) error {
		g, err := c.TopicConsumerGroups(bg(), addr, "T")
		if err != nil || len(g) == 0 {
			return fmt.Errorf("%v %v", g, err)
		}
		return nil
	},
	"consume_time_span": func(c *Client, addr string) error {
		s, err := c.ConsumeTimeSpan(bg(), addr, "T", "g")
		if err != nil || len(s) == 0 || s[0].MessageQueue.Topic == "" || s[0].MaxTimeStamp == 0 {
			return fmt.Errorf("%+v %v", s, err)
		}
		return nil
	},
	"producer_connection": func(c *Client, addr string) error {
		pc, err := c.ProducerConnections(bg(), addr, "pg")
		if err != nil || len(pc) == 0 || pc[0].ClientID == "" {
			return fmt.Errorf("%+v %v", pc, err)
		}
		return nil
	},
	"consume_message_directly_go": func(c *Client, addr string) error {
		r, err := c.ConsumeMessageDirectly(bg(), addr, "g", "cid", "id", "T")
		if err != nil || !contains(cmResults, r.ConsumeResult) {
			return fmt.Errorf("%+v %v", r, err)
		}
		return nil
	},
	"reset_offset": func(c *Client, addr string) error {
		t, err := c.ResetOffset(bg(), addr, ResetByTimestamp("T", "g", -1, true))
		if err != nil || len(t) == 0 {
			return fmt.Errorf("%v %v", t, err)
		}
		for mq := range t {
			if mq.Topic == "" {
				return fmt.Errorf("queue %+v", mq)
			}
		}
		return nil
	},
}

func checkRoute(c *Client, _ string) error {
	r, err := c.TopicRoute(bg(), "T")
	if err != nil {
		return err
	}
	if len(r.ReadQueues()) == 0 || len(r.BrokerDatas) == 0 {
		return fmt.Errorf("%+v", r)
	}
	for _, qd := range r.QueueDatas {
		if _, ok := r.MasterAddr(qd.BrokerName); !ok {
			return fmt.Errorf("no master for %s in %+v", qd.BrokerName, r.BrokerDatas)
		}
	}
	return nil
}

func checkConsumeStats(c *Client, addr string) error {
	s, err := c.ConsumeStats(bg(), addr, "g", "")
	if err != nil || len(s.Offsets) == 0 {
		return fmt.Errorf("%+v %v", s, err)
	}
	for mq, o := range s.Offsets {
		if mq.Topic == "" || mq.BrokerName == "" || o.BrokerOffset < 0 || o.ConsumerOffset < 0 {
			return fmt.Errorf("%v: %+v", mq, o)
		}
	}
	return nil
}

// replayServer answers every request with SUCCESS and the same body.
func replayServer(t *testing.T, body []byte) string {
	srv := startFake(t, func(_ int, c net.Conn) {
		for {
			req, err := readFrame(c)
			if err != nil {
				return
			}
			if send(c, reply(req, CodeSuccess, nil, body)) != nil {
				return
			}
		}
	})
	return srv.addr()
}

func TestCapturedReplies(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "captured", "*", "*.json"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Skip("no captured replies; run the integration tests with RMQC_CAPTURE=1")
	}
	versions := map[string]int{}
	for _, f := range files {
		version := filepath.Base(filepath.Dir(f))
		op := strings.TrimSuffix(filepath.Base(f), ".json")
		versions[version]++
		t.Run(version+"/"+op, func(t *testing.T) {
			body, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			norm, err := NormalizeJSON(body)
			if err != nil {
				t.Fatalf("NormalizeJSON: %v", err)
			}
			if !json.Valid(norm) {
				t.Fatal("NormalizeJSON returned invalid JSON")
			}
			check, ok := capturedOps[op]
			if !ok {
				t.Fatalf("no decoding check for captured op %q", op)
			}
			addr := replayServer(t, body)
			c := newTestClient(t, addr)
			if err := check(c, addr); err != nil {
				t.Fatal(err)
			}
		})
	}
	for _, v := range []string{dev.DefaultVersion, dev.Version4} {
		if versions[v] == 0 {
			t.Errorf("no captured replies of RocketMQ %s; run the integration tests with RMQC_CAPTURE=1 against it", v)
		}
	}
}

func bg() context.Context { return context.Background() }

// Java writes "droped", the Go client "dropped"; either sets Dropped, and
// rates written as null (NaN in Java) read as 0.
func TestRunningInfoSpellings(t *testing.T) {
	body := []byte(`{"properties":{"a":"b"},"mqTable":{{"brokerName":"b","queueId":1,"topic":"T"}:{"droped":true,"commitOffset":5},` +
		`{"brokerName":"b","queueId":2,"topic":"T"}:{"dropped":true},{"brokerName":"b","queueId":3,"topic":"T"}:{"droped":false}},` +
		`"statusTable":{"T":{"pullRT":null,"pullTPS":1.5,"consumeFailedMsgs":3}}}`)
	info, err := decodeConsumerRunningInfo(body)
	if err != nil {
		t.Fatal(err)
	}
	q := func(id int) ProcessQueueInfo {
		return info.MQTable[MessageQueue{Topic: "T", BrokerName: "b", QueueID: id}]
	}
	if !q(1).Dropped || q(1).CommitOffset != 5 || !q(2).Dropped || q(3).Dropped {
		t.Errorf("mqTable %+v", info.MQTable)
	}
	if st := info.StatusTable["T"]; st.PullRT != 0 || st.PullTPS != 1.5 || st.ConsumeFailedMsgs != 3 {
		t.Errorf("status %+v", st)
	}
}

// A broker's topic config table read again unchanged is the table decoded before (the
// same one, not decoded again); a changed answer is decoded afresh.
func TestUnchangedTopicConfigsAreDecodedOnce(t *testing.T) {
	bodies := []string{
		`{"dataVersion":{"timestamp":1,"counter":1},"topicConfigTable":{"A":{"topicName":"A","perm":6}}}`,
		`{"dataVersion":{"timestamp":1,"counter":1},"topicConfigTable":{"A":{"topicName":"A","perm":6}}}`,
		`{"dataVersion":{"timestamp":2,"counter":2},"topicConfigTable":{"A":{"topicName":"A","perm":6},"B":{"topicName":"B","perm":6}}}`,
	}
	decodedOnce(t, bodies, func(c *Client, addr string) (any, int, error) {
		ct, err := c.TopicConfigs(bg(), addr)
		if err != nil {
			return nil, 0, err
		}
		return ct, len(ct.Topics), nil
	})
}

// So are the names of a broker's subscription groups.
func TestUnchangedSubscriptionGroupNamesAreReadOnce(t *testing.T) {
	bodies := []string{
		`{"dataVersion":{"timestamp":1,"counter":1},"subscriptionGroupTable":{"g":{"groupName":"g","consumeEnable":true}}}`,
		`{"dataVersion":{"timestamp":1,"counter":1},"subscriptionGroupTable":{"g":{"groupName":"g","consumeEnable":true}}}`,
		`{"dataVersion":{"timestamp":2,"counter":2},"subscriptionGroupTable":{"g":{"groupName":"g"},"h":{"groupName":"h"}}}`,
	}
	decodedOnce(t, bodies, func(c *Client, addr string) (any, int, error) {
		names, err := c.SubscriptionGroupNames(bg(), addr)
		if err != nil {
			return nil, 0, err
		}
		return reflect.ValueOf(names).UnsafePointer(), len(names), nil
	})
}

// decodedOnce has a broker answer bodies in turn (the first two the same) to read, and
// checks the second read is the value decoded by the first, the third a new one of two
// entries.
func decodedOnce(t *testing.T, bodies []string, read func(c *Client, addr string) (v any, entries int, err error)) {
	t.Helper()
	var n atomic.Int32
	srv := startFake(t, func(_ int, c net.Conn) {
		for {
			req, err := readFrame(c)
			if err != nil {
				return
			}
			body := bodies[min(int(n.Add(1))-1, len(bodies)-1)]
			if send(c, reply(req, CodeSuccess, nil, []byte(body))) != nil {
				return
			}
		}
	})
	c := newTestClient(t, srv.addr())
	first, _, err := read(c, srv.addr())
	if err != nil {
		t.Fatal(err)
	}
	again, _, err := read(c, srv.addr())
	if err != nil || again != first {
		t.Fatalf("the same answer read again: %p, want the table decoded first (%p), %v", again, first, err)
	}
	changed, entries, err := read(c, srv.addr())
	if err != nil || changed == first || entries != 2 {
		t.Fatalf("a changed answer: %+v, %v; want it decoded afresh", changed, err)
	}
}
