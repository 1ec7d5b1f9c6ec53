// Package auditstream sends the audit log out as it is written: to a RocketMQ topic and
// to a webhook, at least once, each record carrying its place in the hash chain so the
// receiver can check that nothing is missing or changed. Each destination has a cursor
// in the console's database (the chain position of the last record it took): a restart,
// or another console taking the lead, resumes after it. A destination that fails is
// retried with a growing delay, never skipped.
package auditstream

import (
	"context"
	"encoding/json"
	"log/slog"
	"sync"
	"time"

	"rmqconsole/clock"
	"rmqconsole/store"
)

// Record is one audit entry as the streams send it. Seq, Hash and PrevHash are its
// place in the chain: Seq follows the previous record's Seq by one and PrevHash is its
// Hash (the first entry's PrevHash is 64 zeros).
type Record struct {
	Seq         int64           `json:"seq"`
	ID          int64           `json:"id"`
	Hash        string          `json:"hash"`
	PrevHash    string          `json:"prevHash"`
	StartedAt   time.Time       `json:"startedAt"`
	FinishedAt  time.Time       `json:"finishedAt"`
	Actor       string          `json:"actor"`
	ActorAddr   string          `json:"actorAddr"`
	Cluster     string          `json:"cluster,omitempty"`
	ClusterName string          `json:"clusterName,omitempty"`
	Group       string          `json:"group,omitempty"`
	Topics      []string        `json:"topics"`
	Mode        string          `json:"mode"`
	Params      json.RawMessage `json:"params,omitempty"`
	Reason      string          `json:"reason,omitempty"`
	Status      string          `json:"status"`
	// Error is in English, as a log shipper reads it.
	Error  string             `json:"error,omitempty"`
	Result []store.AuditQueue `json:"result,omitempty"`
}

// RecordOf is e as the streams send it.
func RecordOf(e store.AuditEntry) Record {
	r := Record{Seq: e.Seq, ID: e.ID, Hash: e.Hash, PrevHash: e.PrevHash, StartedAt: e.StartedAt.UTC(), FinishedAt: e.FinishedAt.UTC(),
		Actor: e.Actor, ActorAddr: e.ActorAddr, Cluster: e.Cluster, ClusterName: e.ClusterName, Group: e.Group,
		Topics: e.Topics, Mode: e.Mode, Reason: e.Reason, Status: string(e.Status), Error: e.Error.String(), Result: e.Result}
	if r.Topics == nil {
		r.Topics = []string{}
	}
	if json.Valid(e.Params) {
		r.Params = e.Params
	}
	return r
}

// Sink is one destination of the stream.
type Sink interface {
	// Name names the sink's cursor in the database; it must not change between runs.
	Name() string
	// Deliver sends records, in chain order. An error means they may not have been
	// taken: they are sent again.
	Deliver(ctx context.Context, recs []Record) error
}

// Chain is what the stream reads of the audit log (*store.AuditLog).
type Chain interface {
	Sealed(ctx context.Context, seq int64, limit int) ([]store.AuditEntry, error)
}

// Cursors keep where each sink has got to (*store.Store).
type Cursors interface {
	StreamCursor(ctx context.Context, name string) (int64, error)
	SaveStreamCursor(ctx context.Context, name string, seq int64) error
}

// Options configure a Streamer.
type Options struct {
	Chain   Chain
	Cursors Cursors
	Sinks   []Sink
	// Poll is how often the chain is read for new entries (default DefaultPoll).
	Poll time.Duration
	// Retry is the first wait after a failure; it doubles each time, up to MaxRetry.
	Retry time.Duration
	// Batch bounds the records delivered at once (default DefaultBatch).
	Batch int
	Log   *slog.Logger
}

// Defaults of Options.
const (
	DefaultPoll  = time.Second
	DefaultRetry = time.Second
	DefaultBatch = 100
	// MaxRetry bounds the wait between two attempts of a failing sink.
	MaxRetry = time.Minute
)

