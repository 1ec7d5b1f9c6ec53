// Package cluster builds the cluster overview: which NameServers answer, the brokers with
// their role, version, traffic and disk, and how many topics and groups there are.
package cluster

import (
	"context"
	"fmt"
	"rmqconsole/i18n"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"rmqconsole/rocketmq"
)

// OverviewAdmin is what the overview needs from RocketMQ besides the cluster info.
type OverviewAdmin interface {
	NameServers() []string
	PingNameServer(ctx context.Context, addr string) error
	TopicList(ctx context.Context) ([]string, error)
	BrokerRuntimeInfo(ctx context.Context, addr string) (*rocketmq.BrokerRuntimeInfo, error)
}

// Overview is the state of the cluster at CheckedAt.
type Overview struct {
	NameServers []NameServerStatus `json:"nameServers"`
	Brokers     []BrokerStatus     `json:"brokers"`
	// Clusters maps cluster name to its broker names.
	Clusters map[string][]string `json:"clusters"`
	// Topics counts user topics (not retry, DLQ or system topics); -1 when unknown.
	Topics int `json:"topics"`
	// SystemTopics counts the rest.
	SystemTopics int `json:"systemTopics"`
	// Errors names what could not be read, as sentences.
	Errors []string `json:"errors,omitempty"`
	// Problems are Errors as Messages, for a page to say in its reader's language.
	Problems  []i18n.Message `json:"-"`
	CheckedAt time.Time      `json:"checkedAt"`
}

// NameServerStatus is one configured NameServer and whether it answered.
type NameServerStatus struct {
	Addr    string        `json:"addr"`
	OK      bool          `json:"ok"`
	Latency time.Duration `json:"latencyNs"`
	Error   string        `json:"error,omitempty"`
	// Say is Error for a page to say in its reader's language; zero when Error says itself.
	Say i18n.Message `json:"-"`
}

// BrokerStatus is one broker process (one address of a broker group).
type BrokerStatus struct {
	Cluster string `json:"cluster"`
	Name    string `json:"brokerName"`
	ID      int64  `json:"brokerId"`
	Addr    string `json:"addr"`
	// Role is "master" for broker id 0, else "slave".
	Role    string `json:"role"`
	Version string `json:"version,omitempty"`
	// PutTPS and GetTPS are messages per second over the last minute, as the broker counts.
	PutTPS float64 `json:"putTps"`
	GetTPS float64 `json:"getTps"`
	// DiskRatio is the used share of the commit log's disk, 0..1.
	DiskRatio float64 `json:"diskRatio"`
	// Error says why the runtime info could not be read (the broker row still shows).
	Error string `json:"error,omitempty"`
	// Say is Error for a page to say in its reader's language; zero when Error says itself.
	Say i18n.Message `json:"-"`
	// ReplicationLag is, for a slave, how many commit-log bytes it is behind its
	// master (the master's max offset minus its own); nil when either could not
	// be read, and for masters.
	ReplicationLag *int64 `json:"replicationLagBytes,omitempty"`
	// commitLogMax is the broker's commit-log max offset, -1 when unknown.
	commitLogMax int64
	// Refused is set when the broker answered but its ACL refused the console's
	// credentials; Error then says which and what to check (AccessMessage).
	Refused bool `json:"refused,omitempty"`
	// Refusal is Error when Refused, for a page to say in its reader's language.
	Refusal i18n.Message `json:"-"`
	// Gone: the process was in the cluster info and is missing from it now (stopped,
	// killed, cut off); Error says since when.
	Gone bool `json:"gone,omitempty"`
}

