package store

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"
)

// A preview saved by one console is found by another, taken once, and dropped when
// expired.
func TestPreviewsAreTakenOnceAndExpire(t *testing.T) {
	eachDB(t, func(t *testing.T, db testDB) {
		s := db.open(t)
		other := s
		if db.dialect == Postgres {
			other = db.open(t)
		}
		ctx := context.Background()
		now := time.Now()
		if err := s.SavePreview(ctx, "p1", []byte(`{"x":1}`), now, now.Add(-time.Hour)); err != nil {
			t.Fatal(err)
		}
		if b, err := other.PeekPreview(ctx, "p1"); err != nil || string(b) != `{"x":1}` {
			t.Fatalf("peek: %s, %v", b, err)
		}
		var wg sync.WaitGroup
		got := make([]error, 2)
		for i, st := range []*Store{s, other} {
			wg.Add(1)
			go func() {
				defer wg.Done()
				_, got[i] = st.TakePreview(ctx, "p1")
			}()
		}
		wg.Wait()
		if (got[0] == nil) == (got[1] == nil) || !errors.Is(errors.Join(got[0], got[1]), ErrPreviewNotFound) {
			t.Fatalf("two takes of one preview: %v / %v, want exactly one to get it", got[0], got[1])
		}
		if err := s.SavePreview(ctx, "old", []byte(`{}`), now.Add(-time.Hour), now.Add(-2*time.Hour)); err != nil {
			t.Fatal(err)
		}
		if err := s.SavePreview(ctx, "new", []byte(`{}`), now, now.Add(-time.Minute)); err != nil {
			t.Fatal(err)
		}
		if _, err := other.PeekPreview(ctx, "old"); !errors.Is(err, ErrPreviewNotFound) {
			t.Fatalf("an expired preview is still kept: %v", err)
		}
	})
}
