-- +goose Up
-- Alert rules may also watch the orderly queues blocked by a gone lock holder that the
-- diagnosis finds. SQLite cannot change a CHECK in place, so the table is rebuilt;
-- dropping it cascades to the rules' states, which are kept aside and put back.
CREATE TEMP TABLE alert_states_kept AS SELECT * FROM alert_states;
CREATE TABLE alert_rules_new (
    id            INTEGER PRIMARY KEY AUTOINCREMENT,
    name          TEXT    NOT NULL,
    group_pattern TEXT    NOT NULL,
    metric        TEXT    NOT NULL CHECK (metric IN ('lag', 'lagTime', 'consumerStuck', 'slowConsumer',
                                                     'messagesLost', 'subscriptionDiffers', 'rebalanceChurn',
                                                     'retryStorm', 'deadLettersArriving', 'brokerDiskFull', 'brokerFlowControl', 'slaveBehind',
                      'nameServersDisagree', 'orderlyBlocked')),
    threshold     INTEGER NOT NULL CHECK (threshold >= 0),
    for_ms        INTEGER NOT NULL CHECK (for_ms >= 0),
    webhook_url   TEXT    NOT NULL,
    format        TEXT    NOT NULL CHECK (format IN ('json', 'slack', 'dingtalk')),
    created_by    TEXT    NOT NULL DEFAULT '',
    created_at_ms INTEGER NOT NULL,
    cluster       TEXT    NOT NULL DEFAULT ''
);
INSERT INTO alert_rules_new SELECT * FROM alert_rules;
DROP TABLE alert_rules;
ALTER TABLE alert_rules_new RENAME TO alert_rules;
INSERT INTO alert_states SELECT * FROM alert_states_kept;
DROP TABLE alert_states_kept;

-- +goose Down
DELETE FROM alert_rules WHERE metric = 'orderlyBlocked';
CREATE TEMP TABLE alert_states_kept AS SELECT * FROM alert_states;
CREATE TABLE alert_rules_old (
    id            INTEGER PRIMARY KEY AUTOINCREMENT,
    name          TEXT    NOT NULL,
    group_pattern TEXT    NOT NULL,
    metric        TEXT    NOT NULL CHECK (metric IN ('lag', 'lagTime', 'consumerStuck', 'slowConsumer',
                                                     'messagesLost', 'subscriptionDiffers', 'rebalanceChurn',
                                                     'retryStorm', 'deadLettersArriving', 'brokerDiskFull', 'brokerFlowControl', 'slaveBehind',
                      'nameServersDisagree')),
    threshold     INTEGER NOT NULL CHECK (threshold >= 0),
    for_ms        INTEGER NOT NULL CHECK (for_ms >= 0),
    webhook_url   TEXT    NOT NULL,
    format        TEXT    NOT NULL CHECK (format IN ('json', 'slack', 'dingtalk')),
    created_by    TEXT    NOT NULL DEFAULT '',
    created_at_ms INTEGER NOT NULL,
    cluster       TEXT    NOT NULL DEFAULT ''
);
INSERT INTO alert_rules_old SELECT * FROM alert_rules;
DROP TABLE alert_rules;
ALTER TABLE alert_rules_old RENAME TO alert_rules;
INSERT INTO alert_states SELECT * FROM alert_states_kept;
DROP TABLE alert_states_kept;
