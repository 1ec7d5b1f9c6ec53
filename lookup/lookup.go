// Package lookup finds messages: by topic and store-time range (the newest 2000 across
// every queue), by message key (the brokers' index, at most 64), and by message id (an
// offsetMsgId read straight from the broker that stored it, or a client-made unique key
// found in the index). It also tells, for one message, whether each group subscribed to its
// topic has consumed it.
//
// Every query fans out over the topic's brokers and queues with bounded parallelism. A
// broker that fails or times out does not fail the query: the answer carries what the
// others returned and names the broker and its error.
package lookup

import (
	"cmp"
	"context"
	"errors"
	"slices"
	"strings"
	"sync"
	"time"

	"rmqconsole/cluster"
	"rmqconsole/fault"
	"rmqconsole/filter"
	"rmqconsole/freetext"
	"rmqconsole/i18n"
	"rmqconsole/rocketmq"
)

// The caps of the three queries, as the RocketMQ consoles have always had them.
const (
	// RangeLimit is the most messages a time-range query returns.
	RangeLimit = 2000
	// KeyLimit is the most messages a key query returns (the broker's own cap on one
	// QUERY_MESSAGE answer).
	KeyLimit = rocketmq.MaxKeyQueryNum
)

// Admin is what lookup asks the brokers; *rocketmq.Client implements it, and
// clustertest.Fake in unit tests. Brokers and routes come from the cluster layer.
type Admin interface {
	cluster.Client
	TopicList(ctx context.Context) ([]string, error)
	TopicConfigs(ctx context.Context, addr string) (*rocketmq.TopicConfigTable, error)
	BrokerVersion(ctx context.Context, addr string) (rocketmq.BrokerVersion, error)
	SearchOffset(ctx context.Context, addr string, mq rocketmq.MessageQueue, t time.Time, boundary rocketmq.BoundaryType) (int64, error)
	Pull(ctx context.Context, addr string, mq rocketmq.MessageQueue, offset int64, maxNums int) (*rocketmq.PullResult, error)
	// PullHeld serves the live tail (Follow).
	PullHeld(ctx context.Context, addr string, mq rocketmq.MessageQueue, offset int64, maxNums int, hold time.Duration) (*rocketmq.PullResult, error)
	QueryMessageByKey(ctx context.Context, addr, topic, key string, maxNum int, begin, end time.Time) (*rocketmq.QueryResult, error)
	QueryMessageByUniqueKey(ctx context.Context, addr, topic, uniqKey string, begin, end time.Time) (*rocketmq.QueryResult, error)
	ViewMessageAt(ctx context.Context, addr string, commitLogOffset int64, topic string) (*rocketmq.Message, error)
	TopicConsumerGroups(ctx context.Context, addr, topic string) ([]string, error)
	ConsumerConnections(ctx context.Context, addr, group string) (*rocketmq.ConsumerConnection, error)
	ConsumerOffsets(ctx context.Context, addr string) (map[string]map[string]map[int]int64, error)
	// BrokerConfig tells where a broker's clients send message traces.
	BrokerConfig(ctx context.Context, addr string) (map[string]string, error)
}

var _ Admin = (*rocketmq.Client)(nil)

// Options tune a Service; the zero value is sensible.
type Options struct {
	// Parallelism bounds the broker requests one query has in flight when the service
	// builds its own Cluster (default cluster.DefaultParallelism).
	Parallelism int
	// MaxScan bounds how many messages a range query with a tag filter reads before it
	// gives up looking further back for matches. Default 100 000.
	MaxScan int64
	// Cluster is the console's view of the cluster, shared with the other services;
	// nil builds one over the Admin.
	Cluster *cluster.Cluster
	// ClientLookups bounds how many groups' connection lists a message's page reads
	// (default DefaultClientLookups); the other groups' clients are taken from what the
	// console saw within ClientsMaxAge (default DefaultClientsMaxAge).
	ClientLookups int
	ClientsMaxAge time.Duration
	// GroupsTTL is how long a message's group states are kept for its later pages
	// (default DefaultGroupsTTL; see KeptGroups).
	GroupsTTL time.Duration
	// Direct and Audit let the service have a client consume a message again
	// (ConsumeDirectly), audited in Audit under ClusterName (the NameServer list). Without
	// them ConsumeDirectly answers ErrDirectUnavailable.
	Direct      DirectConsumer
	Audit       ChangeLog
	ClusterName string
	// Tail tunes the live tails' viewers (TailHub).
	Tail TailOptions
	// BeforeScanPull runs before each pull of a deep scan. Only tests set it (see
	// server/testhooks.go, built with -tags rmqc_testhooks), so that a scan of a few
	// messages runs long enough for a person's Stop.
	BeforeScanPull func(ctx context.Context)
}

