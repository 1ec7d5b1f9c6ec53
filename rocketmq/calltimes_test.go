package rocketmq

import (
	"context"
	"testing"
	"time"
)

// Every request sent is timed, per code, whether it was answered or given up at the
// timeout; one never sent (its caller's deadline already past) is not. A request that
// waited for the 200 ms timeout is in no bucket below 200 ms.
func TestCallTimesCountAnsweredAndTimedOutRequests(t *testing.T) {
	answering := startFake(t, echo(0))
	silent := startFake(t, neverAnswer)
	cl, err := New(Config{NameServer: answering.addr(), Timeout: 200 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	for range 3 {
		if _, err := cl.call(t.Context(), answering.addr(), CodeGetMaxOffset, map[string]string{"n": "1"}, nil); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := cl.call(t.Context(), silent.addr(), CodeGetBrokerRuntimeInfo, nil, nil); err == nil {
		t.Fatal("a silent broker answered")
	}
	done, cancel := context.WithCancel(t.Context())
	cancel()
	_, _ = cl.call(done, answering.addr(), CodeGetConsumeStats, nil, nil)

	times := cl.CallTimes()
	if got := times[CodeGetMaxOffset]; got.Count != 3 || got.Buckets[len(got.Buckets)-1] != 3 || len(got.Buckets) != len(CallTimeBuckets) {
		t.Errorf("answered: %+v, want 3 requests in the last bucket", got)
	}
	got := times[CodeGetBrokerRuntimeInfo]
	if got.Count != 1 || got.Sum < 200*time.Millisecond || len(got.Buckets) != len(CallTimeBuckets) {
		t.Fatalf("timed out: %+v, want 1 request of at least 200ms", got)
	}
	for i, le := range CallTimeBuckets {
		if le < 0.2 && got.Buckets[i] != 0 {
			t.Errorf("the timed-out request is counted within %gs", le)
		}
	}
	if _, ok := times[CodeGetConsumeStats]; ok {
		t.Error("a request never sent is timed")
	}
}
