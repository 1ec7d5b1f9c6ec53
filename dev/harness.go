package dev

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"sync"
	"testing"
	"time"
)

// The test harness: one cluster per test binary, started on the first
// RequireCluster and stopped by RunTests after m.Run, or an existing cluster
// named by RMQC_TEST_NAMESRV (how `make test` shares one across packages).
var harness struct {
	active  bool // RunTests is running
	once    sync.Once
	cluster *Cluster
	owned   bool // started here, so RunTests stops it
	err     error
	missing []string
}

// RunTests runs m, stops the cluster RequireCluster may have started and removes
// the dev/demo build of StartConsumerProcess. Use
// it as TestMain's body: func TestMain(m *testing.M) { os.Exit(dev.RunTests(m)) }.
// Tests that never call RequireCluster cost nothing.
func RunTests(m *testing.M) int {
	harness.active = true
	code := m.Run()
	if c := harness.cluster; c != nil && harness.owned {
		if code == 0 {
			// The store is thrown away: skip the brokers' 10-30 s shutdown.
			if err := c.Kill(); err != nil {
				fmt.Fprintf(os.Stderr, "dev: stopping RocketMQ: %v\n", err)
			}
			os.RemoveAll(c.Dir)
		} else {
			// Stop cleanly so the logs are complete for whoever reads them.
			if err := c.Stop(); err != nil {
				fmt.Fprintf(os.Stderr, "dev: stopping RocketMQ: %v\n", err)
			}
			fmt.Fprintf(os.Stderr, "dev: RocketMQ %s logs kept in %s\n", c.Version, c.Dir)
		}
	}
	if demo.dir != "" {
		os.RemoveAll(demo.dir)
	}
	return code
}

// RequireCluster returns the test binary's cluster, starting it on first use
// (or attaching to RMQC_TEST_NAMESRV). Without java or mvn it skips the test
// saying what to install, or fails it when CI=true.
func RequireCluster(t testing.TB) *Cluster {
	t.Helper()
	if !harness.active {
		t.Fatal("dev.RequireCluster needs TestMain to call dev.RunTests (it stops the cluster)")
	}
	harness.once.Do(setupCluster)
	if len(harness.missing) > 0 {
		msg := "local RocketMQ: " + ErrMissingTools{Missing: harness.missing}.Error()
		if os.Getenv("CI") == "true" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	if harness.err != nil {
		t.Fatal(harness.err)
	}
	return harness.cluster
}

func setupCluster() {
	version := VersionFromEnv()
	if ns := os.Getenv("RMQC_TEST_NAMESRV"); ns != "" {
		// Attaching only needs java (for mqadmin) and jars that rmqdev fetched.
		if harness.missing = MissingTools(version); len(harness.missing) > 0 {
			return
		}
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		defer cancel()
		harness.cluster, harness.err = Attach(ctx, ns)
		if harness.err != nil {
			harness.err = fmt.Errorf("RMQC_TEST_NAMESRV=%s: %w", ns, harness.err)
		}
		return
	}
	// Start checks the tools itself and says which are missing (ErrMissingTools below).
	harness.cluster, harness.err = Start(context.Background(), Options{
		Version:      version,
		KeepDir:      true, // RunTests removes it only when the tests passed
		SecondBroker: os.Getenv("RMQC_TEST_SECOND_BROKER") == "true",
		Log:          os.Stderr,
	})
	var missing ErrMissingTools
	var busy ErrPortsBusy
	switch {
	case errors.As(harness.err, &missing):
		harness.missing, harness.err = missing.Missing, nil
	case errors.As(harness.err, &busy):
		harness.err = fmt.Errorf("%w\nto share one cluster between test packages, run `go run ./dev/cmd/rmqdev up` "+
			"once and set RMQC_TEST_NAMESRV=127.0.0.1:19876", harness.err)
	}
	harness.owned = harness.cluster != nil
}

// UniqueName returns prefix plus a random suffix, usable as a topic or group
// name, so tests sharing a cluster never collide.
func UniqueName(prefix string) string {
	b := make([]byte, 5)
	rand.Read(b)
	return prefix + "-" + hex.EncodeToString(b)
}
