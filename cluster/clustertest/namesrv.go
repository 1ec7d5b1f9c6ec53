package clustertest

import (
	"context"
	"fmt"

	"rmqconsole/rocketmq"
)

// SetNameServers names the NameServers the fake's client is configured with; Down
// makes one refuse connections.
func (f *Fake) SetNameServers(addrs ...string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.nameServers = addrs
}

// NameServers returns the configured NameServers.
func (f *Fake) NameServers() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.nameServers
}

// PingNameServer answers unless the NameServer is down.
func (f *Fake) PingNameServer(ctx context.Context, addr string) error {
	f.mu.Lock()
	f.calls["PingNameServer"]++
	down := f.down[addr]
	f.mu.Unlock()
	if down {
		return &rocketmq.ConnError{Addr: addr, Err: fmt.Errorf("connection refused")}
	}
	return ctx.Err()
}

// SetRuntime sets what the broker process at addr answers for its runtime info
// (brokerVersionDesc, putTps, ...).
func (f *Fake) SetRuntime(addr string, table map[string]string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.runtime == nil {
		f.runtime = map[string]map[string]string{}
	}
	f.runtime[addr] = table
}

// BrokerRuntimeInfo answers the table SetRuntime gave the address.
func (f *Fake) BrokerRuntimeInfo(ctx context.Context, addr string) (*rocketmq.BrokerRuntimeInfo, error) {
	if _, err := f.enter(ctx, "BrokerRuntimeInfo", addr); err != nil {
		return nil, err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	return &rocketmq.BrokerRuntimeInfo{Table: f.runtime[addr]}, nil
}
