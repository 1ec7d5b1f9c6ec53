package dev

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"
)

// ProxyVersion is the RocketMQ Proxy run in front of every 5.x cluster: the
// newest rocketmq-proxy Maven Central serves (no 5.5.x proxy was published).
// It runs from its own lib dir, so a 5.5.1 cluster gets the 5.3.3 Proxy.
const ProxyVersion = "5.3.3"

// The Proxy's loopback ports in DefaultPorts: its remoting server (what the
// console asks about gRPC clients) and its gRPC server (what the 5.x gRPC
// SDKs connect to).
const (
	ProxyRemotingPort = 19080
	ProxyGRPCPort     = 19081
)

const proxyPomTemplate = `<project xmlns="http://maven.apache.org/POM/4.0.0">
  <!-- Throw-away POM written by rmqconsole/dev: copy-dependencies needs a project. -->
  <modelVersion>4.0.0</modelVersion>
  <groupId>local.rmqconsole</groupId>
  <artifactId>rocketmq-proxy-runtime</artifactId>
  <version>1</version>
  <packaging>pom</packaging>
  <dependencies>
    <!-- The Proxy depends on the broker and everything else it needs (grpc, tcnative). -->
    <dependency><groupId>org.apache.rocketmq</groupId><artifactId>rocketmq-proxy</artifactId><version>%s</version></dependency>
  </dependencies>
</project>
`

// ProxyLibDir returns <cache>/proxy-<ProxyVersion>/lib whether or not it has
// been fetched.
func ProxyLibDir() (string, error) {
	root, err := CacheRoot()
	if err != nil {
		return "", err
	}
	return filepath.Join(root, "proxy-"+ProxyVersion, "lib"), nil
}

// FetchProxy makes sure rocketmq-proxy and its dependencies are in the cache
// (a lib dir of their own, apart from the brokers') and returns the lib dir.
func FetchProxy(ctx context.Context, log io.Writer) (string, error) {
	lib, err := ProxyLibDir()
	if err != nil {
		return "", err
	}
	return fetchJars(ctx, jarSet{
		what: "rocketmq-proxy " + ProxyVersion,
		lib:  lib,
		pom:  fmt.Sprintf(proxyPomTemplate, ProxyVersion),
		main: map[string]string{"rocketmq-proxy": ProxyVersion, "rocketmq-broker": ProxyVersion},
	}, log)
}

// ErrProxyNeeds5x says the Proxy (and so gRPC clients) needs a 5.x cluster.
var ErrProxyNeeds5x = errors.New("the RocketMQ Proxy (gRPC clients) needs RocketMQ 5.x; 4.x has none")

// proxyConfig is rmq-proxy.json for a cluster-mode Proxy on loopback.
type proxyConfig struct {
	// Must equal the brokers' brokerClusterName: the Proxy creates its
	// heartbeat-sync topic on that cluster and fails to start otherwise.
	RocketMQClusterName string `json:"rocketMQClusterName"`
	NamesrvAddr         string `json:"namesrvAddr"`
	ProxyMode           string `json:"proxyMode"`
	GRPCServerPort      int    `json:"grpcServerPort"`
	RemotingListenPort  int    `json:"remotingListenPort"`
	// Both default to the first non-loopback address; the second is what the
	// Proxy writes into the routes it answers to remoting clients.
	LocalServeAddr     string `json:"localServeAddr"`
	RemotingAccessAddr string `json:"remotingAccessAddr"`
}

func newProxyConfig(clusterName, nameServer string, ports Ports) proxyConfig {
	return proxyConfig{
		RocketMQClusterName: clusterName, NamesrvAddr: nameServer, ProxyMode: "cluster",
		GRPCServerPort: ports.ProxyGRPC, RemotingListenPort: ports.ProxyRemoting,
		LocalServeAddr: Host, RemotingAccessAddr: Host,
	}
}

// proxyAddrs are the loopback addresses of a Proxy on ports.
func proxyAddrs(ports Ports) (remoting, grpc string) {
	return fmt.Sprintf("%s:%d", Host, ports.ProxyRemoting), fmt.Sprintf("%s:%d", Host, ports.ProxyGRPC)
}

