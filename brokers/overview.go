package brokers

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"rmqconsole/cluster"
	"rmqconsole/i18n"
	"rmqconsole/rocketmq"
)

// The overview is the cluster at a glance: which NameServers answer, every broker process
// with its role, version, traffic and disk (read as the brokers' pages read them), and
// how many topics there are. It lives here, above the cluster layer, because its rows
// are the brokers' runtime figures; the cluster layer knows the cluster's shape only.

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
	// Failures are the brokers (and NameServers) that did not answer a part of the
	// overview, in the one shape of a broker failure.
	Failures []cluster.BrokerFailure `json:"failures,omitempty"`
	// Errors names what could not be read, as sentences. Deprecated: use Failures.
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

// BrokerStatus is one broker process (one address of a broker group) on the overview.
type BrokerStatus struct {
	Cluster string `json:"cluster"`
	Name    string `json:"brokerName"`
	ID      int64  `json:"brokerId"`
	Addr    string `json:"addr"`
	// Role is "master" for broker id 0, else "slave".
	Role string `json:"role"`
	// Version is the broker's own name of its version ("V5_3_3").
	Version string `json:"version,omitempty"`
	// PutTPS and GetTPS are messages per second stored and handed to consumers, as
	// Runtime has them.
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
	// Refused is set when the broker answered but its ACL refused the console's
	// credentials; Error then says which and what to check (cluster.AccessMessage).
	Refused bool `json:"refused,omitempty"`
	// Refusal is Error when Refused, for a page to say in its reader's language.
	Refusal i18n.Message `json:"-"`
	// Gone: the process was in the cluster info and is missing from it now (stopped,
	// killed, cut off); Error says since when.
	Gone bool `json:"gone,omitempty"`
	// commitLogMax is the commit log's max offset, -1 when unknown.
	commitLogMax int64
}

// What the overview asks the NameServers, as its failures name it.
const (
	opClusterInfo = "cluster info"
	opTopicList   = "topic list"
)

// Overview gathers the overview, with fresh cluster info (which also refreshes the cached
// broker list); every part that fails is named in Failures and Errors, and the rest is
// still returned. It returns an error only when nothing at all could be read.
func (s *Service) Overview(ctx context.Context) (*Overview, error) {
	ov := &Overview{CheckedAt: time.Now(), Topics: -1}
	var wg sync.WaitGroup
	wg.Go(func() { ov.NameServers = s.pingNameServers(ctx) })
	var topics []string
	var topicsErr error
	wg.Go(func() { topics, topicsErr = s.admin.TopicList(ctx) })
	info, err := s.cluster.ReadInfo(ctx)
	if err != nil {
		wg.Wait()
		ov.fail(cluster.BrokerFailure{Broker: "NameServer", Op: opClusterInfo, Err: err}, i18n.M("cluster.overview.info_failed", "Error", err.Error()))
		ov.failTopics(topicsErr)
		if !slices.ContainsFunc(ov.NameServers, func(ns NameServerStatus) bool { return ns.OK }) {
			return ov, fmt.Errorf("no NameServer answered: %w", err)
		}
		return ov, nil
	}
	ov.Clusters = info.Clusters
	ov.Brokers, ov.Failures = s.brokerStatuses(ctx, info)
	wg.Wait()
	// A process gone from the cluster info is named first and keeps its row.
	for _, p := range s.cluster.GoneProcesses() {
		ov.Errors, ov.Problems = append(ov.Errors, p.String()), append(ov.Problems, p.Message())
		ov.Brokers = append(ov.Brokers, BrokerStatus{Cluster: p.Cluster, Name: p.Broker, ID: p.ID, Addr: p.Addr, Role: p.Role(),
			Error: p.String(), Say: p.Message(), Gone: true, commitLogMax: -1})
	}
	ov.replicationLag()
	if topicsErr != nil {
		ov.failTopics(topicsErr)
	} else {
		ov.countTopics(topics, info)
	}
	cluster.SortFailures(ov.Failures)
	slices.SortFunc(ov.Brokers, func(x, y BrokerStatus) int {
		return cmp.Or(strings.Compare(x.Cluster, y.Cluster), strings.Compare(x.Name, y.Name), cmp.Compare(x.ID, y.ID))
	})
	return ov, nil
}

