package store

import (
	"context"
	"fmt"
	"time"

	"gorm.io/gorm"
)

// Consoles sharing one database are replicas. Each beats a heartbeat into the replicas
// table; an entry it left pending is another replica's to mark interrupted only once
// the heartbeat is older than ReplicaLease. Work that must happen once (lag history,
// alert notifications, pruning) runs on the replica holding the leader lease. A SQLite
// file has one console: it never beats, and the console leads without asking.

// ReplicaLease is how long a heartbeat or a leader lease stays good without renewal. A
// replica renews both every ReplicaLease/3, so a stalled database round or a long pause
// does not give its work away.
const ReplicaLease = 15 * time.Second

// LeaderLease names the lease of the background work done once for all replicas.
const LeaderLease = "collectors"

// dbNow is the database's clock in epoch ms: replicas on machines whose clocks disagree
// judge heartbeats and leases by the same clock. A SQLite file has one process, whose
// clock is the only one.
func dbNow(ctx context.Context, db *gorm.DB, d Dialect) (int64, error) {
	if d != Postgres {
		return time.Now().UnixMilli(), nil
	}
	var ms int64
	err := db.WithContext(ctx).Raw(`SELECT CAST(extract(epoch FROM clock_timestamp()) * 1000 AS BIGINT)`).Scan(&ms).Error
	return ms, err
}

// Heartbeat records that this replica is alive now.
func (s *Store) Heartbeat(ctx context.Context) error {
	ctx, cancel := s.deadline(ctx)
	defer cancel()
	now, err := dbNow(ctx, s.DB, s.dialect)
	if err != nil {
		return fmt.Errorf("heartbeat of replica %s: %w", s.replica, err)
	}
	err = s.DB.WithContext(ctx).Exec(`INSERT INTO replicas (id, started_at_ms, heartbeat_at_ms) VALUES (?, ?, ?)
		ON CONFLICT (id) DO UPDATE SET heartbeat_at_ms = excluded.heartbeat_at_ms`, s.replica, now, now).Error
	if err != nil {
		return fmt.Errorf("heartbeat of replica %s: %w", s.replica, err)
	}
	return nil
}

// TakeLease takes or renews the named lease for this replica for ReplicaLease and says
// whether this replica holds it: it does when nobody held it, when it was this
// replica's already, or when its holder let it expire. The database decides, so two
// replicas asking at once never both get it.
func (s *Store) TakeLease(ctx context.Context, name string) (bool, error) {
	ctx, cancel := s.deadline(ctx)
	defer cancel()
	now, err := dbNow(ctx, s.DB, s.dialect)
	if err != nil {
		return false, fmt.Errorf("take lease %q: %w", name, err)
	}
	r := s.DB.WithContext(ctx).Exec(`INSERT INTO leases (name, replica, expires_at_ms) VALUES (?, ?, ?)
		ON CONFLICT (name) DO UPDATE SET replica = excluded.replica, expires_at_ms = excluded.expires_at_ms
		WHERE leases.replica = excluded.replica OR leases.expires_at_ms < ?`,
		name, s.replica, now+ReplicaLease.Milliseconds(), now)
	if r.Error != nil {
		return false, fmt.Errorf("take lease %q: %w", name, r.Error)
	}
	return r.RowsAffected == 1, nil
}

// LeaseHolder names the replica holding the named lease, "" when none holds it now.
func (s *Store) LeaseHolder(ctx context.Context, name string) (string, error) {
	ctx, cancel := s.deadline(ctx)
	defer cancel()
	now, err := dbNow(ctx, s.DB, s.dialect)
	if err != nil {
		return "", fmt.Errorf("read lease %q: %w", name, err)
	}
	var holder []string
	err = s.DB.WithContext(ctx).Raw(`SELECT replica FROM leases WHERE name = ? AND expires_at_ms >= ?`, name, now).Scan(&holder).Error
	if err != nil || len(holder) == 0 {
		return "", err
	}
	return holder[0], nil
}

// Leave ends this replica's heartbeat and gives up its leases, at a clean stop: another
// replica takes the work over at once instead of after ReplicaLease.
func (s *Store) Leave(ctx context.Context) error {
	ctx, cancel := s.deadline(ctx)
	defer cancel()
	err := s.DB.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		if err := tx.Exec(`DELETE FROM leases WHERE replica = ?`, s.replica).Error; err != nil {
			return err
		}
		return tx.Exec(`DELETE FROM replicas WHERE id = ?`, s.replica).Error
	})
	if err != nil {
		return fmt.Errorf("replica %s leaving: %w", s.replica, err)
	}
	return nil
}

// Orphaned returns the pending entries no live replica is applying, oldest first: those
// written by another replica whose heartbeat stopped more than ReplicaLease ago (or that
// never beat: a SQLite file's previous run). This replica's own entries are never
// orphaned while it runs. Only the log's cluster's entries: another cluster's brokers are not asked.
func (l *AuditLog) Orphaned(ctx context.Context) ([]AuditEntry, error) {
	ctx, cancel := l.deadline(ctx)
	defer cancel()
	now, err := dbNow(ctx, l.db, l.dialect)
	if err != nil {
		return nil, fmt.Errorf("read orphaned audit entries: %w", err)
	}
	var rows []auditRow
	err = l.ofCluster(l.db.WithContext(ctx), l.cluster).
		Where("status = ? AND replica <> ?", AuditPending, l.replica).
		Where("NOT EXISTS (SELECT 1 FROM replicas r WHERE r.id = audit_entries.replica AND r.heartbeat_at_ms >= ?)", now-ReplicaLease.Milliseconds()).
		Order("id").Find(&rows).Error
	if err != nil {
		return nil, fmt.Errorf("read orphaned audit entries: %w", err)
	}
	out := make([]AuditEntry, len(rows))
	for i := range rows {
		out[i] = rows[i].entry()
	}
	return out, nil
}
