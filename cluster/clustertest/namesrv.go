package clustertest

import (
	"context"
	"fmt"
	"maps"
	"strconv"

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

// BrokerRuntimeInfo answers the table SetRuntime gave the address, with the broker's
// commit-log range (what Put stored) unless the table sets it.
func (f *Fake) BrokerRuntimeInfo(ctx context.Context, addr string) (*rocketmq.BrokerRuntimeInfo, error) {
	b, err := f.enter(ctx, "BrokerRuntimeInfo", addr)
	if err != nil {
		return nil, err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	t := map[string]string{"commitLogMinOffset": "0", "commitLogMaxOffset": strconv.FormatInt(b.nextPhys, 10)}
	maps.Copy(t, f.runtime[addr])
	return &rocketmq.BrokerRuntimeInfo{Table: t}, nil
}