// pingNameServers asks every configured NameServer at once whether it answers.
func (s *Service) pingNameServers(ctx context.Context) []NameServerStatus {
	addrs := s.admin.NameServers()
	out := make([]NameServerStatus, len(addrs))
	var wg sync.WaitGroup
	for i, addr := range addrs {
		wg.Go(func() {
			start := time.Now()
			err := s.admin.PingNameServer(ctx, addr)
			out[i] = NameServerStatus{Addr: addr, OK: err == nil, Latency: time.Since(start)}
			if err != nil {
				out[i].Error, out[i].Say = err.Error(), errorSay(err)
			}
		})
	}
	wg.Wait()
	return out
}

// brokerStatuses reads the runtime figures of every process of the cluster info, with
// the brokers' one reader, and the failures: the processes that did not answer and the
// brokers gone from the cluster.
func (s *Service) brokerStatuses(ctx context.Context, info *rocketmq.ClusterInfo) ([]BrokerStatus, []cluster.BrokerFailure) {
	bs, err := s.cluster.Brokers(ctx) // the info just read
	if err != nil && !errors.Is(err, cluster.ErrNoBrokers) {
		return nil, []cluster.BrokerFailure{{Broker: "NameServer", Op: opClusterInfo, Err: err}}
	}
	var rs []Runtime
	for _, b := range bs {
		rs = append(rs, members(info, b)...)
	}
	f := s.cluster.Fanout(ctx)
	s.readRuntimes(f, rs)
	fails := append(f.Wait(), s.cluster.Missing("")...)
	out := make([]BrokerStatus, len(rs))
	for i, r := range rs {
		out[i] = statusOf(r)
	}
	return out, fails
}

// statusOf is a process's row on the overview: its figures, or why they are missing, a
// refusal of the console's credentials told apart.
func statusOf(r Runtime) BrokerStatus {
	b := BrokerStatus{Cluster: r.Cluster, Name: r.Name, ID: r.ID, Addr: r.Addr, Role: r.Role, Version: r.version.Name,
		PutTPS: r.PutTPS, GetTPS: r.GetTPS, DiskRatio: r.DiskRatio, commitLogMax: -1}
	if r.maxKnown {
		b.commitLogMax = r.CommitLogMaxOffset
	}
	if r.err != nil {
		b.Refusal, b.Refused = cluster.AccessMessage(b.Name, r.err)
		b.Error = b.Refusal.String()
		if !b.Refused {
			b.Error, b.Say = r.err.Error(), errorSay(r.err)
		}
	}
	return b
}

// errorSay is err in the catalogues' words, zero when it says itself.
func errorSay(err error) i18n.Message {
	m, _ := cluster.ErrorMessage(err).(i18n.Message)
	return m
}

// replicationLag sets each slave's lag behind its master, where both told their
// commit-log max offset. The two are read a moment apart, so a busy master can look a
// little ahead; a negative difference means the slave is level.
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

// fail notes a part of the overview that could not be read: in Failures, in English in
// Errors (the API's old field), and as a Message in Problems, for the page to say in its
// reader's language.
func (ov *Overview) fail(f cluster.BrokerFailure, m i18n.Message) {
	ov.Failures = append(ov.Failures, f)
	ov.Errors = append(ov.Errors, m.String())
	ov.Problems = append(ov.Problems, m)
}

// failTopics notes that the topic list could not be read, when it could not.
func (ov *Overview) failTopics(err error) {
	if err != nil {
		ov.fail(cluster.BrokerFailure{Broker: "NameServer", Op: opTopicList, Err: err}, i18n.M("cluster.overview.topics_failed", "Error", err.Error()))
	}
}
