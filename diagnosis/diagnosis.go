// Package diagnosis says what is wrong with the cluster now, with the evidence and the
// action to take: a consumer group whose committed offsets fell below the queues' min
// offsets (the broker deleted messages it had not read), one that stopped consuming
// while its clients are online, one that consumes slower than messages arrive, clients
// of one group that subscribe differently, a group that keeps rebalancing, clients of
// one group on very different client versions, a group whose retry topic grows fast
// (a retry storm), one whose dead-letter topic receives messages, an orderly group with
// a queue nobody can consume because its lock holder is gone; a broker whose disk is
// nearly full or that refuses sends as busy, a slave that falls behind its master;
// configured NameServers that disagree.
//
// The lag collector hands it each read of the group list (Observe, a LagCollector.Then
// hook) and it keeps a short window of each group's figures in memory; pages and the
// API read the findings of the last read. Its cost in broker calls is mostly the
// collector's: at 1 000 groups, per interval, one route refresh, one
// GET_BROKER_CONSUME_STATS per master (which answers for every group), the lag-time
// reads the list already makes, and at most ClientLookups connection lists
// (groups.Options.ClientLookups), whatever the number of viewers. What a read could not
// read (a count, a broker, a NameServer, a group's locks) is kept beside its findings
// with the cause (Unread), since the findings that need it are missing or stale.
//
//   - Retry storms come from the retry topic's queues in the consume stats (a push
//     consumer's group commits offsets on its %RETRY% topic): no call.
//   - Dead letters: when some group consumed since the read
//     before, one topic list from the NameServers, then for at most DeadLetterLookups
//     of the consuming groups whose %DLQ% topic exists a route lookup and one
//     GET_TOPIC_STATS_INFO per broker of the topic.
//   - Brokers' disks and flow control: one GET_BROKER_RUNTIME_INFO per broker process
//     and the cluster info the broker list refreshes (Options.Brokers).
//   - Slaves behind: one GET_BROKER_HA_STATUS per master that has a slave (5.x; the
//     master answers for its slaves, so a frozen slave is still measured), none for a
//     4.x master, whose slaves are compared by the runtime figures already read (a
//     4.x slave that does not answer is not measured: how far behind it is is unknown).
//   - NameServers: one GET_BROKER_CLUSTER_INFO per configured NameServer, when more
//     than one is configured (Options.NameServers).
//   - The min offsets that show lost messages come with the lag-time reads: a
//     QUERY_CONSUME_TIME_SPAN that dates a committed message older than the queue's
//     oldest one costs one GET_TOPIC_STATS_INFO for that topic on that broker, which the
//     list makes to explain the time behind anyway. So only queues the broker no longer
//     dates are checked, within the list's LagTimeLookups, most lagging first; a queue
//     whose committed offset stands still is dated again every 10 minutes (a remembered
//     store time is not taken longer), so a deletion under it shows within that.
//   - Subscriptions are those of each client's running info, which the live watchers
//     and the rebalance sweep (within its call budget, on the console that leads) read
//     anyway; a group neither has read yet has no such finding.
//   - Rebalance churn is one database query per read for every group (in batches of
//     500 names, each an index range per group) over the stored rebalance events.
//   - Orderly locks: for at most LockLookups (default 8) orderly groups a read, those
//     with messages waiting in a queue whose committed offset stood still since the
//     read before (the ones found blocked at the read before first, then the most
//     waiting), one GET_CONSUMER_RUNNING_INFO per client of the group, and a
//     GET_CONSUMER_CONNECTION_LIST when the list's is older than the read: at 1 000
//     groups at most 8 × (1 + clients) calls, 32 for groups of three clients, however
//     many groups are orderly, and none while every orderly queue moves. The orderly groups are those whose clients'
//     running info said so (the list's ConsumeMode). Who held a lock comes from the
//     tracker these reads, the live watchers and the rebalance sweep (whose running
//     infos carry the locks at no further call) all feed: a holder none of them saw
//     holding the lock is not named, and its queue is not found.
package diagnosis

import (
	"cmp"
	"context"
	"maps"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"rmqconsole/brokers"
	"rmqconsole/cluster"
	"rmqconsole/groups"
	"rmqconsole/i18n"
	"rmqconsole/rocketmq"
	"rmqconsole/store"
)

// Kinds of finding.
const (
	// KindStuck: lag grows (or stays above 0) while the group's clients are online and
	// its committed offsets do not move.
	KindStuck = "consumerStuck"
	// KindSlow: lag grows while the group consumes: messages arrive faster than it
	// consumes them.
	KindSlow = "slowConsumer"
	// KindVersions: clients of one group run client versions of different release lines.
	KindVersions = "clientVersions"
	// KindLost: a group's committed offset on a queue is below the queue's min offset:
	// the broker deleted messages before the group read them.
	KindLost = "messagesLost"
	// KindSubscriptions: clients of one group subscribe to different topics, or with
	// different expressions.
	KindSubscriptions = "subscriptionDiffers"
	// KindChurn: a group rebalanced more in the last hour than a routine deploy does.
	KindChurn = "rebalanceChurn"
	// KindRetryStorm: a group's retry topic grows fast: many of its consumes fail.
	KindRetryStorm = "retryStorm"
	// KindDeadLetters: a group's dead-letter topic received messages since the read
	// before: messages failed every retry and wait for an operator.
	KindDeadLetters = "deadLettersArriving"
	// KindDiskFull: a broker's commit-log disk is nearly full: the broker deletes
	// messages before their retention and, fuller still, refuses writes.
	KindDiskFull = "brokerDiskFull"
	// KindFlowControl: a broker's page cache or send threads are so busy that it
	// answers sends "broker busy".
	KindFlowControl = "brokerFlowControl"
	// KindNameServers: the configured NameServers do not know the same brokers: one
	// lacks a broker, or names another address for it.
	KindNameServers = "nameServersDisagree"
	// KindOrderlyBlocked: messages wait in a queue of an orderly group that nobody can
	// consume: the broker keeps its lock for a client that is gone (or stopped renewing
	// it) until the lock expires.
	KindOrderlyBlocked = "orderlyBlocked"
	// KindSlaveBehind: a slave has not copied its master's commit log up to
	// SlaveBehindBytes of its end, or has no replication connection to it: what only the
	// master holds is lost if its disk is, and a SYNC_MASTER's sends wait or fail.
	KindSlaveBehind = "slaveBehind"
)

