package dev

import (
	"errors"
	"fmt"
	mrand "math/rand/v2"
	"net"
	"os"
	"path/filepath"
	"strconv"
)

// Tested RocketMQ versions. DefaultVersion is used unless RMQ_VERSION says
// otherwise. Version4 is the 4.x compatibility version: 4.9.7, because
// rocketmq-namesrv and rocketmq-broker 4.9.8 were never published to Maven
// Central (only client, common, tools and a few other 4.9.8 modules were).
//
// VersionNewest is the newest line Maven Central serves, run beside the default:
// broker 5.5.1, with NameServer and mqadmin 5.5.0 (nameServerVersion), because
// rocketmq-namesrv and rocketmq-tools 5.5.1 were not published.
const (
	DefaultVersion = "5.3.3"
	Version4       = "4.9.7"
	VersionNewest  = "5.5.1"
)

// missingModules lists, per broker release, the RocketMQ modules Maven Central
// does not serve at that release, and the release run instead. 5.5.1 was
// published in part: broker, common, remoting, store and tiered-store, but not
// namesrv, tools, client, srvutil, filter or auth, which come from 5.5.0.
var missingModules = map[string]map[string]string{
	"5.5.1": {
		"rocketmq-namesrv": "5.5.0", "rocketmq-tools": "5.5.0", "rocketmq-client": "5.5.0",
		"rocketmq-srvutil": "5.5.0", "rocketmq-filter": "5.5.0", "rocketmq-auth": "5.5.0",
	},
}

// nameServerVersion is the rocketmq-namesrv (and rocketmq-tools) release run
// with a broker release: the same one, except where Maven Central lacks it.
func nameServerVersion(broker string) string {
	if v := missingModules[broker]["rocketmq-namesrv"]; v != "" {
		return v
	}
	return broker
}

// Fixed loopback addresses of the local cluster. They are fixed (not ephemeral)
// because a broker cannot take listenPort=0 (its HA port would become 1), and
// because `make test` shares one cluster across packages by address.
const (
	Host           = "127.0.0.1"
	NameServerPort = 19876
	BrokerAPort    = 20911
	BrokerBPort    = 21911
	// Slaves (Options.Slaves): each takes P-2..P+1 like its master.
	BrokerASlavePort = 20931
	BrokerBSlavePort = 21931
	ClusterName      = "DefaultCluster"
	startupDeadline  = 90 // seconds, for Start as a whole
)

// Ports are the loopback ports of one local cluster. A broker takes its main
// port P and also P-2 (its "fast" server) and P+1 (HA, bound on every
// interface). The zero value means DefaultPorts.
type Ports struct {
	NameServer int
	BrokerA    int
	BrokerB    int // used with Options.SecondBroker
	// The slaves' main ports, used with Options.Slaves (0: this port set has none).
	BrokerASlave, BrokerBSlave int
	// The Proxy's remoting and gRPC ports, used with Options.Proxy.
	ProxyRemoting, ProxyGRPC int
}

// DefaultPorts are the shared cluster's: what `rmqdev up`, `make run` and
// RMQC_TEST_NAMESRV=127.0.0.1:19876 use unless RMQ_PORT_BASE moves them
// (PortsFromEnv).
var DefaultPorts = Ports{NameServer: NameServerPort, BrokerA: BrokerAPort, BrokerB: BrokerBPort,
	BrokerASlave: BrokerASlavePort, BrokerBSlave: BrokerBSlavePort,
	ProxyRemoting: ProxyRemotingPort, ProxyGRPC: ProxyGRPCPort}

// PortsFrom lays a cluster out on the 19 ports base..base+18: the NameServer
// on base, broker-a on base+3 (base+1..base+4), broker-b on base+7
// (base+5..base+8), their slaves (Options.Slaves) on base+11 and base+15, and
// the Proxy's remoting and gRPC servers (Options.Proxy) on base+17 and base+18.
func PortsFrom(base int) Ports {
	return Ports{NameServer: base, BrokerA: base + 3, BrokerB: base + 7, BrokerASlave: base + 11, BrokerBSlave: base + 15,
		ProxyRemoting: base + 17, ProxyGRPC: base + 18}
}

// PortBaseEnv names the environment variable that moves the local cluster of
// rmqdev and of the test harness off DefaultPorts onto PortsFrom(base), so
// that two clusters (say two CI shapes) run side by side on one machine:
// RMQ_PORT_BASE=17000 puts the NameServer on 127.0.0.1:17000 and every other
// port, store, run dir and state file of rmqdev on that set.
const PortBaseEnv = "RMQ_PORT_BASE"

