package store

import (
	"context"
	"fmt"
	"slices"
	"time"
)

// RebalanceEvent is one stored rebalance of a consumer group: a client joined or left,
// a queue moved between clients, or an orderly queue's lock changed hands.
type RebalanceEvent struct {
	ID         int64
	Group      string
	At         time.Time
	Kind       string // joined, left, moved, locked
	ClientID   string
	Topic      string
	BrokerName string
	QueueID    *int // nil for client events
	From       string
	To         string
	UnownedMs  int64
	// DuplicatesAtRisk is a move's upper bound on messages the new owner may consume
	// again; nil when the previous owner never reported.
	DuplicatesAtRisk *int64
	// UnlockedMs is how long a lock handover left the queue without a lock holder.
	UnlockedMs int64
}

// rebalanceRow is the table's shape for GORM.
type rebalanceRow struct {
	ID         int64 `gorm:"primaryKey"`
	Cluster    string
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
	// DuplicatesAtRisk and UnlockedMs: see RebalanceEvent.
	DuplicatesAtRisk *int64
	UnlockedMs       int64
}

func (rebalanceRow) TableName() string { return "rebalance_events" }

// MaxRebalanceEvents caps how many events one read returns.
const MaxRebalanceEvents = 1000

// AddRebalanceEvents stores events in one transaction, in order.
func (s *Store) AddRebalanceEvents(ctx context.Context, events []RebalanceEvent) error {
	ctx, cancel := s.deadline(ctx)
	defer cancel()
	if len(events) == 0 {
		return nil
	}
	rows := make([]rebalanceRow, 0, len(events))
	recorder := map[string]bool{}
	for _, e := range events {
		held, seen := recorder[e.Group]
		if !seen {
			var err error
			if held, err = s.recordsRebalances(ctx, e.Group); err != nil {
				return fmt.Errorf("store rebalance events of group %q: %w", e.Group, err)
			}
			recorder[e.Group] = held
		}
		if !held {
			continue
		}
		rows = append(rows, rebalanceRow{Cluster: s.cluster, GroupName: e.Group, AtMs: e.At.UnixMilli(), Kind: e.Kind, ClientID: e.ClientID,
			Topic: e.Topic, BrokerName: e.BrokerName, QueueID: e.QueueID, FromClient: e.From, ToClient: e.To, UnownedMs: e.UnownedMs,
			DuplicatesAtRisk: e.DuplicatesAtRisk, UnlockedMs: e.UnlockedMs})
	}
	if len(rows) == 0 {
		return nil
	}
	if err := s.DB.WithContext(ctx).Create(&rows).Error; err != nil {
		return fmt.Errorf("store %d rebalance events of group %q: %w", len(rows), rows[0].GroupName, err)
	}
	return nil
}

// recordsRebalances says whether this console writes the group's rebalances. Consoles
// sharing a database each watch the groups their viewers look at, and see the same
// rebalances: the one holding the group's recorder lease (renewed at each write) writes
// them, the others' copies are dropped, so the history has each rebalance once. When
// the holder stops watching, another console takes over after ReplicaLease. A SQLite
// file has one console. The lease is the cluster's group's, named by the cluster
// whichever is a console's default: consoles sharing the database may have different
// defaults, and one's default cluster's group must not hold another cluster's group of
// the same name.
func (s *Store) recordsRebalances(ctx context.Context, group string) (bool, error) {
	if s.dialect != Postgres {
		return true, nil
	}
	return s.TakeLease(ctx, rebalanceLease(s.cluster, group))
}

// rebalanceLease names the lease of recording a cluster's group's rebalances.
func rebalanceLease(cluster, group string) string { return "rebalances:" + cluster + "/" + group }

// RebalanceEvents returns the group's newest events first, at most limit (capped at
// MaxRebalanceEvents), optionally only those before a time (for paging back).
func (s *Store) RebalanceEvents(ctx context.Context, group string, limit int, before time.Time) ([]RebalanceEvent, error) {
	ctx, cancel := s.deadline(ctx)
	defer cancel()
	if limit <= 0 || limit > MaxRebalanceEvents {
		limit = MaxRebalanceEvents
	}
	q := s.DB.WithContext(ctx).Where("cluster = ? AND group_name = ?", s.cluster, group)
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
			Topic: r.Topic, BrokerName: r.BrokerName, QueueID: r.QueueID, From: r.FromClient, To: r.ToClient, UnownedMs: r.UnownedMs,
			DuplicatesAtRisk: r.DuplicatesAtRisk, UnlockedMs: r.UnlockedMs}
	}
	return out, nil
}

