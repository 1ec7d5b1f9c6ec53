package dev

import (
	"testing"
	"time"
)

// Eventually polls cond until it returns nil, failing the test with cond's last error
// once timeout has passed. RocketMQ's key index, offsets and rebalances settle
// asynchronously: tests wait for a condition, never for a guessed time.
func Eventually(t testing.TB, timeout time.Duration, what string, cond func() error) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		err := cond()
		if err == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: still failing after %s: %v", what, timeout, err)
		}
		time.Sleep(200 * time.Millisecond)
	}
}
