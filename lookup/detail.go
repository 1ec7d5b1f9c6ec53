package lookup

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"rmqconsole/cluster"
	"rmqconsole/i18n"
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
	// Popped: a group consuming with POP has its offset past the message. That only
	// says the message was popped (handed to a client): POP moves the offset at pop
	// time, and a message not acknowledged in time is revived and delivered again.
	Popped ConsumeState = "popped"
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
	// Subscribed says the group's online clients subscribe to the message's topic.
	Subscribed bool
	// Clients are the group's clients connected to the message's broker, when they were
	// listed (nil when not checked): those a message can be consumed again on
	// (ConsumeDirectly).
	Clients []rocketmq.Connection
	// MessageModel is CLUSTERING or BROADCASTING, when the clients were listed.
	MessageModel string
	// Reason explains Popped, Offline, Filtered and Unknown (and a state read without
	// listing the group's clients), for a page to say in its reader's language.
	Reason i18n.Text
	// note follows the reason: set before it (see because).
	note i18n.Message
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
// on the message's queue against the message's queue offset, and whether it is online.
// The offsets of every group come from one request to the message's broker, its offset
// table (GET_ALL_CONSUMER_OFFSET), so the page costs the same whether ten groups consume
// the topic or a thousand (GET_BROKER_CONSUME_STATS would answer them too, but brokers take
// seconds to build it for thousands of groups). Clients are listed now
// (GET_CONSUMER_CONNECTION_LIST) when the topic has at most ClientLookups groups; with
// more, each group's clients are taken from what the console saw within ClientsMaxAge, at
// most ClientLookups others are listed, and the rest say their clients were not checked.
//
// These are reads a slave answers too (it holds the consumer offsets its master
// synchronises to it, and clients connect to it), so a master that does not answer is
// read from its slave. Brokers that fail to list their groups are returned as failures; a
// group whose state cannot be read is Unknown with the reason. Brokers named in failed
// (those that did not answer the lookup that found m) are not asked again: the page waits
// for a frozen broker once, not once per question.
//
// The answer is kept for GroupsTTL, for the pages after the first (KeptGroups).
func (s *Service) Groups(ctx context.Context, m Message, failed ...BrokerFailure) (*GroupStates, error) {
	gs, err := s.readGroups(ctx, m, failed)
	if err == nil {
		s.keepGroups(m, gs)
	}
	return gs, err
}

func (s *Service) readGroups(ctx context.Context, m Message, failed []BrokerFailure) (*GroupStates, error) {
	fails := s.cluster.Fanout(ctx)
	route, err := s.route(fails, m.Topic, opGroups)
	if err != nil {
		return nil, err
	}
	ask := slices.DeleteFunc(slices.Clone(route.Brokers), func(b cluster.Broker) bool {
		return slices.ContainsFunc(failed, func(f BrokerFailure) bool { return f.Broker == b.Name })
	})
	b, haveBroker := route.Broker(m.BrokerName)
	haveBroker = haveBroker && len(b.Addrs()) > 0
	silent := haveBroker && !slices.ContainsFunc(ask, func(a cluster.Broker) bool { return a.Name == b.Name })
	lists := cluster.EachRead(fails, ask, opGroups, func(ctx context.Context, addr string) ([]string, error) {
		return s.admin.TopicConsumerGroups(ctx, addr, m.Topic)
	})
	var offsets map[string]map[string]map[int]int64
	var offsetsErr error = errNotRead
	if haveBroker && !silent {
		// Asked at once with the group lists; a failure is each group's Reason.
		fails.Read(b, "group state", func(ctx context.Context, addr string) error {
			offsets, offsetsErr = s.admin.ConsumerOffsets(ctx, addr)
			if cluster.Unanswered(offsetsErr) {
				return offsetsErr
			}
			return nil
		})
	}
	var names []string
	for _, l := range lists {
		names = append(names, l...)
	}
	slices.Sort(names)
	names = slices.Compact(names)

	out := &GroupStates{States: make([]GroupState, len(names))}
	noteFailures := func() {
		for _, f := range fails.Wait() {
			if f.Op == "group state" {
				continue // said in each group's Reason
			}
			if !slices.ContainsFunc(out.Failures, func(g BrokerFailure) bool { return g.Broker == f.Broker && g.Op == f.Op }) {
				out.Failures = append(out.Failures, f)
			}
		}
	}
	noteFailures()
	mq := rocketmq.MessageQueue{Topic: m.Topic, BrokerName: m.BrokerName, QueueID: m.QueueID}
	if !haveBroker || silent {
		reason := i18n.M("lookup.group.noroute", "Broker", m.BrokerName)
		if silent {
			reason = i18n.M("lookup.group.silent", "Broker", m.BrokerName)
		}
		for i, name := range names {
			out.States[i] = GroupState{Group: name, ConsumerOffset: -1, State: Unknown}
			out.States[i].because(reason)
		}
		out.FromSlaves = fails.FromSlaves()
		return out, nil
	}
	clients := s.clientsOf(fails, b, names)
	for i, name := range names {
		out.States[i] = groupState(name, clients[i], offsets, offsetsErr, mq, m, len(names), s.clientLookups)
	}
	noteFailures()
	out.FromSlaves = fails.FromSlaves()
	return out, nil
}

