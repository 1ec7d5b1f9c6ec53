package lookup

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"rmqconsole/cluster"
	"rmqconsole/rocketmq"
)

// ConsumeState says where a consumer group stands with one message.
type ConsumeState string

// The states of a group towards a message.
const (
	// Consumed: the group's committed offset on the message's queue is past it.
	Consumed ConsumeState = "consumed"
	// NotConsumed: the group is online and its offset has not reached the message.
	NotConsumed ConsumeState = "notConsumed"
	// Filtered: the group is online and past the message, but its subscription's tags
	// exclude it, so no client ever received it.
	Filtered ConsumeState = "filtered"
	// Offline: no client of the group is connected; Reason says what its stored offset
	// shows.
	Offline ConsumeState = "offline"
	// Unknown: the state cannot be read; Reason says why.
	Unknown ConsumeState = "unknown"
)

// GroupState is one consumer group subscribed to the message's topic.
type GroupState struct {
	Group string
	State ConsumeState
	// ConsumerOffset is the group's committed offset on the message's queue, -1 when it
	// has none or it could not be read.
	ConsumerOffset int64
	// Online says whether a client of the group is connected to the message's broker.
	Online bool
	// Subscription is the group's filter for the topic ("*", "TagA || TagB"), when online.
	Subscription string
	// Reason explains Offline, Filtered and Unknown as a sentence.
	Reason string
}

// GroupStates is the answer of Groups.
type GroupStates struct {
	States []GroupState
	// Failures are brokers that failed to list their groups.
	Failures []BrokerFailure
	// FromSlaves are brokers whose groups or offsets were read from a slave, because
	// the master did not answer.
	FromSlaves []SlaveRead
}

// Groups tells, for every group that consumes the message's topic (QUERY_TOPIC_CONSUME_BY_WHO
// on each broker of the topic), whether it has consumed the message: its committed offset
// on the message's queue (QUERY_CONSUMER_OFFSET) against the message's queue offset, and
// whether it is online (GET_CONSUMER_CONNECTION_LIST). These are reads a slave answers
// too (it holds the consumer offsets its master synchronises to it, and clients connect to
// it), so a master that does not answer is read from its slave. Brokers that fail to list
// their groups are returned as failures; a group whose state cannot be read is Unknown
// with the reason. Brokers named in failed (those that did not answer the lookup that
// found m) are not asked again: the page waits for a frozen broker once, not once per
// question.
func (s *Service) Groups(ctx context.Context, m Message, failed ...BrokerFailure) (*GroupStates, error) {
	fails := s.cluster.Fanout(ctx)
	route, err := s.route(ctx, m.Topic, opGroups, fails)
	if err != nil {
		return nil, err
	}
	ask := slices.DeleteFunc(slices.Clone(route.Brokers), func(b cluster.Broker) bool {
		return slices.ContainsFunc(failed, func(f BrokerFailure) bool { return f.Broker == b.Name })
	})
	lists := cluster.EachRead(fails, ask, opGroups, func(ctx context.Context, addr string) ([]string, error) {
		return s.admin.TopicConsumerGroups(ctx, addr, m.Topic)
	})
	var names []string
	for _, l := range lists {
		names = append(names, l...)
	}
	slices.Sort(names)
	names = slices.Compact(names)

	out := &GroupStates{Failures: fails.Wait(), States: make([]GroupState, len(names))}
	mq := rocketmq.MessageQueue{Topic: m.Topic, BrokerName: m.BrokerName, QueueID: m.QueueID}
	b, ok := route.Broker(m.BrokerName)
	if !ok || len(b.Addrs()) == 0 {
		for i, name := range names {
			out.States[i] = GroupState{Group: name, ConsumerOffset: -1, State: Unknown,
				Reason: fmt.Sprintf("Broker %s, which stores the message, is not in the topic's route now.", m.BrokerName)}
		}
		out.FromSlaves = fails.FromSlaves()
		return out, nil
	}
	// Each group's state is read from the message's broker; what fails is said in the
	// group's Reason, not as a broker failure. A state is read again from the slave only
	// when the master gave no answer at all.
	for i, name := range names {
		fails.Read(b, "group state", func(ctx context.Context, addr string) error {
			st, err := s.groupState(ctx, addr, name, mq, m)
			out.States[i] = st
			if cluster.Unanswered(err) {
				return err
			}
			return nil
		})
	}
	for _, f := range fails.Wait() {
		if f.Op == "group state" {
			continue // said in each group's Reason
		}
		if !slices.ContainsFunc(out.Failures, func(g BrokerFailure) bool { return g.Broker == f.Broker && g.Op == f.Op }) {
			out.Failures = append(out.Failures, f)
		}
	}
	out.FromSlaves = fails.FromSlaves()
	return out, nil
}

// groupState reads one group's state at addr; the error is the one that made it Unknown.
func (s *Service) groupState(ctx context.Context, addr, group string, mq rocketmq.MessageQueue, m Message) (GroupState, error) {
	st := GroupState{Group: group, ConsumerOffset: -1}
	conn, connErr := s.admin.ConsumerConnections(ctx, addr, group)
	tagFilter := false
	switch {
	case connErr == nil:
		st.Online = len(conn.Connections) > 0
		if sub, ok := conn.Subscriptions[m.Topic]; ok {
			st.Subscription = sub.SubString
			tagFilter = sub.ExpressionType == "" || strings.EqualFold(sub.ExpressionType, "TAG")
		}
	case errors.Is(connErr, rocketmq.ErrConsumerNotOnline):
	default:
		st.State, st.Reason = Unknown, "Its connections could not be read: "+connErr.Error()
		return st, connErr
	}
	if connErr == nil && conn.MessageModel == "BROADCASTING" {
		st.State, st.Reason = Unknown, "It consumes in broadcasting mode: every client keeps its own offsets, and the broker holds none."
		return st, nil
	}
	off, err := s.admin.QueryConsumerOffset(ctx, addr, group, mq)
	switch {
	case errors.Is(err, rocketmq.ErrNoConsumerOffset):
		off = -1
	case err != nil:
		st.State, st.Reason = Unknown, "Its offset could not be read: "+err.Error()
		return st, err
	}
	st.ConsumerOffset = off
	past := off > m.QueueOffset
	switch {
	case !st.Online && past:
		st.State, st.Reason = Offline, fmt.Sprintf("No client is connected. Its stored offset %d is past this message (offset %d), so it was consumed before the group went offline.", off, m.QueueOffset)
	case !st.Online && off < 0:
		st.State, st.Reason = Offline, "No client is connected, and the group has no offset stored for this queue: it has not consumed this message."
	case !st.Online:
		st.State, st.Reason = Offline, fmt.Sprintf("No client is connected. Its stored offset %d has not reached this message (offset %d): it will consume it when it comes back.", off, m.QueueOffset)
	case past && tagFilter && excludedBy(st.Subscription, m.Tags()):
		st.State, st.Reason = Filtered, fmt.Sprintf("The group's offset is past the message, but its subscription %q does not take tag %q, so no client received it.", st.Subscription, m.Tags())
	case past:
		st.State = Consumed
	default:
		st.State = NotConsumed
	}
	return st, nil
}

// excludedBy reports whether a tag subscription ("TagA || TagB") leaves the tag out. An
// empty or "*" subscription takes everything.
func excludedBy(sub, tag string) bool {
	sub = strings.TrimSpace(sub)
	if sub == "" || sub == "*" {
		return false
	}
	for t := range strings.SplitSeq(sub, "||") {
		if strings.TrimSpace(t) == tag {
			return false
		}
	}
	return true
}
