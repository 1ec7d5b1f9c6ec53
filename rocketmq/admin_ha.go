package rocketmq

import (
	"context"
	"fmt"
	"net"
)

// HAStatus is what a broker says of its replication (GET_BROKER_HA_STATUS, 5.x): a
// master lists the slaves connected to it and how far each has acknowledged its commit
// log; a slave, the master it copies from.
type HAStatus struct {
	Master bool `json:"master"`
	// MasterMaxOffset is a master's commit-log max offset (bytes) when it answered.
	MasterMaxOffset int64 `json:"masterCommitLogMaxOffset"`
	// Connections are a master's replication connections, one per connected slave.
	Connections []HAConnection `json:"haConnectionInfo"`
}

// HAConnection is one slave's replication connection to its master.
type HAConnection struct {
	// Addr is the slave's end of the replication connection (host and an ephemeral
	// port), not its remoting address: only the host names the slave.
	Addr string `json:"addr"`
	// AckOffset is the commit-log offset the slave has acknowledged; Diff the bytes
	// between it and the master's max offset.
	AckOffset int64 `json:"slaveAckOffset"`
	Diff      int64 `json:"diff"`
	// InSync: Diff is under the master's haMaxGapNotInSync (256 MiB unless set).
	InSync bool `json:"inSync"`
	// BytesPerSecond is what the master sent the slave over the last second.
	BytesPerSecond int64 `json:"transferredByteInSecond"`
}

// Host is the slave's host, to match with the remoting addresses of the broker's slaves.
func (h HAConnection) Host() string { return HostOf(h.Addr) }

// HostOf is the host of a "host:port" address; addr itself when it has no port.
func HostOf(addr string) string {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return addr
	}
	return host
}

// HAStatus asks the broker at addr how its replication stands. A 4.x broker does not
// know the request: the error then matches ErrNotSupported.
func (c *Client) HAStatus(ctx context.Context, addr string) (*HAStatus, error) {
	resp, err := c.call(ctx, addr, CodeGetBrokerHAStatus, nil, nil)
	if err != nil {
		return nil, fmt.Errorf("replication status of broker %s: %w", addr, err)
	}
	var st HAStatus
	if err := decodeBody(resp.Body, &st); err != nil {
		return nil, fmt.Errorf("replication status of broker %s: %w", addr, err)
	}
	return &st, nil
}