var errNotRead = errors.New("not read")

// seenClients is what is known of a group's clients for its state.
type seenClients struct {
	seen *cluster.SeenConsumers // nil: not listed recently enough, nor now
	err  error                  // listing them now failed
}

// clientsOf returns each group's clients, listed now on b when there are at most
// clientLookups groups; with more, those seen within clientsMaxAge as seen, and at most
// clientLookups others (in name order) listed now. Answers are noted in the cluster.
func (s *Service) clientsOf(fo *cluster.Fanout, b cluster.Broker, names []string) []seenClients {
	out := make([]seenClients, len(names))
	now := time.Now()
	budget := s.clientLookups
	useSeen := len(names) > budget
	for i, name := range names {
		if seen, ok := s.cluster.Consumers(name); useSeen && ok && now.Sub(seen.At) < s.clientsMaxAge {
			out[i].seen = &seen
			continue
		}
		if budget == 0 {
			continue
		}
		budget--
		fo.Read(b, "group state", func(ctx context.Context, addr string) error {
			conn, err := s.admin.ConsumerConnections(ctx, addr, name)
			switch {
			case errors.Is(err, rocketmq.ErrConsumerNotOnline):
				conn = nil
				// A cluster-mode Proxy keeps its gRPC clients from the brokers.
				if seen, ok := s.cluster.SeenThroughProxies(ctx, s.admin, name, time.Now()); ok {
					out[i] = seenClients{seen: &seen}
					return nil
				}
			case err != nil:
				out[i].err = err
				if cluster.Unanswered(err) {
					return err
				}
				return nil
			}
			seen := cluster.SeenConsumers{Conns: conn, At: time.Now()}
			s.cluster.NoteConsumers(name, conn, seen.At)
			out[i] = seenClients{seen: &seen}
			return nil
		})
	}
	fo.Wait()
	return out
}

func groupState(group string, cl seenClients, offsets map[string]map[string]map[int]int64, offsetsErr error, mq rocketmq.MessageQueue, m Message, groups, lookups int) GroupState {
	st := GroupState{Group: group, ConsumerOffset: -1}
	if cl.err != nil {
		st.State = Unknown
		st.because(i18n.M("lookup.group.conns", "Error", cluster.ErrorMessage(cl.err)))
		return st
	}
	tagFilter := false
	if cl.seen != nil && cl.seen.Conns != nil {
		conn := cl.seen.Conns
		st.Online = len(conn.Connections) > 0
		st.Clients, st.MessageModel = conn.Connections, conn.MessageModel
		if sub, ok := conn.Subscriptions[m.Topic]; ok {
			st.Subscription, st.Subscribed = sub.SubString, true
			tagFilter = sub.ExpressionType == "" || strings.EqualFold(sub.ExpressionType, "TAG")
		}
		if conn.MessageModel == "BROADCASTING" {
			st.State = Unknown
			st.because(i18n.M("lookup.group.broadcasting"))
			return st
		}
	}
	if offsetsErr != nil {
		st.State = Unknown
		st.because(i18n.M("lookup.group.offset", "Error", cluster.ErrorMessage(offsetsErr)))
		return st
	}
	off, ok := offsets[group][mq.Topic][mq.QueueID]
	if !ok {
		off = -1
	}
	st.ConsumerOffset = off
	past := off > m.QueueOffset
	if cl.seen == nil {
		st.note = i18n.M("lookup.group.unchecked", "Groups", groups, "Lookups", lookups)
		switch {
		case past:
			st.State = Consumed
			st.because(i18n.M("lookup.group.past", "Offset", off, "MessageOffset", m.QueueOffset))
		default:
			st.State = NotConsumed
			st.because(i18n.M("lookup.group.notreached"))
		}
		return st
	}
	switch {
	case !st.Online && past:
		st.State = Offline
		st.because(i18n.M("lookup.group.offline.past", "Offset", off, "MessageOffset", m.QueueOffset))
	case !st.Online && off < 0:
		st.State = Offline
		st.because(i18n.M("lookup.group.offline.none"))
	case !st.Online:
		st.State = Offline
		st.because(i18n.M("lookup.group.offline.behind", "Offset", off, "MessageOffset", m.QueueOffset))
	case past && tagFilter && excludedBy(st.Subscription, m.Tags()):
		st.State = Filtered
		st.because(i18n.M("lookup.group.filtered", "Subscription", fmt.Sprintf("%q", st.Subscription), "Tag", fmt.Sprintf("%q", m.Tags())))
	case past && cl.seen.ConsumesByPop():
		st.State = Popped
		st.because(i18n.M("lookup.group.popped", "Offset", off))
	case past:
		st.State = Consumed
	default:
		st.State = NotConsumed
	}
	return st
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

// because sets the state's reason, followed by its note when one was set first.
func (st *GroupState) because(m i18n.Message) {
	st.Reason = i18n.TextOf(m)
	if st.note.ID != "" {
		st.Reason = st.Reason.And(st.note)
	}
}
