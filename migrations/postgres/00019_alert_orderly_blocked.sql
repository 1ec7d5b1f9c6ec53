-- +goose Up
-- Alert rules may also watch the orderly queues blocked by a gone lock holder that the
-- diagnosis finds.
ALTER TABLE alert_rules DROP CONSTRAINT alert_rules_metric_check;
ALTER TABLE alert_rules ADD CONSTRAINT alert_rules_metric_check
    CHECK (metric IN ('lag', 'lagTime', 'consumerStuck', 'slowConsumer', 'messagesLost', 'subscriptionDiffers', 'rebalanceChurn',
                      'retryStorm', 'deadLettersArriving', 'brokerDiskFull', 'brokerFlowControl', 'slaveBehind',
                      'nameServersDisagree', 'orderlyBlocked'));

-- +goose Down
DELETE FROM alert_rules WHERE metric = 'orderlyBlocked';
ALTER TABLE alert_rules DROP CONSTRAINT alert_rules_metric_check;
ALTER TABLE alert_rules ADD CONSTRAINT alert_rules_metric_check
    CHECK (metric IN ('lag', 'lagTime', 'consumerStuck', 'slowConsumer', 'messagesLost', 'subscriptionDiffers', 'rebalanceChurn',
                      'retryStorm', 'deadLettersArriving', 'brokerDiskFull', 'brokerFlowControl', 'slaveBehind',
                      'nameServersDisagree'));