// startProxy starts a cluster-mode Proxy in front of c on ports (home dir
// <c.Dir>/proxy or dir) and waits until its remoting port routes the cluster's
// topic and its gRPC port accepts connections. It records the Proxy in c.
func (c *Cluster) startProxy(ctx context.Context, dir string, ports Ports, detached bool, log io.Writer) (*proc, error) {
	if is4x(c.Version) {
		return nil, ErrProxyNeeds5x
	}
	lib, err := FetchProxy(ctx, log)
	if err != nil {
		return nil, err
	}
	for _, port := range []int{ports.ProxyRemoting, ports.ProxyGRPC} {
		if err := portFree(port); err != nil {
			return nil, ErrPortsBusy{Ports: []string{fmt.Sprintf("port %d (proxy): %v", port, err)}}
		}
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("start proxy: %w", err)
	}
	conf := filepath.Join(dir, "rmq-proxy.json")
	data, _ := json.MarshalIndent(newProxyConfig(c.ClusterName, c.NameServer, ports), "", "  ")
	if err := os.WriteFile(conf, data, 0o644); err != nil {
		return nil, fmt.Errorf("start proxy: %w", err)
	}
	t := time.Now()
	env := append(os.Environ(), "ROCKETMQ_HOME="+dir)
	p, err := startJava("proxy", dir, env, javaArgs(ProxyVersion, lib, dir, "rmq.proxy.logback.xml",
		[]string{"-Xms128m", "-Xmx384m", "-XX:MaxDirectMemorySize=128m"},
		"org.apache.rocketmq.proxy.ProxyStartup", "-pc", conf), detached)
	if err != nil {
		return nil, err
	}
	remoting, grpc := proxyAddrs(ports)
	if err := waitProxy(ctx, p, remoting, grpc, c.ClusterName); err != nil {
		_ = p.stop(0)
		return nil, err
	}
	c.ProxyRemoting, c.ProxyGRPC = remoting, grpc
	fmt.Fprintf(log, "dev: proxy %s up in %s (remoting %s, gRPC %s)\n", ProxyVersion,
		time.Since(t).Round(100*time.Millisecond), remoting, grpc)
	return p, nil
}

// waitProxy polls until the Proxy answers a route request on its remoting
// port (it then reaches the NameServer) and accepts TCP on its gRPC port.
func waitProxy(ctx context.Context, p *proc, remoting, grpc, clusterTopic string) error {
	var last error
	for {
		if _, last = queryRoute(ctx, remoting, clusterTopic); last == nil {
			if last = dialOK(ctx, grpc); last == nil {
				return nil
			}
		}
		if gone, status := p.exited(); gone {
			return fmt.Errorf("proxy exited (%s)\n%s", status, p.tails())
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("proxy not ready (%v): %w\n%s", last, ctx.Err(), p.tails())
		case <-time.After(500 * time.Millisecond):
		}
	}
}

// Proxy is a Proxy started in front of a cluster that was not started with
// one (RequireProxy on an attached cluster); Stop ends it.
type Proxy struct {
	Remoting, GRPC string
	proc           *proc
	dir            string
}

// StartProxy starts a cluster-mode Proxy in front of c on ports, in a new
// temporary dir, and records its addresses in c (ProxyRemoting, ProxyGRPC).
func (c *Cluster) StartProxy(ctx context.Context, ports Ports, log io.Writer) (*Proxy, error) {
	if log == nil {
		log = io.Discard
	}
	dir, err := os.MkdirTemp("", "rmqdev-proxy-")
	if err != nil {
		return nil, err
	}
	p, err := c.startProxy(ctx, dir, ports, false, log)
	if err != nil {
		return nil, fmt.Errorf("start proxy (logs kept in %s): %w", dir, err)
	}
	return &Proxy{Remoting: c.ProxyRemoting, GRPC: c.ProxyGRPC, proc: p, dir: dir}, nil
}

// Stop ends the Proxy (SIGTERM, SIGKILL after the grace period) and removes
// its dir unless keepLogs.
func (p *Proxy) Stop(keepLogs bool) error {
	err := p.proc.stop(stopGrace)
	if err == nil && !keepLogs {
		os.RemoveAll(p.dir)
	}
	return err
}

// freeProxyPorts returns two loopback ports, away from the default ones, on
// which nothing listens right now.
func freeProxyPorts() (Ports, error) {
	for range 50 {
		p, err := FreePorts()
		if err != nil {
			return Ports{}, err
		}
		if portFree(p.ProxyRemoting) == nil && portFree(p.ProxyGRPC) == nil {
			return p, nil
		}
	}
	return Ports{}, errors.New("no two free loopback ports for a Proxy")
}

// ProxySupported reports whether version has a Proxy to run (5.x, not 4.x).
func ProxySupported(version string) bool { return !is4x(version) }
