-- +goose Up
-- Alert rules may also watch a finding of the diagnosis (a consumer stuck, a slow
-- consumer).
ALTER TABLE alert_rules DROP CONSTRAINT alert_rules_metric_check;
ALTER TABLE alert_rules ADD CONSTRAINT alert_rules_metric_check
    CHECK (metric IN ('lag', 'lagTime', 'consumerStuck', 'slowConsumer'));

-- +goose Down
DELETE FROM alert_rules WHERE metric NOT IN ('lag', 'lagTime');
ALTER TABLE alert_rules DROP CONSTRAINT alert_rules_metric_check;
ALTER TABLE alert_rules ADD CONSTRAINT alert_rules_metric_check CHECK (metric IN ('lag', 'lagTime'));
