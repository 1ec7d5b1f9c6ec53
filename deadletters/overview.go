package deadletters

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"

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

// Overview is every dead-letter topic of the cluster, those with the newest dead
// letters first, then the fullest; broker failures are in each topic's Failures.
func (s *Service) Overview(ctx context.Context) ([]GroupDLQ, error) {
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
	slices.SortFunc(out, func(a, b GroupDLQ) int {
		if c := b.Newest.Compare(a.Newest); c != 0 {
			return c
		}
		if c := cmp.Compare(b.Stored, a.Stored); c != 0 {
			return c
		}
		return strings.Compare(a.Topic, b.Topic)
	})
	return out, nil
}
