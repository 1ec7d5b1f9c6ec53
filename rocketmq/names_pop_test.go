package rocketmq

import "testing"

// A POP retry topic names its group and topic; both may hold "_", so only the known
// group prefix tells where the topic starts.
func TestPopRetryTopicOf(t *testing.T) {
	cases := []struct {
		name, group, topic string
		ok                 bool
	}{
		{PopRetryTopicV1("g", "T"), "g", "T", true},
		{PopRetryTopicV2("g", "T"), "g", "T", true},
		{PopRetryTopicV1("order_svc", "pay_events"), "order_svc", "pay_events", true},
		{PopRetryTopicV2("order_svc", "pay+x"), "order_svc", "pay+x", true},
		// the group "order" must not claim order_svc's retry topic... but it cannot tell
		// "%RETRY%order_svc_T" from order's topic "svc_T": the caller asks per group.
		{PopRetryTopicV1("order_svc", "T"), "order", "svc_T", true},
		{RetryTopic("g"), "g", "", false}, // a push consumer's retry topic
		{"%RETRY%g_", "g", "", false},     // no topic
		{PopRetryTopicV1("other", "T"), "g", "", false},
		{"%DLQ%g_T", "g", "", false},
	}
	for _, c := range cases {
		got, ok := PopRetryTopicOf(c.name, c.group)
		if got != c.topic || ok != c.ok {
			t.Errorf("PopRetryTopicOf(%q, %q) = %q, %v; want %q, %v", c.name, c.group, got, ok, c.topic, c.ok)
		}
	}
}
