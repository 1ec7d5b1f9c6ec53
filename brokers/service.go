// Package brokers answers what operators ask about brokers: every broker process of the
// cluster (masters and slaves) with its runtime figures (put and get rates, commit-log
// offsets and disk use, page-cache lock, dispatch backlog, start time, version), and one
// broker's configuration, read-only with its secrets masked.
package brokers

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"rmqconsole/cluster"
	"rmqconsole/i18n"
	"rmqconsole/rocketmq"
)

// Admin is what the service asks the brokers; *rocketmq.Client implements it.
type Admin interface {
	cluster.Client
	BrokerRuntimeInfo(ctx context.Context, addr string) (*rocketmq.BrokerRuntimeInfo, error)
	BrokerConfig(ctx context.Context, addr string) (map[string]string, error)
}

var _ Admin = (*rocketmq.Client)(nil)

// Service reads brokers.
type Service struct {
	admin   Admin
	cluster *cluster.Cluster
	now     func() time.Time
	// changes is set by EnableChanges.
	changes *ChangeOptions
}

// New returns a Service over admin; c is the console's cluster view (nil builds one).
func New(admin Admin, c *cluster.Cluster) *Service {
	if c == nil {
		c = cluster.New(admin, cluster.Options{})
	}
	return &Service{admin: admin, cluster: c, now: time.Now}
}

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
}

// List is every broker process, by cluster, name and id, at CheckedAt.
type List struct {
	Brokers   []Runtime
	Failures  []cluster.BrokerFailure
	CheckedAt time.Time
}

const (
	opRuntime = "runtime info"
	opConfig  = "config"
)

// List reads the runtime figures of every broker process. A broker that fails keeps
// its row with Error set and is named in Failures.
func (s *Service) List(ctx context.Context) (*List, error) {
	if err := s.cluster.Refresh(ctx); err != nil {
		return nil, fmt.Errorf("list brokers: %w", err)
	}
	ci, err := s.cluster.Info(ctx)
	if err != nil {
		return nil, fmt.Errorf("list brokers: %w", err)
	}
	bs, err := s.cluster.Brokers(ctx)
	if err != nil {
		return nil, err
	}
	l := &List{}
	for _, b := range bs {
		l.Brokers = append(l.Brokers, members(ci, b)...)
	}
	f := s.cluster.Fanout(ctx)
	s.readRuntimes(f, l.Brokers)
	l.Failures = append(f.Wait(), s.cluster.Missing("")...)
	cluster.SortFailures(l.Failures)
	// A process gone from the cluster info keeps its row, saying so, rather than vanish.
	for _, p := range s.cluster.GoneProcesses() {
		l.Brokers = append(l.Brokers, Runtime{Cluster: p.Cluster, Name: p.Broker, ID: p.ID, Addr: p.Addr, Role: p.Role(),
			Error: p.String(), Gone: true, Say: p.Message()})
	}
	slices.SortStableFunc(l.Brokers, func(a, b Runtime) int {
		return cmp.Or(strings.Compare(a.Name, b.Name), cmp.Compare(a.ID, b.ID))
	})
	l.CheckedAt = s.now()
	return l, nil
}

// members are the broker's processes, by broker id.
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

func (s *Service) readRuntimes(f *cluster.Fanout, rs []Runtime) {
	for i := range rs {
		r := &rs[i]
		f.At(r.Name, r.Addr, opRuntime, func(ctx context.Context, addr string) error {
			rt, err := s.admin.BrokerRuntimeInfo(ctx, addr)
			if err != nil {
				r.Error = err.Error()
				return err
			}
			fillRuntime(r, rt)
			return nil
		})
	}
}

func fillRuntime(r *Runtime, rt *rocketmq.BrokerRuntimeInfo) {
	r.Version = rt.Version().String()
	r.PutTPS = rt.PutTps()
	r.GetTPS = rt.GetTransferredTps()
	r.DiskRatio, _ = rt.CommitLogDiskRatio()
	r.CommitLogMinOffset = intOf(rt, "commitLogMinOffset")
	r.CommitLogMaxOffset = intOf(rt, "commitLogMaxOffset")
	r.PageCacheLockMs = intOf(rt, "pageCacheLockTimeMills")
	r.DispatchBehindBytes = intOf(rt, "dispatchBehindBytes")
	r.StartedAt = intOf(rt, "bootTimestamp")
}

