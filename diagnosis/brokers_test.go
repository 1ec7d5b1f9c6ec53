package diagnosis

import (
	"context"
	"errors"
	"testing"
	"time"

	"rmqconsole/brokers"
	"rmqconsole/groups"
	"rmqconsole/i18n"
)

// runtimes answers fixed broker figures, or err.
type runtimes struct {
	rs  []brokers.Runtime
	err error
}

func (r *runtimes) List(context.Context, bool) (*brokers.List, error) {
	if r.err != nil {
		return nil, r.err
	}
	return &brokers.List{Brokers: r.rs}, nil
}

// A broker process whose commit log's disk is used at or past DiskRatio has a full disk,
// and one whose page-cache lock or send queue's wait reaches the broker's busy limits is
// in flow control: critical findings about the broker, linking to its page, and found
// on it alone. Below the thresholds, unanswered or gone, there is none.
func TestBrokersNearTheirDiskOrBusyLimitsAreFound(t *testing.T) {
	at := time.Date(2026, 12, 6, 10, 0, 0, 0, time.UTC)
	rt := &runtimes{rs: []brokers.Runtime{
		{Name: "broker-a", Addr: "10.0.0.1:10911", Role: "master", DiskRatio: 0.85},                            // at the default disk limit
		{Name: "broker-a", Addr: "10.0.0.2:10911", Role: "slave", DiskRatio: 0.849},                            // below it
		{Name: "broker-b", Addr: "10.0.0.3:10911", Role: "master", PageCacheLockMs: 999, SendQueueWaitMs: 200}, // send queue at its limit
		{Name: "broker-c", Addr: "10.0.0.4:10911", Role: "master", PageCacheLockMs: 1000},                      // page cache at its limit
		{Name: "broker-d", Addr: "10.0.0.5:10911", Role: "master", PageCacheLockMs: 999, SendQueueWaitMs: 199, DiskRatio: 0.5},
		{Name: "broker-e", Addr: "10.0.0.6:10911", Role: "master", DiskRatio: 0.99, Error: "timeout"},
	}}
	e := New(Options{Brokers: rt})
	e.Observe(t.Context(), &groups.List{CheckedAt: at})
	fs, _ := e.Findings()
	got := map[string]string{}
	for _, f := range fs {
		got[f.Addr] = f.Kind
		if f.Severity != Critical || f.Broker == "" || f.Subject != f.Broker || f.Action != "/brokers/"+f.Broker || f.ActionKind != "broker" || f.Group != "" {
			t.Errorf("finding %+v, want a critical finding about its broker linking to its page", f)
		}
	}
	want := map[string]string{"10.0.0.1:10911": KindDiskFull, "10.0.0.3:10911": KindFlowControl, "10.0.0.4:10911": KindFlowControl}
	if len(got) != len(want) || len(fs) != len(want) {
		t.Fatalf("findings by process %v, want %v", got, want)
	}
	for addr, kind := range want {
		if got[addr] != kind {
			t.Errorf("%s: %q, want %s", addr, got[addr], kind)
		}
	}
	if fs[0].Kind != KindDiskFull {
		t.Errorf("first finding %s, want the full disk first", fs[0].Kind)
	}
	if ev := i18n.Match("en").Say(fs[0].Evidence); ev != "The commit log's disk of 10.0.0.1:10911 (master) is 85.0% used (from 85.0% it is called full). From 85% the broker deletes commit-log files whatever their retention, so consumers behind lose messages, and from 90% it refuses every write. Free disk space or add disk, or lower fileReservedTime." {
		t.Errorf("evidence %q", ev)
	}
	if f, _ := e.ForBroker("broker-b"); len(f) != 1 || f[0].Kind != KindFlowControl {
		t.Errorf("broker-b's findings %+v, want its flow control alone", f)
	}
	// A lower threshold, as an operator may set it, and a read that fails.
	e = New(Options{Brokers: rt, DiskRatio: 0.4})
	e.Observe(t.Context(), &groups.List{CheckedAt: at})
	if f, _ := e.ForBroker("broker-d"); len(f) != 1 || f[0].Kind != KindDiskFull {
		t.Errorf("broker-d at 50%% with a 40%% threshold: %+v, want brokerDiskFull", f)
	}
	rt.err = errors.New("cluster info: timeout")
	e.Observe(t.Context(), &groups.List{CheckedAt: at.Add(time.Minute)})
	if k := kinds(e); len(k) != 0 {
		t.Errorf("no figures: %v, want nothing", k)
	}
}
