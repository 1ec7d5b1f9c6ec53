package groups

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"sync"
	"time"

	"rmqconsole/rocketmq"
)

// A broker's consume stats leave out, for a group with clients online, every topic its
// subscription table lacks — and that table holds the topics of the client that
// heartbeated last, so a group whose clients subscribe to different topics loses a
// different topic's lag from one read to the next. The console remembers every topic a
// client of the group was seen subscribing to (connection lists, running infos) for
// subscribedKept, and reads the offsets of those the stats left out from the broker's
// offset table and the topic's max offsets.

// subscribedKept is how long a topic counts as subscribed after a client was last seen
// subscribing to it: long enough for every client's heartbeat to have been read.
const subscribedKept = 10 * time.Minute

// subscribed remembers, per group, when a client was last seen subscribing to each topic.
type subscribed struct {
	mu sync.Mutex
	m  map[string]map[string]time.Time
}

// note remembers that a client of group subscribed to topics at at.
func (s *subscribed) note(group string, topics []string, at time.Time) {
	if len(topics) == 0 {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.m == nil {
		s.m = map[string]map[string]time.Time{}
	}
	g := s.m[group]
	if g == nil {
		g = map[string]time.Time{}
		s.m[group] = g
	}
	for _, t := range topics {
		if !rocketmq.IsRetryTopic(t) && g[t].Before(at) {
			g[t] = at
		}
	}
	for t, seen := range g {
		if at.Sub(seen) > subscribedKept {
			delete(g, t)
		}
	}
}

// noteConns remembers the topics of a connection list's subscription table.
func (s *subscribed) noteConns(group string, cc *rocketmq.ConsumerConnection, at time.Time) {
	if cc == nil || len(cc.Connections) == 0 {
		return
	}
	s.note(group, slices.Collect(maps.Keys(cc.Subscriptions)), at)
}

// topics are the topics group's clients subscribed to within subscribedKept of now.
func (s *subscribed) topics(group string, now time.Time) map[string]bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := map[string]bool{}
	for t, seen := range s.m[group] {
		if now.Sub(seen) <= subscribedKept {
			out[t] = true
		}
	}
	return out
}

// skippedStats adds to stats (by group) the queues of the topics each group of need
// subscribes to that the consume stats of broker (its master at addr) left out: their
// committed offsets from the broker's offset table and the topic's max offsets, one
// topic-stats read per topic, at most Options.Concurrency at once. It returns, by group,
// the topics it could not read with why.
func (s *Service) skippedStats(ctx context.Context, broker, addr string, need map[string][]string,
	stats map[string]*rocketmq.ConsumeStats) map[string]map[string]error {
	failed := map[string]map[string]error{}
	fail := func(g, t string, err error) {
		if failed[g] == nil {
			failed[g] = map[string]error{}
		}
		failed[g][t] = err
	}
	offs, err := s.admin.ConsumerOffsets(ctx, addr)
	if err != nil {
		for g, ts := range need {
			for _, t := range ts {
				fail(g, t, err)
			}
		}
		return failed
	}
	byTopic := map[string][]string{}
	for g, ts := range need {
		for _, t := range ts {
			if _, ok := offs[g][t]; ok {
				byTopic[t] = append(byTopic[t], g)
			}
		}
	}
	topics := slices.Sorted(maps.Keys(byTopic))
	read := make([]*rocketmq.TopicStats, len(topics))
	errs := make([]error, len(topics))
	fo := s.cluster.Fanout(ctx).Limit(s.opts.Concurrency)
	for i, t := range topics {
		fo.At(broker, addr, "topic stats of "+t, func(ctx context.Context, addr string) error {
			read[i], errs[i] = s.admin.TopicStats(ctx, addr, t)
			return errs[i]
		})
	}
	fo.Wait()
	for i, t := range topics {
		if err := errs[i]; err != nil || read[i] == nil {
			if err == nil { // not asked: the read's time ran out first
				err = fmt.Errorf("topic stats of %s not asked: %w", t, context.Cause(ctx))
			}
			for _, g := range byTopic[t] {
				fail(g, t, err)
			}
			continue
		}
		ts := read[i]
		for _, g := range byTopic[t] {
			cs := stats[g]
			if cs == nil {
				cs = &rocketmq.ConsumeStats{}
				stats[g] = cs
			}
			if cs.Offsets == nil {
				cs.Offsets = map[rocketmq.MessageQueue]rocketmq.OffsetWrapper{}
			}
			for mq, to := range ts.Offsets {
				if off, ok := offs[g][t][mq.QueueID]; ok {
					cs.Offsets[mq] = rocketmq.OffsetWrapper{BrokerOffset: to.MaxOffset, ConsumerOffset: off}
				}
			}
		}
	}
	return failed
}

// leftOut are the topics of subs (a group's subscribed topics) of which stats hold no
// queue, retry topics aside.
func leftOut(subs map[string]bool, stats *rocketmq.ConsumeStats) []string {
	have := map[string]bool{}
	if stats != nil {
		for mq := range stats.Offsets {
			have[mq.Topic] = true
		}
	}
	var out []string
	for t := range subs {
		if !have[t] && !rocketmq.IsRetryTopic(t) {
			out = append(out, t)
		}
	}
	slices.Sort(out)
	return out
}
