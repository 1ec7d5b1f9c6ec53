-- +goose Up
-- Several clusters: the audit log, rebalance timeline, lag history and alert rules record
-- which configured cluster they are about; what was one per group is one per (cluster,
-- group). See the SQLite migration of the same version for what '' means.
ALTER TABLE audit_entries ADD COLUMN cluster_name TEXT NOT NULL DEFAULT '';
DROP INDEX audit_entries_one_pending_per_group;
DROP INDEX audit_entries_one_pending_per_topic;
CREATE UNIQUE INDEX audit_entries_one_pending_per_group ON audit_entries (cluster_name, group_name) WHERE status = 'pending' AND group_name <> '';
CREATE UNIQUE INDEX audit_entries_one_pending_per_topic ON audit_entries (cluster_name, topics) WHERE status = 'pending' AND group_name = '';
CREATE INDEX audit_entries_by_cluster ON audit_entries (cluster_name, id);

-- +goose StatementBegin
CREATE OR REPLACE FUNCTION audit_entries_finished_once() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF OLD.status <> 'pending'
       OR NEW.status = 'pending'
       OR NEW.id IS DISTINCT FROM OLD.id
       OR NEW.started_at IS DISTINCT FROM OLD.started_at
       OR NEW.actor IS DISTINCT FROM OLD.actor
       OR NEW.actor_addr IS DISTINCT FROM OLD.actor_addr
       OR NEW.cluster IS DISTINCT FROM OLD.cluster
       OR NEW.cluster_name IS DISTINCT FROM OLD.cluster_name
       OR NEW.group_name IS DISTINCT FROM OLD.group_name
       OR NEW.topics IS DISTINCT FROM OLD.topics
       OR NEW.mode IS DISTINCT FROM OLD.mode
       OR NEW.params IS DISTINCT FROM OLD.params
       OR NEW.reason IS DISTINCT FROM OLD.reason
       OR NEW.plan IS DISTINCT FROM OLD.plan
       OR NEW.replica IS DISTINCT FROM OLD.replica
    THEN
        RAISE EXCEPTION 'a finished audit entry is never changed; a pending one only gets its outcome';
    END IF;
    RETURN NEW;
END;
$$;
-- +goose StatementEnd

ALTER TABLE rebalance_events ADD COLUMN cluster TEXT NOT NULL DEFAULT '';
DROP INDEX rebalance_events_group_at;
CREATE INDEX rebalance_events_group_at ON rebalance_events (cluster, group_name, at_ms DESC, id DESC);

ALTER TABLE lag_samples ADD COLUMN cluster TEXT NOT NULL DEFAULT '';
ALTER TABLE lag_samples DROP CONSTRAINT lag_samples_pkey;
ALTER TABLE lag_samples ADD PRIMARY KEY (cluster, group_name, at_ms, span_ms);

ALTER TABLE alert_rules ADD COLUMN cluster TEXT NOT NULL DEFAULT '';

-- +goose Down
ALTER TABLE alert_rules DROP COLUMN cluster;

DELETE FROM lag_samples a USING lag_samples b
 WHERE a.group_name = b.group_name AND a.at_ms = b.at_ms AND a.span_ms = b.span_ms AND a.cluster > b.cluster;
ALTER TABLE lag_samples DROP CONSTRAINT lag_samples_pkey;
ALTER TABLE lag_samples DROP COLUMN cluster;
ALTER TABLE lag_samples ADD PRIMARY KEY (group_name, at_ms, span_ms);

DROP INDEX rebalance_events_group_at;
ALTER TABLE rebalance_events DROP COLUMN cluster;
CREATE INDEX rebalance_events_group_at ON rebalance_events (group_name, at_ms DESC, id DESC);

-- +goose StatementBegin
CREATE OR REPLACE FUNCTION audit_entries_finished_once() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF OLD.status <> 'pending'
       OR NEW.status = 'pending'
       OR NEW.id IS DISTINCT FROM OLD.id
       OR NEW.started_at IS DISTINCT FROM OLD.started_at
       OR NEW.actor IS DISTINCT FROM OLD.actor
       OR NEW.actor_addr IS DISTINCT FROM OLD.actor_addr
       OR NEW.cluster IS DISTINCT FROM OLD.cluster
       OR NEW.group_name IS DISTINCT FROM OLD.group_name
       OR NEW.topics IS DISTINCT FROM OLD.topics
       OR NEW.mode IS DISTINCT FROM OLD.mode
       OR NEW.params IS DISTINCT FROM OLD.params
       OR NEW.reason IS DISTINCT FROM OLD.reason
       OR NEW.plan IS DISTINCT FROM OLD.plan
       OR NEW.replica IS DISTINCT FROM OLD.replica
    THEN
        RAISE EXCEPTION 'a finished audit entry is never changed; a pending one only gets its outcome';
    END IF;
    RETURN NEW;
END;
$$;
-- +goose StatementEnd
DROP INDEX audit_entries_by_cluster;
DROP INDEX audit_entries_one_pending_per_topic;
DROP INDEX audit_entries_one_pending_per_group;
CREATE UNIQUE INDEX audit_entries_one_pending_per_group ON audit_entries (group_name) WHERE status = 'pending' AND group_name <> '';
CREATE UNIQUE INDEX audit_entries_one_pending_per_topic ON audit_entries (topics) WHERE status = 'pending' AND group_name = '';
ALTER TABLE audit_entries DROP COLUMN cluster_name;
