package rocketmq

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"sync"
)

// The server side of remoting, for the fake clusters of the test kit and the scale
// simulation: they answer the console's requests over loopback with the same framing
// the Client reads, so nothing of the protocol is written twice.

// Request is one remoting request as a server reads it.
type Request struct {
	Code      RequestCode
	Language  string
	Version   int
	ExtFields map[string]string
	Body      []byte
}

// Response is a server's answer to a Request. Version is the server's MQVersion
// ordinal (a 5.3.3 broker answers 479).
type Response struct {
	Code      ResponseCode
	Remark    string
	Version   int
	ExtFields map[string]string
	Body      []byte
}

// Answer is a server's handling of one request. It may be called for several requests
// of one connection at once, as brokers handle them on their thread pools.
type Answer func(*Request) *Response

// ServeRemoting answers the requests that arrive on conn, each in its own goroutine,
// until conn fails or is closed; oneway requests get no answer. It returns the error
// that ended the connection (io.EOF when the peer closed it).
func ServeRemoting(conn net.Conn, answer Answer) error {
	var wmu sync.Mutex
	w := bufio.NewWriterSize(conn, 64<<10)
	var wg sync.WaitGroup
	defer wg.Wait()
	r := bufio.NewReaderSize(conn, 64<<10)
	for {
		req, err := readFrame(r)
		if err != nil {
			conn.Close()
			return err
		}
		if req.isResponse() {
			continue // nothing a server asked for
		}
		wg.Go(func() {
			resp := answer(&Request{Code: RequestCode(req.Code), Language: req.Language, Version: req.Version, ExtFields: req.ExtFields, Body: req.Body})
			if req.isOneway() || resp == nil {
				return
			}
			frame, err := encodeFrame(&command{Code: int(resp.Code), Language: "JAVA", Version: resp.Version, Opaque: req.Opaque,
				Flag: flagResponse, Remark: resp.Remark, ExtFields: resp.ExtFields, Body: resp.Body}, req.serializeType)
			if err != nil {
				frame, _ = encodeFrame(&command{Code: int(CodeSystemError), Language: "JAVA", Version: resp.Version, Opaque: req.Opaque,
					Flag: flagResponse, Remark: err.Error()}, req.serializeType)
			}
			wmu.Lock()
			defer wmu.Unlock()
			if _, err := w.Write(frame); err == nil {
				_ = w.Flush()
			}
		})
	}
}

// RoundTrip sends one request to addr on a connection of its own and returns the answer
// as it came, whatever its code: what a check of a server's raw answers needs. The
// console's own calls go through a Client.
func RoundTrip(ctx context.Context, addr string, req *Request) (*Response, error) {
	var d net.Dialer
	nc, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return nil, &ConnError{Addr: addr, Err: err}
	}
	defer nc.Close()
	if dl, ok := ctx.Deadline(); ok {
		_ = nc.SetDeadline(dl)
	}
	frame, err := encodeFrame(&command{Code: int(req.Code), Language: ourLanguage, Version: ourVersion, Opaque: 1,
		ExtFields: req.ExtFields, Body: req.Body}, serializeJSON)
	if err != nil {
		return nil, err
	}
	if _, err := nc.Write(frame); err != nil {
		return nil, &ConnError{Addr: addr, Err: err}
	}
	r := bufio.NewReader(nc)
	for {
		resp, err := readFrame(r)
		if err != nil {
			return nil, fmt.Errorf("%s to %s: %w", req.Code, addr, err)
		}
		if resp.isResponse() && resp.Opaque == 1 {
			return &Response{Code: ResponseCode(resp.Code), Remark: resp.Remark, Version: resp.Version, ExtFields: resp.ExtFields, Body: resp.Body}, nil
		}
	}
}
