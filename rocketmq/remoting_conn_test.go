package rocketmq

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"rmqconsole/dev"
)

// fakeServer is a TCP server speaking just enough remoting to script
// misbehaviour: each accepted connection is handed to handle.
type fakeServer struct {
	ln       net.Listener
	accepted atomic.Int32
	wg       sync.WaitGroup
}

func startFake(t *testing.T, handle func(n int, c net.Conn)) *fakeServer {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := &fakeServer{ln: ln}
	var mu sync.Mutex
	var conns []net.Conn
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			n := int(s.accepted.Add(1))
			mu.Lock()
			conns = append(conns, c)
			mu.Unlock()
			s.wg.Add(1)
			go func() {
				defer s.wg.Done()
				defer c.Close()
				handle(n, c)
			}()
		}
	}()
	t.Cleanup(func() {
		ln.Close()
		mu.Lock()
		for _, c := range conns {
			c.Close()
		}
		mu.Unlock()
		s.wg.Wait()
	})
	return s
}

func (s *fakeServer) addr() string { return s.ln.Addr().String() }

func reply(req *command, code ResponseCode, ext map[string]string, body []byte) *command {
	return &command{Code: int(code), Language: "JAVA", Version: 479, Opaque: req.Opaque, Flag: flagResponse, ExtFields: ext, Body: body}
}

func send(c net.Conn, cmd *command) error {
	b, err := encodeFrame(cmd, serializeJSON)
	if err != nil {
		return err
	}
	_, err = c.Write(b)
	return err
}

// echo answers each request with its "n" extField, after an optional delay.
func echo(delay time.Duration) func(int, net.Conn) {
	return func(_ int, c net.Conn) {
		for {
			req, err := readFrame(c)
			if err != nil {
				return
			}
			time.Sleep(delay)
			if send(c, reply(req, CodeSuccess, map[string]string{"n": req.ExtFields["n"]}, nil)) != nil {
				return
			}
		}
	}
}

// neverAnswer reads a request and then waits, without answering, until the
// connection is closed (rather than sleeping, which held up the cleanup).
func neverAnswer(_ int, c net.Conn) {
	_, _ = readFrame(c)
	_, _ = io.Copy(io.Discard, c)
}

