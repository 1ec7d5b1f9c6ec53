package server

import (
	"context"
	"time"

	"rmqconsole/acl"
	"rmqconsole/alerts"
	"rmqconsole/brokers"
	"rmqconsole/deadletters"
	"rmqconsole/decoding"
	"rmqconsole/diagnosis"
	"rmqconsole/groups"
	"rmqconsole/handlers"
	"rmqconsole/live"
	"rmqconsole/lookup"
	"rmqconsole/previews"
	"rmqconsole/resets"
	"rmqconsole/subgroups"
	"rmqconsole/topics"
)

// services are one cluster's services, built once by newServices when the console
// starts, with the background work they need: the route tables only hand them to the
// handlers. Those that ask the cluster are nil when it has no NameServer.
type services struct {
	lookup      *lookup.Service
	deadLetters *deadletters.Service
	groups      *groups.Service
	// groupsLive watches the groups viewers have open; brokersLive polls the brokers
	// whose page is open.
	groupsLive *groups.Live
	// liveViews are the rights of the callers watching groups live: their frames
	// leave out the topics those rights hide.
	liveViews   *handlers.LiveViews
	topics      *topics.Service
	brokers     *brokers.Service
	brokersLive *live.Hub
	// groupSettings and acl change what the cluster is made of, as brokers' configuration
	// does (brokers has its changes enabled), through previews kept in previews.
	groupSettings *subgroups.Service
	acl           *acl.Service
	// resets and alerts work without a cluster: their pages read the database.
	resets *resets.Service
	alerts *alerts.Service
	// decoding reads message bodies by their topics' decoders (the config file's and
	// those set in the console); it works without a cluster.
	decoding *decoding.Service
	// diagnosis works out what is wrong from each read of the lag collector; nil when
	// the collector is off.
	diagnosis *diagnosis.Engine
}

// brokerPoll is how often the broker page's live chart polls; ten minutes of samples at
// that interval are kept (brokers.NewSeries).
const brokerPoll = 2 * time.Second

// newServices builds every service of the cluster over its one RocketMQ client and its
// one view of the cluster, and starts their background work: the live hubs, the lag
// collector that /metrics, the lag history and the alert rules read, and the alert
// sender. Close stops them.
func (a *clusterApp) newServices() *services {
	s := &services{alerts: a.alertService()}
	if a.rmq != nil {
		opts := lookup.Options{Cluster: a.cluster, Direct: a.rmq, Audit: a.store.Audit(), ClusterName: a.nameServers()}
		addLookupTestHooks(&opts, a.log)
		s.lookup = lookup.New(a.rmq, opts)
	}
	s.decoding = a.decodingService(s.lookup)
	s.resets = a.newResetService(s.lookup)
	a.onClose(s.resets.Close) // writes the refusals it only counted
	a.registry.MustRegister(&alertMetrics{svc: s.alerts, log: a.log.With("component", "alerts")})
	if a.rmq == nil {
		return s
	}
	s.deadLetters = deadletters.New(deadletters.Config{Admin: a.rmq, Cluster: a.cluster, Finder: s.lookup,
		Audit: a.store.Audit(), NameServers: a.nameServers()})
	s.topics = topics.New(a.rmq, topics.Options{Cluster: a.cluster, Audit: a.store.Audit(), NameServers: a.nameServers()})
	// Every topic's figures, within a call budget per round, for the list to read from
	// memory: each console keeps its own, as each answers its own list.
	if a.cfg.TopicFigures > 0 {
		a.background(s.topics.Figures(a.cfg.TopicFigures, a.cfg.TopicFiguresBudget).Run)
	}
	s.brokers = brokers.New(a.rmq, a.cluster)
	a.manageServices(s)
	// One poll per watched broker whatever the number of viewers; ten minutes of samples
	// at the poll interval.
	s.brokersLive = live.New(handlers.BrokerFrames(s.brokers, brokers.NewSeries(300, brokerPoll)), live.Options{Interval: brokerPoll, Timeout: a.cfg.Timeout})
	a.onClose(s.brokersLive.Close)
	s.groups = groups.NewService(a.rmq, groups.Options{Log: a.log.With("component", "groups"), Cluster: a.cluster,
		MaxOffsetReads: a.cfg.GroupMaxOffsetReads})
	s.liveViews = &handlers.LiveViews{}
	s.groupsLive = groups.NewLive(s.groups, groups.LiveOptions{
		Interval: a.cfg.GroupPoll,
		Timeout:  a.cfg.Timeout,
		Renderer: handlers.GroupFrames{Base: a.base, Views: s.liveViews},
		Store:    a.store,
		Log:      a.log.With("component", "live-groups"),
		// A name no broker knows starts no watcher, and only so many groups are
		// watched at once: each polls the brokers every tick.
		MaxGroups: a.cfg.LiveGroups,
		Known:     s.groups.Known,
		// The collector's sweep feeds the same log: a rebalance is recorded once.
		Rebalances: groups.NewRebalanceLog(a.store, a.log.With("component", "rebalances")),
	})
	a.onClose(s.groupsLive.Close)
	a.registry.MustRegister(liveMetrics{s.groupsLive}, tailMetrics{s.lookup.Tails()})
	a.collectLag(s)
	return s
}

