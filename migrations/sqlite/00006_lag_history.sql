-- +goose Up
-- Each consumer group's total lag, time behind and rates, read by the background
-- collector whether or not anyone watches the group, so its page can show the last hour,
-- day or week at once. Recent samples are kept as read (span_ms = 0); older ones are
-- folded into buckets (span_ms = the bucket's width, at_ms its start) and dropped after
-- the retention period. Nullable values were unknown at that sample.
CREATE TABLE lag_samples (
    group_name  TEXT    NOT NULL,
    at_ms       INTEGER NOT NULL,              -- when it was read (bucket start), epoch ms
    span_ms     INTEGER NOT NULL DEFAULT 0,    -- 0: one sample; else the bucket it summarises
    lag         INTEGER,                       -- total lag (a bucket: its maximum)
    lag_time_ms INTEGER,                       -- time behind (a bucket: its maximum)
    consume_tps REAL,                          -- committed offsets advanced per second (a bucket: mean)
    produce_tps REAL,                          -- broker offsets advanced per second (a bucket: mean)
    PRIMARY KEY (group_name, at_ms, span_ms)
) WITHOUT ROWID;
-- Folding and pruning go by time across every group; the group list's sparklines read the
-- last hour of every group.
CREATE INDEX lag_samples_at ON lag_samples (at_ms, span_ms);

-- +goose Down
DROP TABLE lag_samples;
