package previews

import (
	"context"
	"errors"
	"testing"
	"time"

	"rmqconsole/fault"
	"rmqconsole/store"
)

type plan struct {
	Group string `json:"group"`
	N     int    `json:"n"`
}

// memStore is the database's contract: take removes, an unknown id is ErrPreviewNotFound.
type memStore map[string][]byte

func (m memStore) SavePreview(_ context.Context, id string, plan []byte, _, _ time.Time) error {
	m[id] = plan
	return nil
}

func (m memStore) TakePreview(_ context.Context, id string) ([]byte, error) {
	b, ok := m[id]
	if !ok {
		return nil, store.ErrPreviewNotFound
	}
	delete(m, id)
	return b, nil
}

// A preview is applied at most once, only as its own kind, and not once it expired; each
// refusal says to preview again, in one code a handler answers 409 with.
func TestAPreviewIsTakenOnceByItsKindBeforeItExpires(t *testing.T) {
	for name, db := range map[string]Store{"in this process": nil, "in the database": memStore{}} {
		t.Run(name, func(t *testing.T) {
			now := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
			k := New(db, time.Minute, func() time.Time { return now })
			ctx := context.Background()
			id := NewID("group-config")
			if err := k.Put(ctx, id, now, plan{Group: "g", N: 3}); err != nil || !k.ExpiresAt(now).Equal(now.Add(time.Minute)) {
				t.Fatalf("put: %v, expires %v", err, k.ExpiresAt(now))
			}
			var other plan
			if err := k.Take(ctx, "broker-config", id, &other); !fault.Is(err, fault.Conflict) {
				t.Fatalf("taken as another kind: %v", err)
			}
			var got plan
			if err := k.Take(ctx, "group-config", id, &got); err != nil || got != (plan{"g", 3}) {
				t.Fatalf("take: %v %+v", err, got)
			}
			if err := k.Take(ctx, "group-config", id, &got); fault.As(err) == nil || fault.As(err).Reason != "preview_unknown" {
				t.Fatalf("second take: %v", err)
			}
			id = NewID("group-config")
			_ = k.Put(ctx, id, now, plan{Group: "g"})
			now = now.Add(61 * time.Second)
			err := k.Take(ctx, "group-config", id, &got)
			if fe := fault.As(err); fe == nil || fe.Reason != "preview_expired" {
				t.Fatalf("expired take: %v", err)
			}
		})
	}
}

type failingStore struct{}

func (failingStore) SavePreview(context.Context, string, []byte, time.Time, time.Time) error {
	return errors.New("disk full")
}
func (failingStore) TakePreview(context.Context, string) ([]byte, error) {
	return nil, errors.New("disk gone")
}

// A database that cannot keep or give back a preview is named as unavailable, never as a
// preview that does not exist.
func TestADatabaseThatFailsIsUnavailable(t *testing.T) {
	k := New(failingStore{}, 0, nil)
	if err := k.Put(context.Background(), NewID("acl"), time.Now(), plan{}); !fault.Is(err, fault.Unavailable) {
		t.Fatalf("put: %v", err)
	}
	var p plan
	if err := k.Take(context.Background(), "acl", "acl-00", &p); !fault.Is(err, fault.Unavailable) {
		t.Fatalf("take: %v", err)
	}
}
