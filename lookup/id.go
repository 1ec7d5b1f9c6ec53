package lookup

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"rmqconsole/cluster"
	"rmqconsole/fault"
	"rmqconsole/freetext"
	"rmqconsole/rocketmq"
)

// IDQuery asks for one message by id: an offsetMsgId, or a unique key in Topic.
type IDQuery struct {
	ID    string
	Topic string // needed for a unique key; optional for an offsetMsgId
}

// Validate checks the query without asking any broker, and says which kind of id it
// holds. The error is nil, or an Invalid fault on the field at fault.
func (q *IDQuery) Validate() (rocketmq.IDKind, error) {
	q.ID = strings.TrimSpace(q.ID)
	q.Topic = strings.TrimSpace(q.Topic)
	if q.ID == "" {
		return rocketmq.IDInvalid, invalid("id", "missing_id", "lookup.id.missing")
	}
	kind := rocketmq.ClassifyID(q.ID)
	if kind == rocketmq.IDUniqueKey && !plausibleUniqueKey(q.ID) {
		kind = rocketmq.IDInvalid
	}
	if kind == rocketmq.IDInvalid {
		return kind, invalid("id", "bad_id", "lookup.id.bad", "ID", freetext.Quote(q.ID))
	}
	if q.Topic != "" {
		if err := checkTopic(q.Topic); err != nil {
			return kind, err
		}
	}
	if _, err := rocketmq.ParseUniqueKey(q.ID); err != nil && kind == rocketmq.IDUniqueKey && q.Topic == "" {
		// An id a client made carries its time, and is looked for in every topic; a
		// producer's own key does not, and the index is read per topic.
		return kind, invalid("topic", "missing_topic", "lookup.id.needtopic", "ID", freetext.Quote(q.ID))
	}
	return kind, nil
}

