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

// DLQTopic is a group's dead-letter topic, where a message goes once it failed more
// often than the group's max reconsume times; the broker creates it with the first.
func DLQTopic(group string) string { return DLQTopicPrefix + group }

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

// systemGroups are the consumer groups brokers create for themselves and RocketMQ's tools
// (MixAll's predefined groups).
var systemGroups = map[string]bool{
	"DEFAULT_CONSUMER":      true,
	"DEFAULT_PRODUCER":      true,
	"TOOLS_CONSUMER":        true,
	"SCHEDULE_CONSUMER":     true,
	"FILTERSRV_CONSUMER":    true,
	"__MONITOR_CONSUMER":    true,
	"CLIENT_INNER_PRODUCER": true,
	"SELF_TEST_P_GROUP":     true,
	"SELF_TEST_C_GROUP":     true,
	"CID_ONS-HTTP-PROXY":    true,
	"CID_ONSAPI_PERMISSION": true,
	"CID_ONSAPI_OWNER":      true,
	"CID_ONSAPI_PULL":       true,
}

// IsSystemGroup reports whether a consumer group is RocketMQ's own rather than an
// application's: the predefined groups and the CID_RMQ_SYS_ family.
func IsSystemGroup(group string) bool {
	return systemGroups[group] || strings.HasPrefix(group, "CID_RMQ_SYS_") || strings.HasPrefix(group, "CID_SYS_RMQ_")
}

// IsBrokerInternalTopic reports whether a topic is one the brokers use for themselves
// (scheduling, transactions, timers, tracing, the default topic, ...): a system topic by
// name that is not a group's retry or dead-letter topic.
func IsBrokerInternalTopic(t string) bool {
	return IsSystemTopic(t) && !IsRetryTopic(t) && !IsDLQTopic(t)
}

// MaxNameLen is the longest topic or group name the console accepts, RocketMQ's
// character limit for names.
const MaxNameLen = 255

// ValidNameChar reports whether r may appear in a topic or group name (TopicValidator:
// letters, digits, '%', '|', '-', '_').
func ValidNameChar(r rune) bool {
	return r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '%' || r == '|' || r == '-' || r == '_'
}

// PopRetryTopicV1 is where a broker revives the messages a POP consumer of group took
// from topic and did not acknowledge within their invisible time (the default naming,
// "%RETRY%<group>_<topic>").
func PopRetryTopicV1(group, topic string) string { return RetryTopicPrefix + group + "_" + topic }

// PopRetryTopicV2 is PopRetryTopicV1's name on brokers with enableRetryTopicV2
// ("%RETRY%<group>+<topic>").
func PopRetryTopicV2(group, topic string) string { return RetryTopicPrefix + group + "+" + topic }

// PopRetryTopicOf returns the topic whose POP retry topic name is, for group. Names are
// parsed by the known "%RETRY%<group>_" or "%RETRY%<group>+" prefix, never by splitting
// on "_": group and topic names may both contain it. The group's own retry topic
// ("%RETRY%<group>", push consumers') is not a POP retry topic.
func PopRetryTopicOf(name, group string) (string, bool) {
	for _, sep := range []string{"_", "+"} {
		if t, ok := strings.CutPrefix(name, RetryTopicPrefix+group+sep); ok && t != "" {
			return t, true
		}
	}
	return "", false
}
