package rocketmq

import (
	"context"
	"errors"
	"net"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// A caller's long deadline (a whole page or list) does not stretch one call:
// each is bounded by the client's timeout. The bound is loose (a fraction of
// the caller's deadline) so a slow machine never fails it, yet it fails when
// the timeout is skipped, as the call then waits for the caller's minute.
func TestCallBoundedByTimeoutUnderLongerDeadline(t *testing.T) {
	srv := startFake(t, neverAnswer)
	cl, err := New(Config{NameServer: srv.addr(), Timeout: 200 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	start := time.Now()
	_, err = cl.call(ctx, srv.addr(), CodeGetBrokerRuntimeInfo, nil, nil)
	var te *TimeoutError
	if !errors.As(err, &te) || te.Addr != srv.addr() {
		t.Fatalf("err = %v, want a *TimeoutError naming %s", err, srv.addr())
	}
	if d := time.Since(start); d > 20*time.Second {
		t.Errorf("a silent broker held the call %s under a 1-minute deadline; the client timeout is 200ms", d)
	}
}

// A call whose caller's deadline already passed is not sent, and says so
// instead of "no answer within 0s".
func TestCallAfterDeadlineNotSent(t *testing.T) {
	var got atomic.Int32
	srv := startFake(t, func(n int, c net.Conn) {
		got.Add(1)
		neverAnswer(n, c)
	})
	cl := newTestClient(t, srv.addr())
	ctx, cancel := context.WithTimeout(t.Context(), time.Nanosecond)
	defer cancel()
	<-ctx.Done()
	_, err := cl.call(ctx, srv.addr(), CodeGetMaxOffset, nil, nil)
	if !errors.Is(err, context.DeadlineExceeded) || !containsAll(err.Error(), "not sent") {
		t.Errorf("err = %v, want deadline exceeded, not sent", err)
	}
	if got.Load() != 0 {
		t.Errorf("a call past its deadline opened a connection")
	}
}

// silentNameServer accepts connections and reads requests but never answers,
// like a frozen process; it counts the requests it got.
func silentNameServer(t *testing.T) (*fakeServer, *atomic.Int32) {
	var requests atomic.Int32
	srv := startFake(t, func(_ int, c net.Conn) {
		for {
			if _, err := readFrame(c); err != nil {
				return
			}
			requests.Add(1)
		}
	})
	return srv, &requests
}

func clusterInfoServer(t *testing.T) *fakeServer {
	body := []byte(`{"brokerAddrTable":{"b":{"brokerAddrs":{0:"127.0.0.1:1"},"brokerName":"b","cluster":"C"}},"clusterAddrTable":{"C":["b"]}}`)
	return startFake(t, func(_ int, c net.Conn) {
		for {
			req, err := readFrame(c)
			if err != nil {
				return
			}
			_ = send(c, reply(req, CodeSuccess, nil, body))
		}
	})
}

// A NameServer that accepts and never answers is passed over for the next one
// within one timeout (not after it), and asked last for a while after that.
func TestSilentNameServerSkippedAndRememberedSlow(t *testing.T) {
	silent, requests := silentNameServer(t)
	live := clusterInfoServer(t)
	const timeout = 2 * time.Second
	cl, err := New(Config{NameServer: silent.addr() + ";" + live.addr(), Timeout: timeout})
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()

	// With the caller's deadline at the timeout, asking the first NameServer
	// for all of it would leave nothing for the second.
	ctx, cancel := context.WithTimeout(t.Context(), timeout)
	defer cancel()
	info, err := cl.ClusterInfo(ctx)
	if err != nil {
		t.Fatalf("ClusterInfo with a silent first NameServer: %v", err)
	}
	if _, ok := info.Brokers["b"]; !ok {
		t.Errorf("cluster info %+v: want broker b from the second NameServer", info)
	}
	if slow := cl.SlowNameServers(); len(slow) != 1 || slow[0] != silent.addr() {
		t.Errorf("SlowNameServers = %v, want [%s]", slow, silent.addr())
	}

	// Remembered: the next calls go to the live one first.
	before := requests.Load()
	for range 3 {
		if _, err := cl.ClusterInfo(t.Context()); err != nil {
			t.Fatal(err)
		}
	}
	if n := requests.Load() - before; n != 0 {
		t.Errorf("the silent NameServer was asked %d more times while remembered slow", n)
	}
	if addr, err := cl.PingNameServers(t.Context()); err != nil || addr != live.addr() {
		t.Errorf("PingNameServers = %q, %v; want %s", addr, err, live.addr())
	}
}

// With every NameServer silent the walk still ends within one timeout and
// names them all.
func TestEveryNameServerSilentWithinOneTimeout(t *testing.T) {
	a, _ := silentNameServer(t)
	b, _ := silentNameServer(t)
	cl, err := New(Config{NameServer: a.addr() + ";" + b.addr(), Timeout: 300 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	start := time.Now()
	_, err = cl.ClusterInfo(ctx)
	if err == nil || !containsAll(err.Error(), a.addr(), b.addr()) {
		t.Errorf("err = %v, want one naming both NameServers", err)
	}
	if d := time.Since(start); d > 20*time.Second {
		t.Errorf("took %s, want about the 300ms timeout", d)
	}
}

func containsAll(s string, parts ...string) bool {
	for _, p := range parts {
		if !strings.Contains(s, p) {
			return false
		}
	}
	return true
}
