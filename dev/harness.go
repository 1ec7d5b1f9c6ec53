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

	private, withSlaves privateCluster // RequirePrivateCluster's, RequirePrivateClusterWithSlaves'

	proxyOnce sync.Once
	proxy     *Proxy // RequireProxy's, when the shared cluster came without one
	proxyErr  error
}

type privateCluster struct {
	once    sync.Once
	cluster *Cluster
	err     error
	missing []string
}

// RunTests runs m, stops the clusters RequireCluster and RequirePrivateCluster
// may have started and the PostgreSQL of RequirePostgres, and removes the dev/demo build of StartConsumerProcess. Use
// it as TestMain's body: func TestMain(m *testing.M) { os.Exit(dev.RunTests(m)) }.
// Tests that never call RequireCluster cost nothing.
func RunTests(m *testing.M) int {
	harness.active = true
	code := m.Run()
	if p := harness.proxy; p != nil {
		if err := p.Stop(code != 0); err != nil {
			fmt.Fprintf(os.Stderr, "dev: stopping the Proxy: %v\n", err)
		}
	}
	for _, c := range []*Cluster{harness.private.cluster, harness.withSlaves.cluster} {
		if c != nil {
			stopTestCluster(c, code)
		}
	}
	if c := harness.cluster; c != nil && harness.owned {
		stopTestCluster(c, code)
	}
	if demo.dir != "" {
		os.RemoveAll(demo.dir)
	}
	StopPostgres()
	StopLDAP()
	return code
}

// stopTestCluster stops a cluster the harness started: at once when the
// tests passed, cleanly (keeping its logs) when they failed.
func stopTestCluster(c *Cluster, code int) {
	if code == 0 {
		// The store is thrown away: skip the brokers' 10-30 s shutdown.
		if err := c.Kill(); err != nil {
			fmt.Fprintf(os.Stderr, "dev: stopping RocketMQ: %v\n", err)
		}
		os.RemoveAll(c.Dir)
		return
	}
	// Stop cleanly so the logs are complete for whoever reads them.
	if err := c.Stop(); err != nil {
		fmt.Fprintf(os.Stderr, "dev: stopping RocketMQ: %v\n", err)
	}
	fmt.Fprintf(os.Stderr, "dev: RocketMQ %s logs kept in %s\n", c.Version, c.Dir)
}

// RequireCluster returns the test binary's cluster, starting it on first use
// (or attaching to RMQC_TEST_NAMESRV). It skips under -short (integration
// tests are not unit tests); without java or mvn it skips the test saying what
// to install, or fails it when CI=true.
func RequireCluster(t testing.TB) *Cluster {
	t.Helper()
	requireHarness(t, "RequireCluster")
	harness.once.Do(setupCluster)
	return required(t, harness.cluster, harness.err, harness.missing)
}

// RequireProxy returns the shared cluster with a RocketMQ Proxy in front of it
// (ProxyRemoting, ProxyGRPC set): the one it was started with, the one named by
// RMQC_TEST_PROXY and RMQC_TEST_PROXY_GRPC in front of the RMQC_TEST_NAMESRV
// cluster (how `make test` shares one Proxy across packages), or else one
// started on free ports on first use and stopped by RunTests. On 4.x it skips:
// there is no Proxy to run (tests of what the console says on 4.x use
// RequireCluster).
func RequireProxy(t testing.TB) *Cluster {
	t.Helper()
	c := RequireCluster(t)
	if is4x(c.Version) {
		t.Skipf("RocketMQ %s: %v", c.Version, ErrProxyNeeds5x)
	}
	harness.proxyOnce.Do(func() {
		if c.ProxyRemoting != "" {
			return
		}
		if remoting := os.Getenv("RMQC_TEST_PROXY"); remoting != "" && !harness.owned {
			harness.proxyErr = attachProxy(c, remoting, os.Getenv("RMQC_TEST_PROXY_GRPC"))
			return
		}
		ports, err := freeProxyPorts()
		if err != nil {
			harness.proxyErr = err
			return
		}
		ctx, cancel := context.WithTimeout(context.Background(), testStartupTimeout)
		defer cancel()
		harness.proxy, harness.proxyErr = c.StartProxy(ctx, ports, os.Stderr)
	})
	if harness.proxyErr != nil {
		t.Fatal(harness.proxyErr)
	}
	return c
}

