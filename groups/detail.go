package groups

import (
	"cmp"
	"context"
	"errors"
	"maps"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"rmqconsole/cluster"
	"rmqconsole/i18n"
	"rmqconsole/rocketmq"
)

// Detail is one consumer group as the cluster saw it at CheckedAt: every queue of every
// topic it consumes (its retry topic included) with lag and owner, its clients with their
// subscriptions, and the expected against the actual assignment.
type Detail struct {
	Group  string `json:"group"`
	Online bool   `json:"online"`
	// ClientsUnknown: no broker or Proxy answered the connection list (each failure is
	// in Failures), so Online false means unknown, not offline.
	ClientsUnknown bool `json:"clientsUnknown,omitempty"`
	// ConsumeType is push, pull, pop or grpc-push (gRPC PushConsumers, which pop
	// through the Proxy); "" while no client is online.
	ConsumeType string `json:"consumeType"`
	// Pop splits the backlog of a group consuming with POP (ready, revived for retry,
	// in flight); nil for other groups.
	Pop *PopProgress `json:"pop,omitempty"`
	// Needs5x says, on a cluster whose brokers all run 4.x, that gRPC clients, the
	// Proxy and POP need RocketMQ 5.x; "" on 5.x.
	Needs5x i18n.Text `json:"needs5x,omitempty"`
	// MixedNote explains a group whose clients consume in different ways (remoting
	// clients through the brokers and gRPC clients through a Proxy).
	MixedNote i18n.Text `json:"mixedNote,omitempty"`
	// MessageModel is CLUSTERING or BROADCASTING; "" while no client is online.
	MessageModel     string `json:"messageModel"`
	ConsumeFromWhere string `json:"consumeFromWhere,omitempty"`
	// ConsumeMode is orderly, concurrent or mixed, as the clients' running info says;
	// "" when no client reported it.
	ConsumeMode string `json:"consumeMode,omitempty"`
	// LockExpiryMs is the broker's orderly lock expiry the warnings assume (orderly
	// groups only; see BrokerLockExpiry).
	LockExpiryMs int64 `json:"lockExpiryMs,omitempty"`
	// Blocked holds a sentence for every orderly queue nobody can consume now (its
	// lock holder is gone, or stopped renewing).
	Blocked []i18n.Text    `json:"blocked,omitempty"`
	Clients []Client       `json:"clients"`
	Queues  []QueueLag     `json:"queues"`
	Topics  []TopicSummary `json:"topics"`
	// TotalLag sums the queues whose lag is known; nil when none is.
	TotalLag *int64 `json:"totalLag"`
	// TotalLagNote says why TotalLag is unknown, or that it leaves queues out.
	TotalLagNote i18n.Text `json:"totalLagNote,omitempty"`
	ConsumeTPS   float64   `json:"consumeTps"`
	// MaxLagTimeMs is the largest time behind of its queues; nil when none is known,
	// with the reason (or what it leaves out) in MaxLagTimeNote.
	MaxLagTimeMs   *int64    `json:"maxLagTimeMs"`
	MaxLagTimeNote i18n.Text `json:"maxLagTimeNote,omitempty"`
	// SubscriptionsDiffer is set when the group's clients do not all subscribe to the
	// same topics with the same expressions: queues of a topic are shared out among all
	// clients, so those given to a client that does not subscribe go unconsumed.
	SubscriptionsDiffer bool       `json:"subscriptionsDiffer"`
	Assignment          Assignment `json:"assignment"`
	// Failures name the brokers (or clients) that did not answer, and why.
	Failures []BrokerFailure `json:"failures,omitempty"`
	// FromSlaves name the brokers whose offsets came from a slave, because the master
	// did not answer (a slave's copy of the offsets can be a few seconds behind).
	FromSlaves []cluster.SlaveRead `json:"fromSlaves,omitempty"`
	CheckedAt  time.Time           `json:"checkedAt"`
	// HiddenTopics counts the topics left out because the caller's rights do not let
	// them read their metadata (set by the console as it answers; 0 otherwise).
	HiddenTopics int `json:"hiddenTopics,omitempty"`

	// clientsKnown: some broker answered the connection list, so Clients is the truth.
	clientsKnown bool
	// ownersKnown: every online client reported its queues, so owners are the truth.
	ownersKnown bool
	// locksUnread: orderly locks were not read (a read of the owners where no client
	// said how it consumes), so the tracker keeps the locks it last saw.
	locksUnread bool
}