// Defaults of Options.
const (
	DefaultClientLookups = 32
	DefaultClientsMaxAge = 30 * time.Second
	// DefaultGroupsTTL is long enough for a reader to page through a message's groups,
	// short enough that its page, opened again, reads them afresh.
	DefaultGroupsTTL = 20 * time.Second
)

// Service runs the lookups. It is safe for concurrent use.
type Service struct {
	admin   Admin
	cluster *cluster.Cluster
	maxScan int64

	clientLookups int
	clientsMaxAge time.Duration

	groupsTTL time.Duration
	keptMu    sync.Mutex
	kept      map[groupsKey]keptGroups

	direct      DirectConsumer
	audit       ChangeLog
	clusterName string

	tails          *TailHub
	tailRouteEvery time.Duration

	beforeScanPull func(ctx context.Context)
}

// New returns a Service over a.
func New(a Admin, opts Options) *Service {
	s := &Service{admin: a, cluster: opts.Cluster, maxScan: opts.MaxScan, clientLookups: opts.ClientLookups, clientsMaxAge: opts.ClientsMaxAge,
		direct: opts.Direct, audit: opts.Audit, clusterName: opts.ClusterName, beforeScanPull: opts.BeforeScanPull}
	if s.maxScan <= 0 {
		s.maxScan = 100_000
	}
	if s.clientLookups <= 0 {
		s.clientLookups = DefaultClientLookups
	}
	if s.clientsMaxAge <= 0 {
		s.clientsMaxAge = DefaultClientsMaxAge
	}
	if s.groupsTTL = opts.GroupsTTL; s.groupsTTL <= 0 {
		s.groupsTTL = DefaultGroupsTTL
	}
	s.kept = map[groupsKey]keptGroups{}
	if s.cluster == nil {
		s.cluster = cluster.New(a, cluster.Options{Parallelism: opts.Parallelism})
	}
	s.tails, s.tailRouteEvery = NewTailHub(s.Follow, opts.Tail), opts.Tail.RouteEvery
	return s
}

// Message is one stored message and the broker group that holds it (the stored record
// does not name it).
type Message struct {
	BrokerName string
	*rocketmq.Message
	// Masked says that Message is a copy masked for its reader (package masking).
	Masked bool
}

// BrokerFailure names a broker that did not answer a part of a query, and why.
type BrokerFailure = cluster.BrokerFailure

// SlaveRead names a broker whose part of an answer came from its slave, because its
// master did not answer.
type SlaveRead = cluster.SlaveRead

// Result is the answer to a range or key query.
type Result struct {
	// Messages are newest first (by store time), at most Limit.
	Messages []Message
	// Limit is the cap that applied.
	Limit int
	// Truncated reports that more messages matched than Messages holds.
	Truncated bool
	// Total is how many messages matched: exact, or a lower bound when TotalIsLowerBound.
	Total int64
	// TotalIsLowerBound says Total is "at least": the query stopped once it knew the
	// cap was exceeded (a tag filter), or a broker's index answer was capped (key query).
	TotalIsLowerBound bool
	// InRange is how many messages the time range holds on the brokers that answered,
	// before any tag filter (range query only). It bounds Total from above.
	InRange int64
	// Scanned is how many messages a tag-filtered range query read. When ScanLimited is
	// set it stopped at Options.MaxScan, having read back to store time ScannedBackTo:
	// older matches may exist.
	Scanned       int64
	ScanLimited   bool
	ScannedBackTo time.Time
	// CappedBrokers are brokers whose key-index answer hit the per-broker cap, so the
	// result may miss older matches (key query only).
	CappedBrokers []string
	// Failures are brokers that failed; Messages holds what the others returned.
	Failures []BrokerFailure
	// FromSlaves are brokers whose messages (or offsets) were read, at least partly,
	// from a slave because the master did not answer.
	FromSlaves []SlaveRead
}

