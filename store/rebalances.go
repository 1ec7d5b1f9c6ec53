package store

import (
	"context"
	"fmt"
	"time"
)

// RebalanceEvent is one stored rebalance of a consumer group: a client joined or left,
// or a queue moved between clients.
type RebalanceEvent struct {
	ID         int64
	Group      string
	At         time.Time
	Kind       string // joined, left, moved
	ClientID   string
	Topic      string
	BrokerName string
	QueueID    *int // nil for client events
	From       string
	To         string
	UnownedMs  int64
}

// rebalanceRow is the table's shape for GORM.
type rebalanceRow struct {
	ID         int64 `gorm:"primaryKey"`
	GroupName  string
	AtMs       int64
	Kind       string
	ClientID   string
	Topic      string
	BrokerName string
	QueueID    *int
	FromClient string
	ToClient   string
	UnownedMs  int64
}

func (rebalanceRow) TableName() string { return "rebalance_events" }

// MaxRebalanceEvents caps how many events one read returns.
const MaxRebalanceEvents = 1000

// AddRebalanceEvents stores events in one transaction, in order.
func (s *Store) AddRebalanceEvents(ctx context.Context, events []RebalanceEvent) error {
	if len(events) == 0 {
		return nil
	}
	rows := make([]rebalanceRow, len(events))
	for i, e := range events {
		rows[i] = rebalanceRow{GroupName: e.Group, AtMs: e.At.UnixMilli(), Kind: e.Kind, ClientID: e.ClientID,
			Topic: e.Topic, BrokerName: e.BrokerName, QueueID: e.QueueID, FromClient: e.From, ToClient: e.To, UnownedMs: e.UnownedMs}
	}
	if err := s.DB.WithContext(ctx).Create(&rows).Error; err != nil {
		return fmt.Errorf("store %d rebalance events of group %q: %w", len(events), events[0].Group, err)
	}
	return nil
}

// RebalanceEvents returns the group's newest events first, at most limit (capped at
// MaxRebalanceEvents), optionally only those before a time (for paging back).
func (s *Store) RebalanceEvents(ctx context.Context, group string, limit int, before time.Time) ([]RebalanceEvent, error) {
	if limit <= 0 || limit > MaxRebalanceEvents {
		limit = MaxRebalanceEvents
	}
	q := s.DB.WithContext(ctx).Where("group_name = ?", group)
	if !before.IsZero() {
		q = q.Where("at_ms < ?", before.UnixMilli())
	}
	var rows []rebalanceRow
	if err := q.Order("at_ms DESC, id DESC").Limit(limit).Find(&rows).Error; err != nil {
		return nil, fmt.Errorf("read rebalance events of group %q: %w", group, err)
	}
	out := make([]RebalanceEvent, len(rows))
	for i, r := range rows {
		out[i] = RebalanceEvent{ID: r.ID, Group: r.GroupName, At: time.UnixMilli(r.AtMs).UTC(), Kind: r.Kind, ClientID: r.ClientID,
			Topic: r.Topic, BrokerName: r.BrokerName, QueueID: r.QueueID, From: r.FromClient, To: r.ToClient, UnownedMs: r.UnownedMs}
	}
	return out, nil
}

// PruneRebalanceEvents deletes every group's events older than before and says how
// many went. Rebalance history is kept for a retention period, unlike the audit log,
// which is never deleted.
func (s *Store) PruneRebalanceEvents(ctx context.Context, before time.Time) (int64, error) {
	r := s.DB.WithContext(ctx).Where("at_ms < ?", before.UnixMilli()).Delete(&rebalanceRow{})
	if r.Error != nil {
		return 0, fmt.Errorf("prune rebalance events before %s: %w", before.UTC().Format(time.RFC3339), r.Error)
	}
	return r.RowsAffected, nil
}
