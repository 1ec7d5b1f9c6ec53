package rocketmq

import (
	"context"
	"log/slog"
	"net"
	"sync"
	"time"
)

// pool keeps one connection per address and dials again after one breaks.
type pool struct {
	log    *slog.Logger
	dialer net.Dialer

	mu     sync.Mutex
	conns  map[string]*endpoint
	closed bool
}

// endpoint serializes dialing to one address; sem is a one-slot lock that a
// waiter can abandon when its context ends.
type endpoint struct {
	sem  chan struct{}
	conn *conn
}

func newPool(log *slog.Logger) *pool {
	return &pool{log: log, conns: make(map[string]*endpoint), dialer: net.Dialer{Timeout: 3 * time.Second, KeepAlive: 30 * time.Second}}
}

// get returns a healthy connection to addr, dialing if there is none.
// fresh reports whether it was dialed by this call.
func (p *pool) get(ctx context.Context, addr string) (c *conn, fresh bool, err error) {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return nil, false, ErrClosed
	}
	ep, ok := p.conns[addr]
	if !ok {
		ep = &endpoint{sem: make(chan struct{}, 1)}
		p.conns[addr] = ep
	}
	p.mu.Unlock()

	select {
	case ep.sem <- struct{}{}:
	case <-ctx.Done():
		return nil, false, ctx.Err()
	}
	defer func() { <-ep.sem }()

	if ep.conn != nil && ep.conn.broken() == nil {
		return ep.conn, false, nil
	}
	if ep.conn != nil {
		p.log.Debug("rocketmq: reconnecting", "addr", addr, "reason", ep.conn.broken())
		ep.conn.close()
		ep.conn = nil
	}
	nc, err := p.dialer.DialContext(ctx, "tcp", addr)
	if err != nil {
		return nil, false, &ConnError{Addr: addr, Err: err}
	}
	if tc, ok := nc.(*net.TCPConn); ok {
		_ = tc.SetNoDelay(true)
	}
	c = newConn(nc, addr, p.log)
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		c.close()
		return nil, false, ErrClosed
	}
	ep.conn = c
	p.mu.Unlock()
	return c, true, nil
}

func (p *pool) close() {
	p.mu.Lock()
	p.closed = true
	eps := p.conns
	p.conns = map[string]*endpoint{}
	p.mu.Unlock()
	for _, ep := range eps {
		ep.sem <- struct{}{} // wait for a dial in progress
		if ep.conn != nil {
			ep.conn.close()
		}
	}
}
