-- +goose Up
-- Decoders of topics set by admins in the console (see the SQLite migration of the same
-- version).
CREATE TABLE topic_decoders (
    cluster_name  TEXT    NOT NULL,
    topic         TEXT    NOT NULL,
    type          TEXT    NOT NULL CHECK (type IN ('protobuf', 'json', 'text', 'hex')),
    message       TEXT    NOT NULL DEFAULT '',
    source_kind   TEXT    NOT NULL DEFAULT '' CHECK (source_kind IN ('', 'descriptor_set', 'proto')),
    source_name   TEXT    NOT NULL DEFAULT '',
    source        BYTEA,
    updated_by    TEXT    NOT NULL DEFAULT '',
    updated_at_ms BIGINT  NOT NULL,
    PRIMARY KEY (cluster_name, topic)
);

-- +goose Down
DROP TABLE topic_decoders;
