-- +goose Up
-- Alert rules may also watch the retry storms and the dead letters arriving that the
-- diagnosis finds.
ALTER TABLE alert_rules DROP CONSTRAINT alert_rules_metric_check;
ALTER TABLE alert_rules ADD CONSTRAINT alert_rules_metric_check
    CHECK (metric IN ('lag', 'lagTime', 'consumerStuck', 'slowConsumer', 'messagesLost', 'subscriptionDiffers', 'rebalanceChurn',
                      'retryStorm', 'deadLettersArriving'));

-- +goose Down
DELETE FROM alert_rules WHERE metric IN ('retryStorm', 'deadLettersArriving');
ALTER TABLE alert_rules DROP CONSTRAINT alert_rules_metric_check;
ALTER TABLE alert_rules ADD CONSTRAINT alert_rules_metric_check
    CHECK (metric IN ('lag', 'lagTime', 'consumerStuck', 'slowConsumer', 'messagesLost', 'subscriptionDiffers', 'rebalanceChurn'));