// Kinds lists every kind, most severe first.
var Kinds = []string{KindDiskFull, KindLost, KindStuck, KindFlowControl, KindDeadLetters, KindSlaveBehind, KindNameServers, KindOrderlyBlocked, KindSlow, KindRetryStorm, KindSubscriptions, KindChurn, KindVersions}

// Severities, most severe first.
const (
	Critical = "critical"
	Warning  = "warning"
	Info     = "info"
)

func severityRank(s string) int {
	switch s {
	case Critical:
		return 0
	case Warning:
		return 1
	}
	return 2
}

// Finding is one thing wrong now.
type Finding struct {
	Kind     string `json:"kind"`
	Severity string `json:"severity"`
	// Subject is what the finding is about: the group's or the broker's name.
	Subject string `json:"subject"`
	Group   string `json:"group,omitempty"`
	// Broker is the broker name of a finding about a broker process; Addr that process.
	Broker string `json:"broker,omitempty"`
	Addr   string `json:"addr,omitempty"`
	// NameServer is the NameServer a finding about the NameServers is about.
	NameServer string `json:"nameServer,omitempty"`
	// Evidence is the numbers that show it, as a sentence of the catalogues.
	Evidence i18n.Message `json:"-"`
	// Topics are the topics Evidence names, so that a reader who may not see one of
	// them is not shown it.
	Topics []string `json:"-"`
	// Since is the first read that showed it.
	Since time.Time `json:"since"`
	// Action is the page where it is dealt with (a path of the console).
	Action string `json:"action"`
	// ActionKind names that page: "group", "reset", "client".
	ActionKind string `json:"actionKind"`
}

// Options tune the rules; zero values take the defaults.
type Options struct {
	// StuckAfter is how long committed offsets must stand still, with clients online
	// and messages waiting, before the group is called stuck. Clients commit offsets
	// every few seconds (5 s for the Java and Go clients), so it must be longer than
	// that. Default 60 s.
	StuckAfter time.Duration
	// SlowOver is the span over which lag must have grown, while the group consumed,
	// for the group to be called slow. Default 90 s.
	SlowOver time.Duration
	// Keep bounds how long a group's reads are kept. Default 10 minutes.
	Keep time.Duration
	// Cluster gives the clients the list last saw (their versions); nil leaves that
	// kind out.
	Cluster *cluster.Cluster
	// Subscriptions says how each group's clients subscribed when they did not all
	// subscribe alike (*groups.RebalanceLog, fed by the live watchers and the
	// collector's rebalance sweep); nil leaves that kind out.
	Subscriptions Subscriptions
	// Rebalances counts the stored rebalance events (*store.Store); nil leaves
	// rebalanceChurn out.
	Rebalances RebalanceCounter
	// ChurnClients is how many clients may join or leave a group in ChurnOver before it
	// is said to churn. A rolling restart makes two events per client (left, joined), so
	// the default 10 lets one deploy of five clients an hour pass and catches a client
	// that restarts or loses its heartbeat every ten minutes or so.
	ChurnClients int64
	// ChurnMoves is how many queue moves a group may make in ChurnOver. A rolling
	// restart moves each queue about twice (away and back); the default 120 lets one
	// deploy of a group of 60 queues an hour pass.
	ChurnMoves int64
	// ChurnOver is the span counted. Default one hour.
	ChurnOver time.Duration
	// RetryPerMinute is how many messages a minute a group's retry topic may receive
	// before it is a retry storm. Default DefaultRetryPerMinute.
	RetryPerMinute float64
	// RetryOver is the shortest span the retry rate is taken over. Default 60 s.
	RetryOver time.Duration
	// DeadLetters counts what the groups' dead-letter topics received
	// (*deadletters.Service); nil leaves deadLettersArriving out.
	DeadLetters DeadLetterCounter
	// DeadLetterLookups bounds the dead-letter topics counted at one read. Default
	// DefaultDeadLetterLookups.
	DeadLetterLookups int
	// Brokers reads every broker process's runtime figures (*brokers.Service); nil
	// leaves brokerDiskFull and brokerFlowControl out.
	Brokers BrokerRuntimes
	// DiskRatio is the used share of a commit log's disk (0..1) from which a broker's
	// disk is called full. Default DefaultDiskRatio.
	DiskRatio float64
	// PageCacheBusyMs and SendQueueWaitMs are the page-cache lock time and the send
	// queue's oldest wait from which a broker is called in flow control. Defaults
	// DefaultPageCacheBusyMs and DefaultSendQueueWaitMs.
	PageCacheBusyMs, SendQueueWaitMs int64
	// NameServers asks each configured NameServer for its cluster info
	// (*rocketmq.Client); nil leaves nameServersDisagree out.
	NameServers NameServerViews
	// Locks reads orderly groups' locks (*groups.LockReader); nil leaves orderlyBlocked
	// out. LockLookups bounds the groups read at one read: default DefaultLockLookups.
	Locks       OrderlyLocks
	LockLookups int
	// Replication asks masters how far their slaves have copied (*rocketmq.Client),
	// through Cluster's fan-out; nil, or a nil Brokers or Cluster, leaves slaveBehind out.
	Replication Replication
	// SlaveBehindBytes is how far (bytes of commit log) a slave may be behind its master
	// before it is said to fall behind. Default DefaultSlaveBehindBytes.
	SlaveBehindBytes int64
}