// Client is one online client of the group.
type Client struct {
	ClientID   string `json:"clientId"`
	ClientAddr string `json:"clientAddr"`
	Language   string `json:"language"`
	// Version is what the client reports (V5_3_3, v2.1.1), else the protocol ordinal;
	// "" for a gRPC client, whose version the Proxy does not pass on (VersionNote).
	Version     string    `json:"version"`
	VersionNote i18n.Text `json:"versionNote,omitempty"`
	// Protocol is remoting (the classic clients) or gRPC (RocketMQ 5's SDKs, through a Proxy).
	Protocol string `json:"protocol"`
	// KnownTo says who listed the client: "broker", or "Proxy <address>" for clients
	// only a Proxy knows (gRPC clients of a cluster-mode Proxy).
	KnownTo       string         `json:"knownTo"`
	Subscriptions []Subscription `json:"subscriptions"`
	// SubscriptionDiffers marks a client whose subscriptions are not the group's most
	// common set.
	SubscriptionDiffers bool `json:"subscriptionDiffers,omitempty"`
	// Strategy is the allocation strategy the client reports (AVG when it reports none,
	// as Go clients do); "" when the console cannot compute it.
	Strategy         string `json:"strategy,omitempty"`
	StrategyProperty string `json:"strategyProperty,omitempty"`
	// Queues counts the queues the client holds (its running info's queue table).
	Queues     int     `json:"queues"`
	ConsumeTPS float64 `json:"consumeTps"`
	// ConsumeMode is orderly or concurrent (its listener); "" when it did not say.
	ConsumeMode string `json:"consumeMode,omitempty"`
	// RunningInfoError says why the client's own report could not be read; its queues
	// and subscriptions are then unknown.
	RunningInfoError i18n.Text `json:"runningInfoError,omitempty"`

	via string // the broker address the client was seen on
}

// Subscription is one topic a client subscribes to, with its filter.
type Subscription struct {
	Topic          string `json:"topic"`
	Expression     string `json:"expression"`
	ExpressionType string `json:"expressionType,omitempty"`
}

// QueueLag is one queue's progress for the group.
type QueueLag struct {
	Topic      string `json:"topic"`
	BrokerName string `json:"brokerName"`
	QueueID    int    `json:"queueId"`
	// BrokerOffset is the queue's max offset; nil when the broker did not say.
	BrokerOffset *int64 `json:"brokerOffset"`
	// ConsumerOffset is the group's committed offset; nil when none is stored.
	ConsumerOffset *int64 `json:"consumerOffset"`
	// Lag is BrokerOffset - ConsumerOffset; nil when it cannot be known, with the reason
	// in LagUnknown.
	Lag        *int64    `json:"lag"`
	LagUnknown i18n.Text `json:"lagUnknown,omitempty"`
	// LagTimeMs is how old the oldest unconsumed message is (now minus the store time of
	// the message at the committed offset), 0 when caught up; nil when it cannot be read,
	// with the reason in LagTimeUnknown.
	LagTimeMs      *int64    `json:"lagTimeMs"`
	LagTimeUnknown i18n.Text `json:"lagTimeUnknown,omitempty"`
	// MinOffset is the queue's oldest stored offset, read when an explanation needs it
	// (the time behind could not be read); nil otherwise.
	MinOffset *int64 `json:"minOffset,omitempty"`
	// InFlight is pulled but not yet committed (brokers from 5.1 report it).
	InFlight *int64 `json:"inFlight,omitempty"`
	// LastTimestamp is the store time (epoch ms) of the last consumed message, 0 if none.
	LastTimestamp int64 `json:"lastTimestamp"`
	// Owner is the client holding the queue, "" when none does.
	Owner string `json:"owner"`
	// Owners lists every holder when more than one client holds the queue.
	Owners []string `json:"owners,omitempty"`
	// OwnerUnknown: no reporting client holds the queue, but some online client did not
	// report its queues, so it may be the owner.
	OwnerUnknown bool `json:"ownerUnknown,omitempty"`
	Retry        bool `json:"retry"`
	// Lock is the queue's orderly lock (orderly groups only).
	Lock *QueueLock `json:"lock,omitempty"`

	// pulledEnd is the sole owner's pulledEnd at this read; 0 when unknown.
	pulledEnd int64
}

// Queue returns the queue's identity.
func (q QueueLag) Queue() rocketmq.MessageQueue {
	return rocketmq.MessageQueue{Topic: q.Topic, BrokerName: q.BrokerName, QueueID: q.QueueID}
}

// TopicSummary sums one topic's queues.
type TopicSummary struct {
	Topic   string `json:"topic"`
	Retry   bool   `json:"retry"`
	Queues  int    `json:"queues"`
	Lag     int64  `json:"lag"`
	Unknown int    `json:"unknownQueues"`
	Owned   int    `json:"ownedQueues"`
	// OwnerUnknown counts queues whose owner is unknown (see QueueLag.OwnerUnknown).
	OwnerUnknown int   `json:"ownerUnknownQueues"`
	LastTime     int64 `json:"lastTimestamp"`
}

