package topics

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync"
	"time"

	"rmqconsole/cluster"
	"rmqconsole/rocketmq"
)

// Detail is one topic as its brokers see it, at CheckedAt.
type Detail struct {
	Topic  string
	Type   string
	Order  bool
	System bool
	// Route is each broker that serves the topic, by name.
	Route []BrokerRoute
	// Queues are every queue's offsets, by broker and queue id.
	Queues []Queue
	// Messages is the sum of max − min over Queues; PutTPS as in Summary.
	Messages int64
	PutTPS   *float64
	// StatsFrom counts the brokers whose stats are in Queues and Messages, GroupsFrom
	// those that named the topic's consumer groups: with 0 of either, the page knows
	// nothing there (Failures says why), which is not the same as none.
	StatsFrom, GroupsFrom int
	// Groups are the consumer groups that consume the topic (online, or with offsets
	// stored for it), by name.
	Groups []GroupLag
	// Producers are the producer groups connected to the topic's brokers.
	Producers Producers
	Failures  []BrokerFailure
	CheckedAt time.Time
}

// BrokerRoute is one broker of a topic's route.
type BrokerRoute struct {
	Broker      string   `json:"brokerName"`
	Master      string   `json:"master"`
	Slaves      []string `json:"slaves,omitempty"`
	ReadQueues  int      `json:"readQueueNums"`
	WriteQueues int      `json:"writeQueueNums"`
	Perm        int      `json:"perm"`
}

// Queue is one queue's offsets: MaxOffset is where the next message goes, MinOffset the
// oldest still stored.
type Queue struct {
	Broker    string `json:"brokerName"`
	QueueID   int    `json:"queueId"`
	MinOffset int64  `json:"minOffset"`
	MaxOffset int64  `json:"maxOffset"`
	// LastUpdate is the store time (epoch ms) of the queue's last message; 0 when empty.
	LastUpdate int64 `json:"lastUpdateTimestamp"`
}

// GroupLag is a consumer group's lag on this topic.
type GroupLag struct {
	Group string `json:"group"`
	// Lag is the messages of this topic not yet consumed by the group, over the brokers
	// that answered.
	Lag        int64   `json:"lag"`
	ConsumeTPS float64 `json:"consumeTps"`
	// LastTimestamp is the store time (epoch ms) of the newest message it consumed.
	LastTimestamp int64 `json:"lastTimestamp"`
	// Partial is set when a broker's consume stats could not be read (see Failures).
	Partial bool `json:"partial,omitempty"`
	// Clients are the group's online clients, as the topic's brokers list them or,
	// for gRPC clients of a cluster-mode Proxy (which the brokers never see), the Proxies.
	Clients []GroupClient `json:"clients"`
}

// GroupClient is one online client of a consumer group of the topic.
type GroupClient struct {
	ClientID   string `json:"clientId"`
	ClientAddr string `json:"clientAddr"`
	Language   string `json:"language"`
	// Protocol is remoting or gRPC; KnownTo is "broker" or "Proxy <address>".
	Protocol string `json:"protocol"`
	KnownTo  string `json:"knownTo"`
}

// Producers are the producer groups a topic's brokers have connections of.
type Producers struct {
	// Listed is set when the brokers listed their producers (GET_ALL_PRODUCER_INFO,
	// 4.9.7 and 5.x). Brokers without that request cannot: only a named producer group
	// can be looked up there.
	Listed bool `json:"listed"`
	// Unsupported is set when no broker listed them because their version cannot (not
	// because they failed, which Failures names).
	Unsupported bool `json:"unsupported"`
	// Groups are the producer groups, by name, each with its connections.
	Groups []ProducerGroup `json:"groups"`
	// Looked up is the producer group asked for by name ("" when none was).
	LookedUp string `json:"lookedUp,omitempty"`
}

// ProducerGroup is a producer group and its connections to the topic's brokers.
type ProducerGroup struct {
	Group       string               `json:"group"`
	Connections []ProducerConnection `json:"connections"`
}

