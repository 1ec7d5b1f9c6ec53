package lookup

import (
	"context"
	"slices"
	"strings"
	"time"

	"rmqconsole/cluster"
	"rmqconsole/filter"
	"rmqconsole/freetext"
	"rmqconsole/rocketmq"
)

// KeyQuery asks the brokers' key index for a topic's messages with a key, optionally
// stored within [Begin, End] (zero times are unbounded).
type KeyQuery struct {
	Topic string
	Key   string
	Begin time.Time
	End   time.Time
	// Filter keeps only the messages it matches; nil keeps all.
	Filter *filter.Filter
}

// Validate checks the query without asking any broker: nil, or an Invalid fault on the
// field at fault.
func (q *KeyQuery) Validate() error {
	q.Topic = strings.TrimSpace(q.Topic)
	q.Key = strings.TrimSpace(q.Key)
	if err := checkTopic(q.Topic); err != nil {
		return err
	}
	if q.Key == "" {
		return invalid("key", "missing_key", "lookup.key.missing")
	}
	if err := checkKey(q.Key); err != nil {
		return err
	}
	if !q.Begin.IsZero() && !q.End.IsZero() && q.Begin.After(q.End) {
		return invalid("begin", "bad_range", "lookup.range.reversed.key",
			"Begin", q.Begin.UTC().Format(time.DateTime+" UTC"), "End", q.End.UTC().Format(time.DateTime+" UTC"))
	}
	return nil
}

// checkKey says what is wrong with a key, one rule per sentence.
func checkKey(k string) error {
	if len(k) > maxTextLen {
		return invalid("key", "bad_key", "lookup.key.long", "Max", maxTextLen, "Len", len(k))
	}
	if err := checkText(freetext.MessageKey, k); err != nil {
		return err
	}
	if strings.ContainsAny(k, " \t\r\n") {
		return invalid("key", "bad_key", "lookup.key.spaces")
	}
	return nil
}

// ByKey asks every broker of the topic for the messages indexed under q.Key
// (QUERY_MESSAGE), merges their answers, drops duplicates and returns the newest
// KeyLimit, newest first. A broker answers at most KeyLimit messages itself (its newest
// index entries); when one did, older matches may exist that no broker returned, and the
// result says so.
func (s *Service) ByKey(ctx context.Context, q KeyQuery) (*Result, error) {
	if err := q.Validate(); err != nil {
		return nil, err
	}
	fails := s.cluster.Fanout(ctx)
	route, err := s.route(ctx, q.Topic, opKey, fails)
	if err != nil {
		return nil, err
	}
	brokers := route.Brokers
	// An index entry keeps its store time as whole seconds after the index file's first
	// timestamp, so the broker compares a time up to a second before the real one. It
	// is asked from a second early; the exact range is applied here.
	begin, end := q.Begin, q.End
	if !begin.IsZero() {
		begin = begin.Add(-time.Second)
	}
	answers := cluster.EachRead(fails, brokers, opKey, func(ctx context.Context, addr string) ([]*rocketmq.Message, error) {
		r, err := s.admin.QueryMessageByKey(ctx, addr, q.Topic, q.Key, KeyLimit, begin, end)
		if err != nil {
			return nil, err
		}
		return r.Messages, nil
	})

	res := &Result{Limit: KeyLimit}
	var found []Message
	for i, msgs := range answers {
		if len(msgs) >= KeyLimit {
			res.CappedBrokers = append(res.CappedBrokers, brokers[i].Name)
		}
		for _, m := range msgs {
			if inWindow(m, q) && q.Filter.Match(m) {
				found = append(found, Message{BrokerName: brokers[i].Name, Message: m})
			}
		}
	}
	found = dedupe(found)
	slices.SortFunc(found, newestFirst)
	res.Total = int64(len(found))
	res.TotalIsLowerBound = len(res.CappedBrokers) > 0
	res.Truncated = len(found) > KeyLimit || res.TotalIsLowerBound
	if len(found) > KeyLimit {
		found = found[:KeyLimit]
	}
	res.Messages = found
	res.Failures = fails.Wait()
	res.FromSlaves = fails.FromSlaves()
	return res, nil
}

// inWindow applies the optional time range exactly.
func inWindow(m *rocketmq.Message, q KeyQuery) bool {
	if !q.Begin.IsZero() && m.StoreTimestamp < q.Begin.UnixMilli() {
		return false
	}
	if !q.End.IsZero() && m.StoreTimestamp > q.End.UnixMilli() {
		return false
	}
	return true
}

// dedupe drops repeated answers for one stored message (one position in one queue).
func dedupe(ms []Message) []Message {
	type pos struct {
		broker string
		queue  int
		offset int64
	}
	seen := make(map[pos]bool, len(ms))
	out := ms[:0]
	for _, m := range ms {
		p := pos{m.BrokerName, m.QueueID, m.QueueOffset}
		if seen[p] {
			continue
		}
		seen[p] = true
		out = append(out, m)
	}
	return out
}
