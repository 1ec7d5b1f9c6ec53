-- +goose Up
-- Changes that are not about a consumer group are one at a time per topic (see the SQLite
-- migration of the same version).
DROP INDEX audit_entries_one_pending_per_group;
CREATE UNIQUE INDEX audit_entries_one_pending_per_group ON audit_entries (group_name) WHERE status = 'pending' AND group_name <> '';
CREATE UNIQUE INDEX audit_entries_one_pending_per_topic ON audit_entries (topics) WHERE status = 'pending' AND group_name = '';

-- +goose Down
DROP INDEX audit_entries_one_pending_per_topic;
DROP INDEX audit_entries_one_pending_per_group;
CREATE UNIQUE INDEX audit_entries_one_pending_per_group ON audit_entries (group_name) WHERE status = 'pending';