// Older is where the next, older page of a truncated range search starts: q, which
// answered r, ending at the store time of the oldest message shown and skipping the
// messages of that millisecond shown already (ends are inclusive, and several messages
// share a millisecond); ok is false when nothing older matched.
func (r *Result) Older(q RangeQuery) (c Cursor, ok bool) {
	if !r.Truncated || len(r.Messages) == 0 {
		return Cursor{}, false
	}
	return r.After(q, len(r.Messages)), true
}

// Cursor is where a range search continues after the rows shown: the same query with
// End at the store time of the last row shown and Skip the rows shown that were stored
// in that millisecond (ends are inclusive, and several messages share a millisecond).
type Cursor struct {
	End  time.Time
	Skip int
}

// After returns where q, which answered r, continues after r's first n messages.
func (r *Result) After(q RangeQuery, n int) Cursor {
	last := r.Messages[n-1].StoreTimestamp
	skip := 0
	for i := n - 1; i >= 0 && r.Messages[i].StoreTimestamp == last; i-- {
		skip++
	}
	if last == q.End.UnixMilli() {
		skip += q.Skip // q itself skipped rows of that millisecond
	}
	return Cursor{End: time.UnixMilli(last).UTC(), Skip: skip}
}

// route reads the topic's route for op through fo (cluster.Fanout.Route: a broker
// missing from it now is recorded as failing op). A topic the NameServer does not know
// is an Invalid fault on the topic field (reason unknownTopic).
func (s *Service) route(fo *cluster.Fanout, topic, op string) (*cluster.Route, error) {
	r, err := fo.Route(topic, op)
	if errors.Is(err, rocketmq.ErrTopicNotFound) {
		return nil, invalid("topic", unknownTopic, "lookup.topic.unknown", "Topic", quote(topic))
	}
	return r, err
}

// unknownTopic is the API code of a topic the NameServer does not know.
const unknownTopic = "unknown_topic"

// maxTextLen bounds what a user may type into a topic, key or tag field; RocketMQ's own
// limits are lower (topic 127, key index entries much less).
const maxTextLen = 255

// invalid is input that cannot be queried as asked: an Invalid fault on field, whose
// API code is reason ("missing_topic", "bad_range", ...). Nothing was sent to a broker.
func invalid(field, reason, id string, kv ...any) *fault.Error {
	return fault.InvalidField(field, id, kv...).Because(reason)
}

// CheckTopic checks a topic name as the queries do, without asking anyone, so a form
// can report every wrong field at once.
func CheckTopic(t string) error { return checkTopic(strings.TrimSpace(t)) }

func checkTopic(t string) error {
	if t == "" {
		return invalid("topic", "missing_topic", "lookup.topic.missing")
	}
	return checkName("topic", "topic", t)
}

// checkName refuses, on field, a name RocketMQ would refuse (cluster.CheckName; kind
// names it in the sentence).
func checkName(field, kind, name string) error {
	if err := cluster.CheckName(kind, name); err != nil {
		return &fault.Error{Code: fault.Invalid, Reason: "bad_" + field, Field: field, Msg: nameRefusal(err), Err: err}
	}
	return nil
}

// nameRefusal is the cluster layer's sentence for a name it refused.
func nameRefusal(err error) i18n.Message {
	if fe := fault.As(err); fe != nil {
		return fe.Msg
	}
	return i18n.Plain(err.Error())
}

// checkText applies the free-text rule to what a query sends a broker.
func checkText(f freetext.Field, s string) error {
	if te := fault.As(f.Check(s)); te != nil {
		return &fault.Error{Code: fault.Invalid, Reason: "bad_" + f.Name, Field: f.Name, Msg: te.Msg, Err: te}
	}
	return nil
}

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
	route, err := s.route(fails, q.Topic, opKey)
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

// newestFirst orders messages by store time, newest first; ties keep a stable order by
// broker, queue and offset so a repeated query shows the same list.
func newestFirst(a, b Message) int {
	if c := cmp.Compare(b.StoreTimestamp, a.StoreTimestamp); c != 0 {
		return c
	}
	if c := cmp.Compare(a.BrokerName, b.BrokerName); c != 0 {
		return c
	}
	if c := cmp.Compare(a.QueueID, b.QueueID); c != 0 {
		return c
	}
	return cmp.Compare(b.QueueOffset, a.QueueOffset)
}