// manageServices builds the services that change the cluster's consumer groups, ACL and
// broker configuration: each change is previewed, applied with its audit entry written
// first, and read back.
func (a *clusterApp) manageServices(s *services) {
	var shared previews.Store
	if a.replica.shared {
		// A browser may preview on one console and apply on another.
		shared = a.store
	}
	kept := previews.New(shared, 0, nil)
	audit := a.store.Audit()
	s.groupSettings = subgroups.New(a.rmq, subgroups.Options{Cluster: a.cluster, Audit: audit, Previews: kept, NameServers: a.nameServers()})
	s.acl = acl.New(a.rmq, acl.Options{Cluster: a.cluster, Audit: audit, Previews: kept, NameServers: a.nameServers(),
		Self: a.cc.Credentials.AccessKey})
	s.brokers.EnableChanges(brokers.ChangeOptions{Changer: a.rmq, Audit: audit, Previews: kept, NameServers: a.nameServers()})
}

// collectLag reads every group's lag each --metrics-interval for /metrics, and, on the
// console that leads the cluster's work, records it in the lag history and applies the
// alert rules to it.
func (a *clusterApp) collectLag(s *services) {
	if a.cfg.MetricsInterval <= 0 {
		return
	}
	col := groups.NewLagCollector(s.groups, a.cfg.MetricsInterval)
	col.PerQueue, col.Groups = a.cfg.MetricsQueues, a.cfg.MetricsGroups
	a.registry.MustRegister(col)
	// Every console works out the findings from its own reads (no broker call of its
	// own but the dead-letter counts, within DefaultDeadLetterLookups a read, the
	// brokers' runtimes, the NameServers' views and the locks of orderly groups whose
	// queues stand still, within DefaultLockLookups a read); clients
	// commit offsets every few seconds, so "stuck" needs a few of them.
	s.diagnosis = diagnosis.New(diagnosis.Options{Cluster: a.cluster, Subscriptions: s.groupsLive.Rebalances(), Rebalances: a.store,
		DeadLetters: s.deadLetters, Brokers: s.brokers, NameServers: a.rmq, Replication: a.rmq,
		Locks:      groups.LockReader{Service: s.groups, Log: s.groupsLive.Rebalances()},
		StuckAfter: max(2*a.cfg.MetricsInterval, 10*time.Second), SlowOver: max(3*a.cfg.MetricsInterval, 15*time.Second),
		DiskRatio: a.cfg.diagnosis.DiskRatio, SlaveBehindBytes: a.cfg.diagnosis.SlaveBehindBytes})
	col.Then(s.diagnosis.Observe)
	col.Then(a.whenLeading(groups.NewLagRecorder(a.store, a.cfg.LagRetention, a.log.With("component", "lag-history")).Record))
	col.Then(a.whenLeading(func(ctx context.Context, l *groups.List) { a.evaluateAlerts(ctx, s.alerts, l, s.diagnosis) }))
	// Rebalances of the groups nobody watches, within a call budget per collection.
	col.Then(a.whenLeading(groups.NewRebalanceSweep(s.groups, s.groupsLive.Rebalances(), 0, s.groupsLive.Watching).Sweep))
	a.background(col.Run)
}

// decoderRefresh is how soon a decoder set on another console sharing the database is
// used here.
const decoderRefresh = 15 * time.Second

// decodingService reads the decoders set in the console, and, where consoles share the
// database, reads them again every decoderRefresh. Previews read the newest message
// through msgs.
func (a *clusterApp) decodingService(msgs *lookup.Service) *decoding.Service {
	log := a.log.With("component", "decoding")
	opts := decoding.Options{File: a.cfg.Decoders, ClusterName: a.cc.Name, NameServers: a.nameServers(), Log: log}
	if msgs != nil {
		opts.Messages = msgs
	}
	s := decoding.New(a.store, opts)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := s.Refresh(ctx); err != nil {
		// The page names it; the file's decoders are used meanwhile.
		log.Warn("reading the topics' decoders failed", "err", err)
	}
	if a.replica.shared {
		a.background(func(ctx context.Context) { s.Run(ctx, decoderRefresh) })
	}
	return s
}

// newResetService builds the reset service over the console's cluster and audit log.
// Messages a reset starts from are found by msgs.
func (a *clusterApp) newResetService(msgs *lookup.Service) *resets.Service {
	log := a.log.With("component", "resets")
	cfg := resets.Config{Audit: a.store.Audit(), NameServers: a.nameServers(), Log: log,
		// Reading an interrupted entry's offsets back at start-up: one round of
		// calls and a retry, however many brokers are frozen.
		RecoverWait: 2 * a.cfg.Timeout}
	if a.rmq != nil {
		cfg.Admin, cfg.Cluster = a.rmq, a.cluster
	}
	if msgs != nil {
		cfg.Finder = msgs
	}
	if a.replica.shared {
		// A browser may preview on one console and apply on another.
		cfg.Previews = a.store
	}
	addTestHooks(&cfg, log)
	return resets.New(cfg)
}

// onClose adds work for Close to do first (stopping background goroutines), in reverse
// order of registration.
func (a *App) onClose(f func()) { a.closers = append(a.closers, f) }

// background runs run in its own goroutine until Close, which cancels its context and
// waits for it to return.
func (a *App) background(run func(ctx context.Context)) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		run(ctx)
	}()
	a.onClose(func() { cancel(); <-done })
}
