package groups

import (
	"cmp"
	"slices"
	"sync"
	"time"

	"rmqconsole/rocketmq"
)

// DefaultMaxOffsetReads is how many topics' max offsets (one GET_TOPIC_STATS_INFO each)
// one pass of the group list reads, over all the brokers it reads from their offset
// table, once it has read each of their topics.
const DefaultMaxOffsetReads = 2000

// maxOffsets keeps, by broker and topic, the queues' max offsets as the group list last
// read them. A broker with too many groups for GET_BROKER_CONSUME_STATS has no call that
// answers every topic's max offsets: reading them all is one call per topic on every
// pass (80 000 for 20 000 topics on 16 brokers). So a pass reads every topic of a broker
// the first time, then a bounded number, and counts the rest from what it kept, saying
// how old that is.
type maxOffsets struct {
	mu       sync.Mutex
	byBroker map[string]map[string]keptMax
}

// keptMax is one topic's max offsets on one broker, read at at.
type keptMax struct {
	queues []int64 // by queue id; -1: the broker did not list the queue
	at     time.Time
	gone   bool // the broker said the topic does not exist (its offsets linger)
	// grew: some queue's max offset was higher than at the read before, a topic in use,
	// whose kept max offsets fall behind between reads.
	grew bool
}

func keep(ts *rocketmq.TopicStats, at time.Time) keptMax {
	k := keptMax{at: at}
	for mq, o := range ts.Offsets {
		for len(k.queues) <= mq.QueueID {
			k.queues = append(k.queues, -1)
		}
		k.queues[mq.QueueID] = o.MaxOffset
	}
	return k
}

// max is the kept max offset of queue q.
func (k keptMax) max(q int) (int64, bool) {
	if q < 0 || q >= len(k.queues) || k.queues[q] < 0 {
		return 0, false
	}
	return k.queues[q], true
}

// The order in which a pass reads topics' max offsets: a lower rank first, the oldest
// first within a rank.
const (
	rankNeverRead = iota
	// rankPassed: a committed offset is past the kept max offsets, which are behind for
	// certain (the lag would show 0).
	rankPassed
	// rankInUse: the topic grew at its last read. Its consumers did not pass it, so some
	// may be stuck while it grows: the lag that matters most to see.
	rankInUse
	rankOld
)

// toRead picks which of the topics a broker's offset table names (offs: group → topic →
// queue id → committed offset) a pass reads: all of them when the broker's are not kept
// yet, else at most budget, by rank. Topics gone from the offset table are forgotten.
func (m *maxOffsets) toRead(broker string, offs map[string]map[string]map[int]int64, budget int) []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	kept := m.byBroker[broker]
	type cand struct {
		topic string
		rank  int
		at    time.Time
	}
	cands := map[string]*cand{}
	for _, byTopic := range offs {
		for t, qs := range byTopic {
			if rocketmq.IsRetryTopic(t) {
				continue
			}
			c := cands[t]
			if c == nil {
				k, ok := kept[t]
				c = &cand{topic: t, rank: rankOld, at: k.at}
				switch {
				case !ok:
					c.rank = rankNeverRead
				case k.grew:
					c.rank = rankInUse
				}
				cands[t] = c
			}
			if c.rank > rankPassed {
				k := kept[t]
				for q, off := range qs {
					if mx, ok := k.max(q); ok && off > mx {
						c.rank = rankPassed
						break
					}
				}
			}
		}
	}
	for t := range kept {
		if cands[t] == nil {
			delete(kept, t)
		}
	}
	all := make([]*cand, 0, len(cands))
	for _, c := range cands {
		all = append(all, c)
	}
	if kept == nil {
		budget = len(all)
	}
	slices.SortFunc(all, func(a, b *cand) int {
		return cmp.Or(cmp.Compare(a.rank, b.rank), a.at.Compare(b.at), cmp.Compare(a.topic, b.topic))
	})
	out := make([]string, 0, min(budget, len(all)))
	for _, c := range all[:min(budget, len(all))] {
		out = append(out, c.topic)
	}
	return out
}

// note keeps what one pass read of a broker's topics.
func (m *maxOffsets) note(broker string, read map[string]keptMax) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.byBroker == nil {
		m.byBroker = map[string]map[string]keptMax{}
	}
	kept := m.byBroker[broker]
	if kept == nil {
		kept = make(map[string]keptMax, len(read))
		m.byBroker[broker] = kept
	}
	for t, k := range read {
		if was, ok := kept[t]; ok {
			for q := range k.queues {
				if mx, ok := was.max(q); ok && k.queues[q] > mx {
					k.grew = true
					break
				}
			}
		}
		kept[t] = k
	}
}

// consumeStats builds, from a broker's offset table (offs: group → topic → queue id →
// committed offset) and the kept max offsets, each group's consume stats, and for each
// group whose lag counts max offsets read before since, the oldest of their times.
func (m *maxOffsets) consumeStats(broker string, offs map[string]map[string]map[int]int64, since time.Time) (map[string]*rocketmq.ConsumeStats, map[string]time.Time) {
	m.mu.Lock()
	defer m.mu.Unlock()
	kept := m.byBroker[broker]
	out := make(map[string]*rocketmq.ConsumeStats, len(offs))
	older := map[string]time.Time{}
	for g, byTopic := range offs {
		cs := &rocketmq.ConsumeStats{Offsets: map[rocketmq.MessageQueue]rocketmq.OffsetWrapper{}}
		for t, qs := range byTopic {
			k, ok := kept[t]
			if !ok || k.gone {
				continue
			}
			counted := false
			for q, off := range qs {
				if mx, ok := k.max(q); ok {
					if k.at.Before(since) {
						// Kept from an earlier pass: a committed offset past it says the
						// queue grew since, not that it was truncated.
						mx = max(mx, off)
					}
					cs.Offsets[rocketmq.MessageQueue{Topic: t, BrokerName: broker, QueueID: q}] = rocketmq.OffsetWrapper{BrokerOffset: mx, ConsumerOffset: off}
					counted = true
				}
			}
			if counted && k.at.Before(since) {
				if at, ok := older[g]; !ok || k.at.Before(at) {
					older[g] = k.at
				}
			}
		}
		out[g] = cs
	}
	return out, older
}
