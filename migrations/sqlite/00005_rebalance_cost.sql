-- +goose Up
-- What a rebalance costs: a moved queue's duplicates at risk (messages its previous owner
-- had pulled past the committed offset at its last report; NULL when it never reported),
-- and orderly lock handovers (kind 'locked': the queue's broker-side lock went from one
-- client to another, unlocked_ms without any holder). SQLite cannot change a CHECK
-- constraint in place, so the table is rebuilt with its rows.
CREATE TABLE rebalance_events_new (
    id                 INTEGER PRIMARY KEY AUTOINCREMENT,
    group_name         TEXT    NOT NULL,
    at_ms              INTEGER NOT NULL,
    kind               TEXT    NOT NULL CHECK (kind IN ('joined', 'left', 'moved', 'locked')),
    client_id          TEXT    NOT NULL DEFAULT '',
    topic              TEXT    NOT NULL DEFAULT '',
    broker_name        TEXT    NOT NULL DEFAULT '',
    queue_id           INTEGER,
    from_client        TEXT    NOT NULL DEFAULT '',
    to_client          TEXT    NOT NULL DEFAULT '',
    unowned_ms         INTEGER NOT NULL DEFAULT 0,
    duplicates_at_risk INTEGER,
    unlocked_ms        INTEGER NOT NULL DEFAULT 0
);
INSERT INTO rebalance_events_new (id, group_name, at_ms, kind, client_id, topic, broker_name, queue_id, from_client, to_client, unowned_ms)
    SELECT id, group_name, at_ms, kind, client_id, topic, broker_name, queue_id, from_client, to_client, unowned_ms FROM rebalance_events;
DROP TABLE rebalance_events;
ALTER TABLE rebalance_events_new RENAME TO rebalance_events;
CREATE INDEX rebalance_events_group_at ON rebalance_events (group_name, at_ms DESC, id DESC);

-- +goose Down
DELETE FROM rebalance_events WHERE kind = 'locked';
CREATE TABLE rebalance_events_old (
    id          INTEGER PRIMARY KEY AUTOINCREMENT,
    group_name  TEXT    NOT NULL,
    at_ms       INTEGER NOT NULL,
    kind        TEXT    NOT NULL CHECK (kind IN ('joined', 'left', 'moved')),
    client_id   TEXT    NOT NULL DEFAULT '',
    topic       TEXT    NOT NULL DEFAULT '',
    broker_name TEXT    NOT NULL DEFAULT '',
    queue_id    INTEGER,
    from_client TEXT    NOT NULL DEFAULT '',
    to_client   TEXT    NOT NULL DEFAULT '',
    unowned_ms  INTEGER NOT NULL DEFAULT 0
);
INSERT INTO rebalance_events_old SELECT id, group_name, at_ms, kind, client_id, topic, broker_name, queue_id, from_client, to_client, unowned_ms FROM rebalance_events;
DROP TABLE rebalance_events;
ALTER TABLE rebalance_events_old RENAME TO rebalance_events;
CREATE INDEX rebalance_events_group_at ON rebalance_events (group_name, at_ms DESC, id DESC);
