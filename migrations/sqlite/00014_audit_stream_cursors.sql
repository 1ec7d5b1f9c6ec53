-- +goose Up
-- Where each destination the audit log is streamed to (a RocketMQ topic, a webhook) has
-- got to: the chain position (seq) of the last entry it took. The console that streams
-- resumes after it, so a restart or a new leader sends nothing twice but what was in
-- flight, and loses nothing. Times are epoch ms.
CREATE TABLE audit_stream_cursors (
    name          TEXT    PRIMARY KEY,
    last_seq      INTEGER NOT NULL,
    updated_at_ms INTEGER NOT NULL
);

-- +goose Down
DROP TABLE audit_stream_cursors;
