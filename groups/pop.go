package groups

import (
	"context"
	"errors"
	"maps"
	"slices"
	"sync"

	"rmqconsole/cluster"
	"rmqconsole/i18n"
	"rmqconsole/rocketmq"
)

// Consume types beyond the broker's push, pull and pop: a gRPC PushConsumer registers
// with its Proxy as CONSUME_PASSIVELY ("PUSH") and a gRPC SimpleConsumer as
// CONSUME_ACTIVELY ("PULL"), though both consume through POP.
const (
	ConsumeTypePop      = "pop"
	ConsumeTypeGRPCPush = "grpc-push"
)

// consumeTypeOf names how a group's clients consume from one connection list; viaProxy:
// a Proxy answered it, so gRPC clients' types mean POP (see ConsumeTypePop).
func consumeTypeOf(cc *rocketmq.ConsumerConnection, viaProxy bool) string {
	if viaProxy && slices.ContainsFunc(cc.Connections, func(cn rocketmq.Connection) bool { return cluster.IsGRPC(cc, cn) }) {
		switch cc.ConsumeType {
		case "CONSUME_ACTIVELY":
			return ConsumeTypePop
		case "CONSUME_PASSIVELY":
			return ConsumeTypeGRPCPush
		}
	}
	return ConsumeTypeName(cc.ConsumeType)
}

// consumesByPop reports whether a group of this consume type takes messages with POP:
// the broker hands out messages, not queues, so no client owns a queue and nothing
// rebalances.
func consumesByPop(consumeType string) bool {
	return consumeType == ConsumeTypePop || consumeType == ConsumeTypeGRPCPush
}

// Client protocols and where the console found a client.
const (
	ProtocolRemoting = "remoting"
	ProtocolGRPC     = "gRPC"
	KnownToBroker    = "broker"
)

// PopProgress splits a POP group's backlog the way POP works: what was never popped,
// and what was popped, not acknowledged in time and revived into the group's POP retry
// topics to be delivered again.
type PopProgress struct {
	// Ready counts the messages not yet popped (broker offset minus consumer offset over
	// the group's own topics).
	Ready int64 `json:"ready"`
	// Retry counts the revived messages waiting in the POP retry topics
	// (%RETRY%<group>_<topic>, and %RETRY%<group>+<topic> on brokers with retry topic V2).
	Retry int64 `json:"retry"`
	// InFlight counts messages popped and not yet acknowledged; nil when the broker does
	// not report them (the default), with InFlightNote saying so.
	InFlight     *int64    `json:"inFlight"`
	InFlightNote i18n.Text `json:"inFlightNote"`
	// Polling counts the receive (long-polling POP) requests parked on the brokers now;
	// nil when no broker said, with the reason in PollingNote.
	Polling     *int      `json:"polling"`
	PollingNote i18n.Text `json:"pollingNote,omitempty"`
	Note        i18n.Text `json:"note"`
}

