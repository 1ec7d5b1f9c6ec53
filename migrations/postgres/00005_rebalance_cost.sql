-- +goose Up
-- What a rebalance costs (see the SQLite migration of the same version): duplicates at
-- risk of a moved queue, and orderly lock handovers (kind 'locked'). PostgreSQL changes
-- the CHECK constraint in place.
ALTER TABLE rebalance_events DROP CONSTRAINT rebalance_events_kind;
ALTER TABLE rebalance_events ADD CONSTRAINT rebalance_events_kind CHECK (kind IN ('joined', 'left', 'moved', 'locked'));
ALTER TABLE rebalance_events ADD COLUMN duplicates_at_risk BIGINT;
ALTER TABLE rebalance_events ADD COLUMN unlocked_ms BIGINT NOT NULL DEFAULT 0;

-- +goose Down
DELETE FROM rebalance_events WHERE kind = 'locked';
ALTER TABLE rebalance_events DROP COLUMN unlocked_ms;
ALTER TABLE rebalance_events DROP COLUMN duplicates_at_risk;
ALTER TABLE rebalance_events DROP CONSTRAINT rebalance_events_kind;
ALTER TABLE rebalance_events ADD CONSTRAINT rebalance_events_kind CHECK (kind IN ('joined', 'left', 'moved'));
