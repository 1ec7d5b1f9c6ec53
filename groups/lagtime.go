package groups

import (
	"cmp"
	"context"
	"slices"
	"sync"
	"time"

	"rmqconsole/cluster"
	"rmqconsole/i18n"
	"rmqconsole/rocketmq"
)

// Time behind: how old the oldest message a group has not consumed is, per queue: now
// minus the store time of the message at the committed offset, 0 when the queue is
// caught up. The store time comes from QUERY_CONSUME_TIME_SPAN (one request per group,
// topic and broker answers every queue's delayTime); since the message at an offset
// never changes, store times are remembered by queue and offset, and a group whose
// offset has not moved costs nothing on the next pass — for storeTimeFresh: the broker
// may delete the message meanwhile (its file expired, the disk filled), and only a new
// read finds that out (the min offset explainOdd reads, which shows lost messages).

// DefaultLagTimeLookups is how many (group, topic, broker) store-time reads one pass of
// the list makes.
const DefaultLagTimeLookups = 200

// maxStoreTimes bounds the memory of store times (about 100 bytes each).
const maxStoreTimes = 200_000

// storeTimeFresh is how long a remembered store time is taken without asking again: a
// group that stays behind costs one read per topic and broker this often.
const storeTimeFresh = 10 * time.Minute

type storeKey struct {
	mq     rocketmq.MessageQueue
	offset int64
}

// storeTimes remembers the store time (epoch ms) of the message at a queue offset, and
// when it was read.
type storeTimes struct {
	mu sync.Mutex
	m  map[storeKey]storeTime
}

type storeTime struct {
	at     int64
	readAt time.Time
}

// get returns the store time remembered for k if it was read within storeTimeFresh of now.
func (st *storeTimes) get(k storeKey, now time.Time) (int64, bool) {
	st.mu.Lock()
	defer st.mu.Unlock()
	v, ok := st.m[k]
	if !ok || now.Sub(v.readAt) >= storeTimeFresh {
		return 0, false
	}
	return v.at, true
}

func (st *storeTimes) put(k storeKey, v int64, now time.Time) {
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.m == nil || len(st.m) >= maxStoreTimes {
		st.m = map[storeKey]storeTime{} // start over: entries of moved offsets are never read again
	}
	st.m[k] = storeTime{at: v, readAt: now}
}

// lagTimeRead is one QUERY_CONSUME_TIME_SPAN to make: a group's lagging queues of a
// topic on one broker.
type lagTimeRead struct {
	group  string
	topic  string
	broker cluster.Broker
	lag    int64 // the queues' lag, to read the most lagging first
	queues []*QueueLag
}

// lagTimeNeeds fills the time behind of qs (one group's queues) that need no request
// (caught up, unknown lag, store time remembered) and returns the reads the others need.
func (s *Service) lagTimeNeeds(group string, qs []QueueLag, brokers map[string]cluster.Broker, now time.Time) []*lagTimeRead {
	var reads []*lagTimeRead
	byKey := map[[2]string]*lagTimeRead{}
	for i := range qs {
		q := &qs[i]
		q.LagTimeMs, q.LagTimeUnknown = nil, nil
		switch {
		case q.Lag == nil:
			q.LagTimeUnknown = q.LagUnknown
			if len(q.LagTimeUnknown) == 0 {
				q.LagTimeUnknown = i18n.TextOf(i18n.M("group.note.lagUnknown"))
			}
			continue
		case *q.Lag == 0:
			zero := int64(0)
			q.LagTimeMs = &zero
			continue
		}
		if at, ok := s.storeTimes.get(storeKey{q.Queue(), *q.ConsumerOffset}, now); ok {
			q.setLagTime(now, at)
			continue
		}
		b, ok := brokers[q.BrokerName]
		if !ok || b.Master == "" {
			q.LagTimeUnknown = i18n.TextOf(i18n.M("group.note.noMaster", "Broker", q.BrokerName))
			continue
		}
		k := [2]string{q.Topic, q.BrokerName}
		r := byKey[k]
		if r == nil {
			r = &lagTimeRead{group: group, topic: q.Topic, broker: b}
			byKey[k] = r
			reads = append(reads, r)
		}
		r.lag += *q.Lag
		r.queues = append(r.queues, q)
		q.LagTimeUnknown = i18n.TextOf(i18n.M("group.note.notRead"))
	}
	return reads
}

// byName indexes brokers by name, for the queues' broker names.
func byName(brokers []cluster.Broker) map[string]cluster.Broker {
	m := make(map[string]cluster.Broker, len(brokers))
	for _, b := range brokers {
		m[b.Name] = b
	}
	return m
}

func (q *QueueLag) setLagTime(now time.Time, storedAt int64) {
	ms := max(now.UnixMilli()-storedAt, 0)
	q.LagTimeMs, q.LagTimeUnknown = &ms, nil
}