// Lookup reads the group for a page or the API: like Detail, but a group that no broker
// knows at all (no client, no offsets, no subscription config) is fault.NotFound.
func (s *Service) Lookup(ctx context.Context, group string) (*Detail, error) {
	d, err := s.Detail(ctx, group)
	if err != nil {
		return nil, err
	}
	// A broker gone from the cluster is named on every group: alone it says nothing of
	// whether this one exists.
	if d.Online || len(d.Queues) > 0 || slices.ContainsFunc(d.Failures, func(f BrokerFailure) bool { return !f.Gone() }) {
		return d, nil
	}
	exists, err := s.groupConfigured(ctx, group)
	if err != nil {
		d.Failures = append(d.Failures, BrokerFailure{Broker: "subscription groups", Err: err})
		return d, nil
	}
	if !exists {
		return nil, NotFound(group)
	}
	return d, nil
}

// Known reports whether the cluster knows group, before a live view starts watching it:
// fault.NotFound when no broker or Proxy knows it (no client, no
// offsets, no subscription config), as Lookup decides. A group the list just showed is
// known without asking; any other error means it could not be told, and is returned as
// it is (the caller decides whether to watch anyway).
func (s *Service) Known(ctx context.Context, group string) error {
	if s.listed(group) {
		return nil
	}
	_, err := s.Lookup(ctx, group)
	return err
}

// listed reports whether the group list computed within ListTTL shows group.
func (s *Service) listed(group string) bool {
	s.list.mu.Lock()
	l := s.list.list
	s.list.mu.Unlock()
	return l != nil && s.opts.Now().Sub(l.CheckedAt) < s.opts.ListTTL &&
		slices.ContainsFunc(l.Groups, func(g Summary) bool { return g.Group == group })
}

// groupConfigured reports whether some master has a subscription config for group,
// answering from the list cache when it is fresh.
func (s *Service) groupConfigured(ctx context.Context, group string) (bool, error) {
	if s.listed(group) {
		return true, nil
	}
	// A broker gone from the cluster cannot be asked: what it held when it last
	// answered the list stands.
	for _, g := range s.cluster.Gone() {
		if held, _, ok := s.held.Last(g.Name, s.opts.Now()); ok {
			if _, ok := held[group]; ok {
				return true, nil
			}
		}
	}
	return s.cluster.GroupConfigured(ctx, group)
}

// brokerAnswer is what one master said about the group.
type brokerAnswer struct {
	broker   cluster.Broker
	conns    *rocketmq.ConsumerConnection
	connErr  error
	stats    *rocketmq.ConsumeStats
	statsErr error
}

// errNotAsked is the answer of a call the fan-out never made (no master registered, the
// operation's deadline passed first); the fan-out names the broker's failure.
var errNotAsked = errors.New("not asked")

// askGroup asks one broker for the group's connections and consume stats, both at once,
// into a. The consume stats (offsets) come from a slave when the master does not answer;
// the connections only from the master, which the clients keep alive.
func (s *Service) askGroup(fo *cluster.Fanout, a *brokerAnswer, group string) {
	a.connErr, a.statsErr = errNotAsked, errNotAsked
	fo.Go(a.broker, "connections", func(ctx context.Context, addr string) error {
		a.conns, a.connErr = s.admin.ConsumerConnections(ctx, addr, group)
		if notThere(a.connErr) {
			return nil
		}
		return a.connErr
	})
	fo.Read(a.broker, "consume stats", func(ctx context.Context, addr string) error {
		a.stats, a.statsErr = s.admin.ConsumeStats(ctx, addr, group, "")
		if notThere(a.statsErr) {
			return nil
		}
		return a.statsErr
	})
}

// notThere reports whether a broker's error only says it holds nothing for the group.
func notThere(err error) bool {
	return errors.Is(err, rocketmq.ErrConsumerNotOnline) || errors.Is(err, rocketmq.ErrGroupNotFound)
}

// failed reports whether a call's error is a failure worth naming (not "nothing here").
func failed(err error) bool { return err != nil && !notThere(err) }

