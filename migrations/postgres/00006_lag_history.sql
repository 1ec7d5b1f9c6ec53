-- +goose Up
-- Each consumer group's lag history (see the SQLite migration of the same version).
CREATE TABLE lag_samples (
    group_name  TEXT    NOT NULL,
    at_ms       BIGINT  NOT NULL,
    span_ms     BIGINT  NOT NULL DEFAULT 0,
    lag         BIGINT,
    lag_time_ms BIGINT,
    consume_tps DOUBLE PRECISION,
    produce_tps DOUBLE PRECISION,
    PRIMARY KEY (group_name, at_ms, span_ms)
);
CREATE INDEX lag_samples_at ON lag_samples (at_ms, span_ms);

-- +goose Down
DROP TABLE lag_samples;
