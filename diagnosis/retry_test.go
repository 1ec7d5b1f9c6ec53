package diagnosis

import (
	"testing"
	"time"

	"rmqconsole/groups"
	"rmqconsole/i18n"
)

// retryRead is one read of group g: one queue of its topic, caught up, and one queue of
// its retry topic with max offset written and retried consumed.
func retryRead(at time.Time, written, consumed int64) *groups.List {
	lag := written - consumed
	return &groups.List{CheckedAt: at, Groups: []groups.Summary{{Group: "g", Online: true, Clients: 1, TotalLag: &lag, Queues: []groups.QueueLag{
		queue("t", 0, 100, i64(100), nil),
		{Topic: "%RETRY%g", BrokerName: "b", QueueID: 0, BrokerOffset: &written, ConsumerOffset: &consumed, Lag: &lag, Retry: true},
	}}}}
}

// A retry topic that receives more than RetryPerMinute messages a minute over at least
// RetryOver is a retry storm: a warning with the rate, the topic's size and what waits,
// linking to the group. One burst within a shorter span, or a rate at the threshold, is
// none; the storm goes once the retry topic stops growing fast.
func TestARetryTopicGrowingFastIsARetryStorm(t *testing.T) {
	e := New(Options{RetryPerMinute: 600, RetryOver: 60 * time.Second})
	t0 := time.Date(2026, 12, 6, 10, 0, 0, 0, time.UTC)
	e.Observe(t.Context(), retryRead(t0, 1000, 1000))
	e.Observe(t.Context(), retryRead(t0.Add(30*time.Second), 2000, 1500))
	if k := kinds(e); len(k) != 0 {
		t.Fatalf("after 30 s: %v, want nothing before a minute of reads", k)
	}
	// 600 a minute exactly: not more than the threshold.
	e = New(Options{RetryPerMinute: 600, RetryOver: 60 * time.Second})
	// 300 wait all along: the lag does not grow, so the group is not slow.
	e.Observe(t.Context(), retryRead(t0, 1000, 700))
	e.Observe(t.Context(), retryRead(t0.Add(30*time.Second), 1300, 1000))
	e.Observe(t.Context(), retryRead(t0.Add(60*time.Second), 1600, 1300))
	if k := kinds(e); len(k) != 0 {
		t.Fatalf("600 a minute: %v, want nothing", k)
	}
	e.Observe(t.Context(), retryRead(t0.Add(90*time.Second), 2200, 1900))
	fs, _ := e.Findings()
	if len(fs) != 1 || fs[0].Kind != KindRetryStorm || fs[0].Severity != Warning || fs[0].Action != "/groups/g" || fs[0].ActionKind != "group" {
		t.Fatalf("900 messages in 60 s: %+v, want retryStorm linking to the group", fs)
	}
	if got, want := i18n.Match("en").Say(fs[0].Evidence), "The retry topic %RETRY%g received 900 messages in 1m (900 a minute, more than 600): each is a consume that failed and will be delivered again. 300 wait to be retried; 2200 were written to it in all. Find the listener's failure in the clients' logs (an exception, a dependency down)."; got != want {
		t.Errorf("evidence %q, want %q", got, want)
	}
	if got := i18n.Match("zh-CN").Say(fs[0].Evidence); got == "" || got == i18n.Match("en").Say(fs[0].Evidence) {
		t.Errorf("Chinese evidence %q", got)
	}
	// The listener is fixed: a few retries a minute, the storm goes.
	e.Observe(t.Context(), retryRead(t0.Add(120*time.Second), 2210, 2210))
	e.Observe(t.Context(), retryRead(t0.Add(150*time.Second), 2215, 2215))
	if k := kinds(e); len(k) != 0 {
		t.Fatalf("after the retries slowed: %v, want nothing", k)
	}
}