// ProducerConnection is one producer client.
type ProducerConnection struct {
	ClientID   string `json:"clientId"`
	ClientAddr string `json:"clientAddr"`
	Language   string `json:"language"`
	// Version is the client's MQVersion ordinal; VersionName the release ("4.9.7").
	Version     int    `json:"version"`
	VersionName string `json:"versionName"`
	// Brokers are the brokers it is connected to.
	Brokers []string `json:"brokers"`
	// LastHeartbeat is when a broker last heard from it (epoch ms); 0 when the broker
	// does not say (GET_PRODUCER_CONNECTION_LIST).
	LastHeartbeat int64 `json:"lastHeartbeat,omitempty"`
}

const (
	opRoute          = "route"
	opConsumedBy     = "consumer groups"
	opConsumeStats   = "consume stats"
	opConnections    = "connections"
	opProducers      = "producers"
	opProducerGroup  = "producer connections"
	opTopicConfigOne = "topic config"
)

// DetailQuery is what the topic page asks for.
type DetailQuery struct {
	Topic string
	// ProducerGroup, when set, is looked up by name on every broker of the topic (the
	// only way on 4.x, where brokers cannot list their producers).
	ProducerGroup string
}

// Detail reads one topic from its brokers. A topic no NameServer knows is NotFound; a
// broker that fails is named in Failures.
func (s *Service) Detail(ctx context.Context, q DetailQuery) (*Detail, error) {
	f := s.cluster.Fanout(ctx)
	r, err := f.Route(q.Topic, opRoute) // a broker gone from it is a failure of the page
	if errors.Is(err, rocketmq.ErrTopicNotFound) {
		return nil, NotFound(q.Topic)
	}
	if err != nil {
		return nil, err
	}
	ci, _ := s.cluster.Info(ctx) // without it, only the name patterns decide
	rd := &detailRead{s: s, q: q, d: &Detail{Topic: q.Topic, System: ci.IsSystemTopic(q.Topic), Type: TypeUnknown, Route: routeOf(r)},
		groups: map[string]bool{}, conns: map[string]map[string]*ProducerConnection{}}
	for _, b := range r.Brokers {
		rd.stats(f, b)
		rd.config(f, b)
		rd.consumedBy(f, b)
		rd.allProducers(f, b)
		if q.ProducerGroup != "" {
			rd.producerGroup(f, b)
		}
	}
	f.Wait()
	d := rd.finish()
	d.Groups = s.groupLags(ctx, f, r.Brokers, q.Topic, rd.groups)
	d.Failures = f.Wait()
	d.CheckedAt = s.opts.Now()
	return d, nil
}

// routeOf is each broker of the topic's route with its queues and addresses.
func routeOf(r *cluster.Route) []BrokerRoute {
	var out []BrokerRoute
	for _, qd := range r.Raw().QueueDatas {
		br := BrokerRoute{Broker: qd.BrokerName, ReadQueues: qd.ReadQueueNums, WriteQueues: qd.WriteQueueNums, Perm: qd.Perm}
		if b, ok := r.Broker(qd.BrokerName); ok {
			br.Master, br.Slaves = b.Master, b.Slaves
		}
		out = append(out, br)
	}
	return out
}

// detailRead is one Detail being read: each broker's calls add what they learn under mu.
type detailRead struct {
	s  *Service
	q  DetailQuery
	mu sync.Mutex
	d  *Detail
	// groups are the consumer groups the brokers named; conns each producer group's
	// connections by client id.
	groups           map[string]bool
	conns            map[string]map[string]*ProducerConnection
	listed, unlisted int // brokers that listed their producers, and those that cannot
}

// stats reads the topic's queues' offsets on b, its stored messages and put rate.
func (rd *detailRead) stats(f *cluster.Fanout, b cluster.Broker) {
	f.Read(b, opTopicStats, func(ctx context.Context, addr string) error {
		st, err := rd.s.admin.TopicStats(ctx, addr, rd.q.Topic)
		if err != nil {
			return err
		}
		rd.mu.Lock()
		defer rd.mu.Unlock()
		d := rd.d
		d.StatsFrom++
		for mq, o := range st.Offsets {
			d.Queues = append(d.Queues, Queue{Broker: b.Name, QueueID: mq.QueueID, MinOffset: o.MinOffset, MaxOffset: o.MaxOffset, LastUpdate: o.LastUpdateTimestamp})
		}
		d.Messages += storedMessages(st)
		if st.HasPutTps {
			if d.PutTPS == nil {
				d.PutTPS = new(float64)
			}
			*d.PutTPS += st.PutTps
		}
		return nil
	})
}

