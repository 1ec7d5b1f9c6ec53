-- +goose Up
-- Alert rules may also watch the later findings of the diagnosis (messages lost,
-- subscriptions that differ, frequent rebalances).
ALTER TABLE alert_rules DROP CONSTRAINT alert_rules_metric_check;
ALTER TABLE alert_rules ADD CONSTRAINT alert_rules_metric_check
    CHECK (metric IN ('lag', 'lagTime', 'consumerStuck', 'slowConsumer', 'messagesLost', 'subscriptionDiffers', 'rebalanceChurn'));

-- +goose Down
DELETE FROM alert_rules WHERE metric IN ('messagesLost', 'subscriptionDiffers', 'rebalanceChurn');
ALTER TABLE alert_rules DROP CONSTRAINT alert_rules_metric_check;
ALTER TABLE alert_rules ADD CONSTRAINT alert_rules_metric_check
    CHECK (metric IN ('lag', 'lagTime', 'consumerStuck', 'slowConsumer'));