// RebalanceDay sums one UTC day of a group's queue moves.
type RebalanceDay struct {
	Day   string // 2006-01-02, UTC
	Moves int64
	// DuplicatesAtRisk sums the moves' bounds; UnknownMoves counts moves without one.
	DuplicatesAtRisk int64
	UnknownMoves     int64
	UnownedMs        int64
}

// RebalanceDays sums the group's moves per UTC day, newest day first, from since on
// (zero: all kept history).
func (s *Store) RebalanceDays(ctx context.Context, group string, since time.Time) ([]RebalanceDay, error) {
	ctx, cancel := s.deadline(ctx)
	defer cancel()
	var rows []struct {
		Day              string
		Moves            int64
		DuplicatesAtRisk int64
		UnknownMoves     int64
		UnownedMs        int64
	}
	err := s.DB.WithContext(ctx).Model(&rebalanceRow{}).
		Select(s.dialect.utcDay("at_ms")+" AS day, count(*) AS moves, "+
			// CAST: PostgreSQL sums BIGINTs as NUMERIC.
			"CAST(coalesce(sum(duplicates_at_risk), 0) AS BIGINT) AS duplicates_at_risk, "+
			"CAST(sum(CASE WHEN duplicates_at_risk IS NULL THEN 1 ELSE 0 END) AS BIGINT) AS unknown_moves, "+
			"CAST(coalesce(sum(unowned_ms), 0) AS BIGINT) AS unowned_ms").
		Where("cluster = ? AND group_name = ? AND kind = 'moved' AND at_ms >= ?", s.cluster, group, since.UnixMilli()).
		Group("day").Order("day DESC").Scan(&rows).Error
	if err != nil {
		return nil, fmt.Errorf("sum rebalances of group %q per day: %w", group, err)
	}
	out := make([]RebalanceDay, len(rows))
	for i, r := range rows {
		out[i] = RebalanceDay(r)
	}
	return out, nil
}

// RebalanceCount is how much a group rebalanced over a span.
type RebalanceCount struct {
	// Moves counts the queues that moved from one client to another (or were assigned).
	Moves int64
	// Clients counts the clients that joined or left.
	Clients int64
}

// rebalanceCountsBatch bounds the group names of one query (SQLite takes 32 766
// parameters; a few hundred keep each statement small).
const rebalanceCountsBatch = 500

// RebalanceCounts counts each group's moves and clients joined or left from since on,
// for the groups named (the groups absent from the answer have none): one query per 500
// groups, each an index range per group, so the diagnosis reads every group at each
// collection for the price of one round trip.
func (s *Store) RebalanceCounts(ctx context.Context, groups []string, since time.Time) (map[string]RebalanceCount, error) {
	ctx, cancel := s.deadline(ctx)
	defer cancel()
	out := map[string]RebalanceCount{}
	for batch := range slices.Chunk(groups, rebalanceCountsBatch) {
		var rows []struct {
			GroupName string
			Moves     int64
			Clients   int64
		}
		err := s.DB.WithContext(ctx).Model(&rebalanceRow{}).
			Select("group_name, "+
				// CAST: PostgreSQL sums BIGINTs as NUMERIC.
				"CAST(sum(CASE WHEN kind = 'moved' THEN 1 ELSE 0 END) AS BIGINT) AS moves, "+
				"CAST(sum(CASE WHEN kind IN ('joined', 'left') THEN 1 ELSE 0 END) AS BIGINT) AS clients").
			Where("cluster = ? AND group_name IN ? AND at_ms >= ?", s.cluster, batch, since.UnixMilli()).
			Group("group_name").Scan(&rows).Error
		if err != nil {
			return nil, fmt.Errorf("count rebalances of %d groups: %w", len(groups), err)
		}
		for _, r := range rows {
			out[r.GroupName] = RebalanceCount{Moves: r.Moves, Clients: r.Clients}
		}
	}
	return out, nil
}

// PruneRebalanceEvents deletes every group's events older than before and says how
// many went. Rebalance history is kept for a retention period, unlike the audit log,
// which is never deleted.
func (s *Store) PruneRebalanceEvents(ctx context.Context, before time.Time) (int64, error) {
	ctx, cancel := s.batchDeadline(ctx)
	defer cancel()
	r := s.DB.WithContext(ctx).Where("at_ms < ?", before.UnixMilli()).Delete(&rebalanceRow{})
	if r.Error != nil {
		return 0, fmt.Errorf("prune rebalance events before %s: %w", before.UTC().Format(time.RFC3339), r.Error)
	}
	return r.RowsAffected, nil
}