// popProgress adds the POP retry topics' queues of every subscribed topic to d.Queues
// (they hold no committed offset until a consumer pops from them, so the consume stats
// leave them out) and sums Ready and Retry, and asks brokers' masters how many receive
// requests are parked.
func (s *Service) popProgress(ctx context.Context, d *Detail, subs map[string]bool, brokers []cluster.Broker) *PopProgress {
	p := &PopProgress{InFlightNote: i18n.TextOf(i18n.M("group.pop.note.inFlight")), Note: i18n.TextOf(i18n.M("group.pop.note"))}
	have := map[rocketmq.MessageQueue]int{}
	for i, q := range d.Queues {
		have[q.Queue()] = i
	}
	own := slices.DeleteFunc(slices.Sorted(maps.Keys(subs)), rocketmq.IsRetryTopic)
	var retryTopics []string
	for _, t := range own {
		retryTopics = append(retryTopics, rocketmq.PopRetryTopicV1(d.Group, t), rocketmq.PopRetryTopicV2(d.Group, t))
	}
	for _, t := range retryTopics {
		for mq, o := range s.retryOffsets(ctx, d, t) {
			if i, ok := have[mq]; ok {
				// A consumer popped from it: the consume stats' row has the committed offset.
				d.Queues[i].Retry = true
				continue
			}
			// Never popped: everything stored waits for its first delivery.
			bo, waiting := o.MaxOffset, o.MaxOffset-o.MinOffset
			d.Queues = append(d.Queues, QueueLag{Topic: mq.Topic, BrokerName: mq.BrokerName, QueueID: mq.QueueID,
				Retry: true, BrokerOffset: &bo, Lag: &waiting, LastTimestamp: 0})
			have[mq] = len(d.Queues) - 1
		}
	}
	var inFlight int64
	reported := false
	for _, q := range d.Queues {
		if q.InFlight != nil {
			// Brokers with the RocksDB POP service commit a pull offset past the consumer offset.
			inFlight, reported = inFlight+*q.InFlight, true
		}
		if q.Lag == nil {
			continue
		}
		if _, ok := rocketmq.PopRetryTopicOf(q.Topic, d.Group); ok {
			p.Retry += *q.Lag
		} else if !rocketmq.IsRetryTopic(q.Topic) {
			p.Ready += *q.Lag
		}
	}
	if reported {
		p.InFlight, p.InFlightNote = &inFlight, i18n.TextOf(i18n.M("group.pop.note.inFlightReported"))
	}
	n, failures := s.polling(ctx, d.Group, own, brokers)
	if len(failures) > 0 {
		ms := make([]i18n.Message, len(failures))
		for i, f := range failures {
			ms[i] = f.Message()
		}
		p.PollingNote = i18n.TextOf(i18n.M("group.pop.note.polling", "Error", oneByOne(ms)))
	} else {
		p.Polling = &n
	}
	return p
}

// retryOffsets reads the offsets of one POP retry topic on every broker of its route;
// a retry topic that does not exist (nothing was ever revived) has none.
func (s *Service) retryOffsets(ctx context.Context, d *Detail, topic string) map[rocketmq.MessageQueue]rocketmq.TopicOffset {
	r, err := s.cluster.Route(ctx, topic)
	if err != nil {
		if !errors.Is(err, rocketmq.ErrTopicNotFound) {
			d.Failures = append(d.Failures, BrokerFailure{Broker: "topic " + topic, Op: "route", Err: err})
		}
		return nil
	}
	out := map[rocketmq.MessageQueue]rocketmq.TopicOffset{}
	var mu sync.Mutex
	fo := s.cluster.Fanout(ctx)
	for _, b := range r.Brokers {
		fo.Read(b, "stats of "+topic, func(ctx context.Context, addr string) error {
			st, err := s.admin.TopicStats(ctx, addr, topic)
			if err != nil {
				return err
			}
			mu.Lock()
			maps.Copy(out, st.Offsets)
			mu.Unlock()
			return nil
		})
	}
	d.Failures = append(d.Failures, fo.Wait()...)
	return out
}

// polling sums the group's parked POP requests for topics over every master (POLLING_INFO
// with queue id -1, where gRPC consumers' non-orderly pops wait), asked through the
// cluster's fan-out. It returns the failures instead when no master answered.
func (s *Service) polling(ctx context.Context, group string, topics []string, brokers []cluster.Broker) (int, []BrokerFailure) {
	var mu sync.Mutex
	total, answered := 0, 0
	fo := s.cluster.Fanout(ctx)
	for _, b := range brokers {
		if b.Master == "" {
			continue // a slave holds no parked request
		}
		for _, t := range topics {
			fo.GoTopic(b, t, "polling info", func(ctx context.Context, addr string) error {
				n, err := s.admin.PollingInfo(ctx, addr, group, t, -1)
				if errors.Is(err, rocketmq.ErrTopicNotFound) {
					n, err = 0, nil // the topic is not on this broker
				}
				if err != nil {
					return err
				}
				mu.Lock()
				total, answered = total+n, answered+1
				mu.Unlock()
				return nil
			})
		}
	}
	if failures := fo.Wait(); answered == 0 && len(failures) > 0 {
		return 0, failures
	}
	return total, nil
}