// Replication asks a master how far its slaves have copied its commit log: one
// GET_BROKER_HA_STATUS.
type Replication interface {
	HAStatus(ctx context.Context, addr string) (*rocketmq.HAStatus, error)
}

// DefaultSlaveBehindBytes is the masters' own default haMaxGapNotInSync (256 MiB): a
// slave further behind is no longer counted in sync by its master. A master with a
// lower haMaxGapNotInSync says so of a slave nearer, and that counts too.
const DefaultSlaveBehindBytes = 256 << 20

// NameServerViews asks each configured NameServer what it knows: one
// GET_BROKER_CLUSTER_INFO per NameServer.
type NameServerViews interface {
	NameServers() []string
	ClusterInfoAt(ctx context.Context, addr string) (*rocketmq.ClusterInfo, error)
}

// DefaultDiskRatio is the disk use from which a broker's disk is full. From 85 % a
// broker deletes commit-log files forcibly, whatever their retention
// (diskSpaceCleanForciblyRatio), and from 90 % it refuses writes
// (diskSpaceWarningLevelRatio); a broker's own diskMaxUsedSpaceRatio (75 % unless set)
// may start deleting earlier, but it is a setting the runtime figures do not carry.
const DefaultDiskRatio = 0.85

// DefaultPageCacheBusyMs and DefaultSendQueueWaitMs are the brokers' own defaults for
// refusing sends: a write holding the page-cache lock longer than
// osPageCacheBusyTimeOutMills (1 s), and a send waiting in the queue longer than
// waitTimeMillsInSendQueue (200 ms), make the broker answer "broker busy".
const (
	DefaultPageCacheBusyMs = 1000
	DefaultSendQueueWaitMs = 200
)

// BrokerRuntimes reads every broker process's runtime figures: one
// GET_BROKER_RUNTIME_INFO per process.
type BrokerRuntimes interface {
	List(ctx context.Context, refresh bool) (*brokers.List, error)
}

// DefaultDeadLetterLookups is how many dead-letter topics one read counts at most: each
// is a route lookup and a GET_TOPIC_STATS_INFO per broker of the topic. Only groups
// that consumed since the read before can have new dead letters (a message goes to the
// dead-letter topic when a consume fails, and the offset moves past it then), and those
// counted longest ago come first, so a larger cluster waits a few reads longer instead
// of loading its brokers.
const DefaultDeadLetterLookups = 32

// DeadLetterCounter counts the messages each group's dead-letter topic received in all.
type DeadLetterCounter interface {
	// Written answers, for at most max of groups whose dead-letter topic exists (in the
	// order given), the sum of its queues' max offsets, and 0 for a group without one;
	// a group it could not count is left out.
	Written(ctx context.Context, groups []string, max int) (map[string]int64, error)
}

// DefaultRetryPerMinute is the retry rate above which a group is in a retry storm. A
// few bad messages retry 16 times over hours, far below one a second; 10 a second
// held for a minute is a listener failing most of what it is given (a dependency
// down, a bad deploy), where every failure is delivered again and adds to the load.
const DefaultRetryPerMinute = 600

// RebalanceCounter is what the engine reads of the stored rebalance events: one query
// for every group at each read.
type RebalanceCounter interface {
	RebalanceCounts(ctx context.Context, groups []string, since time.Time) (map[string]store.RebalanceCount, error)
}

// Subscriptions is what the engine reads of the clients' subscriptions.
type Subscriptions interface {
	SubscriptionSplit(group string) (groups.SubscriptionSplit, bool)
}

// point is one group's figures at one read: its lag, and the messages produced and
// consumed since the read before (so a window's progress is a sum, and only the last
// read's offsets are kept).
type point struct {
	at                 time.Time
	online             bool
	lag                int64
	produced, consumed int64
	// gap: no read before, or none of its queues in common with this one: produced and
	// consumed say nothing.
	gap bool
	// retried is the messages written to the group's retry queues since the read
	// before; retryGap: no retry queue in common with it.
	retried  int64
	retryGap bool
}

// Engine keeps each group's recent reads and the findings of the last.
type Engine struct {
	opts Options

	mu       sync.Mutex
	history  map[string][]point
	offsets  map[string]groups.Offsets // each group's offsets at the last read
	findings []Finding
	since    map[string]time.Time // kind + group → first read that showed it
	at       time.Time
	// dlq is each group's dead-letter count at its last count; arrived the dead letters
	// that count found new, kept until the group is counted again or stops consuming.
	dlq     map[string]dlqCount
	arrived map[string]Finding
	// blocked is each orderly group's orderlyBlocked finding at its last read of locks.
	blocked map[string]Finding
	// unread is what the last read could not read (see Unread); listed the brokers the
	// last read's broker list named.
	unread []Unread
	listed []string
	// acked is each slave's last offset acknowledged to its master, kept for when the
	// master has dropped its connection (20 s without an answer). Only brokerFindings
	// uses it.
	acked map[string]int64
}

// evidenceTime is how evidence says a time.
const evidenceTime = "2006-01-02 15:04:05 UTC"

// dlqCount is a group's dead-letter topic's messages in all, counted at at.
type dlqCount struct {
	written int64
	at      time.Time
}