// Streamer delivers the chain to its sinks, each at its own pace: a webhook that is down
// does not hold the topic back.
type Streamer struct {
	opt Options

	mu     sync.Mutex
	status map[string]*Status
}

// Status is where one sink stands, for /metrics.
type Status struct {
	// Delivered is the chain position of the last record the sink took.
	Delivered int64
	// Failures counts failed attempts (deliveries, and reads or writes of the database).
	Failures int64
	// LastError is the last failure's words, "" once a delivery succeeds again.
	LastError string
}

// New returns a Streamer; Run starts it.
func New(opt Options) *Streamer {
	if opt.Poll <= 0 {
		opt.Poll = DefaultPoll
	}
	if opt.Retry <= 0 {
		opt.Retry = DefaultRetry
	}
	if opt.Batch <= 0 {
		opt.Batch = DefaultBatch
	}
	if opt.Log == nil {
		opt.Log = slog.New(slog.DiscardHandler)
	}
	s := &Streamer{opt: opt, status: map[string]*Status{}}
	for _, k := range opt.Sinks {
		s.status[k.Name()] = &Status{}
	}
	return s
}

// Statuses returns each sink's status by name.
func (s *Streamer) Statuses() map[string]Status {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make(map[string]Status, len(s.status))
	for k, v := range s.status {
		out[k] = *v
	}
	return out
}

func (s *Streamer) note(name string, f func(*Status)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	f(s.status[name])
}

// Run delivers until ctx ends: on the console that holds the leader lease only.
func (s *Streamer) Run(ctx context.Context) {
	var wg sync.WaitGroup
	for _, k := range s.opt.Sinks {
		wg.Go(func() { s.run(ctx, k) })
	}
	wg.Wait()
}

// run is one sink's loop: resume from its cursor, then read, deliver, advance.
func (s *Streamer) run(ctx context.Context, k Sink) {
	log := s.opt.Log.With("stream", k.Name())
	wait := s.opt.Retry
	fail := func(what string, err error) bool {
		log.Warn(what, "err", err, "retry_in", wait)
		s.note(k.Name(), func(st *Status) { st.Failures++; st.LastError = err.Error() })
		ok := clock.Sleep(ctx, wait)
		wait = min(2*wait, MaxRetry)
		return ok
	}
	var cursor int64
	for {
		var err error
		if cursor, err = s.opt.Cursors.StreamCursor(ctx, k.Name()); err == nil {
			break
		}
		if !fail("read the audit stream's cursor", err) {
			return
		}
	}
	s.note(k.Name(), func(st *Status) { st.Delivered = cursor })
	for ctx.Err() == nil {
		recs, err := s.opt.Chain.Sealed(ctx, cursor, s.opt.Batch)
		if err != nil {
			if !fail("read the audit log to stream it", err) {
				return
			}
			continue
		}
		if len(recs) == 0 {
			if !clock.Sleep(ctx, s.opt.Poll) {
				return
			}
			continue
		}
		out := make([]Record, len(recs))
		for i, e := range recs {
			out[i] = RecordOf(e)
		}
		if err := k.Deliver(ctx, out); err != nil {
			if ctx.Err() != nil || !fail("deliver audit records", err) {
				return
			}
			continue
		}
		wait = s.opt.Retry
		cursor = out[len(out)-1].Seq
		s.note(k.Name(), func(st *Status) { st.Delivered = cursor; st.LastError = "" })
		// Delivered: a cursor not saved only means these records are sent again after a
		// restart, which at-least-once allows.
		if err := s.opt.Cursors.SaveStreamCursor(context.WithoutCancel(ctx), k.Name(), cursor); err != nil {
			log.Warn("save the audit stream's cursor", "err", err)
			s.note(k.Name(), func(st *Status) { st.Failures++; st.LastError = err.Error() })
		}
	}
}
