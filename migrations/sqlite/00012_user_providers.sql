-- +goose Up
-- Users who sign in through an identity provider (LDAP, OpenID Connect) get a row of
-- their own at their first sign-in, so sessions, API tokens, per-cluster roles and the
-- audit log treat them as every other user. Their password is the provider's business:
-- their password_hash stays empty and a local password check never matches it. Their
-- role is the one their groups give, set again at every sign-in.
ALTER TABLE users ADD COLUMN provider TEXT NOT NULL DEFAULT 'local' CHECK (provider IN ('local', 'ldap', 'oidc'));

-- +goose Down
ALTER TABLE users DROP COLUMN provider;
