package lookup

import (
	"strings"
	"testing"

	"rmqconsole/cluster"
	"rmqconsole/rocketmq"
)

// A POP group's offset past a message means popped, not consumed: the page must not
// say the group consumed a message it may never have acknowledged.
func TestGroupStateOfAPOPGroupSaysPopped(t *testing.T) {
	mq := rocketmq.MessageQueue{Topic: "T", BrokerName: "broker-a", QueueID: 0}
	m := Message{BrokerName: "broker-a", Message: &rocketmq.Message{Topic: "T", QueueID: 0, QueueOffset: 3}}
	offsets := map[string]map[string]map[int]int64{"g": {"T": {0: 5}}}
	grpc := &rocketmq.ConsumerConnection{ServerVersion: 479, ConsumeType: "CONSUME_ACTIVELY", MessageModel: "CLUSTERING",
		Connections: []rocketmq.Connection{{ClientID: "host@1@1@x", Language: "GO", Version: 479}}}
	cases := []struct {
		name string
		seen cluster.SeenConsumers
		want ConsumeState
	}{
		{"gRPC clients through a Proxy", cluster.SeenConsumers{Conns: grpc, Proxy: "127.0.0.1:8080"}, Popped},
		{"remoting POP consumers", cluster.SeenConsumers{Conns: &rocketmq.ConsumerConnection{ConsumeType: "CONSUME_POP",
			Connections: []rocketmq.Connection{{ClientID: "c", Version: 479}}}}, Popped},
		{"remoting push consumers", cluster.SeenConsumers{Conns: &rocketmq.ConsumerConnection{ConsumeType: "CONSUME_PASSIVELY",
			Connections: []rocketmq.Connection{{ClientID: "c", Version: 479}}}}, Consumed},
		{"a remoting client through the Proxy", cluster.SeenConsumers{Proxy: "127.0.0.1:8080", Conns: &rocketmq.ConsumerConnection{ServerVersion: 479,
			ConsumeType: "CONSUME_PASSIVELY", Connections: []rocketmq.Connection{{ClientID: "c", Version: 317}}}}, Consumed},
	}
	for _, c := range cases {
		seen := c.seen
		st := groupState("g", seenClients{seen: &seen}, offsets, nil, mq, m, 1, 10)
		if st.State != c.want {
			t.Errorf("%s: state %q (%s), want %q", c.name, st.State, st.Reason, c.want)
		}
		if st.State == Popped && !strings.Contains(st.Reason.String(), "not when it is acknowledged") {
			t.Errorf("%s: reason %q does not say an offset only means popped", c.name, st.Reason)
		}
	}
}
