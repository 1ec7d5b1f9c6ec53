package topics

import (
	"cmp"
	"context"
	"slices"
	"strconv"
	"time"

	"rmqconsole/cluster"
	"rmqconsole/rocketmq"
)

// Defaults of the figure collector.
const (
	// DefaultFigureInterval is how often the collector runs a round.
	DefaultFigureInterval = 10 * time.Second
	// DefaultFigureBudget is the most broker calls a round makes: two per broker (its
	// topic configs and its commit-log range), the rest GET_TOPIC_STATS_INFO of one topic
	// on one broker each.
	DefaultFigureBudget = 200
)

const opRuntime = "runtime info"

// Round is what one round of the collector did.
type Round struct {
	At time.Time
	// Calls counts the broker calls made: configs (when the list was read again),
	// commit-log ranges, topic stats.
	Calls int
	// Read counts the figures read; Confirmed those known unchanged without a call,
	// their broker's commit log not having moved; Waiting those still to read.
	Read, Confirmed, Waiting int
	// Budget is the round's budget of broker calls.
	Budget int
}

// FigureCollector keeps every topic's stored messages and put TPS in memory, within a
// budget of broker calls per interval, so the topic list asks the brokers only for their
// topic configs. Each round it reads every broker's commit-log range (one
// GET_BROKER_RUNTIME_INFO each): on a broker whose range did not move, no topic's stored
// messages changed and its figures are confirmed without a call. The budget left goes to
// GET_TOPIC_STATS_INFO, first for topics on a reader's screen, then for topics in use on
// brokers that moved, then for topics never read, then the oldest figures.
//
// Each console runs its own collector: its list answers from its own memory, and the
// budget is per console.
type FigureCollector struct {
	svc      *Service
	interval time.Duration
	budget   int
}

// Figures returns the service's figure collector (Run starts it): a round every
// interval, at most budget broker calls each (0 takes the defaults).
func (s *Service) Figures(interval time.Duration, budget int) *FigureCollector {
	if interval <= 0 {
		interval = DefaultFigureInterval
	}
	if budget <= 0 {
		budget = DefaultFigureBudget
	}
	return &FigureCollector{svc: s, interval: interval, budget: budget}
}