// Detail reads the group from every master in parallel: its connections and consume
// stats, then each online client's running info (which queues it holds), also in
// parallel. A broker or client that fails is named in Failures; the rest is shown.
func (s *Service) Detail(ctx context.Context, group string) (*Detail, error) {
	brokers, err := s.cluster.Brokers(ctx)
	if err != nil {
		return nil, clusterUnavailable(err)
	}
	d := &Detail{Group: group, CheckedAt: s.opts.Now(), Clients: []Client{}, Queues: []QueueLag{}, Topics: []TopicSummary{}}

	answers := make([]brokerAnswer, len(brokers))
	fo := s.cluster.Fanout(ctx)
	for i, b := range brokers {
		answers[i].broker = b
		s.askGroup(fo, &answers[i], group)
	}
	d.Failures = append(fo.Wait(), s.cluster.Missing("")...) // what a gone broker held is unknown
	d.FromSlaves = fo.FromSlaves()
	if ms := s.cluster.Needs5Messages(s.cluster.Release4(ctx, s.admin)); len(ms) > 0 {
		d.Needs5x = i18n.TextOf(ms...)
	}
	// gRPC clients are known to the Proxies only; a mixed group has clients on both.
	proxied, pf := s.cluster.ProxyConsumers(ctx, s.admin, group)
	d.Failures = append(d.Failures, pf...)

	subs := d.mergeConnections(answers, proxied)
	s.noteClients(group, answers, proxied)
	infos := s.runningInfos(ctx, d)
	d.applyRunningInfos(infos)
	d.ConsumeMode = groupConsumeMode(d.Clients)
	s.modes.remember(group, d.ConsumeMode, d.CheckedAt)
	for _, c := range d.Clients {
		for _, sub := range c.Subscriptions {
			subs[sub.Topic] = true
		}
	}
	s.subs.note(group, slices.Collect(maps.Keys(subs)), d.CheckedAt)
	routes := s.subscribedRoutes(ctx, subs)
	s.addSkippedTopics(ctx, d, answers, subs, routes)
	statsFailed := d.mergeStats(answers)
	s.fillRouteQueues(d, routes, statsFailed)
	d.applyOwners(infos)
	if consumesByPop(d.ConsumeType) {
		d.Pop = s.popProgress(ctx, d, subs, brokers)
		for i := range d.Queues {
			d.Queues[i].OwnerUnknown = false // no client owns a queue: nothing is unknown
		}
	}
	sortQueues(d.Queues)
	d.applyLocks(infos)
	s.detailLagTimes(ctx, d, brokers)
	d.summarise()
	d.checkSubscriptions()
	d.Assignment = d.assign(subs)
	return d, nil
}

// detailLagTimes reads the time behind of every lagging queue: one
// QUERY_CONSUME_TIME_SPAN per topic and broker, unless the store times are remembered.
func (s *Service) detailLagTimes(ctx context.Context, d *Detail, brokers []cluster.Broker) {
	now := s.opts.Now()
	reads := s.lagTimeNeeds(d.Group, d.Queues, byName(brokers), now)
	fo := s.cluster.Fanout(ctx)
	s.readLagTimes(fo, reads, -1, now)
	d.Failures = append(d.Failures, fo.Wait()...)
	d.MaxLagTimeMs, d.MaxLagTimeNote = maxLagTime(d.Queues)
}

// addSkippedTopics reads, on each broker whose consume stats left out topics the group's
// clients subscribe to and that have queues there, those topics' offsets (see
// subscribed.go), so the total counts every subscribed topic; one that cannot be read
// is named in Failures. routes are the subscribed topics' (subscribedRoutes).
func (s *Service) addSkippedTopics(ctx context.Context, d *Detail, answers []brokerAnswer, subs map[string]bool, routes map[string]topicRoute) {
	if d.MessageModel == "BROADCASTING" {
		return // the brokers keep no useful offsets of broadcasting groups
	}
	var mu sync.Mutex
	fo := s.cluster.Fanout(ctx)
	for i := range answers {
		a := &answers[i]
		if a.statsErr != nil || a.stats == nil {
			continue
		}
		var need []string
		for _, t := range leftOut(subs, a.stats) {
			if r := routes[t]; r.err == nil && slices.ContainsFunc(r.route.ReadQueues(), func(mq rocketmq.MessageQueue) bool { return mq.BrokerName == a.broker.Name }) {
				need = append(need, t)
			}
		}
		if len(need) == 0 {
			continue
		}
		fo.Go(a.broker, "offsets of subscribed topics", func(ctx context.Context, addr string) error {
			stats := map[string]*rocketmq.ConsumeStats{d.Group: a.stats}
			failed := s.skippedStats(ctx, a.broker.Name, addr, map[string][]string{d.Group: need}, stats)
			a.stats = stats[d.Group]
			mu.Lock()
			defer mu.Unlock()
			for _, t := range slices.Sorted(maps.Keys(failed[d.Group])) {
				d.Failures = append(d.Failures, BrokerFailure{Broker: a.broker.Name, Addr: addr, Op: "offsets of topic " + t, Err: failed[d.Group][t]})
			}
			return nil
		})
	}
	fo.Wait()
}

