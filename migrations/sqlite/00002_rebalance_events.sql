-- +goose Up
-- Rebalances the live group view saw: clients joining and leaving, queues moving from one
-- client to another. Kept so the timeline survives restarts; never edited.
CREATE TABLE rebalance_events (
    id          INTEGER PRIMARY KEY AUTOINCREMENT,
    group_name  TEXT    NOT NULL,
    at_ms       INTEGER NOT NULL,               -- when the watcher saw it, epoch ms
    kind        TEXT    NOT NULL CHECK (kind IN ('joined', 'left', 'moved')),
    client_id   TEXT    NOT NULL DEFAULT '',
    topic       TEXT    NOT NULL DEFAULT '',
    broker_name TEXT    NOT NULL DEFAULT '',
    queue_id    INTEGER,                        -- NULL for client events
    from_client TEXT    NOT NULL DEFAULT '',
    to_client   TEXT    NOT NULL DEFAULT '',
    unowned_ms  INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX rebalance_events_group_at ON rebalance_events (group_name, at_ms DESC, id DESC);

-- +goose Down
DROP TABLE rebalance_events;
