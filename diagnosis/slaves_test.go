package diagnosis

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"rmqconsole/brokers"
	"rmqconsole/cluster"
	"rmqconsole/groups"
	"rmqconsole/i18n"
	"rmqconsole/rocketmq"
)

// replication answers fixed replication statuses by master address, or, with real, what
// real answers, counting the calls (the engine asks the masters at once); a master
// without a status answers "request code not supported", as a 4.x broker does.
type replication struct {
	real  Replication
	st    map[string]*rocketmq.HAStatus
	fail  map[string]error // masters whose answer fails
	calls atomic.Int64
}

func (r *replication) HAStatus(ctx context.Context, addr string) (*rocketmq.HAStatus, error) {
	r.calls.Add(1)
	if r.real != nil {
		return r.real.HAStatus(ctx, addr)
	}
	if err := r.fail[addr]; err != nil {
		return nil, err
	}
	st, ok := r.st[addr]
	if !ok {
		return nil, fmt.Errorf("replication status of broker %s: %w", addr,
			&rocketmq.BrokerError{Addr: addr, Code: rocketmq.CodeRequestCodeNotSupported})
	}
	return st, nil
}

const mb = 1 << 20

// A slave is behind when its master says it acknowledged less than SlaveBehindBytes of
// the commit log's end, or counts it out of sync; the finding names the slave and the
// bytes, links to the broker's page, and goes once the slave catches up. A slave with
// no connection is behind by what the master wrote since its last acknowledged offset
// (or by an unknown amount, if it never had one and does not answer); a 4.x master
// (its runtime says so), which does not know the request, is never asked and its slaves
// are judged by the runtime figures. Only 5.x masters with a slave are asked.
func TestSlaveBehindItsMasterIsFoundAndGoes(t *testing.T) {
	at := time.Date(2026, 12, 6, 10, 0, 0, 0, time.UTC)
	rt := &runtimes{rs: []brokers.Runtime{
		{Name: "broker-a", ID: 0, Addr: "10.0.0.1:10911", Role: "master", Version: "5.3.3", CommitLogMaxOffset: 10 * mb},
		{Name: "broker-a", ID: 1, Addr: "10.0.0.2:10911", Role: "slave", Error: "timeout"},
		{Name: "broker-b", ID: 0, Addr: "10.0.0.3:10911", Role: "master", Version: "5.3.3", CommitLogMaxOffset: 10 * mb},
		{Name: "broker-b", ID: 1, Addr: "10.0.0.4:10911", Role: "slave", CommitLogMaxOffset: 10 * mb},
		{Name: "broker-c", ID: 0, Addr: "10.0.0.5:10911", Role: "master", Version: "4.9.7", CommitLogMaxOffset: 100 * mb},
		{Name: "broker-c", ID: 1, Addr: "10.0.0.6:10911", Role: "slave", CommitLogMaxOffset: 90 * mb},
		{Name: "broker-d", ID: 0, Addr: "10.0.0.7:10911", Role: "master"}, // no slave: not asked
	}}
	rep := &replication{st: map[string]*rocketmq.HAStatus{
		// broker-a's slave connects from another address than it registered: a lone
		// slave takes the lone connection.
		"10.0.0.1:10911": {Master: true, MasterMaxOffset: 10 * mb, Connections: []rocketmq.HAConnection{
			{Addr: "192.0.2.2:53814", AckOffset: 7 * mb, Diff: 3 * mb, InSync: true}}},
		"10.0.0.3:10911": {Master: true, MasterMaxOffset: 10 * mb, Connections: []rocketmq.HAConnection{
			{Addr: "10.0.0.4:40000", AckOffset: 10*mb - 100, Diff: 100, InSync: true}}},
	}}
	e := New(Options{Cluster: cluster.New(nil, cluster.Options{}), Brokers: rt, Replication: rep, SlaveBehindBytes: 2 * mb})
	read := func() map[string]string {
		t.Helper()
		e.Observe(t.Context(), &groups.List{CheckedAt: at})
		at = at.Add(30 * time.Second)
		fs, _ := e.Findings()
		got := map[string]string{}
		for _, f := range fs {
			if f.Kind != KindSlaveBehind || f.Severity != Warning || f.Action != "/brokers/"+f.Broker || f.ActionKind != "broker" {
				t.Errorf("finding %+v, want a slaveBehind warning linking to its broker", f)
			}
			got[f.Addr] = i18n.Match("en").Say(f.Evidence)
		}
		return got
	}
	got := read()
	if n := rep.calls.Load(); n != 2 {
		t.Errorf("%d replication statuses asked, want one per 5.x master with a slave (2)", n)
	}
	if len(got) != 2 || !strings.HasPrefix(got["10.0.0.2:10911"], "Slave 10.0.0.2:10911 is 3.0 MiB behind its master 10.0.0.1:10911 (limit 2.0 MiB") ||
		!strings.HasPrefix(got["10.0.0.6:10911"], "Slave 10.0.0.6:10911's commit log ends at 90.0 MiB, its master 10.0.0.5:10911's at 100.0 MiB: 10.0 MiB behind") {
		t.Fatalf("findings %v, want broker-a's slave (asked) and broker-c's (by runtime)", got)
	}

	// The master drops the frozen slave's connection and writes on: behind by what it
	// wrote since the slave's last acknowledged offset. The 4.x master is still not asked.
	rep.st["10.0.0.1:10911"] = &rocketmq.HAStatus{Master: true, MasterMaxOffset: 12 * mb}
	got = read()
	if n := rep.calls.Load(); n != 4 {
		t.Errorf("%d replication statuses asked in all, want the 4.x master never asked", n)
	}
	if !strings.HasPrefix(got["10.0.0.2:10911"], "Slave 10.0.0.2:10911 has no replication connection to its master 10.0.0.1:10911: it holds the commit log up to 7.0 MiB of 12.0 MiB, 5.0 MiB behind") {
		t.Errorf("unconnected slave: %q", got["10.0.0.2:10911"])
	}

	// Caught up: reconnected and within the limit, and broker-c's slave too.
	rep.st["10.0.0.1:10911"] = &rocketmq.HAStatus{Master: true, MasterMaxOffset: 12 * mb, Connections: []rocketmq.HAConnection{
		{Addr: "192.0.2.2:53900", AckOffset: 12 * mb, InSync: true}}}
	rt.rs[1].Error = ""
	rt.rs[5].CommitLogMaxOffset = 100 * mb
	if got = read(); len(got) != 0 {
		t.Fatalf("caught up: %v, want nothing", got)
	}

	// A master counting a slave out of sync (its own haMaxGapNotInSync is lower) counts.
	rep.st["10.0.0.3:10911"].Connections[0].InSync = false
	if got = read(); len(got) != 1 || got["10.0.0.4:10911"] == "" {
		t.Errorf("out of sync by its master: %v", got)
	}

	// A new master's slave acknowledged offset 0; its connection dropped, that 0 counts.
	e = New(Options{Cluster: cluster.New(nil, cluster.Options{}), Brokers: rt, Replication: rep, SlaveBehindBytes: 2 * mb})
	rep.st["10.0.0.1:10911"] = &rocketmq.HAStatus{Master: true, Connections: []rocketmq.HAConnection{{Addr: "192.0.2.2:1", InSync: true}}}
	rt.rs[1].Error = ""
	if got = read(); got["10.0.0.2:10911"] != "" {
		t.Fatalf("in sync at 0: %v", got)
	}
	rep.st["10.0.0.1:10911"] = &rocketmq.HAStatus{Master: true, MasterMaxOffset: 3 * mb}
	rt.rs[1].Error = "timeout"
	if got = read(); !strings.Contains(got["10.0.0.2:10911"], "up to 0.0 MiB of 3.0 MiB, 3.0 MiB behind") {
		t.Errorf("dropped at 0: %v", got)
	}

	// A slave never seen connected that does not answer: behind by an unknown amount.
	e = New(Options{Cluster: cluster.New(nil, cluster.Options{}), Brokers: rt, Replication: rep})
	rep.st["10.0.0.1:10911"] = &rocketmq.HAStatus{Master: true, MasterMaxOffset: 12 * mb}
	rt.rs[1].Error = "timeout"
	got = read()
	if !strings.Contains(got["10.0.0.2:10911"], "does not answer: how far behind the master's 12.0 MiB it is is unknown") {
		t.Errorf("unknown: %v", got)
	}
}

