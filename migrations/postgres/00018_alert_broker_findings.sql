-- +goose Up
-- Alert rules may also watch the diagnosis's findings about brokers (a disk nearly full,
-- sends refused as busy, a slave behind its master) and the NameServers that disagree.
-- Such a rule keeps its broker pattern in group_pattern (empty for the NameServers), and
-- its states name a broker or a NameServer in group_name: the metric says which.
ALTER TABLE alert_rules DROP CONSTRAINT alert_rules_metric_check;
ALTER TABLE alert_rules ADD CONSTRAINT alert_rules_metric_check
    CHECK (metric IN ('lag', 'lagTime', 'consumerStuck', 'slowConsumer', 'messagesLost', 'subscriptionDiffers', 'rebalanceChurn',
                      'retryStorm', 'deadLettersArriving', 'brokerDiskFull', 'brokerFlowControl', 'slaveBehind', 'nameServersDisagree'));

-- +goose Down
DELETE FROM alert_rules WHERE metric IN ('brokerDiskFull', 'brokerFlowControl', 'slaveBehind', 'nameServersDisagree');
ALTER TABLE alert_rules DROP CONSTRAINT alert_rules_metric_check;
ALTER TABLE alert_rules ADD CONSTRAINT alert_rules_metric_check
    CHECK (metric IN ('lag', 'lagTime', 'consumerStuck', 'slowConsumer', 'messagesLost', 'subscriptionDiffers', 'rebalanceChurn',
                      'retryStorm', 'deadLettersArriving'));