// New returns an engine with opts.
func New(opts Options) *Engine {
	if opts.StuckAfter <= 0 {
		opts.StuckAfter = 60 * time.Second
	}
	if opts.SlowOver <= 0 {
		opts.SlowOver = 90 * time.Second
	}
	if opts.Keep <= 0 {
		opts.Keep = 10 * time.Minute
	}
	if opts.ChurnClients <= 0 {
		opts.ChurnClients = 10
	}
	if opts.ChurnMoves <= 0 {
		opts.ChurnMoves = 120
	}
	if opts.ChurnOver <= 0 {
		opts.ChurnOver = time.Hour
	}
	if opts.RetryPerMinute <= 0 {
		opts.RetryPerMinute = DefaultRetryPerMinute
	}
	if opts.RetryOver <= 0 {
		opts.RetryOver = 60 * time.Second
	}
	if opts.DiskRatio <= 0 {
		opts.DiskRatio = DefaultDiskRatio
	}
	if opts.PageCacheBusyMs <= 0 {
		opts.PageCacheBusyMs = DefaultPageCacheBusyMs
	}
	if opts.SendQueueWaitMs <= 0 {
		opts.SendQueueWaitMs = DefaultSendQueueWaitMs
	}
	if opts.SlaveBehindBytes <= 0 {
		opts.SlaveBehindBytes = DefaultSlaveBehindBytes
	}
	if opts.DeadLetterLookups <= 0 {
		opts.DeadLetterLookups = DefaultDeadLetterLookups
	}
	if opts.LockLookups <= 0 {
		opts.LockLookups = DefaultLockLookups
	}
	if longest := max(opts.StuckAfter, opts.SlowOver, opts.RetryOver); opts.Keep < 2*longest {
		opts.Keep = 2 * longest
	}
	return &Engine{opts: opts, history: map[string][]point{}, offsets: map[string]groups.Offsets{}, since: map[string]time.Time{},
		dlq: map[string]dlqCount{}, arrived: map[string]Finding{}, blocked: map[string]Finding{}, acked: map[string]int64{}}
}

// Observe takes one read of the group list and works out the findings anew; a nil list
// is ignored. ctx is the collector's, for the store's read of the rebalance counts. It
// is the collector's hook.
func (e *Engine) Observe(ctx context.Context, l *groups.List) {
	if l == nil {
		return
	}
	var unread unreads
	locks := e.lockCandidates(l)                // before assess replaces the offsets it compares with
	churn := e.rebalanceCounts(ctx, l, &unread) // before the lock: pages read findings meanwhile
	found, consuming := e.assess(l, churn)
	brokerFound, listed := e.brokerFindings(ctx, l.CheckedAt, &unread)
	found = append(found, brokerFound...)
	found = append(found, e.nameServerFindings(ctx, l.CheckedAt, &unread)...)
	found = append(found, e.orderlyBlocked(ctx, l, locks, &unread)...)
	var written map[string]int64
	if e.opts.DeadLetters != nil && len(consuming) > 0 {
		var err error
		if written, err = e.opts.DeadLetters.Written(ctx, e.dlqOrder(consuming), e.opts.DeadLetterLookups); err != nil {
			written = nil // every group uncounted: what was found stays until a count works
			unread.add(UnreadDeadLetters, "", err)
		}
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	found = append(found, e.deadLetters(l, consuming, written)...)
	since := make(map[string]time.Time, len(found))
	for i := range found {
		key := found[i].Kind + "\x00" + found[i].Group + "\x00" + found[i].Addr + "\x00" + found[i].NameServer
		if s, ok := e.since[key]; ok && s.Before(found[i].Since) {
			found[i].Since = s
		}
		since[key] = found[i].Since
	}
	e.since = since
	sortFindings(found)
	e.findings, e.at, e.unread, e.listed = found, l.CheckedAt, unread, listed
}

// assess takes one read into the groups' history and works out the findings that need
// no broker call; consuming are the groups whose committed offsets moved at this read
// or the one before.
func (e *Engine) assess(l *groups.List, churn map[string]store.RebalanceCount) (found []Finding, consuming []string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	next := make(map[string][]point, len(l.Groups))
	offsets := make(map[string]groups.Offsets, len(l.Groups))
	for _, g := range l.Groups {
		if g.System {
			continue
		}
		cur := groups.OffsetsOf(g, l.CheckedAt)
		offsets[g.Group] = cur
		p := point{at: l.CheckedAt, online: g.Online, gap: true, retryGap: true}
		if g.TotalLag != nil {
			p.lag = *g.TotalLag
		}
		if was, ok := e.offsets[g.Group]; ok {
			var common int
			p.produced, p.consumed, common = groups.Advanced(was, cur)
			p.gap = common == 0
			var retryCommon int
			p.retried, retryCommon = retried(was, cur)
			p.retryGap = retryCommon == 0
		}
		h := append(e.history[g.Group], p)
		for len(h) > 1 && l.CheckedAt.Sub(h[0].at) > e.opts.Keep {
			h = h[1:]
		}
		next[g.Group] = h
		if f, ok := e.progress(g, h); ok {
			found = append(found, f)
		}
		if f, ok := lost(g, l.CheckedAt); ok {
			found = append(found, f)
		}
		if f, ok := e.retryStorm(g, h); ok {
			found = append(found, f)
		}
		if f, ok := e.subscriptions(g); ok {
			found = append(found, f)
		}
		if f, ok := e.churn(g, churn[g.Group], l.CheckedAt); ok {
			found = append(found, f)
		}
		if f, ok := e.versions(g); ok {
			found = append(found, f)
		}
		if consumed(h) {
			consuming = append(consuming, g.Group)
		}
	}
	e.history, e.offsets = next, offsets
	return found, consuming
}

// consumed reports whether committed offsets moved at the last read or the one before:
// clients commit every few seconds, so a consume (and the dead letter it made) may show
// in the offsets only a read later.
func consumed(h []point) bool {
	for i := max(0, len(h)-2); i < len(h); i++ {
		if !h[i].gap && h[i].consumed > 0 {
			return true
		}
	}
	return false
}

// dlqOrder is consuming with the groups counted longest ago (or never) first.
func (e *Engine) dlqOrder(consuming []string) []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	out := slices.Clone(consuming)
	slices.SortStableFunc(out, func(a, b string) int { return e.dlq[a].at.Compare(e.dlq[b].at) })
	return out
}

