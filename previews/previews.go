// Package previews keeps what a change's preview showed until the change is applied
// (once) or the preview expires: in this process, or in the database the consoles share,
// so a browser may preview on one console and apply on another. A preview is kept as
// JSON; what it holds is the caller's (it must hold no secret: a shared database keeps it).
package previews

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	"rmqconsole/fault"
	"rmqconsole/store"
)

// Store keeps previews where every console sharing it finds them; *store.Store
// implements it.
type Store interface {
	SavePreview(ctx context.Context, id string, plan []byte, at, expired time.Time) error
	TakePreview(ctx context.Context, id string) ([]byte, error)
}

var _ Store = (*store.Store)(nil)

// DefaultTTL is how long a preview can be applied.
const DefaultTTL = 15 * time.Minute

// maxKept bounds the previews one process keeps in memory; the oldest goes first.
const maxKept = 500

// Keeper keeps previews. Its zero value is not usable: call New.
type Keeper struct {
	db  Store
	ttl time.Duration
	now func() time.Time

	mu    sync.Mutex
	kept  map[string]kept
	order []string
}

type kept struct {
	at   time.Time
	data []byte
}

// New returns a Keeper over db (nil keeps previews in this process) whose previews can be
// applied for ttl (DefaultTTL when 0). now is the clock (nil: time.Now).
func New(db Store, ttl time.Duration, now func() time.Time) *Keeper {
	if ttl <= 0 {
		ttl = DefaultTTL
	}
	if now == nil {
		now = time.Now
	}
	return &Keeper{db: db, ttl: ttl, now: now, kept: map[string]kept{}}
}

// TTL is how long a preview can be applied.
func (k *Keeper) TTL() time.Duration { return k.ttl }

// NewID is a new preview id of the given kind ("group-config", ...), for the preview to
// hold before it is kept.
func NewID(kind string) string {
	b := make([]byte, 12)
	_, _ = rand.Read(b)
	return kind + "-" + hex.EncodeToString(b)
}

// ExpiresAt is when a preview made at at can no longer be applied.
func (k *Keeper) ExpiresAt(at time.Time) time.Time { return at.Add(k.ttl) }

// Put keeps v (as JSON) under id (from NewID), made at at.
func (k *Keeper) Put(ctx context.Context, id string, at time.Time, v any) error {
	data, err := json.Marshal(envelope{At: at, Preview: v})
	if err != nil {
		return fmt.Errorf("keep preview %s: %w", id, err)
	}
	if k.db != nil {
		if err := k.db.SavePreview(ctx, id, data, at, at.Add(-k.ttl)); err != nil {
			return fault.Wrap(err, fault.Unavailable, "previews.unsaved")
		}
		return nil
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	k.kept[id] = kept{at: at, data: data}
	k.order = append(k.order, id)
	for len(k.order) > maxKept {
		delete(k.kept, k.order[0])
		k.order = k.order[1:]
	}
	return nil
}

// envelope is a kept preview: when it was made, and what it showed.
type envelope struct {
	At      time.Time `json:"at"`
	Preview any       `json:"preview"`
}

// Take removes the preview id of the given kind and decodes it into v. A preview that was
// applied already, expired, never existed or is of another kind is a fault.Conflict saying
// to preview again.
func (k *Keeper) Take(ctx context.Context, kind, id string, v any) error {
	if id == "" || len(id) <= len(kind)+1 || id[:len(kind)+1] != kind+"-" {
		return fault.New(fault.Conflict, "previews.unknown").Because("preview_unknown")
	}
	var data []byte
	if k.db != nil {
		b, err := k.db.TakePreview(ctx, id)
		switch {
		case errors.Is(err, store.ErrPreviewNotFound):
			return fault.New(fault.Conflict, "previews.unknown").Because("preview_unknown")
		case err != nil:
			return fault.Wrap(err, fault.Unavailable, "previews.unread")
		}
		data = b
	} else {
		k.mu.Lock()
		e, ok := k.kept[id]
		delete(k.kept, id)
		k.mu.Unlock()
		if !ok {
			return fault.New(fault.Conflict, "previews.unknown").Because("preview_unknown")
		}
		data = e.data
	}
	e := envelope{Preview: v}
	if err := json.Unmarshal(data, &e); err != nil {
		return fault.Wrap(err, fault.Conflict, "previews.unknown").Because("preview_unknown")
	}
	if age := k.now().Sub(e.At); age > k.ttl {
		return fault.New(fault.Conflict, "previews.expired", "TTL", k.ttl.String()).Because("preview_expired")
	}
	return nil
}