// config reads the topic's configuration on b: its message type and order flag.
func (rd *detailRead) config(f *cluster.Fanout, b cluster.Broker) {
	f.Read(b, opTopicConfigOne, func(ctx context.Context, addr string) error {
		t, err := rd.s.admin.TopicConfigs(ctx, addr)
		if err != nil {
			return err
		}
		v, _ := rd.s.admin.BrokerVersion(ctx, addr)
		tc, ok := t.Topics[rd.q.Topic]
		if !ok {
			return nil // the route and the broker disagree for a moment after a change
		}
		rd.mu.Lock()
		defer rd.mu.Unlock()
		if t := messageType(tc, v.Is5()); rd.d.Type == TypeUnknown {
			rd.d.Type = t
		} else if t != TypeUnknown && t != rd.d.Type {
			rd.d.Type = TypeMixed
		}
		rd.d.Order = rd.d.Order || tc.Order
		return nil
	})
}

// consumedBy reads the consumer groups b knows to consume the topic.
func (rd *detailRead) consumedBy(f *cluster.Fanout, b cluster.Broker) {
	f.Go(b, opConsumedBy, func(ctx context.Context, addr string) error {
		gs, err := rd.s.admin.TopicConsumerGroups(ctx, addr, rd.q.Topic)
		if err != nil {
			return err
		}
		rd.mu.Lock()
		defer rd.mu.Unlock()
		rd.d.GroupsFrom++
		for _, g := range gs {
			rd.groups[g] = true
		}
		return nil
	})
}

// allProducers lists every producer connected to b, where its version can list them.
func (rd *detailRead) allProducers(f *cluster.Fanout, b cluster.Broker) {
	f.Go(b, opProducers, func(ctx context.Context, addr string) error {
		all, err := rd.s.admin.ProducerInfos(ctx, addr)
		rd.mu.Lock()
		defer rd.mu.Unlock()
		if errors.Is(err, rocketmq.ErrNotSupported) {
			rd.unlisted++ // not a failure: a limit of the broker's version
			return nil
		}
		if err != nil {
			return err
		}
		rd.listed++
		for g, ps := range all {
			if rocketmq.IsSystemGroup(g) {
				continue
			}
			for _, p := range ps {
				rd.addProducer(g, b.Name, ProducerConnection{ClientID: p.ClientID, ClientAddr: p.RemoteIP, Language: p.Language,
					Version: p.Version, VersionName: p.VersionName(), LastHeartbeat: p.LastUpdateTimestamp})
			}
		}
		return nil
	})
}

// producerGroup looks the asked producer group up on b by name (the only way on 4.x).
func (rd *detailRead) producerGroup(f *cluster.Fanout, b cluster.Broker) {
	group := rd.q.ProducerGroup
	f.Go(b, opProducerGroup, func(ctx context.Context, addr string) error {
		cs, err := rd.s.admin.ProducerConnections(ctx, addr, group)
		if errors.Is(err, rocketmq.ErrProducerNotOnline) {
			return nil
		}
		if err != nil {
			return err
		}
		rd.mu.Lock()
		defer rd.mu.Unlock()
		for _, c := range cs {
			rd.addProducer(group, b.Name, ProducerConnection{ClientID: c.ClientID, ClientAddr: c.ClientAddr,
				Language: c.Language, Version: c.Version, VersionName: c.VersionName()})
		}
		return nil
	})
}

// addProducer adds a connection of group seen on broker: one per client, with every
// broker it is connected to. Call it with mu held.
func (rd *detailRead) addProducer(group, broker string, pc ProducerConnection) {
	conns := rd.conns[group]
	if conns == nil {
		conns = map[string]*ProducerConnection{}
		rd.conns[group] = conns
	}
	if have := conns[pc.ClientID]; have != nil {
		have.Brokers = append(have.Brokers, broker)
		have.LastHeartbeat = max(have.LastHeartbeat, pc.LastHeartbeat)
		return
	}
	pc.Brokers = []string{broker}
	conns[pc.ClientID] = &pc
}

