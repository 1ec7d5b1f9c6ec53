-- +goose Up
-- Several consoles may share one database (PostgreSQL; a SQLite file has one console).
-- Each running console is a replica with a heartbeat; an entry left pending is marked
-- interrupted only once the replica that wrote it has stopped beating. One replica at
-- a time holds a lease to run the work that must happen once (lag history, alerts,
-- pruning). Times are epoch ms.
CREATE TABLE replicas (
    id              TEXT    PRIMARY KEY,
    started_at_ms   INTEGER NOT NULL,
    heartbeat_at_ms INTEGER NOT NULL
);

CREATE TABLE leases (
    name          TEXT    PRIMARY KEY,
    replica       TEXT    NOT NULL,
    expires_at_ms INTEGER NOT NULL
);

-- Which replica wrote an entry: operational, so outside the hash chain, but as
-- unchangeable as the rest of the entry.
ALTER TABLE audit_entries ADD COLUMN replica TEXT NOT NULL DEFAULT '';

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

-- +goose Down
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
BEGIN
    SELECT RAISE(ABORT, 'a finished audit entry is never changed; a pending one only gets its outcome');
END;
-- +goose StatementEnd
ALTER TABLE audit_entries DROP COLUMN replica;
DROP TABLE leases;
DROP TABLE replicas;
