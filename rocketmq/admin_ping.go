package rocketmq

import (
	"context"
	"fmt"
)

// PingNameServer asks one NameServer (not the list) for the cluster info, to tell
// whether that address answers. It does not fail over.
func (c *Client) PingNameServer(ctx context.Context, addr string) error {
	if _, err := c.call(ctx, addr, CodeGetBrokerClusterInfo, nil, nil); err != nil {
		return fmt.Errorf("ping NameServer %s: %w", addr, err)
	}
	return nil
}