// deadLetters finds the groups whose dead-letter topic received messages since it was
// last counted: each failed every retry, and no consumer reads a dead-letter topic, so
// they wait for an operator. A message reaches it only when a consume fails, so a group
// that did not consume (not in consuming) received none and is not counted; a group
// counted for the first time while its topic exists sets the count to compare with.
func (e *Engine) deadLetters(l *groups.List, consuming []string, written map[string]int64) []Finding {
	if e.opts.DeadLetters == nil {
		return nil
	}
	listed := make(map[string]bool, len(l.Groups))
	for _, g := range l.Groups {
		listed[g.Group] = true
	}
	maps.DeleteFunc(e.dlq, func(g string, _ dlqCount) bool { return !listed[g] })
	isConsuming := make(map[string]bool, len(consuming))
	for _, g := range consuming {
		isConsuming[g] = true
		w, ok := written[g]
		if !ok {
			continue // not counted at this read: what the last count found stays
		}
		was, counted := e.dlq[g]
		e.dlq[g] = dlqCount{written: w, at: l.CheckedAt}
		if !counted || w <= was.written {
			delete(e.arrived, g)
			continue
		}
		topic := rocketmq.DLQTopic(g)
		ev := i18n.M("diagnosis.evidence.deadLetters", "Count", w-was.written, "Topic", topic,
			"From", was.at.UTC().Format(evidenceTime), "To", l.CheckedAt.UTC().Format(evidenceTime))
		e.arrived[g] = Finding{Kind: KindDeadLetters, Severity: Warning, Subject: g, Group: g, Evidence: ev,
			Since: l.CheckedAt, Action: "/messages?tab=range&topic=" + url.QueryEscape(topic), ActionKind: "deadLetters"}
	}
	var out []Finding
	for g, f := range e.arrived {
		if !isConsuming[g] {
			delete(e.arrived, g) // it consumed nothing: nothing more can have arrived
			continue
		}
		out = append(out, f)
	}
	return out
}

func sortFindings(fs []Finding) {
	slices.SortStableFunc(fs, func(a, b Finding) int {
		if c := cmp.Compare(severityRank(a.Severity), severityRank(b.Severity)); c != 0 {
			return c
		}
		if c := cmp.Compare(slices.Index(Kinds, a.Kind), slices.Index(Kinds, b.Kind)); c != 0 {
			return c
		}
		if c := a.Since.Compare(b.Since); c != 0 {
			return c
		}
		return cmp.Compare(a.Subject, b.Subject)
	})
}

// Findings returns every finding of the last read, most severe first, and when that read
// was (zero before the first).
func (e *Engine) Findings() ([]Finding, time.Time) {
	e.mu.Lock()
	defer e.mu.Unlock()
	return slices.Clone(e.findings), e.at
}

// ForBroker returns the findings of the last read about the broker of that name.
func (e *Engine) ForBroker(name string) ([]Finding, time.Time) {
	e.mu.Lock()
	defer e.mu.Unlock()
	var out []Finding
	for _, f := range e.findings {
		if f.Broker == name {
			out = append(out, f)
		}
	}
	return out, e.at
}

// ForGroup returns the findings of the last read about group.
func (e *Engine) ForGroup(group string) ([]Finding, time.Time) {
	e.mu.Lock()
	defer e.mu.Unlock()
	var out []Finding
	for _, f := range e.findings {
		if f.Group == group {
			out = append(out, f)
		}
	}
	return out, e.at
}

// progress finds a group stuck or slow from its reads, newest last.
//
// Stuck: clients online at every read of the last StuckAfter, lag grown over that span,
// and no committed offset moved. Slow: over the last SlowOver the group consumed, but
// fewer messages than arrived, so its lag grew.
func (e *Engine) progress(g groups.Summary, h []point) (Finding, bool) {
	now := h[len(h)-1]
	if !now.online || now.lag <= 0 || len(h) < 2 {
		return Finding{}, false
	}
	// The oldest read from which the group stayed online and its offsets did not move.
	still := len(h) - 1
	for i := len(h) - 1; i > 0; i-- {
		if !h[i-1].online || h[i].gap || h[i].consumed > 0 {
			break
		}
		still = i - 1
	}
	// Lag must have grown too: a group holding old lag on a topic it no longer reads
	// is not stuck.
	if span := now.at.Sub(h[still].at); span >= e.opts.StuckAfter && now.lag > h[still].lag {
		ev := i18n.M("diagnosis.evidence.stuck", "Lag", now.lag, "Grew", now.lag-h[still].lag, "Span", i18n.Span(span.Round(time.Second)),
			"Clients", g.Clients)
		return Finding{Kind: KindStuck, Severity: Critical, Subject: g.Group, Group: g.Group, Evidence: ev,
			Since: h[still].at, Action: groupURL(g.Group), ActionKind: "group"}, true
	}
	// The read about SlowOver ago: the latest one at least that old.
	from := -1
	for i := len(h) - 2; i >= 0; i-- {
		if now.at.Sub(h[i].at) >= e.opts.SlowOver {
			from = i
			break
		}
	}
	if from < 0 {
		return Finding{}, false
	}
	if now.lag <= h[from].lag {
		return Finding{}, false
	}
	if !h[from].online {
		return Finding{}, false
	}
	// Clients commit every few seconds, so the lag saw-tooths between reads: compare the
	// rates over the whole span, not read to read.
	var produced, consumed int64
	for _, p := range h[from+1:] {
		if !p.online || p.gap {
			return Finding{}, false // clients came and went (a rebalance, not a rate), or queues changed
		}
		produced += p.produced
		consumed += p.consumed
	}
	if consumed == 0 || produced <= consumed {
		return Finding{}, false
	}
	secs := now.at.Sub(h[from].at).Seconds()
	ev := i18n.M("diagnosis.evidence.slow", "From", h[from].lag, "Lag", now.lag, "Span", i18n.Span(now.at.Sub(h[from].at).Round(time.Second)),
		"Consume", rate(consumed, secs), "Produce", rate(produced, secs))
	return Finding{Kind: KindSlow, Severity: Warning, Subject: g.Group, Group: g.Group, Evidence: ev,
		Since: now.at, Action: groupURL(g.Group), ActionKind: "group"}, true
}