// A master whose replication status cannot be read is named in what the read could not
// read, with its broker, and its slave keeps no finding: how far it is behind is
// unknown, not nothing.
func TestUnreadReplicationIsNamedWithItsBroker(t *testing.T) {
	rt := &runtimes{rs: []brokers.Runtime{
		{Name: "broker-a", ID: 0, Addr: "10.0.0.1:10911", Role: "master", Version: "5.3.3", CommitLogMaxOffset: 10 * mb},
		{Name: "broker-a", ID: 1, Addr: "10.0.0.2:10911", Role: "slave", CommitLogMaxOffset: mb},
	}}
	rep := &replication{fail: map[string]error{"10.0.0.1:10911": errors.New("replication status of broker 10.0.0.1:10911: i/o timeout")}}
	e := New(Options{Cluster: cluster.New(nil, cluster.Options{}), Brokers: rt, Replication: rep, SlaveBehindBytes: 2 * mb})
	e.Observe(t.Context(), &groups.List{CheckedAt: time.Date(2026, 12, 6, 10, 0, 0, 0, time.UTC)})
	if fs, _ := e.Findings(); len(fs) != 0 {
		t.Errorf("findings %+v, want none", fs)
	}
	u := e.Unread()
	if len(u) != 1 || u[0].What != UnreadReplication || u[0].Broker != "broker-a" || !strings.Contains(u[0].Cause, "i/o timeout") {
		t.Fatalf("unread %+v, want broker-a's replication status", u)
	}
	if s := i18n.Match("en").Say(u[0].Message()); !strings.HasPrefix(s, "Could not read the replication status of master broker-a (10.0.0.1:10911)") {
		t.Errorf("unread says %q", s)
	}
}