// topicRoute is one topic's route, or why it could not be read.
type topicRoute struct {
	route *cluster.Route
	err   error
}

// subscribedRoutes reads the route of every topic of subs at once, for addSkippedTopics
// and fillRouteQueues alike.
func (s *Service) subscribedRoutes(ctx context.Context, subs map[string]bool) map[string]topicRoute {
	topics := slices.Sorted(maps.Keys(subs))
	read := make([]topicRoute, len(topics))
	var wg sync.WaitGroup
	for i, t := range topics {
		wg.Go(func() { read[i].route, read[i].err = s.cluster.Route(ctx, t) })
	}
	wg.Wait()
	out := make(map[string]topicRoute, len(topics))
	for i, t := range topics {
		out[t] = read[i]
	}
	return out
}

// noteClients remembers what the brokers (or, for gRPC clients, the Proxies) said of the
// group's clients, for the group list.
func (s *Service) noteClients(group string, answers []brokerAnswer, proxied []cluster.ProxyConsumers) {
	if len(proxied) > 0 && !slices.ContainsFunc(answers, func(a brokerAnswer) bool { return a.connErr == nil && len(a.conns.Connections) > 0 }) {
		s.cluster.NoteSeen(group, cluster.SeenConsumers{Conns: proxied[0].Conns, Proxy: proxied[0].Proxy, At: s.opts.Now()})
		return
	}
	for _, a := range answers {
		if a.connErr == nil && len(a.conns.Connections) > 0 {
			s.cluster.NoteConsumers(group, a.conns, s.opts.Now())
			return
		}
	}
	for _, a := range answers {
		if notThere(a.connErr) {
			s.cluster.NoteConsumers(group, nil, s.opts.Now())
			return
		}
	}
}

// mergeConnections unions the clients every broker and Proxy lists and returns the
// subscribed topics. Clients heartbeat to every broker of their topics, so brokers can
// differ for a moment while one joins or leaves.
func (d *Detail) mergeConnections(answers []brokerAnswer, proxied []cluster.ProxyConsumers) map[string]bool {
	subs := map[string]bool{}
	seen := map[string]bool{}
	for _, a := range answers {
		if a.connErr != nil {
			if notThere(a.connErr) {
				d.clientsKnown = true
			}
			continue // a failure the fan-out named
		}
		d.clientsKnown = true
		cc := a.conns
		if d.ConsumeType == "" {
			d.ConsumeType = ConsumeTypeName(cc.ConsumeType)
			d.MessageModel = cc.MessageModel
			d.ConsumeFromWhere = cc.ConsumeFromWhere
		}
		for topic := range cc.Subscriptions {
			subs[topic] = true
		}
		for _, cn := range cc.Connections {
			if seen[cn.ClientID] {
				continue
			}
			seen[cn.ClientID] = true
			d.Clients = append(d.Clients, Client{
				ClientID: cn.ClientID, ClientAddr: cn.ClientAddr, Language: cn.Language,
				Version: cn.VersionName(), Protocol: ProtocolRemoting, KnownTo: KnownToBroker,
				Subscriptions: []Subscription{}, via: a.broker.Master,
			})
		}
	}
	d.mergeProxied(proxied, seen, subs)
	sort.Slice(d.Clients, func(i, j int) bool { return d.Clients[i].ClientID < d.Clients[j].ClientID })
	d.Online = len(d.Clients) > 0
	d.ClientsUnknown = !d.clientsKnown && len(answers) > 0
	return subs
}