// rate is n per second over secs, with one decimal.
func rate(n int64, secs float64) string {
	return strconv.FormatFloat(float64(n)/secs, 'f', 1, 64)
}

// releaseLine is a version's major and minor: "4.9" of "4.9.7".
func releaseLine(v string) string {
	parts := strings.SplitN(v, ".", 3)
	if len(parts) < 2 {
		return v
	}
	return parts[0] + "." + parts[1]
}

// versions finds the clients of one group on different release lines (4.x beside 5.x,
// 4.5 beside 4.9): their rebalance and retry behaviour differ, which shows as queues
// owned twice or not at all.
func (e *Engine) versions(g groups.Summary) (Finding, bool) {
	if e.opts.Cluster == nil {
		return Finding{}, false
	}
	seen, ok := e.opts.Cluster.Consumers(g.Group)
	if !ok || seen.Conns == nil || seen.Proxy != "" {
		return Finding{}, false // a Proxy reports its own version for gRPC clients
	}
	lines := map[string]string{} // release line → one client on it
	for _, c := range seen.Conns.Connections {
		if c.Version <= 0 || c.Language != "JAVA" {
			continue // other clients send a protocol version, not their release
		}
		line := releaseLine(c.VersionName())
		if _, ok := lines[line]; !ok {
			lines[line] = c.ClientID
		}
	}
	if len(lines) < 2 {
		return Finding{}, false
	}
	names := slices.Sorted(func(yield func(string) bool) {
		for l := range lines {
			if !yield(l) {
				return
			}
		}
	})
	first := lines[names[0]]
	ev := i18n.M("diagnosis.evidence.versions", "Lines", strings.Join(names, ", "), "Clients", len(seen.Conns.Connections))
	return Finding{Kind: KindVersions, Severity: Info, Subject: g.Group, Group: g.Group, Evidence: ev, Since: seen.At,
		Action: groupURL(g.Group) + "/clients/" + url.PathEscape(first), ActionKind: "client"}, true
}

// rebalanceCounts reads every listed group's rebalances over ChurnOver in one query; nil
// when there is no store or it failed (the finding then waits for a read that works).
func (e *Engine) rebalanceCounts(ctx context.Context, l *groups.List, unread *unreads) map[string]store.RebalanceCount {
	if e.opts.Rebalances == nil {
		return nil
	}
	names := make([]string, 0, len(l.Groups))
	for _, g := range l.Groups {
		if !g.System {
			names = append(names, g.Group)
		}
	}
	counts, err := e.opts.Rebalances.RebalanceCounts(ctx, names, l.CheckedAt.Add(-e.opts.ChurnOver))
	if err != nil {
		unread.add(UnreadRebalances, "", err)
		return nil
	}
	return counts
}

// churn finds a group that rebalanced more over ChurnOver than a routine deploy does:
// each rebalance pauses the queues that move and may deliver messages again, and a
// group that keeps rebalancing has a client restarting or losing its heartbeat.
func (e *Engine) churn(g groups.Summary, n store.RebalanceCount, at time.Time) (Finding, bool) {
	if n.Clients <= e.opts.ChurnClients && n.Moves <= e.opts.ChurnMoves {
		return Finding{}, false
	}
	ev := i18n.M("diagnosis.evidence.churn", "Clients", n.Clients, "Moves", n.Moves, "Span", i18n.Span(e.opts.ChurnOver),
		"MaxClients", e.opts.ChurnClients, "MaxMoves", e.opts.ChurnMoves)
	return Finding{Kind: KindChurn, Severity: Warning, Subject: g.Group, Group: g.Group, Evidence: ev,
		Since: at, Action: groupURL(g.Group) + "#timeline", ActionKind: "timeline"}, true
}

// maxNamedClients bounds the clients a finding's evidence names.
const maxNamedClients = 5

// subscriptions finds the clients of one online group that do not all subscribe alike.
// Queues of a topic are shared out among every client of the group, so the queues given
// to a client that does not subscribe to the topic (or filters with another expression)
// are not consumed as the others expect: messages wait or are skipped. The clients'
// subscriptions are those of the last watcher or sweep read, which reads each client's
// running info; the sweep runs after this read, so a change shows one interval later.
func (e *Engine) subscriptions(g groups.Summary) (Finding, bool) {
	if e.opts.Subscriptions == nil || !g.Online {
		return Finding{}, false
	}
	sp, ok := e.opts.Subscriptions.SubscriptionSplit(g.Group)
	if !ok || len(sp.Clients) < 2 {
		return Finding{}, false
	}
	var each []string
	named := map[string]bool{}
	for i, c := range sp.Clients {
		if i == maxNamedClients {
			each = append(each, "…")
			break
		}
		subs := make([]string, len(c.Subscriptions))
		for j, s := range c.Subscriptions {
			subs[j] = s.Topic + " (" + s.Expression + ")"
			named[s.Topic] = true
		}
		if len(subs) == 0 {
			subs = []string{"-"}
		}
		each = append(each, c.ClientID+": "+strings.Join(subs, ", "))
	}
	ev := i18n.M("diagnosis.evidence.subscriptions", "Clients", len(sp.Clients), "Each", strings.Join(each, "; "))
	return Finding{Kind: KindSubscriptions, Severity: Warning, Subject: g.Group, Group: g.Group, Evidence: ev,
		Topics: slices.Sorted(maps.Keys(named)), Since: sp.At, Action: groupURL(g.Group), ActionKind: "group"}, true
}

