package rocketmq

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os"
	"sync"
	"sync/atomic"
	"time"
)

// conn is one multiplexed TCP connection to a NameServer or broker. Many
// calls may be in flight at once; answers are matched to calls by opaque.
// A read goroutine owns the socket's reading side; writes are serialized by
// wsem. Once broken, a conn stays broken: the pool dials a new one.
type conn struct {
	addr string
	nc   net.Conn
	log  *slog.Logger

	// wsem lets one frame at a time on the wire. A channel rather than a
	// mutex: a peer that stopped reading blocks the writer until its
	// deadline, and the calls queued behind it must give up at theirs.
	wsem chan struct{}

	mu      sync.Mutex
	pending map[int32]chan *command
	err     error // why the conn broke; nil while healthy

	opaque atomic.Int32
	done   chan struct{} // closed when the read loop ends

	answering chan struct{} // slots for answers to server requests
}

// maxServerRequests bounds the answers to server-initiated requests being
// written at once; a server that floods us with requests gets the rest
// ignored rather than a goroutine each.
const maxServerRequests = 16

func newConn(nc net.Conn, addr string, log *slog.Logger) *conn {
	c := &conn{
		addr:      addr,
		nc:        nc,
		log:       log,
		pending:   make(map[int32]chan *command),
		wsem:      make(chan struct{}, 1),
		done:      make(chan struct{}),
		answering: make(chan struct{}, maxServerRequests),
	}
	go c.readLoop()
	return c
}

// broken reports why the connection is unusable, or nil.
func (c *conn) broken() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.err
}

// fail marks the connection broken, closes the socket and releases every
// waiting call. Only the first reason is kept.
func (c *conn) fail(err error) {
	c.mu.Lock()
	if c.err != nil {
		c.mu.Unlock()
		return
	}
	c.err = err
	c.pending = nil // waiters see the closed done channel
	c.mu.Unlock()
	c.nc.Close()
}

// close fails the calls in flight with ErrClosed.
func (c *conn) close() {
	c.fail(ErrClosed)
	<-c.done
}

func (c *conn) readLoop() {
	defer close(c.done)
	r := bufio.NewReaderSize(c.nc, 64<<10)
	for {
		cmd, err := readFrame(r)
		if err != nil {
			c.fail(err)
			return
		}
		if !cmd.isResponse() {
			c.serveRequest(cmd)
			continue
		}
		c.mu.Lock()
		ch, ok := c.pending[cmd.Opaque]
		if ok {
			delete(c.pending, cmd.Opaque)
		}
		c.mu.Unlock()
		if !ok {
			// The caller gave up (deadline) before the answer came.
			c.log.Debug("rocketmq: late or unmatched response dropped", "addr", c.addr, "opaque", cmd.Opaque, "code", cmd.Code)
			continue
		}
		ch <- cmd // buffered, never blocks
	}
}

// serveRequest answers a request the server sent us. A pure admin
// connection should never get one (brokers call back only on connections
// that sent HEART_BEAT), but if one comes we say "not supported" rather than
// leave the server waiting, and ignore oneway ones.
func (c *conn) serveRequest(req *command) {
	c.log.Debug("rocketmq: request from server", "addr", c.addr, "code", RequestCode(req.Code), "oneway", req.isOneway())
	if req.isOneway() {
		return
	}
	resp := &command{
		Code:     int(CodeRequestCodeNotSupported),
		Language: ourLanguage,
		Version:  ourVersion,
		Opaque:   req.Opaque,
		Flag:     flagResponse,
		Remark:   fmt.Sprintf("request code %d not supported by rmqconsole", req.Code),
	}
	frame, err := encodeFrame(resp, serializeJSON)
	if err != nil {
		return
	}
	// Write from another goroutine: the read loop must never wait on the
	// write side, or a peer that stops reading would stall every reply.
	select {
	case c.answering <- struct{}{}:
	default:
		return // too many unanswered: ignore this one
	}
	go func() {
		defer func() { <-c.answering }()
		_ = c.write(frame, time.Now().Add(5*time.Second))
	}()
}

func (c *conn) write(frame []byte, deadline time.Time) error {
	wait := time.NewTimer(time.Until(deadline))
	defer wait.Stop()
	select {
	case c.wsem <- struct{}{}:
	case <-wait.C:
		return os.ErrDeadlineExceeded // the frame was never started: the stream is intact
	case <-c.done:
		return c.broken()
	}
	defer func() { <-c.wsem }()
	if err := c.broken(); err != nil {
		return err
	}
	_ = c.nc.SetWriteDeadline(deadline)
	if _, err := c.nc.Write(frame); err != nil {
		// A half-written frame leaves the stream unusable.
		c.fail(err)
		return err
	}
	return nil
}

// call sends req and waits for its answer, the context's deadline or the
// connection breaking, whichever comes first. req.Opaque is assigned here.
func (c *conn) call(ctx context.Context, req *command) (*command, error) {
	start := time.Now()
	req.Opaque = c.opaque.Add(1)
	req.Flag &^= flagResponse | flagOneway
	frame, err := encodeFrame(req, serializeJSON)
	if err != nil {
		return nil, err
	}
	ch := make(chan *command, 1)
	c.mu.Lock()
	if c.err != nil {
		err := c.err
		c.mu.Unlock()
		return nil, &ConnError{Addr: c.addr, Err: err}
	}
	c.pending[req.Opaque] = ch
	c.mu.Unlock()
	forget := func() {
		c.mu.Lock()
		if c.pending != nil {
			delete(c.pending, req.Opaque)
		}
		c.mu.Unlock()
	}

	deadline, ok := ctx.Deadline()
	if !ok {
		deadline = time.Now().Add(time.Minute) // callers always set one; belt and braces
	}
	if err := c.write(frame, deadline); err != nil {
		forget()
		if ctx.Err() != nil {
			return nil, callCtxErr(ctx, c.addr, RequestCode(req.Code), start)
		}
		return nil, &ConnError{Addr: c.addr, Err: err}
	}
	select {
	case resp := <-ch:
		return resp, nil
	case <-c.done:
		// The answer may have been delivered just before the loop ended.
		select {
		case resp := <-ch:
			return resp, nil
		default:
		}
		return nil, &ConnError{Addr: c.addr, Err: c.broken()}
	case <-ctx.Done():
		forget()
		return nil, callCtxErr(ctx, c.addr, RequestCode(req.Code), start)
	}
}

// oneway sends req without waiting for (or expecting) an answer.
func (c *conn) oneway(ctx context.Context, req *command) error {
	req.Opaque = c.opaque.Add(1)
	req.Flag = (req.Flag | flagOneway) &^ flagResponse
	frame, err := encodeFrame(req, serializeJSON)
	if err != nil {
		return err
	}
	deadline, ok := ctx.Deadline()
	if !ok {
		deadline = time.Now().Add(time.Minute)
	}
	if err := c.write(frame, deadline); err != nil {
		return &ConnError{Addr: c.addr, Err: err}
	}
	return nil
}

func callCtxErr(ctx context.Context, addr string, code RequestCode, start time.Time) error {
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return &TimeoutError{Addr: addr, Code: code, Elapsed: time.Since(start)}
	}
	return fmt.Errorf("%s to %s: %w", code, addr, ctx.Err())
}
