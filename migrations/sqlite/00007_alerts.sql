-- +goose Up
-- Alert rules on consumer groups: a group name or a pattern ('*' and '?'), a metric (total
-- lag in messages, or time behind in ms), a threshold and how long it must hold before
-- the rule fires. Operators manage them; every change is also an audit entry.
CREATE TABLE alert_rules (
    id            INTEGER PRIMARY KEY AUTOINCREMENT,
    name          TEXT    NOT NULL,
    group_pattern TEXT    NOT NULL,
    metric        TEXT    NOT NULL CHECK (metric IN ('lag', 'lagTime')),
    threshold     INTEGER NOT NULL CHECK (threshold >= 0),
    for_ms        INTEGER NOT NULL CHECK (for_ms >= 0),
    webhook_url   TEXT    NOT NULL,
    format        TEXT    NOT NULL CHECK (format IN ('json', 'slack', 'dingtalk')),
    created_by    TEXT    NOT NULL DEFAULT '',
    created_at_ms INTEGER NOT NULL
);

-- Where each rule stands for each group it matched: above the threshold since since_ms
-- (pending until for_ms has passed, then firing), or resolved.
CREATE TABLE alert_states (
    rule_id        INTEGER NOT NULL REFERENCES alert_rules (id) ON DELETE CASCADE,
    group_name     TEXT    NOT NULL,
    state          TEXT    NOT NULL CHECK (state IN ('pending', 'firing', 'resolved')),
    since_ms       INTEGER NOT NULL,
    value          INTEGER,
    fired_at_ms    INTEGER NOT NULL DEFAULT 0,
    resolved_at_ms INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (rule_id, group_name)
);

-- Every notification: written pending before it is sent, then sent or failed with the
-- receiver's answer. Kept when its rule is deleted (rule_id then points nowhere).
CREATE TABLE alert_deliveries (
    id            INTEGER PRIMARY KEY AUTOINCREMENT,
    rule_id       INTEGER NOT NULL,
    rule_name     TEXT    NOT NULL,
    group_name    TEXT    NOT NULL,
    event         TEXT    NOT NULL CHECK (event IN ('firing', 'resolved')),
    created_at_ms INTEGER NOT NULL,
    url           TEXT    NOT NULL,
    format        TEXT    NOT NULL,
    body          TEXT    NOT NULL,
    status        TEXT    NOT NULL CHECK (status IN ('pending', 'sent', 'failed')),
    attempts      INTEGER NOT NULL DEFAULT 0,
    next_at_ms    INTEGER NOT NULL DEFAULT 0,
    response_code INTEGER NOT NULL DEFAULT 0,
    error         TEXT    NOT NULL DEFAULT ''
);
CREATE INDEX alert_deliveries_pending ON alert_deliveries (status, next_at_ms);
CREATE INDEX alert_deliveries_rule ON alert_deliveries (rule_id, id DESC);

-- +goose Down
DROP TABLE alert_deliveries;
DROP TABLE alert_states;
DROP TABLE alert_rules;
