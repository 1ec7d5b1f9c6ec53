package diagnosis

import (
	"context"
	"slices"
	"strconv"
	"time"

	"rmqconsole/brokers"
	"rmqconsole/i18n"
	"rmqconsole/rocketmq"
)

// replicaSet is one broker name's master and slaves, as the broker list read them.
type replicaSet struct {
	master brokers.Runtime
	slaves []brokers.Runtime
}

// slaveFindings finds the slaves that fall behind their master. The master is asked
// (GET_BROKER_HA_STATUS), not the slave: a slave that is frozen or cut off cannot say
// how far behind it is, and its master knows what it acknowledged last. A master that
// did not answer the list is not asked (its own failure is named on the broker page); a
// master whose answer failed is named in unread, and its slaves keep no finding.
func (e *Engine) slaveFindings(ctx context.Context, l *brokers.List, at time.Time, unread *unreads) []Finding {
	if e.opts.Replication == nil || e.opts.Cluster == nil {
		return nil
	}
	sets := map[string]*replicaSet{}
	slaves := map[string]bool{} // every listed slave's address
	for _, r := range l.Brokers {
		if r.Gone {
			continue // gone from the NameServers: the broker page says so
		}
		rs := sets[r.Name]
		if rs == nil {
			rs = &replicaSet{}
			sets[r.Name] = rs
		}
		if r.ID == 0 {
			rs.master = r
		} else {
			rs.slaves = append(rs.slaves, r)
			slaves[r.Addr] = true
		}
	}
	names := slices.Sorted(func(yield func(string) bool) {
		for n, rs := range sets {
			if rs.master.Addr != "" && rs.master.Error == "" && len(rs.slaves) > 0 && !yield(n) {
				return
			}
		}
	})
	status := make([]*rocketmq.HAStatus, len(names))
	f := e.opts.Cluster.Fanout(ctx)
	for i, n := range names {
		if sets[n].master.Before5() {
			continue // judged by the runtime figures
		}
		f.At(n, sets[n].master.Addr, "replication status", func(ctx context.Context, addr string) (err error) {
			status[i], err = e.opts.Replication.HAStatus(ctx, addr)
			return err
		})
	}
	for _, fl := range f.Wait() {
		unread.addBroker(UnreadReplication, fl.Broker, fl.Broker+" ("+fl.Addr+")", fl.Err.Error())
	}

	e.mu.Lock()
	defer e.mu.Unlock()
	acked := map[string]int64{}
	var out []Finding
	for i, n := range names {
		rs := sets[n]
		if rs.master.Before5() {
			out = append(out, e.slavesByRuntime(rs, at)...)
			continue
		}
		if status[i] == nil {
			continue // no answer now: what the master says next time counts
		}
		conns := matchConnections(rs.slaves, status[i].Connections)
		for _, s := range rs.slaves {
			f, ok := e.slaveBehind(rs, s, status[i], conns[s.Addr], acked, at)
			if ok {
				out = append(out, f)
			}
		}
	}
	// A slave measured at neither read keeps no remembered offset.
	for addr, off := range e.acked {
		if _, ok := acked[addr]; !ok && slaves[addr] {
			acked[addr] = off
		}
	}
	e.acked = acked
	return out
}

// matchConnections pairs a master's slaves with its replication connections. The master
// names a connection by the slave's end (host and an ephemeral port), and that host may
// not be the one the slave registered (it connects from the address its route to the
// master's HA port takes, brokerIP2 of the master may differ from brokerIP1): so a lone
// slave takes a lone connection whatever its host; otherwise slaves match by host, and
// of several slaves on one host each takes the furthest behind of that host's
// connections.
func matchConnections(slaves []brokers.Runtime, conns []rocketmq.HAConnection) map[string]*rocketmq.HAConnection {
	out := map[string]*rocketmq.HAConnection{}
	if len(slaves) == 1 && len(conns) == 1 {
		out[slaves[0].Addr] = &conns[0]
		return out
	}
	for _, s := range slaves {
		host := rocketmq.HostOf(s.Addr)
		for i, c := range conns {
			if c.Host() == host && (out[s.Addr] == nil || c.Diff > out[s.Addr].Diff) {
				out[s.Addr] = &conns[i]
			}
		}
	}
	return out
}

