package cluster

import (
	"context"
	"errors"
	"slices"
	"sync"

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
// clients: those configured (RMQC_PROXY), in the configured order.
func (c *Cluster) Proxies() []string { return slices.Clone(c.opts.Proxies) }

// ProxyConsumers asks every known Proxy, at once, for group's clients. A Proxy that
// knows none of them answers 206 and is left out; one that fails is named in the
// failures (its clients are then unknown, not offline).
func (c *Cluster) ProxyConsumers(ctx context.Context, lister ConnectionLister, group string) ([]ProxyConsumers, []BrokerFailure) {
	proxies := c.Proxies()
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
