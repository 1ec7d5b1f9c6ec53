-- +goose Up
-- Changes that are not about a consumer group (creating, updating or deleting a topic) are
-- audited too, with an empty group_name. One pending entry per group would let only one
-- such change be in flight in the whole console; instead each is one at a time per topic,
-- and the database still refuses a second pending reset of the same group.
DROP INDEX audit_entries_one_pending_per_group;
CREATE UNIQUE INDEX audit_entries_one_pending_per_group ON audit_entries (group_name) WHERE status = 'pending' AND group_name <> '';
CREATE UNIQUE INDEX audit_entries_one_pending_per_topic ON audit_entries (topics) WHERE status = 'pending' AND group_name = '';

-- +goose Down
DROP INDEX audit_entries_one_pending_per_topic;
DROP INDEX audit_entries_one_pending_per_group;
CREATE UNIQUE INDEX audit_entries_one_pending_per_group ON audit_entries (group_name) WHERE status = 'pending';