// finish sorts what the brokers answered into the Detail, once every call is done.
func (rd *detailRead) finish() *Detail {
	d, q := rd.d, rd.q
	d.Producers = Producers{Listed: rd.listed > 0, Unsupported: rd.listed == 0 && rd.unlisted > 0, LookedUp: q.ProducerGroup}
	if q.ProducerGroup != "" && rd.conns[q.ProducerGroup] == nil {
		rd.conns[q.ProducerGroup] = map[string]*ProducerConnection{}
	}
	for g, conns := range rd.conns {
		pg := ProducerGroup{Group: g}
		for _, c := range conns {
			slices.Sort(c.Brokers)
			pg.Connections = append(pg.Connections, *c)
		}
		slices.SortFunc(pg.Connections, func(a, b ProducerConnection) int { return strings.Compare(a.ClientID, b.ClientID) })
		d.Producers.Groups = append(d.Producers.Groups, pg)
	}
	slices.SortFunc(d.Producers.Groups, func(a, b ProducerGroup) int { return strings.Compare(a.Group, b.Group) })
	slices.SortFunc(d.Queues, func(a, b Queue) int {
		if c := strings.Compare(a.Broker, b.Broker); c != 0 {
			return c
		}
		return a.QueueID - b.QueueID
	})
	return d
}

// groupLags reads each group's consume stats of the topic and its clients on every
// broker of it; a group no broker lists a client of is looked up on the Proxies.
func (s *Service) groupLags(ctx context.Context, f *cluster.Fanout, brokers []cluster.Broker, topic string, groupSet map[string]bool) []GroupLag {
	names := make([]string, 0, len(groupSet))
	for g := range groupSet {
		names = append(names, g)
	}
	slices.Sort(names)
	out := make([]GroupLag, len(names))
	var mu sync.Mutex
	for i, g := range names {
		out[i].Group = g
		for _, b := range brokers {
			f.GoTopic(b, topic, opConsumeStats+" of "+g, func(ctx context.Context, addr string) error {
				st, err := s.admin.ConsumeStats(ctx, addr, g, topic)
				mu.Lock()
				defer mu.Unlock()
				if err != nil {
					out[i].Partial = true
					return err
				}
				out[i].Lag += st.TotalLag()
				out[i].ConsumeTPS += st.ConsumeTps
				for _, o := range st.Offsets {
					out[i].LastTimestamp = max(out[i].LastTimestamp, o.LastTimestamp)
				}
				return nil
			})
			f.Go(b, opConnections+" of "+g, func(ctx context.Context, addr string) error {
				cc, err := s.admin.ConsumerConnections(ctx, addr, g)
				if errors.Is(err, rocketmq.ErrConsumerNotOnline) {
					return nil
				}
				if err != nil {
					return err
				}
				mu.Lock()
				defer mu.Unlock()
				for _, cn := range cc.Connections {
					if !slices.ContainsFunc(out[i].Clients, func(c GroupClient) bool { return c.ClientID == cn.ClientID }) {
						out[i].Clients = append(out[i].Clients, GroupClient{ClientID: cn.ClientID, ClientAddr: cn.ClientAddr,
							Language: cn.Language, Protocol: protocolRemoting, KnownTo: "broker"})
					}
				}
				return nil
			})
		}
	}
	f.Wait()
	var wg sync.WaitGroup
	for i := range out {
		if len(out[i].Clients) > 0 {
			continue
		}
		wg.Go(func() {
			seen, ok := s.cluster.SeenThroughProxies(ctx, s.admin, out[i].Group, s.opts.Now())
			if !ok {
				return
			}
			for _, cn := range seen.Conns.Connections {
				c := GroupClient{ClientID: cn.ClientID, ClientAddr: cn.ClientAddr, Language: cn.Language, Protocol: protocolRemoting, KnownTo: "Proxy " + seen.Proxy}
				if cluster.IsGRPC(seen.Conns, cn) {
					c.Protocol = protocolGRPC
				}
				out[i].Clients = append(out[i].Clients, c)
			}
		})
	}
	wg.Wait()
	for i := range out {
		if out[i].Clients == nil {
			out[i].Clients = []GroupClient{}
		}
		slices.SortFunc(out[i].Clients, func(a, b GroupClient) int { return strings.Compare(a.ClientID, b.ClientID) })
	}
	return out
}

// Client protocols: remoting (the classic clients) or gRPC (RocketMQ 5's SDKs, through a Proxy).
const (
	protocolRemoting = "remoting"
	protocolGRPC     = "gRPC"
)