// PortsFromEnv returns PortsFrom(RMQ_PORT_BASE), or DefaultPorts when it is
// unset. A base must leave its 19 ports clear of DefaultPorts and below the
// range FreePorts draws private clusters from (22000 and up), so that no
// private cluster or Proxy of a test can pick one of them.
func PortsFromEnv() (Ports, error) {
	v := os.Getenv(PortBaseEnv)
	if v == "" {
		return DefaultPorts, nil
	}
	base, err := strconv.Atoi(v)
	if err != nil {
		return Ports{}, fmt.Errorf("%s=%q: not a port number", PortBaseEnv, v)
	}
	if err := checkPortBase(base); err != nil {
		return Ports{}, fmt.Errorf("%s=%d: %w", PortBaseEnv, base, err)
	}
	return PortsFrom(base), nil
}

// portSetSize is how many ports PortsFrom(base) spans: base..base+18.
const portSetSize = 19

func checkPortBase(base int) error {
	if base < 1024 || base+portSetSize-1 >= privatePortsLow {
		return fmt.Errorf("the port set %d-%d must lie between 1024 and %d (FreePorts hands out ports from %d on)",
			base, base+portSetSize-1, privatePortsLow-1, privatePortsLow)
	}
	d := DefaultPorts
	defaults := []int{d.NameServer, d.ProxyRemoting, d.ProxyGRPC}
	for _, b := range []int{d.BrokerA, d.BrokerB, d.BrokerASlave, d.BrokerBSlave} {
		defaults = append(defaults, b-2, b-1, b, b+1)
	}
	for _, p := range defaults {
		if p >= base && p < base+portSetSize {
			return fmt.Errorf("the port set %d-%d overlaps the default port %d", base, base+portSetSize-1, p)
		}
	}
	return nil
}

func (p Ports) orDefault() Ports {
	if p == (Ports{}) {
		return DefaultPorts
	}
	return p
}

// NameServerAddr is the NameServer's loopback address with these ports.
func (p Ports) NameServerAddr() string {
	return net.JoinHostPort(Host, strconv.Itoa(p.orDefault().NameServer))
}

// Private port sets are drawn from below Linux's ephemeral range
// (32768-60999), so an outgoing connection never holds one, and above the
// default ports.
const privatePortsLow, privatePortsHigh = 22000, 32700

// FreePorts returns a port set, away from the default ports, on which nothing
// listens right now, for a private cluster beside the shared one (a test that
// freezes or kills a broker). Two callers can still race for the same set;
// Start then fails on the ports it cannot bind, and the caller may try again.
func FreePorts() (Ports, error) {
	for range 50 {
		base := privatePortsLow + 20*mrand.IntN((privatePortsHigh-privatePortsLow)/20)
		p := PortsFrom(base)
		specs, _ := withSlaves(p, brokerSpecs(p, true))
		if checkPortsFree(p, specs) == nil {
			return p, nil
		}
	}
	return Ports{}, fmt.Errorf("no free set of 19 loopback ports between %d and %d", privatePortsLow, privatePortsHigh)
}

// VersionFromEnv returns RMQ_VERSION, or DefaultVersion when it is unset.
func VersionFromEnv() string {
	if v := os.Getenv("RMQ_VERSION"); v != "" {
		return v
	}
	return DefaultVersion
}

// is4x reports whether version belongs to the 4.x line, which configures
// logging from $ROCKETMQ_HOME/conf and has no bindAddress.
func is4x(version string) bool { return len(version) > 1 && version[0] == '4' }

// RepoRoot walks up from the working directory to the folder holding go.mod.
func RepoRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", fmt.Errorf("find repo root: %w", err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("find repo root: no go.mod above the working directory")
		}
		dir = parent
	}
}

// CacheRoot is where versions and run dirs of rmqdev live: RMQ_CACHE, else
// <repo>/.cache/rocketmq (git-ignored through /.cache/).
func CacheRoot() (string, error) {
	if d := os.Getenv("RMQ_CACHE"); d != "" {
		return filepath.Abs(d)
	}
	root, err := RepoRoot()
	if err != nil {
		return "", err
	}
	return filepath.Join(root, ".cache", "rocketmq"), nil
}
