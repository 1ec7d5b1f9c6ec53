-- +goose Up
-- Reset previews waiting to be applied, where every console sharing the database finds
-- them: a browser may preview on one console and apply on another. Each is applied at
-- most once (taken: deleted as it is read) and dropped once expired. plan is JSON.
CREATE TABLE reset_previews (
    id            TEXT   PRIMARY KEY,
    plan          TEXT   NOT NULL,
    created_at_ms BIGINT NOT NULL
);
CREATE INDEX reset_previews_created ON reset_previews (created_at_ms);

-- +goose Down
DROP TABLE reset_previews;
