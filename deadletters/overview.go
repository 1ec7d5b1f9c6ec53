package deadletters

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"rmqconsole/rocketmq"
)

// overviewReads bounds the dead-letter topics counted at once: a cluster may have
// hundreds, each a route lookup and a call per broker.
const overviewReads = 8

// GroupDLQ is one consumer group's dead-letter topic and what it stores.
type GroupDLQ struct {
	Group string
	TopicCount
}

// OverviewTTL is how long the overview is reused: a page of it, the next pages and
// their More rows cut from one copy instead of counting every dead-letter topic again.
const OverviewTTL = 10 * time.Second

// Overview is every dead-letter topic of the cluster, those with the newest dead
// letters first, then the fullest; broker failures are in each topic's Failures. It is
// counted within OverviewTTL unless refresh is set; callers do not change it.
func (s *Service) Overview(ctx context.Context, refresh bool) ([]GroupDLQ, error) {
	s.overviewMu.Lock() // held while counting, so concurrent cold pages count once
	defer s.overviewMu.Unlock()
	if o := s.overview; !refresh && o.list != nil && time.Since(o.at) < OverviewTTL {
		return o.list, nil
	}
	list, err := s.readOverview(ctx)
	if err != nil {
		return nil, err
	}
	s.overview.list, s.overview.at = list, time.Now()
	return list, nil
}

func (s *Service) readOverview(ctx context.Context) ([]GroupDLQ, error) {
	names, err := s.cfg.Admin.TopicList(ctx)
	if err != nil {
		return nil, fmt.Errorf("topic list: %w", err)
	}
	var out []GroupDLQ
	for _, t := range names {
		if rocketmq.IsDLQTopic(t) {
			out = append(out, GroupDLQ{Group: strings.TrimPrefix(t, rocketmq.DLQTopicPrefix), TopicCount: TopicCount{Topic: t}})
		}
	}
	errs := make([]error, len(out))
	sem := make(chan struct{}, overviewReads)
	var wg sync.WaitGroup
	for i := range out {
		wg.Go(func() {
			sem <- struct{}{}
			defer func() { <-sem }()
			out[i].TopicCount, errs[i] = s.count(ctx, out[i].Topic)
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	// A topic deleted between the list and its route is no dead-letter topic any more.
	out = slices.DeleteFunc(out, func(g GroupDLQ) bool { return !g.Exists })
	slices.SortFunc(out, overviewOrder)
	return out, nil
}

// Written answers how many messages each named group's dead-letter topic has received
// in all (TopicCount.Written), for the diagnosis: one topic list from the NameServers,
// then, for at most max groups whose dead-letter topic exists, in the order given, a
// route lookup and one GET_TOPIC_STATS_INFO per broker of the topic. A group without a
// dead-letter topic is answered 0 at no further cost; a group past max, or one whose
// topic a broker did not count, is left out.
func (s *Service) Written(ctx context.Context, groups []string, max int) (map[string]int64, error) {
	names, err := s.cfg.Admin.TopicList(ctx)
	if err != nil {
		return nil, fmt.Errorf("topic list: %w", err)
	}
	out := make(map[string]int64, len(groups))
	var counted []string
	for _, g := range groups {
		switch {
		case !hasTopic(names, rocketmq.DLQTopic(g)):
			out[g] = 0
		case len(counted) < max:
			counted = append(counted, g)
		}
	}
	counts := make([]TopicCount, len(counted))
	sem := make(chan struct{}, overviewReads)
	var wg sync.WaitGroup
	for i, g := range counted {
		wg.Go(func() {
			sem <- struct{}{}
			defer func() { <-sem }()
			counts[i], _ = s.count(ctx, rocketmq.DLQTopic(g)) // a route that failed: left out below
		})
	}
	wg.Wait()
	for i, g := range counted {
		if c := counts[i]; c.Exists && len(c.Failures) == 0 && c.Counted > 0 {
			out[g] = c.Written
		}
	}
	return out, nil
}

// hasTopic reports whether the sorted names hold topic.
func hasTopic(names []string, topic string) bool {
	_, ok := slices.BinarySearch(names, topic)
	return ok
}
