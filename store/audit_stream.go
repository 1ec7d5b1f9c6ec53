package store

import (
	"context"
	"fmt"
	"time"
)

// Sealed returns up to limit entries of the chain after position seq, in chain order,
// whatever their cluster: what the audit log's streams send next. It stops before a
// gap, so what it returns always continues the chain from seq.
func (l *AuditLog) Sealed(ctx context.Context, seq int64, limit int) ([]AuditEntry, error) {
	ctx, cancel := l.deadline(ctx)
	defer cancel()
	var rows []auditRow
	if err := l.db.WithContext(ctx).Where("seq > ?", seq).Order("seq").Limit(limit).Find(&rows).Error; err != nil {
		return nil, fmt.Errorf("read the audit chain after position %d: %w", seq, failed(err))
	}
	out := make([]AuditEntry, 0, len(rows))
	for i := range rows {
		e := rows[i].entry()
		if e.Seq != seq+int64(len(out))+1 {
			break // a later position whose transaction committed first: read again later
		}
		out = append(out, e)
	}
	return out, nil
}

// StreamCursor is the chain position of the last entry the named stream delivered (0:
// none yet).
func (s *Store) StreamCursor(ctx context.Context, name string) (int64, error) {
	ctx, cancel := s.deadline(ctx)
	defer cancel()
	var seq []int64
	if err := s.DB.WithContext(ctx).Raw(`SELECT last_seq FROM audit_stream_cursors WHERE name = ?`, name).Scan(&seq).Error; err != nil {
		return 0, fmt.Errorf("read the cursor of audit stream %q: %w", name, failed(err))
	}
	if len(seq) == 0 {
		return 0, nil
	}
	return seq[0], nil
}

// SaveStreamCursor records that the named stream delivered every entry up to chain
// position seq. The cursor only moves forward: a console that lost the lead while
// delivering cannot move it back.
func (s *Store) SaveStreamCursor(ctx context.Context, name string, seq int64) error {
	ctx, cancel := s.deadline(ctx)
	defer cancel()
	err := s.DB.WithContext(ctx).Exec(`INSERT INTO audit_stream_cursors (name, last_seq, updated_at_ms) VALUES (?, ?, ?)
		ON CONFLICT (name) DO UPDATE SET last_seq = excluded.last_seq, updated_at_ms = excluded.updated_at_ms
		WHERE audit_stream_cursors.last_seq < excluded.last_seq`, name, seq, time.Now().UnixMilli()).Error
	if err != nil {
		return fmt.Errorf("save the cursor of audit stream %q at %d: %w", name, seq, failed(err))
	}
	return nil
}
