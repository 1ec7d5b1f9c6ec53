package cluster

import (
	"context"
	"errors"
	"net"
	"slices"
	"strings"
	"sync"
	"time"

	"rmqconsole/i18n"
	"rmqconsole/rocketmq"
)

// RocketMQ 5's gRPC clients talk to a Proxy, and a cluster-mode Proxy keeps them to
// itself: it never sends the brokers a heartbeat for them, so a broker asked for such a
// group's connections answers CONSUMER_NOT_ONLINE (206). The Proxy's remoting port
// answers the same request (GET_CONSUMER_CONNECTION_LIST) from its own view, which
// includes the clients other Proxies synced to it. So the console asks the Proxies it
// knows whenever it lists a group's clients. A Proxy's remoting port is plain remoting
// with no VIP second port, and it answers only client requests: every admin request
// still goes to the brokers.

// ConnectionLister lists a consumer group's clients on one server: a broker, or a
// Proxy's remoting port. *rocketmq.Client implements it.
type ConnectionLister interface {
	ConsumerConnections(ctx context.Context, addr, group string) (*rocketmq.ConsumerConnection, error)
}

// ProxyConsumers is a group's clients as one Proxy knows them.
type ProxyConsumers struct {
	Proxy string // the Proxy's remoting address
	Conns *rocketmq.ConsumerConnection
}

// Proxies returns the remoting addresses of the Proxies the console asks about gRPC
// clients: those configured (RMQC_PROXY), in the configured order, then those
// discovered (see discoverProxies).
func (c *Cluster) Proxies(ctx context.Context, lister ConnectionLister) []string {
	out := slices.Clone(c.opts.Proxies)
	for _, p := range c.discoveredProxies(ctx, lister) {
		if !slices.Contains(out, p) {
			out = append(out, p)
		}
	}
	return out
}

// Proxy discovery. Every cluster-mode Proxy runs a broadcast consumer of group
// CID_DefaultHeartBeatSyncerTopic on the brokers, to share its gRPC clients with the
// other Proxies, so the brokers list one connection per Proxy. The console lists that
// group's clients like any other's (the group list does, every pass) and notes them
// here; discovery reads that note, so it costs the brokers nothing. The connection names
// the Proxy's host but not its remoting port: the console tries the ports of the
// configured Proxies and the default 8080 on that host, and keeps an address that
// answers a connection-list request as a Proxy does and is not a broker.
const (
	ProxySyncGroup           = "CID_DefaultHeartBeatSyncerTopic"
	DefaultProxyRemotingPort = "8080"
	// proxyRediscover is how often the noted connections are looked at again.
	proxyRediscover = time.Minute
)

// discoveredProxies returns the Proxies found from the heartbeat-sync group's noted
// connections, looked for again at most every proxyRediscover.
func (c *Cluster) discoveredProxies(ctx context.Context, lister ConnectionLister) []string {
	seen, ok := c.Consumers(ProxySyncGroup)
	if !ok || seen.Proxy != "" || !seen.Online() {
		return nil
	}
	c.proxyMu.Lock()
	defer c.proxyMu.Unlock()
	if seen.At.Equal(c.proxySeenAt) || (!c.proxyAt.IsZero() && c.opts.Now().Sub(c.proxyAt) < proxyRediscover) {
		return c.proxyFound
	}
	c.proxyAt, c.proxySeenAt = c.opts.Now(), seen.At
	c.proxyFound = c.probeProxies(ctx, lister, seen.Conns)
	return c.proxyFound
}

// probeProxies tries the likely remoting addresses of the hosts in cc.
func (c *Cluster) probeProxies(ctx context.Context, lister ConnectionLister, cc *rocketmq.ConsumerConnection) []string {
	isBroker := map[string]bool{}
	if brokers, err := c.Brokers(ctx); err == nil {
		for _, b := range brokers {
			for _, a := range b.Addrs() {
				isBroker[a] = true
			}
		}
	}
	ports := []string{DefaultProxyRemotingPort}
	for _, p := range c.opts.Proxies {
		if _, port, err := net.SplitHostPort(p); err == nil && !slices.Contains(ports, port) {
			ports = append(ports, port)
		}
	}
	var found []string
	for _, cn := range cc.Connections {
		host, _, err := net.SplitHostPort(cn.ClientAddr)
		if err != nil {
			continue
		}
		for _, port := range ports {
			addr := net.JoinHostPort(host, port)
			if isBroker[addr] || slices.Contains(found, addr) || slices.Contains(c.opts.Proxies, addr) {
				continue
			}
			// A Proxy answers for the groups of its own clients; 206 is an answer too.
			if _, err := lister.ConsumerConnections(ctx, addr, ProxySyncGroup); err == nil || errors.Is(err, rocketmq.ErrConsumerNotOnline) {
				found = append(found, addr)
			}
		}
	}
	slices.Sort(found)
	return found
}

// BrokerVersioner tells the version a broker runs; *rocketmq.Client implements it,
// from the answers it already had and at most one runtime-info call per broker.
type BrokerVersioner interface {
	BrokerVersion(ctx context.Context, addr string) (rocketmq.BrokerVersion, error)
}