// maxNamedQueues bounds the queues a finding's evidence names; the count covers all.
const maxNamedQueues = 5

// lost finds the queues whose committed offset is below the queue's min offset: the
// messages in between were deleted by the broker (its files expired or the disk filled)
// before the group read them. The min offset is the list's (QueueLag.MinOffset), read
// only for queues whose committed message the broker no longer dates; a queue never
// committed (no offset, or -1) loses nothing, nor does offset 0 while the min offset
// is 0.
func lost(g groups.Summary, at time.Time) (Finding, bool) {
	var count int64
	var names []string
	queues := 0
	topics := map[string]bool{}
	for _, q := range g.Queues {
		if q.MinOffset == nil || q.ConsumerOffset == nil || *q.ConsumerOffset < 0 || *q.ConsumerOffset >= *q.MinOffset {
			continue
		}
		count += *q.MinOffset - *q.ConsumerOffset
		topics[q.Topic] = true
		if queues++; queues <= maxNamedQueues {
			names = append(names, groups.QueueKey(q.Queue()))
		} else if queues == maxNamedQueues+1 {
			names = append(names, "…")
		}
	}
	if count == 0 {
		return Finding{}, false
	}
	// The reset form, on the topic when only one lost messages: to its earliest offset
	// the group consumes what is still stored.
	action := groupURL(g.Group) + "/reset?mode=earliest"
	if len(topics) == 1 {
		for t := range topics {
			action += "&topic=" + url.QueryEscape(t)
		}
	}
	ev := i18n.M("diagnosis.evidence.lost", "Count", count, "QueueCount", queues, "Queues", strings.Join(names, ", "))
	return Finding{Kind: KindLost, Severity: Critical, Subject: g.Group, Group: g.Group, Evidence: ev,
		Topics: slices.Sorted(maps.Keys(topics)), Since: at, Action: action, ActionKind: "reset"}, true
}

// retried is how many messages were written to the retry queues both reads saw, between
// them, and how many such queues there are.
func retried(from, to groups.Offsets) (written int64, common int) {
	for mq, now := range to.Queues {
		if !rocketmq.IsRetryTopic(mq.Topic) {
			continue
		}
		if was, ok := from.Queues[mq]; ok {
			common++
			written += max(0, now[0]-was[0])
		}
	}
	return written, common
}

// retryStorm finds a group whose retry topic received more than RetryPerMinute messages
// a minute over at least the last RetryOver: each is a consume that failed and will be
// delivered again (after a growing delay), so the failures add to the load and, after
// the group's max reconsume times, end in its dead-letter topic.
func (e *Engine) retryStorm(g groups.Summary, h []point) (Finding, bool) {
	now := h[len(h)-1]
	from := -1
	for i := len(h) - 2; i >= 0; i-- {
		if now.at.Sub(h[i].at) >= e.opts.RetryOver {
			from = i
			break
		}
	}
	if from < 0 {
		return Finding{}, false
	}
	var written int64
	for _, p := range h[from+1:] {
		if p.retryGap {
			return Finding{}, false // retry queues came or went: the sum says nothing
		}
		written += p.retried
	}
	span := now.at.Sub(h[from].at)
	perMinute := float64(written) / span.Minutes()
	if written == 0 || perMinute <= e.opts.RetryPerMinute {
		return Finding{}, false
	}
	var total, waiting int64
	for _, q := range g.Queues {
		if !q.Retry || q.BrokerOffset == nil {
			continue
		}
		total += *q.BrokerOffset
		if q.Lag != nil {
			waiting += *q.Lag
		}
	}
	ev := i18n.M("diagnosis.evidence.retryStorm", "Topic", rocketmq.RetryTopic(g.Group), "Written", written,
		"Span", i18n.Span(span.Round(time.Second)), "Rate", strconv.FormatFloat(perMinute, 'f', 0, 64),
		"Max", strconv.FormatFloat(e.opts.RetryPerMinute, 'f', 0, 64), "Total", total, "Waiting", waiting)
	return Finding{Kind: KindRetryStorm, Severity: Warning, Subject: g.Group, Group: g.Group, Evidence: ev,
		Since: now.at, Action: groupURL(g.Group), ActionKind: "group"}, true
}

// brokerFindings reads every broker process's runtime figures and finds those whose
// disk is nearly full or that refuse sends as busy. A process that did not answer has
// no figures and no finding; it is named in unread. listed are the broker names the
// list named, gone ones left out.
func (e *Engine) brokerFindings(ctx context.Context, at time.Time, unread *unreads) (found []Finding, listed []string) {
	if e.opts.Brokers == nil {
		return nil, nil
	}
	l, err := e.opts.Brokers.List(ctx, true)
	if err != nil {
		unread.add(UnreadBrokers, "", err)
		return nil, nil
	}
	var out []Finding
	for _, r := range l.Brokers {
		if r.Gone {
			continue
		}
		if !slices.Contains(listed, r.Name) {
			listed = append(listed, r.Name)
		}
		if r.Error != "" {
			unread.addBroker(UnreadBroker, r.Name, r.Name+" ("+r.Addr+")", r.Error)
			continue
		}
		out = append(out, brokerRuntimeFindings(r, e.opts, at)...)
	}
	return append(out, e.slaveFindings(ctx, l, at, unread)...), listed
}

