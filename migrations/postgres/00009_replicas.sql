-- +goose Up
-- Replicas with heartbeats, the leases of work done once, and which replica wrote each
-- audit entry (see the SQLite migration of the same version).
CREATE TABLE replicas (
    id              TEXT    PRIMARY KEY,
    started_at_ms   BIGINT  NOT NULL,
    heartbeat_at_ms BIGINT  NOT NULL
);

CREATE TABLE leases (
    name          TEXT    PRIMARY KEY,
    replica       TEXT    NOT NULL,
    expires_at_ms BIGINT  NOT NULL
);

ALTER TABLE audit_entries ADD COLUMN replica TEXT NOT NULL DEFAULT '';

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

-- +goose Down
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
    THEN
        RAISE EXCEPTION 'a finished audit entry is never changed; a pending one only gets its outcome';
    END IF;
    RETURN NEW;
END;
$$;
-- +goose StatementEnd
ALTER TABLE audit_entries DROP COLUMN replica;
DROP TABLE leases;
DROP TABLE replicas;
