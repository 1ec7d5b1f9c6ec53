// Package rocketmqtest holds what tests of several packages need around a real
// RocketMQ client.
package rocketmqtest

import (
	"testing"

	"rmqconsole/rocketmq"
)

// Client opens a client with cfg for t and closes it when t ends; a client that cannot
// be made fails t.
func Client(t testing.TB, cfg rocketmq.Config) *rocketmq.Client {
	t.Helper()
	c, err := rocketmq.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}