// slaveBehind judges one slave by its master's answer and the slave's connection
// (matchConnections), nil when it has none. A slave with no connection has
// copied nothing since the master dropped it (after 20 s without an answer, or when it
// stopped, or not yet connected): it is behind by what the master wrote since its last
// acknowledged offset, when one was seen, or by its own runtime figures when it answered
// them; a slave that neither did nor answered is behind by an unknown amount.
func (e *Engine) slaveBehind(rs *replicaSet, s brokers.Runtime, st *rocketmq.HAStatus, conn *rocketmq.HAConnection, acked map[string]int64, at time.Time) (Finding, bool) {
	end := mib(st.MasterMaxOffset)
	ack, wasAcked := e.acked[s.Addr] // 0 too: a slave of a new master acknowledges 0
	switch {
	case conn != nil:
		acked[s.Addr] = conn.AckOffset
		if conn.Diff < e.opts.SlaveBehindBytes && conn.InSync {
			return Finding{}, false
		}
		return slaveFinding(rs, s, at, i18n.M("diagnosis.evidence.slaveBehind", "Addr", s.Addr, "Master", rs.master.Addr, "Behind", mib(conn.Diff),
			"Acked", mib(conn.AckOffset), "Max", end, "Limit", mib(e.opts.SlaveBehindBytes), "Rate", mib(conn.BytesPerSecond))), true
	case wasAcked:
		if st.MasterMaxOffset-ack < e.opts.SlaveBehindBytes && s.Error == "" && s.CommitLogMaxOffset >= ack {
			// Not connected this moment, but answering and near: a reconnect, not a fall.
			return Finding{}, false
		}
		return slaveFinding(rs, s, at, i18n.M("diagnosis.evidence.slaveBehind.unconnected", "Addr", s.Addr, "Master", rs.master.Addr,
			"Behind", mib(st.MasterMaxOffset-ack), "Acked", mib(ack), "Max", end)), true
	case s.Error == "":
		behind, ok := e.runtimeBehind(st.MasterMaxOffset, s)
		if !ok {
			return Finding{}, false
		}
		return slaveFinding(rs, s, at, i18n.M("diagnosis.evidence.slaveBehind.unconnected", "Addr", s.Addr, "Master", rs.master.Addr,
			"Behind", mib(behind), "Acked", mib(s.CommitLogMaxOffset), "Max", end)), true
	default:
		return slaveFinding(rs, s, at, i18n.M("diagnosis.evidence.slaveBehind.unknown", "Addr", s.Addr, "Master", rs.master.Addr, "Max", end)), true
	}
}

// slavesByRuntime judges the slaves of a master that does not know GET_BROKER_HA_STATUS
// (4.x, as its runtime says) by the commit logs' max offsets in the runtime figures the
// list read: no call of its own. The two reads are moments apart, so a busy master seems
// a little ahead. A slave that did not answer is not judged: how far behind it is is
// unknown, and the broker page names its failure.
func (e *Engine) slavesByRuntime(rs *replicaSet, at time.Time) []Finding {
	var out []Finding
	for _, s := range rs.slaves {
		if s.CommitLogMaxOffset <= 0 || rs.master.CommitLogMaxOffset <= 0 {
			continue
		}
		if behind, ok := e.runtimeBehind(rs.master.CommitLogMaxOffset, s); ok {
			out = append(out, slaveFinding(rs, s, at, i18n.M("diagnosis.evidence.slaveBehind.runtime", "Addr", s.Addr, "Master", rs.master.Addr,
				"Behind", mib(behind), "Slave", mib(s.CommitLogMaxOffset), "Max", mib(rs.master.CommitLogMaxOffset),
				"Limit", mib(e.opts.SlaveBehindBytes))))
		}
	}
	return out
}

// runtimeBehind is how far slave s is behind a master whose commit log ends at max, by
// the end s's runtime figures told; ok when s answered and is at least SlaveBehindBytes
// behind.
func (e *Engine) runtimeBehind(max int64, s brokers.Runtime) (behind int64, ok bool) {
	behind = max - s.CommitLogMaxOffset
	return behind, s.Error == "" && behind >= e.opts.SlaveBehindBytes
}

// slaveFinding is the slaveBehind finding about slave s of rs, acted on at its broker's
// page.
func slaveFinding(rs *replicaSet, s brokers.Runtime, at time.Time, ev i18n.Message) Finding {
	return Finding{Kind: KindSlaveBehind, Severity: Warning, Subject: rs.master.Name, Broker: rs.master.Name, Addr: s.Addr,
		Since: at, Action: brokerURL(rs.master.Name), ActionKind: "broker", Evidence: ev}
}

// mib says a byte count in MiB with one decimal ("0.3 MiB"): offsets and gaps of a
// commit log run to gigabytes.
func mib(n int64) string {
	return strconv.FormatFloat(float64(n)/(1<<20), 'f', 1, 64) + " MiB"
}
