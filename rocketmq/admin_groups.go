package rocketmq

import (
	"context"
	"encoding/json"
	"fmt"
)

// UpdateSubscriptionGroup creates or updates a subscription group on the broker at addr
// (UPDATE_AND_CREATE_SUBSCRIPTIONGROUP), as mqadmin updateSubGroup does. A zero
// RetryMaxTimes or RetryQueueNums takes the broker's usual 16 and 1.
func (c *Client) UpdateSubscriptionGroup(ctx context.Context, addr string, cfg SubscriptionGroupConfig) error {
	if cfg.RetryMaxTimes == 0 {
		cfg.RetryMaxTimes = 16
	}
	if cfg.RetryQueueNums == 0 {
		cfg.RetryQueueNums = 1
	}
	body, err := json.Marshal(cfg)
	if err != nil {
		return fmt.Errorf("update subscription group %q on %s: %w", cfg.GroupName, addr, err)
	}
	if _, err := c.call(ctx, addr, CodeUpdateSubscriptionGroup, nil, body); err != nil {
		return fmt.Errorf("update subscription group %q on %s: %w", cfg.GroupName, addr, err)
	}
	return nil
}