func intOf(rt *rocketmq.BrokerRuntimeInfo, key string) int64 {
	v, _ := strconv.ParseInt(strings.TrimSpace(rt.Table[key]), 10, 64)
	return v
}

// Detail is one broker name: its processes with their figures and configuration.
type Detail struct {
	Name    string
	Cluster string
	Members []Member
	// Failures name the processes that did not answer.
	Failures  []cluster.BrokerFailure
	CheckedAt time.Time
}

// Member is one process of the broker with its configuration.
type Member struct {
	Runtime
	// Config is the process's configuration, sorted by key, secrets masked; nil when
	// it could not be read.
	Config []ConfigEntry `json:"config"`
}

// ConfigEntry is one configuration key and its value.
type ConfigEntry struct {
	Key   string `json:"key"`
	Value string `json:"value"`
	// Masked is set when Value was replaced because it holds a secret (IsSecret).
	Masked bool `json:"masked,omitempty"`
}

// ErrBrokerNotFound means the NameServers know no broker of that name; *NotFoundError
// matches it.
var ErrBrokerNotFound = errors.New("broker not found")

// NotFoundError names a broker the NameServers do not know; its text is a sentence.
type NotFoundError struct {
	Name string
	// Gone is set when the broker was in the cluster a while ago.
	Gone *cluster.GoneBroker
}

// Is makes errors.Is(err, ErrBrokerNotFound) hold.
func (e *NotFoundError) Is(target error) bool { return target == ErrBrokerNotFound }

func (e *NotFoundError) Error() string { return e.Say().String() }

// Say is the sentence of e as a Message, for a page to say in its reader's language.
func (e *NotFoundError) Say() i18n.Message {
	if e.Gone != nil {
		return i18n.M("brokers.not_found.gone", "Name", e.Name, "Addr", e.Gone.Addr, "Reason", cluster.ErrorMessage(e.Gone.Failure("", "").Err))
	}
	return i18n.M("brokers.not_found", "Name", e.Name)
}

// Detail reads one broker name's processes: runtime figures and configuration.
func (s *Service) Detail(ctx context.Context, name string) (*Detail, error) {
	b, rs, err := s.processes(ctx, name)
	if errors.Is(err, ErrBrokerNotFound) {
		return nil, err // its text is the sentence the page shows
	}
	if err != nil {
		return nil, fmt.Errorf("read broker %s: %w", name, err)
	}
	d := &Detail{Name: name, Cluster: b.Cluster}
	d.Members = make([]Member, len(rs))
	f := s.cluster.Fanout(ctx)
	s.readRuntimes(f, rs)
	for j := range rs {
		m := &d.Members[j]
		f.At(rs[j].Name, rs[j].Addr, opConfig, func(ctx context.Context, addr string) error {
			cfg, err := s.admin.BrokerConfig(ctx, addr)
			if err != nil {
				return err
			}
			m.Config = masked(cfg)
			return nil
		})
	}
	d.Failures = f.Wait()
	for j := range rs {
		d.Members[j].Runtime = rs[j]
	}
	d.CheckedAt = s.now()
	return d, nil
}

// Runtimes reads the figures of one broker name's processes: what the live chart polls.
func (s *Service) Runtimes(ctx context.Context, name string) ([]Runtime, []cluster.BrokerFailure, error) {
	_, rs, err := s.processes(ctx, name)
	if err != nil {
		return nil, nil, err
	}
	f := s.cluster.Fanout(ctx)
	s.readRuntimes(f, rs)
	return rs, f.Wait(), nil
}

// processes finds the broker name and its processes, by broker id, with no figures yet;
// a name the NameServers do not know is a *NotFoundError.
func (s *Service) processes(ctx context.Context, name string) (cluster.Broker, []Runtime, error) {
	ci, err := s.cluster.Info(ctx)
	if err != nil {
		return cluster.Broker{}, nil, err
	}
	bs, err := s.cluster.Brokers(ctx)
	if err != nil {
		return cluster.Broker{}, nil, err
	}
	i := slices.IndexFunc(bs, func(b cluster.Broker) bool { return b.Name == name })
	if i < 0 {
		nf := &NotFoundError{Name: name}
		gone := s.cluster.Gone()
		if j := slices.IndexFunc(gone, func(g cluster.GoneBroker) bool { return g.Name == name }); j >= 0 {
			nf.Gone = &gone[j]
		}
		return cluster.Broker{}, nil, nf
	}
	return bs[i], members(ci, bs[i]), nil
}