// attachProxy records the running Proxy at remoting (and grpc) in c once it
// routes c's cluster topic, as one RequireProxy starts would.
func attachProxy(c *Cluster, remoting, grpc string) error {
	if grpc == "" {
		return fmt.Errorf("RMQC_TEST_PROXY=%s: RMQC_TEST_PROXY_GRPC (its gRPC endpoint) is unset", remoting)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, err := queryRoute(ctx, remoting, c.ClusterName); err != nil {
		return fmt.Errorf("RMQC_TEST_PROXY=%s does not route %s: %w", remoting, c.ClusterName, err)
	}
	if err := dialOK(ctx, grpc); err != nil {
		return fmt.Errorf("RMQC_TEST_PROXY_GRPC: %w", err)
	}
	c.ProxyRemoting, c.ProxyGRPC = remoting, grpc
	return nil
}

// RequirePrivateCluster returns a two-broker cluster of the test binary's own,
// on FreePorts() beside the shared one, started on first use and stopped by
// RunTests: for tests that freeze, kill or restart a broker or the NameServer
// (Freeze, KillBroker, RestartBroker), which must not disturb other packages.
// A test that breaks it restores it (Thaw, RestartBroker) before it ends.
// Starting it costs a NameServer and two broker JVMs: share it in the package.
func RequirePrivateCluster(t testing.TB) *Cluster {
	t.Helper()
	requireHarness(t, "RequirePrivateCluster")
	return requirePrivate(t, &harness.private, false)
}

// RequirePrivateClusterWithSlaves is RequirePrivateCluster with a slave
// (brokerId 1) beside each master, "broker-a-s" and "broker-b-s" to Freeze:
// for tests of reads that fall back to a slave and writes that must not. It
// costs a NameServer and four broker JVMs; a package needs only one of the two
// private clusters.
func RequirePrivateClusterWithSlaves(t testing.TB) *Cluster {
	t.Helper()
	requireHarness(t, "RequirePrivateClusterWithSlaves")
	return requirePrivate(t, &harness.withSlaves, true)
}

func requirePrivate(t testing.TB, p *privateCluster, slaves bool) *Cluster {
	t.Helper()
	privateAllowed(t)
	timeout := testStartupTimeout
	if slaves {
		timeout *= 2 // five JVMs, on a machine busy with other packages' clusters
	}
	p.once.Do(func() {
		version := VersionFromEnv()
		if p.missing = MissingTools(version); len(p.missing) > 0 {
			return
		}
		// Another test binary may pick the same free ports at the same moment:
		// one more try on a fresh set.
		for attempt := 1; attempt <= 2; attempt++ {
			var ports Ports
			if ports, p.err = FreePorts(); p.err != nil {
				return
			}
			p.cluster, p.err = Start(context.Background(), Options{
				Version: version, SecondBroker: true, Slaves: slaves, Ports: ports, KeepDir: true, StartupTimeout: timeout, Log: os.Stderr})
			if p.err == nil {
				return
			}
			fmt.Fprintf(os.Stderr, "dev: private RocketMQ on %s: %v\n", ports.NameServerAddr(), p.err)
		}
	})
	return required(t, p.cluster, p.err, p.missing)
}

// privateAllowed fails t where make test forbids private clusters: make test runs
// the tests that start one in a phase of their own, before the phase that runs
// beside CI's second cluster, where a private cluster would make three at once on a
// 2-core machine, and loaded brokers fall behind.
func privateAllowed(t testing.TB) {
	t.Helper()
	if os.Getenv("RMQC_TEST_PRIVATE") == "off" {
		t.Fatalf("%s starts a private cluster, which this phase of make test forbids (RMQC_TEST_PRIVATE=off): add its name to PRIVATE_TESTS in the Makefile", t.Name())
	}
}

// RequireSeededCluster starts a private one-broker cluster of t's own whose broker
// holds seed from its first start, and kills it when t ends (nothing of it is
// reused). Each call starts a cluster: share it between the subtests that need it.
func RequireSeededCluster(t testing.TB, seed *Seed) *Cluster {
	t.Helper()
	requireHarness(t, "RequireSeededCluster")
	privateAllowed(t)
	version := VersionFromEnv()
	if missing := MissingTools(version); len(missing) > 0 {
		return required(t, nil, nil, missing)
	}
	ports, err := FreePorts()
	if err != nil {
		t.Fatal(err)
	}
	c, err := Start(context.Background(), Options{Version: version, Ports: ports, Seed: seed,
		StartupTimeout: testStartupTimeout, Log: os.Stderr})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Kill() })
	return c
}

// testStartupTimeout is longer than Start's default: test packages start their
// clusters while others run, on machines as small as two cores.
const testStartupTimeout = 3 * time.Minute

func requireHarness(t testing.TB, what string) {
	t.Helper()
	if testing.Short() {
		t.Skip("integration test: needs a local RocketMQ; skipped under -short")
	}
	if !harness.active {
		t.Fatalf("dev.%s needs TestMain to call dev.RunTests (it stops the cluster)", what)
	}
}

func required(t testing.TB, c *Cluster, err error, missing []string) *Cluster {
	t.Helper()
	if len(missing) > 0 {
		msg := "local RocketMQ: " + ErrMissingTools{Missing: missing}.Error()
		if os.Getenv("CI") == "true" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func setupCluster() {
	version := VersionFromEnv()
	if ns := os.Getenv("RMQC_TEST_NAMESRV"); ns != "" {
		// Attaching only needs java (for mqadmin) and jars that rmqdev fetched.
		if harness.missing = MissingTools(version); len(harness.missing) > 0 {
			return
		}
		ctx, cancel := context.WithTimeout(context.Background(), testStartupTimeout) // mqadmin is a JVM: slow on a busy machine
		defer cancel()
		harness.cluster, harness.err = Attach(ctx, ns)
		if harness.err != nil {
			harness.err = fmt.Errorf("RMQC_TEST_NAMESRV=%s: %w", ns, harness.err)
		}
		return
	}
	ports, err := PortsFromEnv()
	if err != nil {
		harness.err = err
		return
	}
	// Start checks the tools itself and says which are missing (ErrMissingTools below).
	harness.cluster, harness.err = Start(context.Background(), Options{
		Version:        version,
		Ports:          ports,
		KeepDir:        true, // RunTests removes it only when the tests passed
		StartupTimeout: testStartupTimeout,
		SecondBroker:   os.Getenv("RMQC_TEST_SECOND_BROKER") == "true",
		Log:            os.Stderr,
	})
	var missing ErrMissingTools
	var busy ErrPortsBusy
	switch {
	case errors.As(harness.err, &missing):
		harness.missing, harness.err = missing.Missing, nil
	case errors.As(harness.err, &busy):
		harness.err = fmt.Errorf("%w\nto share one cluster between test packages, run `go run ./dev/cmd/rmqdev up` "+
			"once and set RMQC_TEST_NAMESRV=%s", harness.err, ports.NameServerAddr())
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
