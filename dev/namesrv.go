package dev

import (
	"context"
	"fmt"
	"net"
	"os"
	"strconv"
	"testing"
	"time"
)

// StartNameServer starts a NameServer of its own on a free loopback port, of
// RMQ_VERSION, with no broker registered with it, and stops it when the test ends. It is
// a second NameServer that disagrees with the cluster's (it routes nothing), for tests of
// a console given both; a JVM of 256 MB. It returns at once: ready waits until the
// NameServer accepts connections (several seconds on a busy machine, which the test
// may spend on other work) and returns its address.
func StartNameServer(t testing.TB) (ready func() string) {
	t.Helper()
	version := VersionFromEnv()
	if !Cached(version) {
		t.Fatalf("start a NameServer: RocketMQ %s is not in the cache (make rocketmq)", version)
	}
	lib, err := LibDir(version)
	if err != nil {
		t.Fatal(err)
	}
	l, err := net.Listen("tcp", Host+":0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	home := t.TempDir()
	if err := writeRocketMQHome(home); err != nil {
		t.Fatal(err)
	}
	p, err := startNameServer(version, lib, home, append(os.Environ(), "ROCKETMQ_HOME="+home), port, false)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = p.stop(0) }) // nothing to keep: no need to wait for its shutdown
	addr := net.JoinHostPort(Host, strconv.Itoa(port))
	return func() string {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		defer cancel()
		if _, err := waitLine(ctx, p, nameServerBooted); err != nil {
			t.Fatal(err)
		}
		if err := dialOK(ctx, addr); err != nil {
			t.Fatal(fmt.Errorf("NameServer printed its boot line but %w", err))
		}
		return addr
	}
}