// plausibleUniqueKey accepts what producers write as UNIQ_KEY: hex from every client, and
// the letters, digits and separators of ids a producer sets itself. Anything else (markup,
// quotes, a pasted sentence) is a mistake worth pointing out before asking the index.
func plausibleUniqueKey(s string) bool {
	for _, r := range s {
		ok := r == '-' || r == '_' || r == '.' || r == ':' || r == '@' ||
			(r >= '0' && r <= '9') || (r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z')
		if !ok {
			return false
		}
	}
	return true
}

// notFound is a NotFound fault for a message no broker holds, said by the catalogue's
// id; its API code is message_not_found.
func notFound(id string, kv ...any) *fault.Error {
	return fault.New(fault.NotFound, id, kv...).Because("message_not_found")
}

// IDResult is the one message an id names.
type IDResult struct {
	Message Message
	// Kind says which kind of id matched: rocketmq.IDOffsetMsgID or rocketmq.IDUniqueKey.
	Kind rocketmq.IDKind
	// Copies are the other stored messages with the same unique key (a producer that
	// sent again after a timeout stores the message twice), oldest first.
	Copies []Message
	// Failures are brokers that did not answer the unique-key lookup; Message was found
	// on another one.
	Failures []BrokerFailure
	// FromSlaves are brokers read from a slave because the master did not answer; the
	// message may have come from one.
	FromSlaves []SlaveRead
	// Searched says how a unique key given without its topic was found; nil when the
	// topic was given.
	Searched *TopicSearch
}

// ByID finds the message an id names. An offsetMsgId is decoded and read from the
// broker it names (VIEW_MESSAGE_BY_ID), after checking that the address is one of the
// cluster's brokers. Anything else is a unique key, looked up in the index of every broker
// of q.Topic; the oldest stored copy is the message and the others are listed. An id
// shaped like an offsetMsgId that no broker holds is tried as a unique key too when a
// topic is given.
func (s *Service) ByID(ctx context.Context, q IDQuery) (*IDResult, error) {
	kind, err := q.Validate()
	if err != nil {
		return nil, err
	}
	info, notClientID := rocketmq.ParseUniqueKey(q.ID)
	if kind == rocketmq.IDOffsetMsgID {
		res, err := s.byOffsetMsgID(ctx, q)
		if err == nil || !fault.Is(err, fault.NotFound) {
			return res, err
		}
		if q.Topic == "" {
			if notClientID != nil {
				return nil, err
			}
			// The same 32 characters may be a client's id: every topic's index decides.
			res, err2 := s.byUniqueKeyAnyTopic(ctx, q, info)
			if fault.Is(err2, fault.NotFound) {
				return nil, notFound("lookup.notfound.anywhere", "NotFound", fault.As(err).Msg, "AnyTopic", fault.As(err2).Msg)
			}
			return res, err2
		}
		// A unique key can look like an offsetMsgId; the topic's index decides.
		res, err2 := s.byUniqueKey(ctx, q)
		if err2 == nil {
			return res, nil
		}
		if fault.Is(err2, fault.NotFound) {
			return nil, notFound("lookup.notfound.either", "NotFound", fault.As(err).Msg, "Topic", quote(q.Topic))
		}
		return nil, err2
	}
	if q.Topic == "" {
		return s.byUniqueKeyAnyTopic(ctx, q, info)
	}
	return s.byUniqueKey(ctx, q)
}

func (s *Service) byOffsetMsgID(ctx context.Context, q IDQuery) (*IDResult, error) {
	id, err := rocketmq.ParseOffsetMsgID(q.ID)
	if err != nil { // Validate classified it, so this does not happen
		return nil, fault.Wrap(err, fault.Invalid, "lookup.id.bad", "ID", freetext.Quote(q.ID)).On("id").Because("bad_id")
	}
	host := id.StoreHost.String()
	b, ok, err := s.cluster.BrokerAt(ctx, host)
	if err != nil {
		return nil, fmt.Errorf("look up offsetMsgId %s: %w", q.ID, err)
	}
	if !ok {
		// Never connect to an address taken from user input unless it is one of the
		// cluster's own brokers.
		all, _ := s.cluster.Brokers(ctx)
		return nil, notFound("lookup.notfound.host", "ID", q.ID, "Host", host, "Brokers", strings.Join(brokerAddrs(all), ", "))
	}
	broker := b.Name
	// The store host is the master's address; a slave holds the same commit log at the
	// same offsets, so it answers when the master does not.
	fo := s.cluster.Fanout(ctx)
	var m *rocketmq.Message
	var readErr error
	fo.Read(b, opOffsetID, func(ctx context.Context, addr string) error {
		m, readErr = s.admin.ViewMessageAt(ctx, addr, id.CommitLogOffset, q.Topic)
		if errors.Is(readErr, rocketmq.ErrMessageNotFound) {
			return nil // an answer: asking a slave would not find it either
		}
		return readErr
	})
	fo.Wait()
	err = readErr
	if errors.Is(err, rocketmq.ErrMessageNotFound) {
		return nil, notFound("lookup.notfound.offset", "Broker", broker, "Host", host, "Offset", id.CommitLogOffset)
	}
	if err != nil {
		return nil, fmt.Errorf("read offsetMsgId %s from broker %s: %w", q.ID, broker, err)
	}
	return &IDResult{Message: Message{BrokerName: broker, Message: m}, Kind: rocketmq.IDOffsetMsgID, FromSlaves: fo.FromSlaves()}, nil
}

func (s *Service) byUniqueKey(ctx context.Context, q IDQuery) (*IDResult, error) {
	fails := s.cluster.Fanout(ctx)
	route, err := s.route(fails, q.Topic, opUniqueKey)
	if err != nil {
		return nil, err
	}
	brokers := route.Brokers
	answers := cluster.EachRead(fails, brokers, opUniqueKey, func(ctx context.Context, addr string) ([]*rocketmq.Message, error) {
		r, err := s.admin.QueryMessageByUniqueKey(ctx, addr, q.Topic, q.ID, time.Time{}, time.Time{})
		if err != nil {
			return nil, err
		}
		return r.Messages, nil
	})
	var found []Message
	for i, msgs := range answers {
		for _, m := range msgs {
			found = append(found, Message{BrokerName: brokers[i].Name, Message: m})
		}
	}
	found = dedupe(found)
	failed := fails.Wait()
	if len(found) == 0 {
		if len(failed) > 0 {
			errs := make([]error, len(failed))
			for i, f := range failed {
				errs[i] = f
			}
			return nil, fmt.Errorf("look up unique key %s in topic %s: no broker that answered holds it, and %d failed: %w",
				q.ID, q.Topic, len(failed), errors.Join(errs...))
		}
		return nil, notFound("lookup.notfound.uniq", "Topic", q.Topic, "ID", q.ID)
	}
	slices.SortFunc(found, func(a, b Message) int {
		if c := cmp.Compare(a.StoreTimestamp, b.StoreTimestamp); c != 0 {
			return c
		}
		return -newestFirst(a, b)
	})
	return &IDResult{Message: found[0], Kind: rocketmq.IDUniqueKey, Copies: found[1:], Failures: failed, FromSlaves: fails.FromSlaves()}, nil
}

func brokerAddrs(bs []cluster.Broker) []string {
	var out []string
	for _, b := range bs {
		for _, a := range b.Addrs() {
			out = append(out, b.Name+" "+a)
		}
	}
	slices.Sort(out)
	return out
}

func quote(s string) string { return fmt.Sprintf("%q", s) }
