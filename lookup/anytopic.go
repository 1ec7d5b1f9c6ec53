package lookup

import (
	"context"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"rmqconsole/cluster"
	"rmqconsole/fault"
	"rmqconsole/rocketmq"
)

// A client message id found without its topic: producers log the id alone, and the
// brokers' index is kept per topic. The id carries the time it was made, which narrows
// every question to the index files of that time.
const (
	// anyTopicParallel is how many index questions are in flight at once.
	anyTopicParallel = 32
	// AnyTopicTime bounds the whole search; the topics not asked by then are named.
	AnyTopicTime = 5 * time.Second
	// anyTopicMargin is how far from the id's time the index is read: the producer's
	// month start is its local midnight, which can be 14 h from the console's, and the
	// broker stores a message a moment after the producer makes its id.
	anyTopicMargin = 15 * time.Hour
)

// TopicSearch is how a unique key was looked for across the cluster's topics.
type TopicSearch struct {
	// Topics is how many topics the cluster has (system topics left out); Asked how
	// many of them were asked before the message was found or the time ran out.
	Topics int `json:"topics"`
	Asked  int `json:"asked"`
	// Begin and End are the store times the index was read for.
	Begin time.Time     `json:"begin"`
	End   time.Time     `json:"end"`
	Took  time.Duration `json:"-"`
	// TimedOut: AnyTopicTime ran out with topics not asked.
	TimedOut bool `json:"-"`
}

// byUniqueKeyAnyTopic asks every master's index for the id in each topic, within the
// time the id carries, and stops at the first topic that holds it; that topic is then
// read as a unique-key lookup with its topic, copies and all. Calls: at most topics ×
// masters QUERY_MESSAGE, 32 at a time, within AnyTopicTime.
func (s *Service) byUniqueKeyAnyTopic(ctx context.Context, q IDQuery, info rocketmq.UniqueKeyInfo) (*IDResult, error) {
	start := time.Now()
	topics, err := s.TopicNames(ctx, false)
	if err != nil {
		return nil, err
	}
	brokers, err := s.cluster.Brokers(ctx)
	if err != nil {
		return nil, err
	}
	search := &TopicSearch{Topics: len(topics), Begin: info.BornApprox.Add(-anyTopicMargin), End: info.BornApprox.Add(anyTopicMargin)}
	sctx, stop := context.WithTimeout(ctx, AnyTopicTime)
	defer stop()
	fails := s.cluster.Fanout(sctx)
	var (
		next  atomic.Int64
		asked atomic.Int64
		found atomic.Value // the topic that holds the id
		wg    sync.WaitGroup
	)
	found.Store("")
	for range anyTopicParallel {
		wg.Go(func() {
			for sctx.Err() == nil && found.Load() == "" {
				i := int(next.Add(1) - 1)
				if i >= len(topics) {
					return
				}
				topic := topics[i]
				for _, b := range brokers {
					addrs := s.cluster.ReadOrder(b)
					if len(addrs) == 0 || fails.Failed(b.Name) {
						continue
					}
					ask := func(ctx context.Context, addr string) (*rocketmq.QueryResult, error) {
						return s.admin.QueryMessageByUniqueKey(ctx, addr, topic, q.ID, search.Begin, search.End)
					}
					// The first address straight away, as the deep scan does; one that fails
					// is asked again through the fan-out, which tries the slaves (they hold
					// the same index) and names the broker.
					r, err := ask(sctx, addrs[0])
					if err != nil && sctx.Err() == nil {
						r = cluster.EachRead(fails, []cluster.Broker{b}, opUniqueKey, ask)[0]
					}
					if r != nil && len(r.Messages) > 0 {
						found.CompareAndSwap("", topic)
						stop()
						return
					}
				}
				asked.Add(1)
			}
		})
	}
	wg.Wait()
	search.Took, search.Asked = time.Since(start), int(asked.Load())
	topic := found.Load().(string)
	if topic == "" {
		if err := ctx.Err(); err != nil {
			return nil, err // the caller went away
		}
		search.TimedOut = search.Asked < search.Topics
		return nil, notFoundAnyTopic(q.ID, search, fails.Failures())
	}
	search.Asked++ // the topic that held it
	res, err := s.byUniqueKey(ctx, IDQuery{ID: q.ID, Topic: topic})
	if err != nil {
		return nil, err
	}
	res.Searched = search
	return res, nil
}

// notFoundAnyTopic says what was read and where the message may still be: topics not
// read in time, brokers that did not answer.
func notFoundAnyTopic(id string, s *TopicSearch, failed []BrokerFailure) error {
	kv := []any{"ID", id, "Topics", s.Topics, "Asked", s.Asked, "Left", s.Topics - s.Asked, "Time", AnyTopicTime.String(),
		"Begin", s.Begin.UTC().Format(time.DateTime), "End", s.End.UTC().Format(time.DateTime)}
	var names []string
	for _, f := range failed {
		if !slices.Contains(names, f.Broker) {
			names = append(names, f.Broker)
		}
	}
	switch {
	case s.TimedOut: // a pull the deadline cut short is no broker's failure
		return notFound("lookup.notfound.anytopic.timeout", kv...)
	case len(names) > 0:
		return fault.New(fault.Unavailable, "lookup.notfound.anytopic.failed", append(kv, "Brokers", strings.Join(names, ", "))...).Because("broker_unavailable")
	}
	return notFound("lookup.notfound.anytopic", kv...)
}