// Brokers returns the broker names the last read's broker list named (none when the
// list could not be read, or Brokers is nil): the brokers whose findings it looked for.
func (e *Engine) Brokers() []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return slices.Clone(e.listed)
}

// brokerRuntimeFindings are one broker process's findings from its runtime figures.
func brokerRuntimeFindings(r brokers.Runtime, o Options, at time.Time) []Finding {
	var out []Finding
	f := Finding{Subject: r.Name, Broker: r.Name, Addr: r.Addr, Since: at, Action: brokerURL(r.Name), ActionKind: "broker"}
	if r.DiskRatio >= o.DiskRatio {
		f.Kind, f.Severity = KindDiskFull, Critical
		f.Evidence = i18n.M("diagnosis.evidence.diskFull", "Addr", r.Addr, "Role", r.Role, "Used", percent(r.DiskRatio), "Max", percent(o.DiskRatio))
		out = append(out, f)
	}
	if r.PageCacheLockMs >= o.PageCacheBusyMs || r.SendQueueWaitMs >= o.SendQueueWaitMs {
		f.Kind, f.Severity = KindFlowControl, Critical
		f.Evidence = i18n.M("diagnosis.evidence.flowControl", "Addr", r.Addr, "Role", r.Role, "Lock", r.PageCacheLockMs,
			"MaxLock", o.PageCacheBusyMs, "Wait", r.SendQueueWaitMs, "MaxWait", o.SendQueueWaitMs)
		out = append(out, f)
	}
	return out
}

// nameServerFindings asks every configured NameServer for its cluster info and finds
// those that do not know a broker another one knows, or name other addresses for it: a
// client that asks that NameServer routes to other brokers than the rest (a broker
// whose namesrvAddr leaves a NameServer out registers with the others only). A
// NameServer that does not answer is left out, and named in unread.
func (e *Engine) nameServerFindings(ctx context.Context, at time.Time, unread *unreads) []Finding {
	if e.opts.NameServers == nil {
		return nil
	}
	addrs := e.opts.NameServers.NameServers()
	if len(addrs) < 2 {
		return nil
	}
	infos := make([]*rocketmq.ClusterInfo, len(addrs))
	errs := make([]error, len(addrs))
	var wg sync.WaitGroup
	for i, addr := range addrs {
		wg.Go(func() { infos[i], errs[i] = e.opts.NameServers.ClusterInfoAt(ctx, addr) })
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			unread.add(UnreadNameServer, addrs[i], err)
		}
	}
	// Each answering NameServer's view: broker name → its processes' addresses.
	views := map[string]map[string]string{}
	for i, ci := range infos {
		if ci == nil {
			continue
		}
		v := map[string]string{}
		for name, bd := range ci.Brokers {
			v[name] = processes(bd)
		}
		views[addrs[i]] = v
	}
	if len(views) < 2 {
		return nil
	}
	// What most NameServers that know a broker say of it.
	said := map[string]map[string]int{}
	for _, v := range views {
		for name, procs := range v {
			if said[name] == nil {
				said[name] = map[string]int{}
			}
			said[name][procs]++
		}
	}
	var out []Finding
	for _, ns := range addrs {
		v, ok := views[ns]
		if !ok {
			continue
		}
		var what []i18n.Message
		for _, name := range slices.Sorted(maps.Keys(said)) {
			usual := mostSaid(said[name])
			procs, known := v[name]
			switch {
			case !known:
				what = append(what, i18n.M("diagnosis.evidence.nameServers.lacks", "Broker", name, "Addrs", usual))
			case procs != usual:
				what = append(what, i18n.M("diagnosis.evidence.nameServers.differs", "Broker", name, "Addrs", procs, "Others", usual))
			}
		}
		if len(what) == 0 {
			continue
		}
		others := slices.DeleteFunc(slices.Clone(addrs), func(a string) bool { return a == ns })
		ev := i18n.M("diagnosis.evidence.nameServers", "NameServer", ns, "Others", strings.Join(others, ", "), "What", sayAll(what))
		out = append(out, Finding{Kind: KindNameServers, Severity: Warning, Subject: ns, NameServer: ns, Evidence: ev,
			Since: at, Action: "/", ActionKind: "overview"})
	}
	return out
}

// processes says a broker's processes as a NameServer routes them: "0=addr, 1=addr".
func processes(bd rocketmq.BrokerData) string {
	ids := slices.Sorted(maps.Keys(bd.Addrs))
	parts := make([]string, len(ids))
	for i, id := range ids {
		parts[i] = strconv.FormatInt(id, 10) + "=" + bd.Addrs[id]
	}
	return strings.Join(parts, ", ")
}

// mostSaid is the view most NameServers have; of equally common ones, the first in
// order.
func mostSaid(counts map[string]int) string {
	best, n := "", -1
	for _, v := range slices.Sorted(maps.Keys(counts)) {
		if counts[v] > n {
			best, n = v, counts[v]
		}
	}
	return best
}

// sayAll says messages one after the other, in the reader's language.
type sayAll []i18n.Message

func (s sayAll) SayIn(l *i18n.Localizer) string {
	parts := make([]string, len(s))
	for i, m := range s {
		parts[i] = l.Say(m)
	}
	return strings.Join(parts, "; ")
}

func (s sayAll) String() string {
	parts := make([]string, len(s))
	for i, m := range s {
		parts[i] = m.String()
	}
	return strings.Join(parts, "; ")
}

// percent says a share (0..1) as a percentage with one decimal.
func percent(v float64) string { return strconv.FormatFloat(100*v, 'f', 1, 64) + "%" }

func brokerURL(name string) string { return "/brokers/" + url.PathEscape(name) }

func groupURL(group string) string { return "/groups/" + url.PathEscape(group) }
