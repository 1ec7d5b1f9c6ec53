package groups

import (
	"context"
	"errors"
	"strconv"
	"sync"
	"time"

	"rmqconsole/cluster"
	"rmqconsole/i18n"
	"rmqconsole/rocketmq"
)

// How a group's clients consume, from their running info (PROP_CONSUMEORDERLY, which
// Java and Go clients both report).
const (
	// ModeOrderly: MessageListenerOrderly. Each queue is consumed by the one client
	// holding its broker-side lock, one message at a time.
	ModeOrderly = "orderly"
	// ModeConcurrent: MessageListenerConcurrently, no lock.
	ModeConcurrent = "concurrent"
	// ModeMixed: the group's clients disagree, which a group must not do.
	ModeMixed = "mixed"
)

// BrokerLockExpiry is how long a broker keeps a queue's orderly lock after its holder
// last renewed it. Brokers read it from the JVM system property
// rocketmq.broker.rebalance.lockMaxLiveTime (default 60000 ms), which no admin request
// reports, so the console assumes the default.
const BrokerLockExpiry = 60 * time.Second

// ClientLockInterval is how often clients renew their locks (Java's and Go's default).
const ClientLockInterval = 20 * time.Second

// clientConsumeMode reads a client's listener kind; "" when it does not say.
func clientConsumeMode(info *rocketmq.ConsumerRunningInfo) string {
	switch info.Properties["PROP_CONSUMEORDERLY"] {
	case "true":
		return ModeOrderly
	case "false":
		return ModeConcurrent
	}
	return ""
}

// groupConsumeMode is the mode every reporting client shares, ModeMixed when they
// differ, "" when none said.
func groupConsumeMode(clients []Client) string {
	mode := ""
	for _, c := range clients {
		switch {
		case c.ConsumeMode == "":
		case mode == "":
			mode = c.ConsumeMode
		case mode != c.ConsumeMode:
			return ModeMixed
		}
	}
	return mode
}

// QueueLock is an orderly queue's broker-side lock as the clients report it (their
// process-queue info: locked, lastLockTimestamp) and, while the group is watched, as
// the watcher remembers it.
type QueueLock struct {
	// Holder is the client that last reported the queue locked; "" when none has.
	Holder string `json:"holder"`
	// Locked: Holder reports the lock held now. False with a Holder means the lock is
	// remembered from a client that is gone or stopped holding it.
	Locked bool `json:"locked"`
	// LastLockTimestamp is when Holder last took or renewed the lock (epoch ms, the
	// client's clock).
	LastLockTimestamp int64 `json:"lastLockTimestamp"`
	// LockedSince is when the watcher first saw Holder hold it (epoch ms); 0 when not
	// watched since then.
	LockedSince  int64 `json:"lockedSince,omitempty"`
	HolderOnline bool  `json:"holderOnline"`
	// HolderLeftAt is when the watcher saw Holder leave the group (epoch ms).
	HolderLeftAt int64 `json:"holderLeftAt,omitempty"`
	// HeldUnlocked names an online client holding the queue without its lock (it
	// tries to lock it at each rebalance and cannot consume it meanwhile).
	HeldUnlocked string `json:"heldUnlocked,omitempty"`
	// Blocked: nobody can consume the queue now; Warning says why, in a sentence.
	Blocked bool      `json:"blocked"`
	Warning i18n.Text `json:"warning,omitempty"`
}

// applyLocks sets each queue's lock from the running infos, for orderly groups.
func (d *Detail) applyLocks(infos []*rocketmq.ConsumerRunningInfo) {
	if d.ConsumeMode != ModeOrderly && d.ConsumeMode != ModeMixed {
		return
	}
	d.LockExpiryMs = BrokerLockExpiry.Milliseconds()
	type report struct {
		client string
		pq     rocketmq.ProcessQueueInfo
	}
	held := map[rocketmq.MessageQueue][]report{}
	for i, info := range infos {
		if info == nil || d.Clients[i].ConsumeMode != ModeOrderly {
			continue
		}
		for mq, pq := range info.MQTable {
			if !pq.Dropped {
				held[mq] = append(held[mq], report{d.Clients[i].ClientID, pq})
			}
		}
	}
	for i := range d.Queues {
		q := &d.Queues[i]
		if q.Retry {
			continue // clients consume their retry topic concurrently, without a lock
		}
		var l QueueLock
		for _, r := range held[q.Queue()] {
			if r.pq.Locked && (!l.Locked || r.pq.LastLockTimestamp > l.LastLockTimestamp) {
				l.Holder, l.Locked, l.LastLockTimestamp, l.HolderOnline = r.client, true, r.pq.LastLockTimestamp, true
			} else if !r.pq.Locked {
				l.HeldUnlocked = r.client
			}
		}
		q.Lock = &l
	}
	d.lockWarnings()
}