// Overview gathers the overview, with fresh cluster info (which also refreshes the cached
// broker list); every part that fails is named in Errors and the rest is still returned.
// It returns an error only when nothing at all could be read.
func (c *Cluster) Overview(ctx context.Context, a OverviewAdmin) (*Overview, error) {
	ov := &Overview{CheckedAt: time.Now(), Topics: -1}
	var wg sync.WaitGroup

	addrs := a.NameServers()
	ov.NameServers = make([]NameServerStatus, len(addrs))
	for i, addr := range addrs {
		wg.Go(func() {
			start := time.Now()
			err := a.PingNameServer(ctx, addr)
			ns := NameServerStatus{Addr: addr, OK: err == nil, Latency: time.Since(start)}
			if err != nil {
				ns.Error, ns.Say = err.Error(), errorSay(err)
			}
			ov.NameServers[i] = ns
		})
	}
	var topics []string
	var topicsErr error
	wg.Go(func() { topics, topicsErr = a.TopicList(ctx) })
	info, err := c.readInfo(ctx)
	if err != nil {
		wg.Wait()
		ov.fail(i18n.M("cluster.overview.info_failed", "Error", err.Error()))
		if topicsErr != nil {
			ov.fail(i18n.M("cluster.overview.topics_failed", "Error", topicsErr.Error()))
		}
		if !anyNameServerOK(ov) {
			return ov, fmt.Errorf("no NameServer answered: %w", err)
		}
		return ov, nil
	}
	ov.Clusters = info.Clusters
	for _, b := range brokersOf(info) {
		for id, addr := range info.Brokers[b.Name].Addrs {
			row := BrokerStatus{Cluster: b.Cluster, Name: b.Name, ID: id, Addr: addr, Role: "slave", commitLogMax: -1}
			if id == 0 {
				row.Role = "master"
			}
			ov.Brokers = append(ov.Brokers, row)
		}
	}
	f := c.Fanout(ctx)
	for i := range ov.Brokers {
		b := &ov.Brokers[i]
		f.At(b.Name, b.Addr, "runtime info", func(ctx context.Context, addr string) error {
			rt, err := a.BrokerRuntimeInfo(ctx, addr)
			if err != nil {
				b.Refusal, b.Refused = AccessMessage(b.Name, err)
				b.Error = b.Refusal.String()
				if !b.Refused {
					b.Error, b.Say = err.Error(), errorSay(err)
				}
				return err
			}
			b.Version = rt.Table["brokerVersionDesc"]
			b.PutTPS = firstFloat(rt.Table["putTps"])
			b.GetTPS = firstFloat(rt.Table["getTransferredTps"])
			b.DiskRatio = firstFloat(rt.Table["commitLogDiskRatio"])
			if v, err := strconv.ParseInt(rt.Table["commitLogMaxOffset"], 10, 64); err == nil {
				b.commitLogMax = v
			}
			return nil
		})
	}
	f.Wait()
	wg.Wait()
	// A process gone from the cluster info is named first and keeps its row.
	for _, p := range c.GoneProcesses() {
		ov.fail(p.Message())
		ov.Brokers = append(ov.Brokers, BrokerStatus{Cluster: p.Cluster, Name: p.Broker, ID: p.ID, Addr: p.Addr, Role: p.Role(),
			Error: p.String(), Say: p.Message(), Gone: true, commitLogMax: -1})
	}
	ov.replicationLag()
	if topicsErr != nil {
		ov.fail(i18n.M("cluster.overview.topics_failed", "Error", topicsErr.Error()))
	} else {
		ov.countTopics(topics, info)
	}
	sort.Slice(ov.Brokers, func(i, j int) bool {
		x, y := ov.Brokers[i], ov.Brokers[j]
		if x.Cluster != y.Cluster {
			return x.Cluster < y.Cluster
		}
		if x.Name != y.Name {
			return x.Name < y.Name
		}
		return x.ID < y.ID
	})
	return ov, nil
}

// replicationLag sets each slave's lag behind its master, where both told their
// commit-log max offset. The two are read a moment apart, so a busy master can
// look a little ahead; a negative difference means the slave is level.
func (ov *Overview) replicationLag() {
	master := map[string]int64{}
	for _, b := range ov.Brokers {
		if b.ID == 0 && b.commitLogMax >= 0 {
			master[b.Cluster+"/"+b.Name] = b.commitLogMax
		}
	}
	for i := range ov.Brokers {
		b := &ov.Brokers[i]
		m, ok := master[b.Cluster+"/"+b.Name]
		if b.ID == 0 || !ok || b.commitLogMax < 0 {
			continue
		}
		lag := max(m-b.commitLogMax, 0)
		b.ReplicationLag = &lag
	}
}

// countTopics splits topics into the applications' and RocketMQ's own; the broker creates
// a topic named after each cluster and each broker, which count as system topics too.
func (ov *Overview) countTopics(topics []string, info *rocketmq.ClusterInfo) {
	ov.Topics = 0
	for _, t := range topics {
		if info.IsSystemTopic(t) {
			ov.SystemTopics++
		} else {
			ov.Topics++
		}
	}
}

func anyNameServerOK(ov *Overview) bool {
	for _, ns := range ov.NameServers {
		if ns.OK {
			return true
		}
	}
	return false
}

// firstFloat reads the first number of a runtime-info value; TPS values come as
// "10s 60s 600s" triples ("12.5 11.0 9.8"), and the minute figure is the second.
func firstFloat(s string) float64 {
	f := strings.Fields(s)
	if len(f) == 0 {
		return 0
	}
	pick := f[0]
	if len(f) >= 2 {
		pick = f[1]
	}
	v, _ := strconv.ParseFloat(pick, 64)
	return v
}

// fail notes a part of the overview that could not be read: in English in Errors (the
// API's), and as a Message in Problems, for the page to say in its reader's language.
func (ov *Overview) fail(m i18n.Message) {
	ov.Errors = append(ov.Errors, m.String())
	ov.Problems = append(ov.Problems, m)
}
