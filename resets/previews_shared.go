package resets

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"sync"
	"time"

	"rmqconsole/i18n"
	"rmqconsole/store"
)

// preview is what a previewKeeper holds: the plan of one group (*Plan) or of several
// (*SeveralPlan), with the id it is applied by and when it was made.
type preview interface {
	previewed() (id string, at time.Time)
}

// fresh reports whether p can still be applied at now: it is no older than ttl.
func fresh[T preview](p T, now time.Time, ttl time.Duration) bool {
	_, at := p.previewed()
	return now.Sub(at) <= ttl
}

// previewKeeper holds previews until they are applied (at most once) or expire: in this
// process (previewCache), or in the database the consoles share (sharedPreviews), so a
// browser may preview on one console and apply on another.
type previewKeeper[T preview] interface {
	put(p T)
	// take removes and returns a preview (ok false when there is none); expired reports
	// one older than the TTL. An error means the previews could not be read
	// (store.ErrUnavailable).
	take(id string, now time.Time) (p T, ok, expired bool, err error)
	// peek returns a preview that can still be applied, without using it up.
	peek(id string, now time.Time) (T, bool)
}

// previewCache keeps previews in this process, the newest limit of them.
type previewCache[T preview] struct {
	mu    sync.Mutex
	ttl   time.Duration
	limit int
	m     map[string]T
	order []string
}

func newPreviewCache[T preview](ttl time.Duration, limit int) *previewCache[T] {
	return &previewCache[T]{ttl: ttl, limit: limit, m: map[string]T{}}
}

func (c *previewCache[T]) put(p T) {
	id, _ := p.previewed()
	c.mu.Lock()
	defer c.mu.Unlock()
	c.m[id] = p
	c.order = append(c.order, id)
	for len(c.order) > c.limit {
		delete(c.m, c.order[0])
		c.order = c.order[1:]
	}
}

func (c *previewCache[T]) take(id string, now time.Time) (T, bool, bool, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	p, ok := c.m[id]
	if !ok {
		return p, false, false, nil
	}
	delete(c.m, id)
	c.order = slices.DeleteFunc(c.order, func(o string) bool { return o == id })
	return p, true, !fresh(p, now, c.ttl), nil
}

func (c *previewCache[T]) peek(id string, now time.Time) (T, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	p, ok := c.m[id]
	return p, ok && fresh(p, now, c.ttl)
}

// PreviewStore keeps previews in a database every console sharing it reads;
// *store.Store implements it.
type PreviewStore interface {
	SavePreview(ctx context.Context, id string, plan []byte, at, expired time.Time) error
	TakePreview(ctx context.Context, id string) ([]byte, error)
	PeekPreview(ctx context.Context, id string) ([]byte, error)
}

// previewWait bounds one database round of the shared previews: they are small.
const previewWait = 5 * time.Second

// sharedPreviews keeps previews in a PreviewStore, under kind followed by their id so
// that a preview of one kind is never read as the other. A preview that cannot be saved
// or read is logged and answered as unknown: applying it is refused with a fresh
// preview, as after a restart; but a database that is unavailable is said as such when
// a preview is taken to be applied (nothing is changed, and previewing again would not
// help).
type sharedPreviews[T preview] struct {
	db     PreviewStore
	ttl    time.Duration
	log    *slog.Logger
	kind   string
	encode func(T) ([]byte, error)
	decode func([]byte) (T, error)
}

func (c *sharedPreviews[T]) put(p T) {
	id, at := p.previewed()
	b, err := c.encode(p)
	if err == nil {
		ctx, cancel := context.WithTimeout(context.Background(), previewWait)
		err = c.db.SavePreview(ctx, c.kind+id, b, at, at.Add(-c.ttl))
		cancel()
	}
	if err != nil {
		c.log.Error("keep reset preview", "plan", c.kind+id, "err", err)
	}
}

func (c *sharedPreviews[T]) take(id string, now time.Time) (T, bool, bool, error) {
	p, ok, err := c.read(c.db.TakePreview, id)
	if !ok {
		return p, false, false, err
	}
	return p, true, !fresh(p, now, c.ttl), nil
}