// lockWarnings judges every queue's lock at d.CheckedAt and collects the warnings in
// d.Blocked. It runs again after the watcher adds what it remembers.
func (d *Detail) lockWarnings() {
	d.Blocked = nil
	now := d.CheckedAt
	expiry := BrokerLockExpiry
	for i := range d.Queues {
		q := &d.Queues[i]
		l := q.Lock
		if l == nil {
			continue
		}
		l.Blocked, l.Warning = false, nil
		name := i18n.M("group.lock.queue", "Queue", q.QueueID, "Topic", q.Topic, "Broker", q.BrokerName)
		lag := int64(0)
		if q.Lag != nil {
			lag = *q.Lag
		}
		warn := func(m i18n.Message) i18n.Text {
			if lag > 0 {
				return i18n.TextOf(m, i18n.M("group.lock.backlog", "Count", thousands(lag)))
			}
			return i18n.TextOf(m)
		}
		renewed := now.Sub(time.UnixMilli(l.LastLockTimestamp))
		switch {
		case l.Locked && l.HolderOnline && renewed > expiry && lag > 0:
			l.Blocked = true
			l.Warning = warn(i18n.M("group.lock.warn.stale", "Name", name, "Holder", l.Holder, "Renewed", agoArg(renewed), "Expiry", agoArg(expiry)))
		case l.Locked:
		case l.Holder != "" && !l.HolderOnline:
			kv := []any{"Name", name, "Holder", l.Holder, "Expiry", agoArg(expiry), "Every", agoArg(ClientLockInterval)}
			id := "group.lock.warn."
			if l.HolderLeftAt > 0 {
				kv = append(kv, "Left", agoArg(now.Sub(time.UnixMilli(l.HolderLeftAt))))
				id += "ago."
			}
			if renewed < expiry {
				l.Blocked = true
				l.Warning = warn(i18n.M(id+"left", append(kv, "In", agoArg(expiry-renewed))...))
			} else {
				l.Blocked = lag > 0
				l.Warning = warn(i18n.M(id+"expired", append(kv, "Expired", agoArg(renewed-expiry))...))
			}
		case l.HeldUnlocked != "" && lag > 0:
			l.Blocked = true
			l.Warning = warn(i18n.M("group.lock.warn.unlocked", "Name", name, "Holder", l.HeldUnlocked))
		}
		if l.Warning != nil {
			d.Blocked = append(d.Blocked, l.Warning)
		}
	}
}

// agoArg is a duration as a warning's value: ago in English, the language's span in
// another.
type agoArg time.Duration

func (a agoArg) String() string { return ago(time.Duration(a)) }

// SayIn implements i18n.Sayer.
func (a agoArg) SayIn(l *i18n.Localizer) string {
	if l.IsChinese() {
		return l.Span(time.Duration(a))
	}
	return a.String()
}

// ago says a duration the way the warnings do: whole seconds, minutes past two.
func ago(d time.Duration) string {
	if d < 0 {
		d = 0
	}
	if d >= 2*time.Minute {
		return strconv.Itoa(int(d.Minutes())) + " min"
	}
	return strconv.Itoa(int(d.Round(time.Second).Seconds())) + " s"
}

func thousands(n int64) string {
	s := strconv.FormatInt(n, 10)
	neg := n < 0
	if neg {
		s = s[1:]
	}
	var out []byte
	for i, c := range []byte(s) {
		if i > 0 && (len(s)-i)%3 == 0 {
			out = append(out, ',')
		}
		out = append(out, c)
	}
	if neg {
		return "-" + string(out)
	}
	return string(out)
}

// pulledEnd is the offset after the last message a client had taken from a queue when
// it reported: its cached (pulled, not yet consumed) and, for orderly clients,
// consuming messages, else its own committed offset. Messages from the broker's
// committed offset up to here are what a new owner may consume again.
func pulledEnd(pq rocketmq.ProcessQueueInfo) int64 {
	end := pq.CommitOffset
	if pq.CachedMsgCount > 0 {
		end = max(end, pq.CachedMsgMaxOffset+1)
	}
	if pq.TransactionMsgCount > 0 {
		end = max(end, pq.TransactionMsgMaxOffset+1)
	}
	return end
}

// DuplicatesNote says what the duplicates-at-risk figure is, wherever it is shown.
var DuplicatesNote = i18n.M("group.duplicates.note")

// ModeTTL is how long a group's consume mode, once read, is trusted by the group list:
// a listener changes only when the clients are redeployed.
const ModeTTL = 10 * time.Minute

