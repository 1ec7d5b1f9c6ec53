-- +goose Up
-- Several clusters: the audit log, the rebalance timeline, the lag history and the alert
-- rules record which configured cluster (by name) they are about, and what was one per
-- group is one per (cluster, group): the same group name on two clusters is two groups.
--
-- Rows written before clusters had names get ''. For the audit log '' stays (an entry
-- never changes, and its hash covers it): the console reads '' as its default cluster,
-- the one it then talked to. The other tables are stamped with the default cluster's
-- name when the console starts (store.ClaimUnnamedRows); the migration cannot know it.
-- The audit log's existing cluster column keeps the NameServer list talked to.
ALTER TABLE audit_entries ADD COLUMN cluster_name TEXT NOT NULL DEFAULT '';
DROP INDEX audit_entries_one_pending_per_group;
DROP INDEX audit_entries_one_pending_per_topic;
CREATE UNIQUE INDEX audit_entries_one_pending_per_group ON audit_entries (cluster_name, group_name) WHERE status = 'pending' AND group_name <> '';
CREATE UNIQUE INDEX audit_entries_one_pending_per_topic ON audit_entries (cluster_name, topics) WHERE status = 'pending' AND group_name = '';
CREATE INDEX audit_entries_by_cluster ON audit_entries (cluster_name, id);

DROP TRIGGER audit_entries_finished_once;
-- +goose StatementBegin
CREATE TRIGGER audit_entries_finished_once BEFORE UPDATE ON audit_entries
WHEN OLD.status <> 'pending'
  OR NEW.status = 'pending'
  OR NEW.id IS NOT OLD.id
  OR NEW.started_at IS NOT OLD.started_at
  OR NEW.actor IS NOT OLD.actor
  OR NEW.actor_addr IS NOT OLD.actor_addr
  OR NEW.cluster IS NOT OLD.cluster
  OR NEW.cluster_name IS NOT OLD.cluster_name
  OR NEW.group_name IS NOT OLD.group_name
  OR NEW.topics IS NOT OLD.topics
  OR NEW.mode IS NOT OLD.mode
  OR NEW.params IS NOT OLD.params
  OR NEW.reason IS NOT OLD.reason
  OR NEW.plan IS NOT OLD.plan
  OR NEW.replica IS NOT OLD.replica
BEGIN
    SELECT RAISE(ABORT, 'a finished audit entry is never changed; a pending one only gets its outcome');
END;
-- +goose StatementEnd

ALTER TABLE rebalance_events ADD COLUMN cluster TEXT NOT NULL DEFAULT '';
DROP INDEX rebalance_events_group_at;
CREATE INDEX rebalance_events_group_at ON rebalance_events (cluster, group_name, at_ms DESC, id DESC);

-- The primary key of a WITHOUT ROWID table cannot change in place.
CREATE TABLE lag_samples_new (
    cluster     TEXT    NOT NULL DEFAULT '',
    group_name  TEXT    NOT NULL,
    at_ms       INTEGER NOT NULL,
    span_ms     INTEGER NOT NULL DEFAULT 0,
    lag         INTEGER,
    lag_time_ms INTEGER,
    consume_tps REAL,
    produce_tps REAL,
    PRIMARY KEY (cluster, group_name, at_ms, span_ms)
) WITHOUT ROWID;
INSERT INTO lag_samples_new (group_name, at_ms, span_ms, lag, lag_time_ms, consume_tps, produce_tps)
    SELECT group_name, at_ms, span_ms, lag, lag_time_ms, consume_tps, produce_tps FROM lag_samples;
DROP TABLE lag_samples;
ALTER TABLE lag_samples_new RENAME TO lag_samples;
CREATE INDEX lag_samples_at ON lag_samples (at_ms, span_ms);

ALTER TABLE alert_rules ADD COLUMN cluster TEXT NOT NULL DEFAULT '';

-- +goose Down
ALTER TABLE alert_rules DROP COLUMN cluster;

CREATE TABLE lag_samples_old (
    group_name  TEXT    NOT NULL,
    at_ms       INTEGER NOT NULL,
    span_ms     INTEGER NOT NULL DEFAULT 0,
    lag         INTEGER,
    lag_time_ms INTEGER,
    consume_tps REAL,
    produce_tps REAL,
    PRIMARY KEY (group_name, at_ms, span_ms)
) WITHOUT ROWID;
INSERT OR IGNORE INTO lag_samples_old SELECT group_name, at_ms, span_ms, lag, lag_time_ms, consume_tps, produce_tps FROM lag_samples;
DROP TABLE lag_samples;
ALTER TABLE lag_samples_old RENAME TO lag_samples;
CREATE INDEX lag_samples_at ON lag_samples (at_ms, span_ms);

DROP INDEX rebalance_events_group_at;
ALTER TABLE rebalance_events DROP COLUMN cluster;
CREATE INDEX rebalance_events_group_at ON rebalance_events (group_name, at_ms DESC, id DESC);

DROP TRIGGER audit_entries_finished_once;
-- +goose StatementBegin
CREATE TRIGGER audit_entries_finished_once BEFORE UPDATE ON audit_entries
WHEN OLD.status <> 'pending'
  OR NEW.status = 'pending'
  OR NEW.id IS NOT OLD.id
  OR NEW.started_at IS NOT OLD.started_at
  OR NEW.actor IS NOT OLD.actor
  OR NEW.actor_addr IS NOT OLD.actor_addr
  OR NEW.cluster IS NOT OLD.cluster
  OR NEW.group_name IS NOT OLD.group_name
  OR NEW.topics IS NOT OLD.topics
  OR NEW.mode IS NOT OLD.mode
  OR NEW.params IS NOT OLD.params
  OR NEW.reason IS NOT OLD.reason
  OR NEW.plan IS NOT OLD.plan
  OR NEW.replica IS NOT OLD.replica
BEGIN
    SELECT RAISE(ABORT, 'a finished audit entry is never changed; a pending one only gets its outcome');
END;
-- +goose StatementEnd
DROP INDEX audit_entries_by_cluster;
DROP INDEX audit_entries_one_pending_per_topic;
DROP INDEX audit_entries_one_pending_per_group;
CREATE UNIQUE INDEX audit_entries_one_pending_per_group ON audit_entries (group_name) WHERE status = 'pending' AND group_name <> '';
CREATE UNIQUE INDEX audit_entries_one_pending_per_topic ON audit_entries (topics) WHERE status = 'pending' AND group_name = '';
ALTER TABLE audit_entries DROP COLUMN cluster_name;
