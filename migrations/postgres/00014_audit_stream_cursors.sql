-- +goose Up
-- Where each destination the audit log is streamed to has got to: see the SQLite
-- migration of the same version.
CREATE TABLE audit_stream_cursors (
    name          TEXT   PRIMARY KEY,
    last_seq      BIGINT NOT NULL,
    updated_at_ms BIGINT NOT NULL
);

-- +goose Down
DROP TABLE audit_stream_cursors;