// readLagTimes makes the reads (at most limit of them, the most lagging first; limit < 0:
// all) in fo, and fills their queues. A queue left out or whose broker failed says why.
func (s *Service) readLagTimes(fo *cluster.Fanout, reads []*lagTimeRead, limit int, now time.Time) {
	slices.SortStableFunc(reads, func(a, b *lagTimeRead) int { return cmp.Compare(b.lag, a.lag) })
	for i, r := range reads {
		if limit >= 0 && i >= limit {
			for _, q := range r.queues {
				q.LagTimeUnknown = i18n.TextOf(i18n.M("group.note.notThisPass", "Limit", limit))
			}
			continue
		}
		fo.Go(r.broker, "time behind", func(ctx context.Context, addr string) error {
			spans, err := s.admin.ConsumeTimeSpan(ctx, addr, r.topic, r.group)
			if err != nil {
				for _, q := range r.queues {
					q.LagTimeUnknown = i18n.TextOf(i18n.M("group.note.noStoreTime", "Broker", r.broker.Name, "Error", errMessage(err)))
				}
				return err
			}
			if odd := s.applySpans(r, spans, s.opts.Now()); len(odd) > 0 {
				s.explainOdd(ctx, addr, r, odd)
			}
			return nil
		})
	}
}

// applySpans turns a broker's delayTime (its now minus the store time at the committed
// offset) into store times, checked against the queue's oldest stored message: for an
// offset the broker no longer stores, it answers a store time of -1. It returns the
// queues whose store time came out older than the queue's oldest message: whether the
// message is gone needs the queue's min offset (explainOdd).
func (s *Service) applySpans(r *lagTimeRead, spans []rocketmq.QueueTimeSpan, now time.Time) []*QueueLag {
	var odd []*QueueLag
	by := map[rocketmq.MessageQueue]rocketmq.QueueTimeSpan{}
	for _, sp := range spans {
		by[sp.MessageQueue] = sp
	}
	for _, q := range r.queues {
		sp, ok := by[q.Queue()]
		switch {
		case !ok:
			q.LagTimeUnknown = i18n.TextOf(i18n.M("group.note.noTimes", "Broker", r.broker.Name))
		case sp.DelayTime <= 0:
			// The group caught up between the offsets read and the time span.
			zero := int64(0)
			q.LagTimeMs, q.LagTimeUnknown = &zero, nil
		default:
			at := now.UnixMilli() - sp.DelayTime
			if sp.MinTimeStamp > 0 && at < sp.MinTimeStamp-time.Minute.Milliseconds() {
				odd = append(odd, q)
				continue
			}
			s.storeTimes.put(storeKey{q.Queue(), *q.ConsumerOffset}, at, now)
			q.setLagTime(now, at)
		}
	}
	return odd
}

// explainOdd says why the time behind of qs is unknown, true for the offsets beside it:
// the message at the committed offset is gone only when that offset is below the queue's
// min offset (one GET_TOPIC_STATS_INFO for the topic on the broker, made only here).
func (s *Service) explainOdd(ctx context.Context, addr string, r *lagTimeRead, qs []*QueueLag) {
	ts, err := s.admin.TopicStats(ctx, addr, r.topic)
	for _, q := range qs {
		co := *q.ConsumerOffset
		var to rocketmq.TopicOffset
		ok := err == nil
		if ok {
			to, ok = ts.Offsets[q.Queue()]
		}
		switch {
		case !ok:
			q.LagTimeUnknown = i18n.TextOf(i18n.M("group.note.storeTimeUnsure", "Offset", co))
		case co < to.MinOffset:
			minOff := to.MinOffset
			q.MinOffset = &minOff
			q.LagTimeUnknown = i18n.TextOf(i18n.M("group.note.gone", "Offset", co, "Min", minOff))
		default:
			minOff := to.MinOffset
			q.MinOffset = &minOff
			q.LagTimeUnknown = i18n.TextOf(i18n.M("group.note.storeTimeOdd", "Offset", co, "Min", minOff))
		}
	}
}

// maxLagTime is the largest known time behind of qs, nil when none is known, and a note
// saying why, or what it leaves out.
func maxLagTime(qs []QueueLag) (*int64, i18n.Text) {
	var best *int64
	unknown, first := 0, i18n.Text(nil)
	for _, q := range qs {
		if q.LagTimeMs == nil {
			unknown++
			if first == nil {
				first = q.LagTimeUnknown
			}
			continue
		}
		if best == nil || *q.LagTimeMs > *best {
			v := *q.LagTimeMs
			best = &v
		}
	}
	switch {
	case best == nil && unknown > 0:
		return nil, first
	case best == nil:
		return nil, i18n.TextOf(i18n.M("group.note.noCommitted"))
	case unknown > 0:
		return best, i18n.TextOf(i18n.M("group.note.behindLeavesOut", "Count", unknown, "First", first))
	}
	return best, nil
}