// mergeProxied adds the clients only the Proxies know (the broker lists none of a
// cluster-mode Proxy's gRPC clients). They report no running info, so their
// subscriptions are the ones the Proxy registered for the group.
func (d *Detail) mergeProxied(proxied []cluster.ProxyConsumers, seen, subs map[string]bool) {
	brokerType := d.ConsumeType
	for _, pc := range proxied {
		cc := pc.Conns
		d.clientsKnown = true
		ct := consumeTypeOf(cc, true)
		switch {
		case d.ConsumeType == "":
			d.ConsumeType, d.MessageModel, d.ConsumeFromWhere = ct, cc.MessageModel, cc.ConsumeFromWhere
		case brokerType != "" && ct != brokerType && d.MixedNote == nil:
			d.MixedNote = i18n.TextOf(i18n.M("group.note.mixed", "BrokerType", ConsumeTypeLabel(brokerType), "Proxy", pc.Proxy, "ProxyType", ConsumeTypeLabel(ct)))
		}
		var groupSubs []Subscription
		for topic, sd := range cc.Subscriptions {
			subs[topic] = true
			groupSubs = append(groupSubs, Subscription{Topic: topic, Expression: sd.SubString, ExpressionType: sd.ExpressionType})
		}
		sort.Slice(groupSubs, func(a, b int) bool { return groupSubs[a].Topic < groupSubs[b].Topic })
		for _, cn := range cc.Connections {
			if seen[cn.ClientID] {
				continue
			}
			seen[cn.ClientID] = true
			c := Client{ClientID: cn.ClientID, ClientAddr: cn.ClientAddr, Language: cn.Language, Version: cn.VersionName(),
				Protocol: ProtocolRemoting, KnownTo: "Proxy " + pc.Proxy, Subscriptions: slices.Clone(groupSubs)}
			if cluster.IsGRPC(cc, cn) {
				c.Protocol, c.Version = ProtocolGRPC, ""
				c.VersionNote = i18n.TextOf(i18n.M("group.note.grpcVersion", "Version", cn.VersionName()))
				c.RunningInfoError = i18n.TextOf(i18n.M("group.note.grpcRunningInfo"))
			} else {
				c.RunningInfoError = i18n.TextOf(i18n.M("group.note.viaProxy", "Proxy", pc.Proxy))
			}
			if c.Subscriptions == nil {
				c.Subscriptions = []Subscription{}
			}
			d.Clients = append(d.Clients, c)
		}
	}
}

// mergeStats turns every broker's consume stats into queue rows and returns the
// brokers whose stats failed (their queues' lag is unknown).
func (d *Detail) mergeStats(answers []brokerAnswer) map[string]error {
	statsFailed := map[string]error{}
	for _, a := range answers {
		if a.statsErr != nil {
			if failed(a.statsErr) {
				statsFailed[a.broker.Name] = a.statsErr
			}
			continue // nothing stored there for the group, or a failure the fan-out named
		}
		d.ConsumeTPS += a.stats.ConsumeTps
		for mq, o := range a.stats.Offsets {
			d.Queues = append(d.Queues, queueFromOffsets(mq, o, d.MessageModel))
		}
	}
	return statsFailed
}

// queueFromOffsets is one row from a broker's OffsetWrapper.
func queueFromOffsets(mq rocketmq.MessageQueue, o rocketmq.OffsetWrapper, model string) QueueLag {
	q := QueueLag{Topic: mq.Topic, BrokerName: mq.BrokerName, QueueID: mq.QueueID, Retry: rocketmq.IsRetryTopic(mq.Topic),
		LastTimestamp: max(o.LastTimestamp, 0)}
	bo := o.BrokerOffset
	q.BrokerOffset = &bo
	switch {
	case o.ConsumerOffset < 0:
		q.LagUnknown = i18n.TextOf(i18n.M("group.note.noOffset"))
	case model == "BROADCASTING":
		co := o.ConsumerOffset
		q.ConsumerOffset = &co
		q.LagUnknown = i18n.TextOf(i18n.M("group.note.broadcastingStale"))
	default:
		co := o.ConsumerOffset
		q.ConsumerOffset = &co
		if co > bo {
			q.LagUnknown = i18n.TextOf(i18n.M("group.note.pastMax", "Offset", co, "Max", bo))
			break
		}
		lag := bo - co
		q.Lag = &lag
		if o.PullOffset > co {
			inflight := o.PullOffset - co
			q.InFlight = &inflight
		}
	}
	return q
}

// runningInfos asks every online client, through a broker it is connected to, which
// queues it holds; all at once, since each answer waits on a client.
func (s *Service) runningInfos(ctx context.Context, d *Detail) []*rocketmq.ConsumerRunningInfo {
	infos := make([]*rocketmq.ConsumerRunningInfo, len(d.Clients))
	errs := make([]error, len(d.Clients))
	for i := range errs {
		errs[i] = errNotAsked
	}
	// A client's failure is its own (RunningInfoError), not its broker's.
	fo := s.cluster.Fanout(ctx)
	for i, c := range d.Clients {
		if c.via == "" { // known to a Proxy only: no broker can reach it (RunningInfoError says so)
			continue
		}
		fo.At(c.ClientID, c.via, "running info", func(ctx context.Context, addr string) error {
			infos[i], errs[i] = s.admin.ConsumerRunningInfo(ctx, addr, d.Group, c.ClientID, false)
			return nil
		})
	}
	fo.Wait()
	d.ownersKnown = true
	for i, err := range errs {
		switch {
		case d.Clients[i].via == "":
			d.ownersKnown = false
		case err != nil:
			d.ownersKnown = false
			d.Clients[i].RunningInfoError = runningInfoText(err)
			infos[i] = nil
		}
	}
	return infos
}

