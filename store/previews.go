package store

import (
	"context"
	"errors"
	"fmt"
	"time"

	"gorm.io/gorm"
)

// ErrPreviewNotFound means no reset preview has that id: it was applied already, it
// expired, or it never existed.
var ErrPreviewNotFound = errors.New("reset preview not found")

// SavePreview keeps a reset preview (its plan as JSON) made at at, and drops those made
// before expired.
func (s *Store) SavePreview(ctx context.Context, id string, plan []byte, at, expired time.Time) error {
	ctx, cancel := s.deadline(ctx)
	defer cancel()
	err := s.DB.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		if err := tx.Exec(`DELETE FROM reset_previews WHERE created_at_ms < ?`, expired.UnixMilli()).Error; err != nil {
			return err
		}
		return tx.Exec(`INSERT INTO reset_previews (id, plan, created_at_ms) VALUES (?, ?, ?)`, s.previewKey(id), string(plan), at.UnixMilli()).Error
	})
	if err != nil {
		return fmt.Errorf("save reset preview %s: %w", id, err)
	}
	return nil
}

// TakePreview returns a preview's plan and removes it, in one statement: of two
// consoles taking the same preview at once, one gets it and the other
// ErrPreviewNotFound.
func (s *Store) TakePreview(ctx context.Context, id string) ([]byte, error) {
	ctx, cancel := s.deadline(ctx)
	defer cancel()
	return s.readPreview(ctx, `DELETE FROM reset_previews WHERE id = ? RETURNING plan`, id)
}

// PeekPreview returns a preview's plan and leaves it in place.
func (s *Store) PeekPreview(ctx context.Context, id string) ([]byte, error) {
	ctx, cancel := s.deadline(ctx)
	defer cancel()
	return s.readPreview(ctx, `SELECT plan FROM reset_previews WHERE id = ?`, id)
}

func (s *Store) readPreview(ctx context.Context, q, id string) ([]byte, error) {
	var plans []string
	if err := s.DB.WithContext(ctx).Raw(q, s.previewKey(id)).Scan(&plans).Error; err != nil {
		return nil, fmt.Errorf("read reset preview %s: %w", id, err)
	}
	if len(plans) == 0 {
		return nil, fmt.Errorf("reset preview %s: %w", id, ErrPreviewNotFound)
	}
	return []byte(plans[0]), nil
}

// previewKey keeps each cluster's previews apart: a preview made on one cluster is not
// found through another's store, so it can never be applied to the other's brokers.
func (s *Store) previewKey(id string) string {
	if s.cluster == "" {
		return id
	}
	return s.cluster + "/" + id
}
