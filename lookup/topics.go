package lookup

import (
	"context"
	"slices"

	"rmqconsole/cluster"
	"rmqconsole/rocketmq"
)

// Topic is one topic with its queues, for the topic picker and GET /api/v1/topics.
type Topic struct {
	Name string
	// ReadQueues and WriteQueues add up the topic's queues over its brokers.
	ReadQueues  int
	WriteQueues int
	Brokers     []string
	// System marks RocketMQ's own topics: retry (%RETRY%), dead-letter (%DLQ%),
	// scheduling, tracing, and the topics named after clusters and brokers.
	System bool
}

// TopicNames lists the cluster's topic names from the NameServer, sorted; retry,
// dead-letter and system topics only when withSystem is set.
func (s *Service) TopicNames(ctx context.Context, withSystem bool) ([]string, error) {
	names, err := s.admin.TopicList(ctx)
	if err != nil {
		return nil, err
	}
	if withSystem {
		return names, nil
	}
	ci, _ := s.cluster.Info(ctx) // without it, only the name patterns decide
	out := names[:0:0]
	for _, n := range names {
		if !ci.IsSystemTopic(n) {
			out = append(out, n)
		}
	}
	return out, nil
}

// Topics lists every topic configured on the cluster's brokers with its queue counts,
// sorted by name, from one GET_ALL_TOPIC_CONFIG per broker master. A broker that fails is
// returned as a failure; its topics are missing from the list.
func (s *Service) Topics(ctx context.Context, withSystem bool) ([]Topic, []BrokerFailure, error) {
	ci, err := s.cluster.Info(ctx)
	if err != nil {
		return nil, nil, err
	}
	brokers, err := s.cluster.Brokers(ctx)
	if err != nil {
		return nil, nil, err
	}
	fails := s.cluster.Fanout(ctx)
	tables := cluster.EachRead(fails, brokers, opTopics, func(ctx context.Context, addr string) (*rocketmq.TopicConfigTable, error) {
		return s.admin.TopicConfigs(ctx, addr)
	})
	byName := map[string]*Topic{}
	for i, t := range tables {
		if t == nil {
			continue
		}
		for topic, tc := range t.Topics {
			tp := byName[topic]
			if tp == nil {
				tp = &Topic{Name: topic, System: ci.IsSystemTopic(topic)}
				byName[topic] = tp
			}
			tp.ReadQueues += tc.ReadQueueNums
			tp.WriteQueues += tc.WriteQueueNums
			tp.Brokers = append(tp.Brokers, brokers[i].Name)
		}
	}
	out := make([]Topic, 0, len(byName))
	for _, tp := range byName {
		if withSystem || !tp.System {
			out = append(out, *tp)
		}
	}
	slices.SortFunc(out, func(a, b Topic) int {
		switch {
		case a.Name < b.Name:
			return -1
		case a.Name > b.Name:
			return 1
		}
		return 0
	})
	return out, fails.Wait(), nil
}
