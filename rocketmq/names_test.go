package rocketmq

import "testing"

func TestTopicNames(t *testing.T) {
	ci := &ClusterInfo{Brokers: map[string]BrokerData{"broker-a": {}}, Clusters: map[string][]string{"DefaultCluster": {"broker-a"}}}
	for _, c := range []struct {
		topic              string
		retry, dlq, system bool
		clusterOwn         bool
	}{
		{topic: "orders"},
		{topic: "%RETRY%billing", retry: true, system: true, clusterOwn: true},
		{topic: "%DLQ%billing", dlq: true, system: true, clusterOwn: true},
		{topic: "SCHEDULE_TOPIC_XXXX", system: true, clusterOwn: true},
		{topic: "RMQ_SYS_TRACE_TOPIC", system: true, clusterOwn: true},
		{topic: "rmq_sys_wheel_timer", system: true, clusterOwn: true},
		{topic: "TBW102", system: true, clusterOwn: true},
		{topic: "DefaultCluster_REPLY_TOPIC", system: true, clusterOwn: true},
		{topic: "broker-a", clusterOwn: true},
	} {
		if IsRetryTopic(c.topic) != c.retry || IsDLQTopic(c.topic) != c.dlq || IsSystemTopic(c.topic) != c.system || ci.IsSystemTopic(c.topic) != c.clusterOwn {
			t.Errorf("%s: retry %v dlq %v system %v cluster's own %v; want %v %v %v %v", c.topic,
				IsRetryTopic(c.topic), IsDLQTopic(c.topic), IsSystemTopic(c.topic), ci.IsSystemTopic(c.topic), c.retry, c.dlq, c.system, c.clusterOwn)
		}
	}
	if RetryTopic("g") != "%RETRY%g" {
		t.Errorf("RetryTopic(g) = %q", RetryTopic("g"))
	}
	var none *ClusterInfo
	if none.IsSystemTopic("broker-a") || !none.IsSystemTopic("TBW102") {
		t.Error("without cluster info only names decide")
	}
}