// Release4 returns the versions the masters run ("4.9.7") when every master that told
// its version runs RocketMQ 4.x, and "" when one runs 5.x or none told. The Proxy, its
// gRPC clients and POP consumption came with 5.0, so on such a cluster the console
// says they need 5.x instead of looking for them.
func (c *Cluster) Release4(ctx context.Context, v BrokerVersioner) string {
	brokers, err := c.Brokers(ctx)
	if err != nil {
		return ""
	}
	var versions []string
	for _, b := range brokers {
		if b.Master == "" {
			continue
		}
		bv, err := v.BrokerVersion(ctx, b.Master)
		switch {
		case err != nil || bv.Ordinal == 0:
			continue
		case bv.Is5():
			return ""
		case !slices.Contains(versions, bv.String()):
			versions = append(versions, bv.String())
		}
	}
	slices.Sort(versions)
	return strings.Join(versions, ", ")
}

// Needs5Messages say, for a cluster whose brokers run release (Release4), that gRPC
// clients, the Proxy and POP need 5.x, and what that means for the Proxies configured;
// none on 5.x.
func (c *Cluster) Needs5Messages(release string) []i18n.Message {
	if release == "" {
		return nil
	}
	ms := []i18n.Message{i18n.M("cluster.needs5", "Release", release)}
	if len(c.opts.Proxies) > 0 {
		ms = append(ms, i18n.M("cluster.needs5.proxies", "Proxies", strings.Join(c.opts.Proxies, ", ")))
	}
	return ms
}

// ProxyConsumers asks every known Proxy, at once, for group's clients. A Proxy that
// knows none of them answers 206 and is left out; one that fails is named in the
// failures (its clients are then unknown, not offline).
func (c *Cluster) ProxyConsumers(ctx context.Context, lister ConnectionLister, group string) ([]ProxyConsumers, []BrokerFailure) {
	if v, ok := lister.(BrokerVersioner); ok && c.Release4(ctx, v) != "" {
		return nil, nil // no Proxy serves a 4.x cluster: a configured one is a mistake, not a failure
	}
	proxies := c.Proxies(ctx, lister)
	answers := make([]*rocketmq.ConsumerConnection, len(proxies))
	errs := make([]error, len(proxies))
	var wg sync.WaitGroup
	for i, p := range proxies {
		// The client bounds each call by its own timeout.
		wg.Go(func() { answers[i], errs[i] = lister.ConsumerConnections(ctx, p, group) })
	}
	wg.Wait()
	var out []ProxyConsumers
	var failures []BrokerFailure
	for i, p := range proxies {
		switch {
		case errs[i] == nil && len(answers[i].Connections) > 0:
			out = append(out, ProxyConsumers{Proxy: p, Conns: answers[i]})
		case errs[i] == nil, errors.Is(errs[i], rocketmq.ErrConsumerNotOnline):
		default:
			failures = append(failures, BrokerFailure{Broker: "Proxy " + p, Addr: p, Op: "connections", Err: errs[i]})
		}
	}
	return out, failures
}

// SeenThroughProxies asks the Proxies for the clients of a group no broker knows a client
// of, and notes them as seen at at. The first Proxy that lists clients is enough: every
// Proxy lists the clients the others synced to it.
func (c *Cluster) SeenThroughProxies(ctx context.Context, lister ConnectionLister, group string, at time.Time) (SeenConsumers, bool) {
	proxied, _ := c.ProxyConsumers(ctx, lister, group)
	if len(proxied) == 0 {
		return SeenConsumers{}, false
	}
	s := SeenConsumers{Conns: proxied[0].Conns, Proxy: proxied[0].Proxy, At: at}
	c.NoteSeen(group, s)
	return s, true
}

// IsGRPC reports whether conn, listed by a Proxy in cc, is a gRPC client. The Proxy
// registers a gRPC client with the version it parses from the SDK's version string;
// SDK versions ("5.1.4") are never RocketMQ version names, so it falls back to its own
// version, the one in its answer's header. A remoting client connected through the
// Proxy reports its own.
func IsGRPC(cc *rocketmq.ConsumerConnection, conn rocketmq.Connection) bool {
	return cc.ServerVersion != 0 && conn.Version == cc.ServerVersion
}

// ConsumesByPop reports whether the group whose clients s lists consumes with POP:
// remoting POP consumers (CONSUME_POP), or gRPC clients through a Proxy, whose
// PushConsumers and SimpleConsumers both pop although they register as PUSH and PULL.
// A POP group's consumer offset moves when a message is popped, not when it is
// acknowledged.
func (s SeenConsumers) ConsumesByPop() bool {
	cc := s.Conns
	if cc == nil {
		return false
	}
	if cc.ConsumeType == "CONSUME_POP" {
		return true
	}
	return s.Proxy != "" && slices.ContainsFunc(cc.Connections, func(cn rocketmq.Connection) bool { return IsGRPC(cc, cn) })
}