// modeMemory remembers each group's consume mode from its last read, so the group list
// asks a client's running info only for groups it has not seen lately.
type modeMemory struct {
	mu sync.Mutex
	m  map[string]modeSeen
}

type modeSeen struct {
	mode string
	at   time.Time
}

func (m *modeMemory) remember(group, mode string, at time.Time) {
	if mode == "" {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.m == nil {
		m.m = map[string]modeSeen{}
	}
	m.m[group] = modeSeen{mode, at}
}

// fresh returns the group's mode when it was read within ModeTTL of now.
func (m *modeMemory) fresh(group string, now time.Time) (string, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	s, ok := m.m[group]
	return s.mode, ok && now.Sub(s.at) < ModeTTL
}

// listModes fills each online group's consume mode for the list: from memory, else
// from the running info of one of its clients (one call per group, started in fo, via
// the first master that knows the group), for at most Options.ClientLookups groups per
// pass, so a cluster whose modes all expire at once costs no more than its client lists
// do; the rest stay unknown until a later pass. A client that does not answer leaves
// the mode unknown; it is not a broker failure.
func (s *Service) listModes(fo *cluster.Fanout, names []string, on map[string][]int, brokers []cluster.Broker, sums []Summary) {
	now := s.opts.Now()
	reads := 0
	for i, g := range names {
		if !sums[i].Online {
			continue
		}
		if mode, ok := s.modes.fresh(g, now); ok {
			sums[i].ConsumeMode = mode
			continue
		}
		seen, ok := s.cluster.Consumers(g)
		if len(on[g]) == 0 { // only a master that did not answer knew it
			continue
		}
		via := brokers[on[g][0]].Master
		if !ok || !seen.Online() || via == "" || reads >= s.opts.ClientLookups {
			continue
		}
		reads++
		cid := seen.Conns.Connections[0].ClientID
		fo.At(cid, via, "running info", func(ctx context.Context, addr string) error {
			if info, err := s.admin.ConsumerRunningInfo(ctx, addr, g, cid, false); err == nil {
				sums[i].ConsumeMode = clientConsumeMode(info)
				s.modes.remember(g, sums[i].ConsumeMode, now)
			}
			return nil
		})
	}
}

// BlockedQueue is an orderly queue nobody can consume now while messages wait in it, as
// a read of its group's locks judged it (the group page's warning).
type BlockedQueue struct {
	Topic      string
	BrokerName string
	QueueID    int
	Lag        int64
	Lock       QueueLock
}

// ReadLocks reads the locks of a listed group as the rebalance sweep reads its owners
// (a connection list unless the list's is from since or later, then one running info
// per client) and feeds the read to log, whose tracker names the holders of earlier
// reads that are gone. It answers the queues with messages waiting that nobody can
// consume, and the broker calls made. A read that did not hear every client's locks
// is an error: a queue it does not see locked is not known to be free.
func (s *Service) ReadLocks(ctx context.Context, log *RebalanceLog, sum Summary, since time.Time) (blocked []BlockedQueue, calls int, err error) {
	d, calls := s.readOwners(ctx, sum, since, func(int) bool { return true })
	if d == nil {
		return nil, calls, errClientsUnread
	}
	if log != nil {
		log.observe(ctx, d)
	}
	if !d.ownersKnown || d.locksUnread {
		for _, c := range d.Clients {
			if c.RunningInfoError != nil {
				return nil, calls, errors.New(c.RunningInfoError.String())
			}
		}
		return nil, calls, errLocksUnread
	}
	for _, q := range d.Queues {
		if q.Lock == nil || !q.Lock.Blocked || q.Lag == nil || *q.Lag <= 0 {
			continue
		}
		blocked = append(blocked, BlockedQueue{Topic: q.Topic, BrokerName: q.BrokerName, QueueID: q.QueueID, Lag: *q.Lag, Lock: *q.Lock})
	}
	return blocked, calls, nil
}

// LockReader reads orderly groups' locks for the diagnosis (ReadLocks), feeding each
// read to the rebalance log the live watchers and the sweep feed.
type LockReader struct {
	Service *Service
	Log     *RebalanceLog
}

// errClientsUnread: a lock read could not list the group's clients or ask them;
// errLocksUnread: some client reported no locks (a gRPC client, or none said how it
// consumes).
var (
	errClientsUnread = errors.New("its clients could not be listed or asked")
	errLocksUnread   = errors.New("not every client reported its queues' locks")
)

// BlockedQueues implements diagnosis.OrderlyLocks.
func (r LockReader) BlockedQueues(ctx context.Context, g Summary, since time.Time) ([]BlockedQueue, error) {
	blocked, _, err := r.Service.ReadLocks(ctx, r.Log, g, since)
	return blocked, err
}
