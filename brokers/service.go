// Package brokers answers what operators ask about brokers: every broker process of the
// cluster (masters and slaves) with its runtime figures (put and get rates, commit-log
// offsets and disk use, page-cache lock, dispatch backlog, start time, version), one
// broker's configuration, read-only with its secrets masked, and the cluster overview
// (NameServers, every process's figures, topic counts).
package brokers

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"rmqconsole/cluster"
	"rmqconsole/fault"
	"rmqconsole/rocketmq"
)

// Admin is what the service asks the brokers and, for the overview, the NameServers;
// *rocketmq.Client implements it.
type Admin interface {
	cluster.Client
	BrokerRuntimeInfo(ctx context.Context, addr string) (*rocketmq.BrokerRuntimeInfo, error)
	BrokerConfig(ctx context.Context, addr string) (map[string]string, error)
	NameServers() []string
	PingNameServer(ctx context.Context, addr string) error
	TopicList(ctx context.Context) ([]string, error)
}

var _ Admin = (*rocketmq.Client)(nil)

// Service reads brokers.
type Service struct {
	admin   Admin
	cluster *cluster.Cluster
	now     func() time.Time
	// changes is set by EnableChanges.
	changes *ChangeOptions

	listMu sync.Mutex
	list   *List
}

// New returns a Service over admin; c is the console's cluster view (nil builds one).
func New(admin Admin, c *cluster.Cluster) *Service {
	if c == nil {
		c = cluster.New(admin, cluster.Options{})
	}
	return &Service{admin: admin, cluster: c, now: time.Now}
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

// ListTTL is how long the broker list is reused for the pages after the first and their
// More rows, cut from one copy instead of asking every process again (the first page
// reads afresh: handlers/brokers.go).
const ListTTL = 10 * time.Second

// List is the runtime figures of every broker process, read within ListTTL unless
// refresh is set. A broker that fails keeps its row with Error set and is named in
// Failures.
func (s *Service) List(ctx context.Context, refresh bool) (*List, error) {
	s.listMu.Lock() // held while the list is read, so concurrent cold pages read it once
	defer s.listMu.Unlock()
	if l := s.list; !refresh && l != nil && s.now().Sub(l.CheckedAt) < ListTTL {
		return l, nil
	}
	l, err := s.readList(ctx)
	if err != nil {
		return nil, err
	}
	s.list = l
	return l, nil
}

func (s *Service) readList(ctx context.Context) (*List, error) {
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

// ReasonNotFound is the API code of a broker name the NameServers do not know.
const ReasonNotFound = "broker_not_found"

// NotFound refuses a broker name the NameServers do not know; gone, when not nil, is the
// broker of that name that was in the cluster a while ago.
func NotFound(name string, gone *cluster.GoneBroker) *fault.Error {
	if gone != nil {
		return fault.New(fault.NotFound, "brokers.not_found.gone", "Name", name, "Addr", gone.Addr,
			"Reason", cluster.ErrorMessage(gone.Failure("", "").Err)).Because(ReasonNotFound)
	}
	return fault.New(fault.NotFound, "brokers.not_found", "Name", name).Because(ReasonNotFound)
}

// Detail reads one broker name's processes: runtime figures and configuration.
func (s *Service) Detail(ctx context.Context, name string) (*Detail, error) {
	b, rs, err := s.processes(ctx, name)
	if fault.Is(err, fault.NotFound) {
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
// a name the NameServers do not know is NotFound.
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
		var was *cluster.GoneBroker
		gone := s.cluster.Gone()
		if j := slices.IndexFunc(gone, func(g cluster.GoneBroker) bool { return g.Name == name }); j >= 0 {
			was = &gone[j]
		}
		return cluster.Broker{}, nil, NotFound(name, was)
	}
	return bs[i], members(ci, bs[i]), nil
}
