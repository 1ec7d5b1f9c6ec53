package groups

import (
	"time"

	"rmqconsole/cluster/clustertest"
	"rmqconsole/rocketmq"
)

// scenario builds the groups' situations on the one fake cluster: broker-a at
// 10.0.0.1:10911, topics, a group's clients and offsets. Real RocketMQ behaviour is
// checked by the integration tests; this drives the service's own logic.
type scenario struct{ *clustertest.Fake }

func newScenario() scenario {
	f := clustertest.New()
	f.AddBroker("broker-a", "10.0.0.1:10911")
	return scenario{f}
}

// setTopic gives topic readable queues on each broker named.
func (f scenario) setTopic(topic string, brokerQueues map[string]int) {
	for b, n := range brokerQueues {
		f.AddTopic(topic, n, b)
	}
}

// group returns the named group, adding it (configured on every broker) if needed.
func (f scenario) group(name string) {
	f.AddGroupIfMissing(&clustertest.Group{Name: name})
}

type clientSpec struct {
	topics   []string
	holds    []rocketmq.MessageQueue
	strategy string
	orderly  bool
}

// setClients puts clients online in group, each subscribing to topics and holding the
// queues given.
func (f scenario) setClients(group string, clients map[string]clientSpec) {
	f.group(group)
	var cs []clustertest.Client
	for id, spec := range clients {
		cs = append(cs, clustertest.Client{ID: id, Topics: spec.topics, Holds: spec.holds, Strategy: spec.strategy, Orderly: spec.orderly})
	}
	f.SetClients(group, cs...)
}

// setOffsets gives the queues of topic on broker their max offset (by storing messages)
// and group's committed offset: per queue id, {max, committed}.
func (f scenario) setOffsets(group, broker, topic string, offsets map[int][2]int64) {
	f.group(group)
	for qid, o := range offsets {
		q := mq(topic, broker, qid)
		for f.MaxOffset(q) < o[0] {
			f.Put(topic, broker, qid, clustertest.NewMessage("", "", nil, "", time.UnixMilli(1_700_000_000_000)))
		}
		f.SetOffset(group, q, o[1])
	}
}

func mq(topic, broker string, id int) rocketmq.MessageQueue {
	return rocketmq.MessageQueue{Topic: topic, BrokerName: broker, QueueID: id}
}

func queues(topic, broker string, ids ...int) []rocketmq.MessageQueue {
	var out []rocketmq.MessageQueue
	for _, id := range ids {
		out = append(out, mq(topic, broker, id))
	}
	return out
}