func (d *Detail) applyRunningInfos(infos []*rocketmq.ConsumerRunningInfo) {
	for i, info := range infos {
		if info == nil {
			continue
		}
		c := &d.Clients[i]
		if v := info.ClientVersion(); v != "" {
			c.Version = v
		}
		c.StrategyProperty = info.Properties["allocateMessageQueueStrategy"]
		c.Strategy = rocketmq.StrategyName(c.StrategyProperty)
		c.applySubscriptions(info)
		for _, st := range info.StatusTable {
			c.ConsumeTPS += st.ConsumeOKTPS
		}
		for _, pq := range info.MQTable {
			if !pq.Dropped {
				c.Queues++
			}
		}
		if d.ConsumeType == "" {
			d.ConsumeType = ConsumeTypeName(info.ConsumeType())
		}
		c.ConsumeMode = clientConsumeMode(info)
	}
}

// fillRouteQueues adds a row for every readable queue of a subscribed topic that has no
// stats yet (nothing committed, or its broker did not answer), so no queue is silently
// missing from the table.
func (s *Service) fillRouteQueues(d *Detail, routes map[string]topicRoute, statsFailed map[string]error) {
	have := map[rocketmq.MessageQueue]bool{}
	for _, q := range d.Queues {
		have[q.Queue()] = true
	}
	for _, t := range slices.Sorted(maps.Keys(routes)) {
		route, err := routes[t].route, routes[t].err
		if err != nil {
			if errors.Is(err, rocketmq.ErrTopicNotFound) {
				if !rocketmq.IsRetryTopic(t) {
					d.Failures = append(d.Failures, BrokerFailure{Broker: "topic " + t, Err: i18n.M("group.note.noRoute")})
				}
				continue
			}
			d.Failures = append(d.Failures, BrokerFailure{Broker: "topic " + t, Op: "route", Err: err})
			continue
		}
		for _, g := range route.Gone {
			d.Failures = append(d.Failures, g.Failure(t, "route"))
		}
		for _, mq := range route.ReadQueues() {
			if have[mq] {
				continue
			}
			q := QueueLag{Topic: mq.Topic, BrokerName: mq.BrokerName, QueueID: mq.QueueID, Retry: rocketmq.IsRetryTopic(mq.Topic)}
			switch {
			case statsFailed[mq.BrokerName] != nil:
				q.LagUnknown = i18n.TextOf(i18n.M("group.note.brokerFailed", "Broker", mq.BrokerName, "Error", errMessage(statsFailed[mq.BrokerName])))
			case d.MessageModel == "BROADCASTING":
				q.LagUnknown = i18n.TextOf(i18n.M("group.note.broadcasting"))
			default:
				q.LagUnknown = i18n.TextOf(i18n.M("group.note.noOffset"))
			}
			d.Queues = append(d.Queues, q)
			have[mq] = true
		}
	}
}

// applyOwners marks each queue with the clients whose queue table holds it.
func (d *Detail) applyOwners(infos []*rocketmq.ConsumerRunningInfo) {
	owners := map[rocketmq.MessageQueue][]string{}
	pulled := map[rocketmq.MessageQueue]int64{}
	for i, info := range infos {
		if info == nil {
			continue
		}
		for mq, pq := range info.MQTable {
			if !pq.Dropped {
				owners[mq] = append(owners[mq], d.Clients[i].ClientID)
				pulled[mq] = pulledEnd(pq)
			}
		}
	}
	have := map[rocketmq.MessageQueue]bool{}
	for i := range d.Queues {
		q := &d.Queues[i]
		have[q.Queue()] = true
		o := owners[q.Queue()]
		slices.Sort(o)
		if len(o) > 0 {
			q.Owner = o[0]
		}
		if len(o) > 1 {
			q.Owners = o
		} else if len(o) == 1 {
			q.pulledEnd = pulled[q.Queue()]
		}
		q.OwnerUnknown = len(o) == 0 && !d.ownersKnown
	}
	// A queue a client holds but no broker reported and no route listed (a topic the
	// brokers dropped) still shows, so the owner is not lost.
	for mq, o := range owners {
		if have[mq] {
			continue
		}
		slices.Sort(o)
		q := QueueLag{Topic: mq.Topic, BrokerName: mq.BrokerName, QueueID: mq.QueueID, Retry: rocketmq.IsRetryTopic(mq.Topic),
			Owner: o[0], LagUnknown: i18n.TextOf(i18n.M("group.note.unreported"))}
		if len(o) > 1 {
			q.Owners = o
		}
		d.Queues = append(d.Queues, q)
	}
}

