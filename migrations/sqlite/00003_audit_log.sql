-- +goose Up
-- The audit log of offset resets: who asked, from where, on which cluster and group, what
-- was planned per queue and what happened. An entry is written as 'pending' before any
-- broker is asked to change anything, and finished exactly once ('applied', 'partial',
-- 'failed', 'refused' or, at the next start after a crash, 'interrupted'). Refused attempts
-- are written finished. Times are UTC text in one fixed-width layout, so text order is time
-- order; topics, params, plan and result are JSON.
--
-- Finished entries form a hash chain: seq is the entry's position in the chain (NULL while
-- pending), prev_hash the hash of the entry at seq-1, and hash covers the entry's content and
-- prev_hash. `rmqconsole audit verify` recomputes it.
CREATE TABLE audit_entries (
    id          INTEGER PRIMARY KEY AUTOINCREMENT,
    started_at  TEXT    NOT NULL,
    finished_at TEXT    NOT NULL DEFAULT '',
    actor       TEXT    NOT NULL,
    actor_addr  TEXT    NOT NULL DEFAULT '',
    cluster     TEXT    NOT NULL DEFAULT '',
    group_name  TEXT    NOT NULL,
    topics      TEXT    NOT NULL DEFAULT '[]',
    mode        TEXT    NOT NULL DEFAULT '',
    params      TEXT    NOT NULL DEFAULT '{}',
    reason      TEXT    NOT NULL DEFAULT '',
    plan        TEXT    NOT NULL DEFAULT '{}',
    result      TEXT    NOT NULL DEFAULT '[]',
    status      TEXT    NOT NULL CHECK (status IN ('pending', 'applied', 'partial', 'failed', 'refused', 'interrupted')),
    error       TEXT    NOT NULL DEFAULT '',
    duration_ms INTEGER NOT NULL DEFAULT 0,
    seq         INTEGER UNIQUE,
    prev_hash   TEXT    NOT NULL DEFAULT '',
    hash        TEXT    NOT NULL DEFAULT ''
);

CREATE INDEX audit_entries_by_group ON audit_entries (group_name, id);
CREATE INDEX audit_entries_by_start ON audit_entries (started_at);

-- At most one reset of a group is in flight: a second pending entry for the same group is
-- refused by the database itself, whichever console process writes it.
CREATE UNIQUE INDEX audit_entries_one_pending_per_group ON audit_entries (group_name) WHERE status = 'pending';

-- The console never deletes an entry and never changes a finished one. These triggers make
-- the database refuse it too; the hash chain shows it when someone bypasses them.
-- +goose StatementBegin
CREATE TRIGGER audit_entries_never_deleted BEFORE DELETE ON audit_entries
BEGIN
    SELECT RAISE(ABORT, 'audit entries are never deleted');
END;
-- +goose StatementEnd

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

-- +goose Down
DROP TRIGGER audit_entries_finished_once;
DROP TRIGGER audit_entries_never_deleted;
DROP TABLE audit_entries;