func (c *sharedPreviews[T]) peek(id string, now time.Time) (T, bool) {
	p, ok, _ := c.read(c.db.PeekPreview, id)
	return p, ok && fresh(p, now, c.ttl)
}

// read returns the preview id, ok false when there is none (or it cannot be decoded),
// and the store's error when the database is unavailable.
func (c *sharedPreviews[T]) read(get func(context.Context, string) ([]byte, error), id string) (p T, ok bool, err error) {
	if !isPlanID(id) {
		return p, false, nil // no preview has such an id: not worth a round trip
	}
	ctx, cancel := context.WithTimeout(context.Background(), previewWait)
	defer cancel()
	b, err := get(ctx, c.kind+id)
	if err == nil {
		if p, err = c.decode(b); err == nil {
			return p, true, nil
		}
	}
	if errors.Is(err, store.ErrUnavailable) {
		c.log.Error("read reset preview", "plan", c.kind+id, "err", err)
		return p, false, err
	}
	if !errors.Is(err, store.ErrPreviewNotFound) {
		c.log.Error("read reset preview", "plan", c.kind+id, "err", err)
	}
	return p, false, nil
}

// isPlanID reports whether id has the shape of the ids previews get (newID).
func isPlanID(id string) bool {
	if len(id) != 32 {
		return false
	}
	for _, r := range id {
		if !('0' <= r && r <= '9' || 'a' <= r && r <= 'f') {
			return false
		}
	}
	return true
}

// planJSON is a Plan as kept in the database. Errors are kept as their messages, which
// is all a preview shows of them; broker failures are kept whole here, since their own
// JSON is the API's shorter form. The warnings and the queues' notes are kept as
// i18n.Encode writes them, to be said in the language of whoever reads them.
type planJSON struct {
	Plan
	BrokerFailures []failureJSON
	RefusedErrors  []string
	Warnings       string
	QueueNotes     []string
}

type failureJSON struct {
	Broker, Addr, Topic, Op, Err string
	Elapsed                      time.Duration
}

func encodePlan(p *Plan) ([]byte, error) {
	w := planJSON{Plan: *p}
	w.Failures = nil
	for _, f := range p.Failures {
		w.BrokerFailures = append(w.BrokerFailures, failureJSON{f.Broker, f.Addr, f.Topic, f.Op, errText(f.Err), f.Elapsed})
	}
	w.Refused = append([]RefusedBroker(nil), p.Refused...)
	for i := range w.Refused {
		w.RefusedErrors = append(w.RefusedErrors, errText(w.Refused[i].Err))
		w.Refused[i].Err = nil
	}
	var err error
	if w.Warnings, err = i18n.Encode(i18n.TextOf(p.Warnings...)); err != nil {
		return nil, fmt.Errorf("keep the warnings: %w", err)
	}
	for _, q := range p.Queues {
		note, err := i18n.Encode(q.Note)
		if err != nil {
			return nil, fmt.Errorf("keep the note of queue %s/%d: %w", q.Queue.BrokerName, q.Queue.QueueID, err)
		}
		w.QueueNotes = append(w.QueueNotes, note)
	}
	return json.Marshal(w)
}

func decodePlan(b []byte) (*Plan, error) {
	var w planJSON
	if err := json.Unmarshal(b, &w); err != nil {
		return nil, err
	}
	p := w.Plan
	for _, f := range w.BrokerFailures {
		p.Failures = append(p.Failures, BrokerFailure{Broker: f.Broker, Addr: f.Addr, Topic: f.Topic, Op: f.Op, Err: errOf(f.Err), Elapsed: f.Elapsed})
	}
	for i, msg := range w.RefusedErrors {
		if i < len(p.Refused) {
			p.Refused[i].Err = errOf(msg)
		}
	}
	for i, note := range w.QueueNotes {
		if i < len(p.Queues) && note != "[]" {
			p.Queues[i].Note = i18n.Decode(note)
		}
	}
	if w.Warnings != "[]" {
		p.Warnings = i18n.Decode(w.Warnings) // one message a warning
	}
	return &p, nil
}

func errOf(msg string) error {
	if msg == "" {
		return nil
	}
	return errors.New(msg)
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}
