-- +goose Up
-- Users who sign in through LDAP or OpenID Connect: see the SQLite migration of the same
-- version. Their password_hash stays empty; their role is set again at every sign-in.
ALTER TABLE users ADD COLUMN provider TEXT NOT NULL DEFAULT 'local' CHECK (provider IN ('local', 'ldap', 'oidc'));

-- +goose Down
ALTER TABLE users DROP COLUMN provider;
