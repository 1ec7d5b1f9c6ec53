package rocketmq

import (
	"errors"
	"net"
	"sync"
	"testing"
	"time"
)

// A held pull asks the broker to hold it (the suspend flag and its timeout) and waits
// for the answer longer than the client's timeout, as long as the broker may hold it;
// a plain pull asks for no hold and gives up at the client's timeout.
func TestPullHeldWaitsForTheBrokerToAnswer(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	var mu sync.Mutex
	var asked []map[string]string
	go func() {
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				_ = ServeRemoting(conn, func(r *Request) *Response {
					mu.Lock()
					asked = append(asked, r.ExtFields)
					mu.Unlock()
					time.Sleep(400 * time.Millisecond) // a broker holding the pull until its timeout
					return &Response{Code: CodePullNotFound, ExtFields: map[string]string{"nextBeginOffset": "7", "minOffset": "0", "maxOffset": "7"}}
				})
			}()
		}
	}()
	addr := ln.Addr().String()
	cl, err := New(Config{NameServer: addr, Timeout: 200 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	mq := MessageQueue{Topic: "T", BrokerName: "broker-a", QueueID: 1}

	r, err := cl.PullHeld(t.Context(), addr, mq, 7, 32, time.Second)
	if err != nil || r.Status != PullNoNewMsg || r.NextBeginOffset != 7 {
		t.Fatalf("held pull: %+v, %v; want NO_NEW_MSG at 7", r, err)
	}
	var te *TimeoutError
	if _, err := cl.Pull(t.Context(), addr, mq, 7, 32); !errors.As(err, &te) {
		t.Errorf("plain pull answered after the client's timeout: %v, want a timeout", err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(asked) != 2 || asked[0]["sysFlag"] != "6" || asked[0]["suspendTimeoutMillis"] != "1000" ||
		asked[1]["sysFlag"] != "4" || asked[1]["suspendTimeoutMillis"] != "0" {
		t.Errorf("requests %v; want the held pull with sysFlag 6 and 1000 ms, the plain one with 4 and 0", asked)
	}
}
