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

// PingNameServers asks the NameServers for the cluster info the way every
// NameServer request goes (the next one when one is slow, within one
// timeout) and returns the address of the one that answered.
func (c *Client) PingNameServers(ctx context.Context) (string, error) {
	_, addr, err := c.askNameServers(ctx, CodeGetBrokerClusterInfo, nil)
	if err != nil {
		return "", fmt.Errorf("ping NameServers: %w", err)
	}
	return addr, nil
}

// ClusterInfoAt asks the NameServer at addr, and no other, for every cluster and broker
// it knows: to compare what each configured NameServer says.
func (c *Client) ClusterInfoAt(ctx context.Context, addr string) (*ClusterInfo, error) {
	resp, err := c.call(ctx, addr, CodeGetBrokerClusterInfo, nil, nil)
	if err != nil {
		return nil, fmt.Errorf("cluster info from NameServer %s: %w", addr, err)
	}
	ci, err := decodeClusterInfo(resp)
	if err != nil {
		return nil, fmt.Errorf("cluster info from NameServer %s: %w", addr, err)
	}
	return ci, nil
}
