package resets

import (
	"context"
	"strings"
	"testing"
	"time"

	"rmqconsole/i18n"
)

// RocketMQ's own groups and the brokers' own topics are refused with a sentence, before
// any broker is asked; a group's own retry topic may be reset, and the preview says what
// that does.
func TestResetRefusesSystemGroupsAndInternalTopics(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	_, _ = e.svc.cluster.Info(ctx)
	for _, tc := range []struct {
		group, topic, field, says string
	}{
		{"TOOLS_CONSUMER", "t", "group", "one of RocketMQ's own consumer groups"},
		{"CID_RMQ_SYS_TRANS", "t", "group", "one of RocketMQ's own consumer groups"},
		{"g", "SCHEDULE_TOPIC_XXXX", "topic", "one of the brokers' own topics"},
		{"g", "TBW102", "topic", "one of the brokers' own topics"},
		{"g", "RMQ_SYS_TRANS_HALF_TOPIC", "topic", "one of the brokers' own topics"},
		{"g", "%RETRY%other", "topic", "the retry topic of group other, not of g"},
		{"g", "DefaultCluster", "topic", "one of the brokers' own topics"},
		{"g", "broker-a", "topic", "the brokers create for their cluster or broker name"},
	} {
		before := e.fake.TotalCalls()
		_, err := e.svc.Plan(ctx, Request{Group: tc.group, Topic: tc.topic, Mode: ModeLatest, QueueID: AllQueues})
		if !strings.Contains(inputOn(err, tc.field), tc.says) {
			t.Errorf("%s on %s: %v, want %q on %s", tc.group, tc.topic, err, tc.says, tc.field)
		}
		// Only the cluster info (to tell a broker's name) may be read.
		if n := e.fake.TotalCalls() - before - e.fake.Calls()["ClusterInfo"]; n > 0 {
			t.Errorf("%s on %s asked the brokers (%d calls)", tc.group, tc.topic, n)
		}
	}
	if e.fake.Writes() != 0 {
		t.Fatal("a refused reset changed offsets")
	}

	// The group's own retry topic: allowed, and the preview says what it holds.
	e.addTopic("%RETRY%g", "broker-a", 1, 5, 2)
	p := e.plan(t, Request{Group: "g", Topic: "%RETRY%g", Mode: ModeLatest, QueueID: AllQueues})
	if len(p.Queues) != 1 || p.Queues[0].Target != 5 || !strings.Contains(i18n.TextOf(p.Warnings...).String(), "is group g's own retry topic") {
		t.Errorf("own retry topic: queues %+v warnings %q", p.Queues, p.Warnings)
	}
}

// A broker killed a moment ago is gone from the route: the preview names it and says its
// queues are not in it, instead of "Reset 4 queues" with no word.
func TestPreviewNamesABrokerGoneFromTheRoute(t *testing.T) {
	e := newEnv(t, func(e *env) {
		e.fake.AddBroker("broker-b", "127.0.0.1:2")
		e.addTopic("t", "broker-b", 2, 10, 6)
	})
	req := Request{Group: "g", Topic: "t", Mode: ModeEarliest, QueueID: AllQueues}
	if p := e.plan(t, req); len(p.Queues) != 6 || len(p.Failures) != 0 {
		t.Fatalf("both brokers up: %d queues, failures %v", len(p.Queues), p.Failures)
	}
	e.fake.RemoveBroker("broker-b")
	for _, topic := range []string{"t", ""} {
		req.Topic = topic
		p := e.plan(t, req)
		if len(p.Queues) != 4 {
			t.Errorf("topic %q: %d queues, want broker-a's 4", topic, len(p.Queues))
		}
		if len(p.Failures) != 1 || p.Failures[0].Broker != "broker-b" || !p.Failures[0].Gone() {
			t.Errorf("topic %q: failures %v, want broker-b gone from the route", topic, p.Failures)
		}
		if w := i18n.TextOf(p.Warnings...).String(); !strings.Contains(w, "Broker broker-b (127.0.0.1:2) served topic t at") || !strings.Contains(w, "not in this preview") {
			t.Errorf("topic %q: warnings %q", topic, w)
		}
	}
}

// A frozen broker costs the preview one timeout: every independent question is asked at
// once, and a broker that did not answer is not asked again.
func TestPreviewWaitsForASilentBrokerOnce(t *testing.T) {
	for _, topic := range []string{"t", ""} {
		e := newEnv(t, func(e *env) {
			e.fake.AddBroker("broker-b", "127.0.0.1:2")
			e.addTopic("t", "broker-b", 2, 10, 6)
		})
		e.fake.CallTimeout = 50 * time.Millisecond
		e.fake.Silent("broker-b")
		p := e.plan(t, Request{Group: "g", Topic: topic, Mode: ModeTimestamp, Timestamp: e.base.Add(3 * time.Second), QueueID: AllQueues})
		if len(p.Queues) != 4 || len(p.Failures) == 0 || p.Failures[0].Broker != "broker-b" {
			t.Errorf("topic %q: %d queues, failures %v", topic, len(p.Queues), p.Failures)
		}
		if n := e.fake.AskedAgain("broker-b"); n != 0 {
			t.Errorf("topic %q: broker-b was asked %d more time(s) after it timed out: the preview waits that many timeouts more", topic, n)
		}
	}
}