// sortQueues orders rows as operators read them (see compareQueues).
func sortQueues(qs []QueueLag) {
	slices.SortFunc(qs, func(a, b QueueLag) int { return compareQueues(a.Queue(), b.Queue()) })
}

// summarise computes per-topic sums and the total lag, and says when the total leaves
// queues out or cannot be known at all.
func (d *Detail) summarise() {
	byTopic := map[string]*TopicSummary{}
	var order []string
	var total int64
	known, unknown := 0, 0
	var firstReason i18n.Text
	for _, q := range d.Queues {
		ts := byTopic[q.Topic]
		if ts == nil {
			ts = &TopicSummary{Topic: q.Topic, Retry: q.Retry}
			byTopic[q.Topic] = ts
			order = append(order, q.Topic)
		}
		ts.Queues++
		ts.LastTime = max(ts.LastTime, q.LastTimestamp)
		if q.Owner != "" {
			ts.Owned++
		}
		if q.OwnerUnknown {
			ts.OwnerUnknown++
		}
		if q.Lag == nil {
			ts.Unknown++
			unknown++
			if firstReason == nil {
				firstReason = q.LagUnknown
			}
			continue
		}
		ts.Lag += *q.Lag
		total += *q.Lag
		known++
	}
	for _, t := range order {
		d.Topics = append(d.Topics, *byTopic[t])
	}
	switch {
	case known > 0:
		d.TotalLag = &total
		if unknown > 0 {
			d.TotalLagNote = i18n.TextOf(i18n.M("group.note.leavesOut", "Unknown", unknown, "Total", known+unknown))
		}
	case unknown > 0:
		d.TotalLagNote = firstReason
	case len(d.Failures) > 0:
		d.TotalLagNote = i18n.TextOf(i18n.M("group.note.noBroker"))
	default:
		d.TotalLagNote = i18n.TextOf(i18n.M("group.note.nothing"))
	}
}

// applySubscriptions adds the client's subscriptions from its running info, by topic.
func (c *Client) applySubscriptions(info *rocketmq.ConsumerRunningInfo) {
	for _, sd := range info.Subscriptions {
		c.Subscriptions = append(c.Subscriptions, Subscription{Topic: sd.Topic, Expression: sd.SubString, ExpressionType: sd.ExpressionType})
	}
	sort.Slice(c.Subscriptions, func(a, b int) bool { return c.Subscriptions[a].Topic < c.Subscriptions[b].Topic })
}

// subscriptionKey is a client's subscriptions as one comparable string.
func subscriptionKey(subs []Subscription) string {
	parts := make([]string, 0, len(subs))
	for _, s := range subs {
		parts = append(parts, s.Topic+"\x00"+s.ExpressionType+"\x00"+s.Expression)
	}
	slices.Sort(parts)
	return strings.Join(parts, "\x01")
}

// checkSubscriptions flags clients whose subscriptions differ from the group's most
// common set (ties go to the set of the first client in id order).
func (d *Detail) checkSubscriptions() {
	count := map[string]int{}
	first := map[string]int{}
	for i, c := range d.Clients {
		if c.RunningInfoError != nil {
			continue
		}
		k := subscriptionKey(c.Subscriptions)
		if _, ok := first[k]; !ok {
			first[k] = i
		}
		count[k]++
	}
	if len(count) < 2 {
		return
	}
	d.SubscriptionsDiffer = true
	best := ""
	for k := range count {
		if best == "" || count[k] > count[best] || (count[k] == count[best] && first[k] < first[best]) {
			best = k
		}
	}
	for i := range d.Clients {
		c := &d.Clients[i]
		if c.RunningInfoError == nil && subscriptionKey(c.Subscriptions) != best {
			c.SubscriptionDiffers = true
		}
	}
}

// QueueKey is a stable, id-safe name of a queue for element ids and map keys.
func QueueKey(mq rocketmq.MessageQueue) string {
	return mq.Topic + "/" + mq.BrokerName + "/" + strconv.Itoa(mq.QueueID)
}

// compareQueues orders queues as operators read them: the group's topics first, its
// retry topic last, then broker and queue id.
func compareQueues(a, b rocketmq.MessageQueue) int {
	ra, rb := rocketmq.IsRetryTopic(a.Topic), rocketmq.IsRetryTopic(b.Topic)
	if ra != rb {
		if ra {
			return 1
		}
		return -1
	}
	return cmp.Compare(a.Compare(b), 0)
}
