-- +goose Up
-- Facts about this database itself: which console version created it and when.
CREATE TABLE console_meta (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
);
INSERT INTO console_meta (key, value) VALUES ('created_at', to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'));

-- +goose Down
DROP TABLE console_meta;
