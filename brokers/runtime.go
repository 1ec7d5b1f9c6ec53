package brokers

import (
	"context"
	"slices"
	"strconv"
	"strings"

	"rmqconsole/cluster"
	"rmqconsole/i18n"
	"rmqconsole/rocketmq"
)

// The figures of a broker process are read in one place, for the brokers' pages, the
// live chart and the overview alike: readRuntimes asks GET_BROKER_RUNTIME_INFO through
// the fan-out and fillRuntime parses the answer with rocketmq.BrokerRuntimeInfo's
// methods. Rates are the broker's first figure, over about ten seconds, as mqadmin
// clusterList shows them (the table holds three: about 10 s, 1 min and 10 min).

// Runtime is one broker process and its figures, as GET_BROKER_RUNTIME_INFO tells them.
type Runtime struct {
	Cluster string `json:"cluster"`
	Name    string `json:"brokerName"`
	ID      int64  `json:"brokerId"`
	Addr    string `json:"addr"`
	// Role is "master" for broker id 0, else "slave".
	Role    string `json:"role"`
	Version string `json:"version,omitempty"`
	// PutTPS and GetTPS are messages per second stored and handed to consumers (the
	// broker's ~10 s window).
	PutTPS float64 `json:"putTps"`
	GetTPS float64 `json:"getTps"`
	// CommitLogMinOffset and CommitLogMaxOffset bound the commit log (bytes).
	CommitLogMinOffset int64 `json:"commitLogMinOffset"`
	CommitLogMaxOffset int64 `json:"commitLogMaxOffset"`
	// DiskRatio is the used share of the commit log's disk, 0..1.
	DiskRatio float64 `json:"diskRatio"`
	// PageCacheLockMs is how long the store has held the page-cache lock for the write
	// in progress (0 when idle); high values mean the disk cannot keep up.
	PageCacheLockMs int64 `json:"pageCacheLockTimeMills"`
	// SendQueueWaitMs is how long the oldest send request waiting for the broker's send
	// threads has waited (0 when none waits); past waitTimeMillsInSendQueue the broker
	// answers sends "broker busy".
	SendQueueWaitMs int64 `json:"sendThreadPoolQueueHeadWaitTimeMills"`
	// DispatchBehindBytes is how far building the consume queues and index lags the
	// commit log.
	DispatchBehindBytes int64 `json:"dispatchBehindBytes"`
	// StartedAt is when the broker started (epoch ms); 0 when it did not say.
	StartedAt int64 `json:"bootTimestamp"`
	// Error says why the figures could not be read; the row still shows.
	Error string `json:"error,omitempty"`
	// Gone: the process was in the NameServer's cluster info and is missing from it now
	// (stopped, killed, cut off); Error says since when, the figures are unknown.
	Gone bool `json:"gone,omitempty"`
	// Say is Error for a page to say in its reader's language; zero when Error says
	// itself.
	Say i18n.Message `json:"-"`

	// err is why the figures could not be read; version the broker's version as it
	// names it; maxKnown whether it told its commit log's max offset.
	err      error
	version  rocketmq.BrokerVersion
	maxKnown bool
}

// Before5 reports whether the process runs a release before 5.0 (4.x), which knows none
// of the 5.x requests (GET_BROKER_HA_STATUS among them); false when its version is
// unknown. A row not read from a broker (decoded, or built by hand) says it by Version.
func (r Runtime) Before5() bool {
	if r.version.Ordinal > 0 {
		return !r.version.Is5()
	}
	major, _, ok := strings.Cut(r.Version, ".")
	n, err := strconv.Atoi(major)
	return ok && err == nil && n < 5
}

// members are the broker's processes, by broker id, with no figures yet.
func members(ci *rocketmq.ClusterInfo, b cluster.Broker) []Runtime {
	var out []Runtime
	for id, addr := range ci.Brokers[b.Name].Addrs {
		r := Runtime{Cluster: b.Cluster, Name: b.Name, ID: id, Addr: addr, Role: "slave"}
		if id == 0 {
			r.Role = "master"
		}
		out = append(out, r)
	}
	slices.SortFunc(out, func(a, b Runtime) int { return int(a.ID - b.ID) })
	return out
}

// readRuntimes asks each process of rs for its runtime figures through f: a process
// that fails keeps its row with Error set, and f names it.
func (s *Service) readRuntimes(f *cluster.Fanout, rs []Runtime) {
	for i := range rs {
		r := &rs[i]
		f.At(r.Name, r.Addr, opRuntime, func(ctx context.Context, addr string) error {
			rt, err := s.admin.BrokerRuntimeInfo(ctx, addr)
			if err != nil {
				r.Error, r.err = err.Error(), err
				return err
			}
			fillRuntime(r, rt)
			return nil
		})
	}
}

func fillRuntime(r *Runtime, rt *rocketmq.BrokerRuntimeInfo) {
	r.version = rt.Version()
	r.Version = r.version.String()
	r.PutTPS = rt.PutTps()
	r.GetTPS = rt.GetTransferredTps()
	r.DiskRatio, _ = rt.CommitLogDiskRatio()
	r.CommitLogMinOffset, _ = intOf(rt, "commitLogMinOffset")
	r.CommitLogMaxOffset, r.maxKnown = intOf(rt, "commitLogMaxOffset")
	r.PageCacheLockMs, _ = intOf(rt, "pageCacheLockTimeMills")
	r.SendQueueWaitMs, _ = intOf(rt, "sendThreadPoolQueueHeadWaitTimeMills")
	r.DispatchBehindBytes, _ = intOf(rt, "dispatchBehindBytes")
	r.StartedAt, _ = intOf(rt, "bootTimestamp")
}

// intOf is a whole-number entry of the table; ok is false when it has none.
func intOf(rt *rocketmq.BrokerRuntimeInfo, key string) (int64, bool) {
	v, err := strconv.ParseInt(strings.TrimSpace(rt.Table[key]), 10, 64)
	return v, err == nil
}
