-- +goose Up
-- Decoders of topics set by admins in the console (the config file's decoders stay in
-- the file): how the bodies of one topic of one configured cluster are read. A Protobuf
-- decoder keeps the descriptor set or the .proto file it was given, so every console
-- sharing the database builds the same message type without any file of its own.
-- Setting and removing one are audit entries, written in the same transaction.
CREATE TABLE topic_decoders (
    cluster_name  TEXT    NOT NULL,
    topic         TEXT    NOT NULL,
    type          TEXT    NOT NULL CHECK (type IN ('protobuf', 'json', 'text', 'hex')),
    message       TEXT    NOT NULL DEFAULT '',
    source_kind   TEXT    NOT NULL DEFAULT '' CHECK (source_kind IN ('', 'descriptor_set', 'proto')),
    source_name   TEXT    NOT NULL DEFAULT '',
    source        BLOB,
    updated_by    TEXT    NOT NULL DEFAULT '',
    updated_at_ms INTEGER NOT NULL,
    PRIMARY KEY (cluster_name, topic)
);

-- +goose Down
DROP TABLE topic_decoders;
