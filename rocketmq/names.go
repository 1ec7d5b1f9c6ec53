package rocketmq

import "strings"

// Topic name prefixes RocketMQ reserves for a group's retry and dead-letter topics.
const (
	RetryTopicPrefix = "%RETRY%"
	DLQTopicPrefix   = "%DLQ%"
)

// RetryTopic is a group's retry topic, where its failed messages wait for redelivery;
// push consumers subscribe to it.
func RetryTopic(group string) string { return RetryTopicPrefix + group }

// IsRetryTopic reports whether topic is a group's retry topic.
func IsRetryTopic(topic string) bool { return strings.HasPrefix(topic, RetryTopicPrefix) }

// IsDLQTopic reports whether topic is a group's dead-letter topic.
func IsDLQTopic(topic string) bool { return strings.HasPrefix(topic, DLQTopicPrefix) }

// IsSystemTopic reports whether a topic is RocketMQ's own (retry, dead-letter, schedule,
// trace, transaction...) rather than an application's, by its name alone.
func IsSystemTopic(t string) bool {
	switch {
	case IsRetryTopic(t), IsDLQTopic(t), strings.HasPrefix(t, "%SYS%"),
		strings.HasPrefix(t, "rmq_sys_"), strings.HasPrefix(t, "RMQ_SYS_"),
		strings.HasPrefix(t, "SCHEDULE_TOPIC_"), strings.HasPrefix(t, "TRANS_"),
		strings.HasPrefix(t, "OFFSET_MOVED_EVENT"),
		t == "TBW102", t == "SELF_TEST_TOPIC", t == "BenchmarkTest", t == "DefaultCluster",
		strings.HasSuffix(t, "_REPLY_TOPIC"):
		return true
	}
	return false
}

// IsSystemTopic reports whether a topic is RocketMQ's own: a system topic by name, or
// one of the topics a broker creates for its cluster's name and its own.
func (ci *ClusterInfo) IsSystemTopic(t string) bool {
	if IsSystemTopic(t) {
		return true
	}
	if ci == nil {
		return false
	}
	_, isBroker := ci.Brokers[t]
	_, isCluster := ci.Clusters[t]
	return isBroker || isCluster
}
