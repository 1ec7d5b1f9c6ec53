-- +goose Up
-- The groups an identity provider gave a user at their latest sign-in (a JSON array),
-- which rights may name: kept with the user, so that after a restart, on every replica
-- and through the user's API tokens the user keeps the rights their groups give.
ALTER TABLE users ADD COLUMN provider_groups TEXT NOT NULL DEFAULT '';

-- +goose Down
ALTER TABLE users DROP COLUMN provider_groups;