func newTestClient(t *testing.T, ns string) *Client {
	t.Helper()
	c, err := New(Config{NameServer: ns, Timeout: 2 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

func TestRepliesMatchedByOpaqueOutOfOrder(t *testing.T) {
	const n = 20
	srv := startFake(t, func(_ int, c net.Conn) {
		var reqs []*command
		for len(reqs) < n {
			req, err := readFrame(c)
			if err != nil {
				return
			}
			reqs = append(reqs, req)
		}
		for i := len(reqs) - 1; i >= 0; i-- { // answer newest first
			if send(c, reply(reqs[i], CodeSuccess, map[string]string{"n": reqs[i].ExtFields["n"]}, []byte(reqs[i].ExtFields["n"]))) != nil {
				return
			}
		}
	})
	cl := newTestClient(t, srv.addr())
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			want := strconv.Itoa(i)
			resp, err := cl.call(t.Context(), srv.addr(), CodeGetMaxOffset, map[string]string{"n": want}, nil)
			if err != nil {
				errs <- err
				return
			}
			if resp.ExtFields["n"] != want || string(resp.Body) != want {
				errs <- fmt.Errorf("call %s got the answer to %s", want, resp.ExtFields["n"])
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if got := srv.accepted.Load(); got != 1 {
		t.Errorf("%d connections, want 1 multiplexed", got)
	}
	if got := cl.CallCount(CodeGetMaxOffset); got != n {
		t.Errorf("CallCount = %d, want %d", got, n)
	}
}

func TestDeadlineFromContext(t *testing.T) {
	srv := startFake(t, echo(500*time.Millisecond))
	cl := newTestClient(t, srv.addr())
	ctx, cancel := context.WithTimeout(t.Context(), 100*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := cl.call(ctx, srv.addr(), CodeGetMaxOffset, map[string]string{"n": "1"}, nil)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err = %v, want deadline exceeded", err)
	}
	var te *TimeoutError
	if !errors.As(err, &te) || te.Addr != srv.addr() || te.Code != CodeGetMaxOffset {
		t.Fatalf("err = %#v, want *TimeoutError for %s", err, srv.addr())
	}
	if d := time.Since(start); d > 400*time.Millisecond {
		t.Errorf("returned after %s, want about 100ms", d)
	}
	// The late answer to the first call is dropped; the connection still
	// serves the next call, which gets its own answer.
	resp, err := cl.call(t.Context(), srv.addr(), CodeGetMaxOffset, map[string]string{"n": "2"}, nil)
	if err != nil || resp.ExtFields["n"] != "2" {
		t.Fatalf("second call: %v, %+v", err, resp)
	}
	if got := srv.accepted.Load(); got != 1 {
		t.Errorf("%d connections, want 1", got)
	}
}

func TestDefaultTimeoutWithoutDeadline(t *testing.T) {
	srv := startFake(t, neverAnswer)
	cl, err := New(Config{NameServer: srv.addr(), Timeout: 80 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	_, err = cl.call(context.Background(), srv.addr(), CodeGetMaxOffset, nil, nil)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err = %v, want the default timeout", err)
	}
}

func TestReconnectAfterServerDropsConnection(t *testing.T) {
	// Each connection answers one request, then the server hangs up.
	srv := startFake(t, func(_ int, c net.Conn) {
		req, err := readFrame(c)
		if err != nil {
			return
		}
		_ = send(c, reply(req, CodeSuccess, map[string]string{"n": req.ExtFields["n"]}, nil))
	})
	cl := newTestClient(t, srv.addr())
	for i := range 3 {
		want := strconv.Itoa(i)
		// Wait until the client has noticed the hang-up, so the retry path
		// and the plain redial path are both exercised across iterations.
		resp, err := cl.call(t.Context(), srv.addr(), CodeGetMaxOffset, map[string]string{"n": want}, nil)
		if err != nil {
			t.Fatalf("call %d: %v", i, err)
		}
		if resp.ExtFields["n"] != want {
			t.Fatalf("call %d got %q", i, resp.ExtFields["n"])
		}
	}
	if got := srv.accepted.Load(); got < 2 {
		t.Errorf("%d connections, want a reconnect", got)
	}
}

func TestServerDropsConnectionMidCall(t *testing.T) {
	srv := startFake(t, func(n int, c net.Conn) {
		req, err := readFrame(c)
		if err != nil {
			return
		}
		if n == 1 {
			return // hang up without answering a fresh connection's first call
		}
		_ = send(c, reply(req, CodeSuccess, nil, nil))
	})
	cl := newTestClient(t, srv.addr())
	_, err := cl.call(t.Context(), srv.addr(), CodeGetMaxOffset, nil, nil)
	var ce *ConnError
	if !errors.As(err, &ce) {
		t.Fatalf("err = %v, want *ConnError", err)
	}
	if _, err := cl.call(t.Context(), srv.addr(), CodeGetMaxOffset, nil, nil); err != nil {
		t.Fatalf("after the drop: %v", err)
	}
}

func TestServerRequestDoesNotDisturbReplies(t *testing.T) {
	gotAnswer := make(chan *command, 1)
	srv := startFake(t, func(_ int, c net.Conn) {
		req, err := readFrame(c)
		if err != nil {
			return
		}
		// Before answering, the server asks us something (same opaque as our
		// request, to make mixing them up visible), and sends a oneway note.
		_ = send(c, &command{Code: int(CodeGetConsumerRunningInfo), Language: "JAVA", Opaque: req.Opaque, ExtFields: map[string]string{"clientId": "x"}})
		_ = send(c, &command{Code: int(CodeNotifyConsumerIDsChanged), Language: "JAVA", Opaque: 999, Flag: flagOneway})
		_ = send(c, reply(req, CodeSuccess, map[string]string{"n": "mine"}, nil))
		ans, err := readFrame(c)
		if err == nil {
			gotAnswer <- ans
		}
		for { // keep serving
			req, err := readFrame(c)
			if err != nil {
				return
			}
			_ = send(c, reply(req, CodeSuccess, map[string]string{"n": "later"}, nil))
		}
	})
	cl := newTestClient(t, srv.addr())
	resp, err := cl.call(t.Context(), srv.addr(), CodeGetMaxOffset, nil, nil)
	if err != nil || resp.ExtFields["n"] != "mine" {
		t.Fatalf("call: %v %+v", err, resp)
	}
	select {
	case ans := <-gotAnswer:
		if !ans.isResponse() || ResponseCode(ans.Code) != CodeRequestCodeNotSupported {
			t.Errorf("server's request answered with %+v, want a REQUEST_CODE_NOT_SUPPORTED response", ans)
		}
	case <-time.After(2 * time.Second):
		t.Fatal("the server's request was never answered")
	}
	resp, err = cl.call(t.Context(), srv.addr(), CodeGetMaxOffset, nil, nil)
	if err != nil || resp.ExtFields["n"] != "later" {
		t.Fatalf("next call: %v %+v", err, resp)
	}
}

func TestGarbageFromServerFailsCallsWithoutHanging(t *testing.T) {
	tests := []struct {
		name  string
		write []byte
		want  error
	}{
		{"huge length", []byte{0x7f, 0xff, 0xff, 0xff, 0, 0, 0, 0}, ErrFrameTooLarge},
		{"just over 16 MiB", []byte{0x01, 0x00, 0x00, 0x01, 0, 0, 0, 0}, ErrFrameTooLarge},
		{"length below header field", []byte{0, 0, 0, 2, 0, 0}, ErrBadFrame},
		{"bad header JSON", frameOf(serializeJSON, []byte(`{"code":0,"opaque":`), nil), ErrBadFrame},
		{"unknown serialization", frameOf(9, []byte(`{}`), nil), ErrBadFrame},
		{"short frame then close", []byte{0, 0, 1, 0, 0, 0, 0, 2, '{'}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := startFake(t, func(n int, c net.Conn) {
				req, err := readFrame(c)
				if err != nil {
					return
				}
				if n == 1 {
					_, _ = c.Write(tt.write)
					time.Sleep(50 * time.Millisecond)
					return
				}
				_ = send(c, reply(req, CodeSuccess, nil, nil))
			})
			cl := newTestClient(t, srv.addr())
			ctx, cancel := context.WithTimeout(t.Context(), 3*time.Second)
			defer cancel()
			_, err := cl.call(ctx, srv.addr(), CodeGetMaxOffset, nil, nil)
			var ce *ConnError
			if !errors.As(err, &ce) {
				t.Fatalf("err = %v, want *ConnError", err)
			}
			if tt.want != nil && !errors.Is(err, tt.want) {
				t.Fatalf("err = %v, want %v", err, tt.want)
			}
			if _, err := cl.call(ctx, srv.addr(), CodeGetMaxOffset, nil, nil); err != nil {
				t.Fatalf("the next call does not recover: %v", err)
			}
		})
	}
}

func TestOnewayNeedsNoAnswer(t *testing.T) {
	got := make(chan *command, 1)
	srv := startFake(t, func(_ int, c net.Conn) {
		req, err := readFrame(c)
		if err == nil {
			got <- req
		}
	})
	cl := newTestClient(t, srv.addr())
	if err := cl.oneway(t.Context(), srv.addr(), CodeUpdateConsumerOffset, map[string]string{"a": "b"}, nil); err != nil {
		t.Fatal(err)
	}
	select {
	case req := <-got:
		if !req.isOneway() || req.isResponse() || req.Code != int(CodeUpdateConsumerOffset) {
			t.Fatalf("server got %+v", req)
		}
	case <-time.After(2 * time.Second):
		t.Fatal("oneway request never arrived")
	}
}

func TestBrokerErrorCodes(t *testing.T) {
	srv := startFake(t, func(_ int, c net.Conn) {
		for {
			req, err := readFrame(c)
			if err != nil {
				return
			}
			code, _ := strconv.Atoi(req.ExtFields["answer"])
			resp := reply(req, ResponseCode(code), nil, nil)
			resp.Remark = "remark " + req.ExtFields["answer"]
			_ = send(c, resp)
		}
	})
	cl := newTestClient(t, srv.addr())
	for code, want := range map[ResponseCode]error{
		CodeTopicNotExist:             ErrTopicNotFound,
		CodeConsumerNotOnline:         ErrConsumerNotOnline,
		CodeSubscriptionGroupNotExist: ErrGroupNotFound,
		CodeRequestCodeNotSupported:   ErrNotSupported,
	} {
		_, err := cl.call(t.Context(), srv.addr(), CodeGetMaxOffset, map[string]string{"answer": strconv.Itoa(int(code))}, nil)
		var be *BrokerError
		if !errors.As(err, &be) || be.Code != code || be.Addr != srv.addr() || be.Remark == "" {
			t.Errorf("code %d: err = %#v", code, err)
		}
		if !errors.Is(err, want) {
			t.Errorf("code %d: errors.Is(%v, %v) = false", code, err, want)
		}
	}
}

func TestNameServerFailover(t *testing.T) {
	// A port with nothing listening: take one and close it.
	dead, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	deadAddr := dead.Addr().String()
	dead.Close()

	route := `{"brokerDatas":[{"brokerAddrs":{0:"127.0.0.1:1"},"brokerName":"b","cluster":"C"}],"queueDatas":[{"brokerName":"b","perm":6,"readQueueNums":2,"topicSysFlag":0,"writeQueueNums":2}]}`
	var routeCalls atomic.Int32
	live := startFake(t, func(_ int, c net.Conn) {
		for {
			req, err := readFrame(c)
			if err != nil {
				return
			}
			if req.ExtFields["topic"] == "missing" {
				r := reply(req, CodeTopicNotExist, nil, nil)
				r.Remark = "No topic route info in name server for the topic: missing"
				_ = send(c, r)
				continue
			}
			routeCalls.Add(1)
			_ = send(c, reply(req, CodeSuccess, nil, []byte(route)))
		}
	})
	cl := newTestClient(t, deadAddr+";"+live.addr())
	r, err := cl.TopicRoute(t.Context(), "T")
	if err != nil {
		t.Fatalf("TopicRoute with the first NameServer down: %v", err)
	}
	if a, _ := r.MasterAddr("b"); a != "127.0.0.1:1" {
		t.Errorf("master of b = %q", a)
	}
	if q := r.ReadQueues(); len(q) != 2 || q[1] != (MessageQueue{Topic: "T", BrokerName: "b", QueueID: 1}) {
		t.Errorf("ReadQueues = %v", q)
	}
	// Cached: a second call within the TTL asks nobody.
	if _, err := cl.TopicRoute(t.Context(), "T"); err != nil {
		t.Fatal(err)
	}
	if got := routeCalls.Load(); got != 1 {
		t.Errorf("%d route calls, want 1 (cached)", got)
	}
	cl.InvalidateRoute("T")
	if _, err := cl.TopicRoute(t.Context(), "T"); err != nil {
		t.Fatal(err)
	}
	if got := routeCalls.Load(); got != 2 {
		t.Errorf("%d route calls after invalidation, want 2", got)
	}
	_, err = cl.TopicRoute(t.Context(), "missing")
	if !errors.Is(err, ErrTopicNotFound) {
		t.Errorf("unknown topic: err = %v, want ErrTopicNotFound", err)
	}

	// With every NameServer down, the error names them all.
	cl2 := newTestClient(t, deadAddr)
	if _, err := cl2.TopicList(t.Context()); err == nil {
		t.Fatal("no NameServer up, yet no error")
	}
}

func TestGoAwayRetriesOnNewConnection(t *testing.T) {
	srv := startFake(t, func(n int, c net.Conn) {
		for {
			req, err := readFrame(c)
			if err != nil {
				return
			}
			if n == 1 {
				_ = send(c, reply(req, CodeGoAway, nil, nil))
				continue
			}
			_ = send(c, reply(req, CodeSuccess, map[string]string{"offset": "42"}, nil))
		}
	})
	cl := newTestClient(t, srv.addr())
	got, err := cl.MaxOffset(t.Context(), srv.addr(), MessageQueue{Topic: "T", BrokerName: "b"})
	if err != nil || got != 42 {
		t.Fatalf("MaxOffset = %d, %v", got, err)
	}
	if n := srv.accepted.Load(); n != 2 {
		t.Errorf("%d connections, want 2", n)
	}
}

func TestClosedClient(t *testing.T) {
	srv := startFake(t, echo(0))
	cl := newTestClient(t, srv.addr())
	if _, err := cl.call(t.Context(), srv.addr(), CodeGetMaxOffset, nil, nil); err != nil {
		t.Fatal(err)
	}
	cl.Close()
	if _, err := cl.call(t.Context(), srv.addr(), CodeGetMaxOffset, nil, nil); !errors.Is(err, ErrClosed) {
		t.Fatalf("after Close: %v", err)
	}
}

// 4.9.x brokers answer a request sent with a binary header with a binary
// header; the client must read either, whatever it sent.
func TestBinaryHeaderAnswers(t *testing.T) {
	srv := startFake(t, func(_ int, c net.Conn) {
		for {
			req, err := readFrame(c)
			if err != nil {
				return
			}
			b, _ := encodeFrame(reply(req, CodeSuccess, map[string]string{"offset": "77"}, nil), serializeRocketMQ)
			if _, err := c.Write(b); err != nil {
				return
			}
		}
	})
	cl := newTestClient(t, srv.addr())
	got, err := cl.MaxOffset(t.Context(), srv.addr(), MessageQueue{Topic: "T", BrokerName: "b"})
	if err != nil || got != 77 {
		t.Fatalf("MaxOffset over a binary answer = %d, %v", got, err)
	}
}

// The same response code means different things per operation: QUERY_NOT_FOUND
// is "no committed offset" for QUERY_CONSUMER_OFFSET and "nothing matched"
// for a key query.
func TestQueryNotFoundPerOperation(t *testing.T) {
	srv := startFake(t, func(_ int, c net.Conn) {
		for {
			req, err := readFrame(c)
			if err != nil {
				return
			}
			r := reply(req, CodeQueryNotFound, nil, nil)
			r.Remark = "Not found, V3_0_6_SNAPSHOT maybe this group consumer boot first"
			_ = send(c, r)
		}
	})
	cl := newTestClient(t, srv.addr())
	mq := MessageQueue{Topic: "T", BrokerName: "b"}
	_, err := cl.QueryConsumerOffset(t.Context(), srv.addr(), "g", mq)
	var be *BrokerError
	if !errors.Is(err, ErrNoConsumerOffset) || !errors.As(err, &be) || be.Code != CodeQueryNotFound {
		t.Errorf("QueryConsumerOffset: %v, want ErrNoConsumerOffset from a *BrokerError", err)
	}
	r, err := cl.QueryMessageByKey(t.Context(), srv.addr(), "T", "k", 0, time.Time{}, time.Time{})
	if err != nil || len(r.Messages) != 0 {
		t.Errorf("QueryMessageByKey: %+v, %v; want an empty result", r, err)
	}
}

// A frame of exactly MaxFrameSize is read whole; the limit is not off by one.
func TestLargestFrameAccepted(t *testing.T) {
	srv := startFake(t, func(_ int, c net.Conn) {
		for {
			req, err := readFrame(c)
			if err != nil {
				return
			}
			r := reply(req, CodeSuccess, nil, nil)
			h, _ := encodeHeaderJSON(r)
			r.Body = make([]byte, MaxFrameSize-4-len(h))
			r.Body[len(r.Body)-1] = 0xAB
			if send(c, r) != nil {
				return
			}
		}
	})
	// 16 MiB through the race detector on a busy machine can take longer than the other
	// tests' 2 s: this test is about the size limit, not the time.
	cl, err := New(Config{NameServer: srv.addr(), Timeout: 30 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cl.Close() })
	resp, err := cl.call(t.Context(), srv.addr(), CodeQueryMessage, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(resp.Body) < MaxFrameSize-200 || resp.Body[len(resp.Body)-1] != 0xAB {
		t.Fatalf("body of %d bytes", len(resp.Body))
	}
}

// A broker that no longer has the topic makes the cached route stale: the
// next TopicRoute asks the NameServer again.
func TestRouteInvalidatedOnBrokerError(t *testing.T) {
	var routeCalls atomic.Int32
	var brokerAddr string
	broker := startFake(t, func(_ int, c net.Conn) {
		for {
			req, err := readFrame(c)
			if err != nil {
				return
			}
			r := reply(req, CodeTopicNotExist, nil, nil)
			r.Remark = "topic[T] not exist"
			_ = send(c, r)
		}
	})
	brokerAddr = broker.addr()
	ns := startFake(t, func(_ int, c net.Conn) {
		for {
			req, err := readFrame(c)
			if err != nil {
				return
			}
			routeCalls.Add(1)
			route := `{"brokerDatas":[{"brokerAddrs":{"0":"` + brokerAddr + `"},"brokerName":"b","cluster":"C"}],"queueDatas":[{"brokerName":"b","perm":6,"readQueueNums":1,"writeQueueNums":1}]}`
			_ = send(c, reply(req, CodeSuccess, nil, []byte(route)))
		}
	})
	cl := newTestClient(t, ns.addr())
	r, err := cl.TopicRoute(t.Context(), "T")
	if err != nil {
		t.Fatal(err)
	}
	addr, _ := r.MasterAddr("b")
	if _, err := cl.TopicStats(t.Context(), addr, "T"); !errors.Is(err, ErrTopicNotFound) {
		t.Fatalf("TopicStats: %v", err)
	}
	if _, err := cl.TopicRoute(t.Context(), "T"); err != nil {
		t.Fatal(err)
	}
	if got := routeCalls.Load(); got != 2 {
		t.Errorf("%d route calls, want 2: the broker's TOPIC_NOT_EXIST should have dropped the cached route", got)
	}
}

func TestCloseFailsCallsInFlight(t *testing.T) {
	srv := startFake(t, neverAnswer)
	cl := newTestClient(t, srv.addr())
	errc := make(chan error, 1)
	go func() {
		_, err := cl.call(t.Context(), srv.addr(), CodeGetMaxOffset, nil, nil)
		errc <- err
	}()
	dev.Eventually(t, 2*time.Second, "call in flight", func() error {
		if cl.CallCount(CodeGetMaxOffset) == 0 {
			return errors.New("not sent yet")
		}
		return nil
	})
	cl.Close()
	select {
	case err := <-errc:
		if !errors.Is(err, ErrClosed) {
			t.Fatalf("call in flight at Close: %v, want ErrClosed", err)
		}
	case <-time.After(2 * time.Second):
		t.Fatal("Close left a call hanging")
	}
}

// A broker still starting refuses runtime info; its answer's version field
// still tells which release it runs.
func TestBrokerVersionFromRefusedRuntimeInfo(t *testing.T) {
	srv := startFake(t, func(_ int, c net.Conn) {
		for {
			req, err := readFrame(c)
			if err != nil {
				return
			}
			if send(c, reply(req, CodeSystemError, nil, nil)) != nil {
				return
			}
		}
	})
	cl := newTestClient(t, srv.addr())
	v, err := cl.BrokerVersion(t.Context(), srv.addr())
	if err != nil || v.Ordinal != VersionOrdinal5_3_3 || v.String() != "5.3.3" {
		t.Fatalf("BrokerVersion = %+v (%s), %v", v, v, err)
	}
}

// A 5.5 broker's runtime info names its release but has no brokerVersion
// ordinal: the answer's version field gives it, on the first call as on the
// later (cached) ones, so a feature check does not flip between them.
func TestBrokerVersionWhenRuntimeInfoHasNoOrdinal(t *testing.T) {
	srv := startFake(t, func(_ int, c net.Conn) {
		for {
			req, err := readFrame(c)
			if err != nil {
				return
			}
			resp := reply(req, CodeSuccess, nil, []byte(`{"table":{"brokerVersionDesc":"V5_5_1"}}`))
			resp.Version = 515
			if send(c, resp) != nil {
				return
			}
		}
	})
	cl := newTestClient(t, srv.addr())
	for i := range 2 {
		v, err := cl.BrokerVersion(t.Context(), srv.addr())
		if err != nil || v.Ordinal != 515 || !v.AtLeast(VersionOrdinal5_5_0) || v.String() != "5.5.1" {
			t.Fatalf("call %d: BrokerVersion = %+v (%s), %v", i+1, v, v, err)
		}
	}
}