// Run collects until ctx ends: a round at start, then one every interval.
func (c *FigureCollector) Run(ctx context.Context) {
	t := time.NewTicker(c.interval)
	defer t.Stop()
	for {
		c.Collect(ctx)
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// pair is one topic on one broker, a figure to keep.
type pair struct {
	topic  string
	broker cluster.Broker
	system bool
	// knownAt is when its figure was last known true (zero when never read).
	knownAt time.Time
	rank    int
}

// The order in which figures are read: a lower rank first.
const (
	rankOnScreen = iota
	rankInUse
	rankNeverRead
	rankOld
)

// Collect runs one round and returns what it did.
func (c *FigureCollector) Collect(ctx context.Context) Round {
	s := c.svc
	r := Round{At: s.opts.Now(), Budget: c.budget}
	// The topic configs: what the list reads too (reused within Options.ListTTL, so a
	// round does not ask every broker for them again, nor hold the list meanwhile).
	l, read, err := s.topicList(ctx, false)
	if err != nil {
		return r
	}
	brokers, err := s.cluster.Brokers(ctx)
	if err != nil {
		return r
	}
	if read {
		r.Calls += len(brokers)
	}
	f := s.cluster.Fanout(ctx).Limit(s.opts.Concurrency)
	marks := cluster.EachRead(f, brokers, opRuntime, func(ctx context.Context, addr string) (*commitLogMark, error) {
		at := s.opts.Now()
		ri, err := s.admin.BrokerRuntimeInfo(ctx, addr)
		if err != nil {
			return nil, err
		}
		return markOf(ri, at), nil
	})
	r.Calls += len(brokers)

	fs := s.figures
	fs.mu.Lock()
	// quiet: the broker's commit log has not moved since its last mark, so a figure
	// known at that mark is still true.
	type span struct{ since, until time.Time }
	quiet := map[string]span{}
	for i, b := range brokers {
		m := marks[i]
		if m == nil {
			continue
		}
		if prev, ok := fs.marks[b.Name]; ok && prev.min == m.min && prev.max == m.max {
			quiet[b.Name] = span{prev.at, m.at}
		}
		fs.marks[b.Name] = *m
	}
	byName := map[string]cluster.Broker{}
	for _, b := range brokers {
		byName[b.Name] = b
	}
	onScreen := r.At.Add(-3 * c.interval)
	var todo []pair
	listed := map[string]bool{}
	for _, t := range l.Topics {
		listed[t.Topic] = true
		for _, bn := range t.Brokers {
			b, ok := byName[bn]
			if !ok || slices.Contains(t.UnknownOn, bn) {
				continue
			}
			fg := fs.byTopic[t.Topic][bn]
			if fg != nil && fg.known() && fg.tps == 0 {
				if q, ok := quiet[bn]; ok && !fg.knownAt.Before(q.since) {
					fg.knownAt = q.until
					r.Confirmed++
					continue
				}
			}
			p := pair{topic: t.Topic, broker: b, system: t.System, rank: rankOld}
			if fg != nil {
				p.knownAt = fg.knownAt
			}
			switch {
			case fs.viewed[t.Topic].After(onScreen):
				p.rank = rankOnScreen
			case fg == nil || !fg.known():
				p.rank = rankNeverRead
			case fg.tps > 0 || fg.grew:
				p.rank = rankInUse
			}
			todo = append(todo, p)
		}
	}
	// Forget what is no longer listed.
	for t := range fs.byTopic {
		if !listed[t] {
			delete(fs.byTopic, t)
		}
	}
	for t, at := range fs.viewed {
		if at.Before(onScreen) {
			delete(fs.viewed, t)
		}
	}
	fs.mu.Unlock()

	slices.SortFunc(todo, func(a, b pair) int {
		if c := cmp.Compare(a.rank, b.rank); c != 0 {
			return c
		}
		if a.system != b.system { // application topics before system ones
			if a.system {
				return 1
			}
			return -1
		}
		return a.knownAt.Compare(b.knownAt)
	})
	n := min(len(todo), max(c.budget-r.Calls, 0))
	for _, p := range todo[:n] {
		f.Read(p.broker, opTopicStats, func(ctx context.Context, addr string) error {
			if f.NotAnswering(p.broker.Name) {
				return errSkipped
			}
			at := s.opts.Now()
			st, err := s.admin.TopicStats(ctx, addr, p.topic)
			c.note(p, st, at, err)
			return err
		})
	}
	f.Wait()
	r.Calls += n
	r.Read, r.Waiting = n, len(todo)-n
	return r
}

// note records the answer of a topic's stats on a broker.
func (c *FigureCollector) note(p pair, st *rocketmq.TopicStats, at time.Time, err error) {
	fs := c.svc.figures
	fs.mu.Lock()
	defer fs.mu.Unlock()
	on := fs.byTopic[p.topic]
	if on == nil {
		on = map[string]*figure{}
		fs.byTopic[p.topic] = on
	}
	fg := on[p.broker.Name]
	if fg == nil {
		fg = &figure{}
		on[p.broker.Name] = fg
	}
	if err != nil {
		fg.failedAt = at // the figures read before stay, with their age
		return
	}
	n := storedMessages(st)
	fg.grew = fg.known() && n > fg.messages
	fg.messages, fg.tps, fg.hasTPS = n, st.PutTps, st.HasPutTps
	fg.knownAt, fg.failedAt = at, time.Time{}
}

// markOf is a broker's commit-log range from its runtime info, taken at at. A broker
// that does not report it gets a mark that never matches, so its figures are read.
func markOf(ri *rocketmq.BrokerRuntimeInfo, at time.Time) *commitLogMark {
	m := &commitLogMark{min: -1, max: -1, at: at}
	if v, err := strconv.ParseInt(ri.Table["commitLogMaxOffset"], 10, 64); err == nil {
		m.max = v
	} else {
		m.max = -at.UnixNano() // unknown: differs at every round
	}
	if v, err := strconv.ParseInt(ri.Table["commitLogMinOffset"], 10, 64); err == nil {
		m.min = v
	}
	return m
}

// storedMessages is the sum over the queues of max − min offset.
func storedMessages(st *rocketmq.TopicStats) int64 {
	var n int64
	for _, o := range st.Offsets {
		if d := o.MaxOffset - o.MinOffset; d > 0 {
			n += d
		}
	}
	return n
}
