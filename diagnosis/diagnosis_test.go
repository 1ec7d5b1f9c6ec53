package diagnosis

import (
	"testing"
	"time"

	"rmqconsole/groups"
	"rmqconsole/i18n"
)

// read is one collector read of one group with one queue: broker and committed offset.
func read(at time.Time, online bool, broker, consumer int64) *groups.List {
	lag := broker - consumer
	return &groups.List{CheckedAt: at, Groups: []groups.Summary{{Group: "g", Online: online, Clients: 1, TotalLag: &lag,
		Queues: []groups.QueueLag{{Topic: "t", BrokerName: "b", QueueID: 0, BrokerOffset: &broker, ConsumerOffset: &consumer}}}}}
}

func kinds(e *Engine) []string {
	fs, _ := e.Findings()
	var out []string
	for _, f := range fs {
		out = append(out, f.Kind)
	}
	return out
}

func TestAGroupWhoseOffsetsStandStillWhileLagGrowsIsStuckOnlyAfterStuckAfter(t *testing.T) {
	e := New(Options{StuckAfter: 60 * time.Second, SlowOver: 90 * time.Second})
	t0 := time.Date(2026, 12, 6, 10, 0, 0, 0, time.UTC)
	e.Observe(t.Context(), read(t0, true, 100, 100))
	e.Observe(t.Context(), read(t0.Add(30*time.Second), true, 160, 100))
	if k := kinds(e); len(k) != 0 {
		t.Fatalf("after 30 s without progress: %v, want nothing yet", k)
	}
	e.Observe(t.Context(), read(t0.Add(60*time.Second), true, 220, 100))
	fs, _ := e.Findings()
	if len(fs) != 1 || fs[0].Kind != KindStuck || fs[0].Severity != Critical || !fs[0].Since.Equal(t0) {
		t.Fatalf("after 60 s without progress: %+v, want consumerStuck since %v", fs, t0)
	}
	if got := i18n.Match("en").Say(fs[0].Evidence); got != "Lag 120 grew by 120 in 1m while no committed offset moved (online clients: 1). Check the clients' consume threads (a blocked or failing listener)." {
		t.Errorf("evidence %q", got)
	}
	// The listener is released: offsets move, the finding goes.
	e.Observe(t.Context(), read(t0.Add(90*time.Second), true, 230, 230))
	if k := kinds(e); len(k) != 0 {
		t.Fatalf("after the offsets moved: %v, want nothing", k)
	}
}

func TestOfflineOrSteadyGroupsAreNotStuck(t *testing.T) {
	e := New(Options{StuckAfter: 60 * time.Second})
	t0 := time.Now()
	for i := range 5 {
		e.Observe(t.Context(), read(t0.Add(time.Duration(i)*30*time.Second), false, 100+int64(i)*50, 100))
	}
	if k := kinds(e); len(k) != 0 {
		t.Fatalf("offline group: %v, want nothing (no client to be stuck)", k)
	}
	e = New(Options{StuckAfter: 60 * time.Second})
	for i := range 5 {
		e.Observe(t.Context(), read(t0.Add(time.Duration(i)*30*time.Second), true, 108, 100))
	}
	if k := kinds(e); len(k) != 0 {
		t.Fatalf("online group holding a steady lag of 8: %v, want nothing", k)
	}
}

func TestAGroupConsumingSlowerThanMessagesArriveIsSlow(t *testing.T) {
	e := New(Options{StuckAfter: 60 * time.Second, SlowOver: 90 * time.Second})
	t0 := time.Now()
	// 10 messages/s arrive, 4/s are consumed.
	for i := range 4 {
		s := int64(i) * 30
		e.Observe(t.Context(), read(t0.Add(time.Duration(s)*time.Second), true, 1000+10*s, 1000+4*s))
	}
	fs, _ := e.Findings()
	if len(fs) != 1 || fs[0].Kind != KindSlow || fs[0].Severity != Warning {
		t.Fatalf("findings %+v, want slowConsumer", fs)
	}
	if got := i18n.Match("en").Say(fs[0].Evidence); got != "Lag grew from 0 to 540 in 1m30s: consuming 4.0/s while 10.0/s arrive. Add clients (up to the number of queues) or speed up the listener." {
		t.Errorf("evidence %q", got)
	}
	// The consumer catches up: lag no longer grows, the finding goes.
	e.Observe(t.Context(), read(t0.Add(120*time.Second), true, 2200, 2200))
	if k := kinds(e); len(k) != 0 {
		t.Fatalf("after catching up: %v, want nothing", k)
	}
}
