// Command rmqdev runs a local Apache RocketMQ for development: it fetches the
// jars from Maven Central, starts a NameServer and broker(s) on loopback and
// lets other commands attach to them. See docs/running-rocketmq.md.
//
//	rmqdev up [--second-broker] [--slaves] [--acl] [--proxy] [--fresh]   start detached (reuse if running)
//	rmqdev down [--kill]                    stop what `up` or `run` started
//	rmqdev status                           exit 0 if a cluster answers, 1 if not
//	rmqdev mqadmin ARGS...                  RocketMQ's admin CLI against it
//	rmqdev run [--second-broker] [--proxy=false] [--stop-grace D] [--also "CMD ARGS"] -- CMD ARGS...
//	rmqdev fetch [VERSION...]               only fill the jar cache
//
// RMQ_VERSION picks the version (default 5.3.3), RMQ_CACHE the cache dir,
// RMQ_PORT_BASE (or --port-base N before the command) another set of loopback
// ports: every command then addresses only the cluster on that set.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"rmqconsole/dev"
)

const usage = `usage: rmqdev [--port-base N] COMMAND
  up [--second-broker] [--slaves] [--acl] [--proxy] [--fresh]
                                   start RocketMQ detached, or say it already runs;
                                   --slaves: a slave (brokerId 1) for each master;
                                   --acl: access control on (4.x plain ACL, 5.x ACL 2.0);
                                   --proxy: the RocketMQ Proxy too (5.x), for gRPC clients
  down [--kill]                    stop it; --kill: at once (SIGKILL), for throw-away stores
  status                           show it; exit 1 when nothing runs
  mqadmin ARGS...                  run mqadmin against it (-n is added)
  run [--second-broker] [--proxy=false] [--stop-grace D] [--also "CMD ARGS"] -- CMD ARGS...
                                   start it (or reuse it), with the Proxy on 5.x, run CMD
                                   with RMQC_NAMESRV (and RMQC_PROXY, RMQDEV_PROXY_GRPC) set;
                                   when CMD ends or on Ctrl-C, stop CMD and --also, then the
                                   cluster if run started it: SIGTERM, SIGKILL after
                                   --stop-grace (3s; its stores are recovered at the next
                                   start; 30s lets the brokers shut down cleanly)
  fetch [VERSION...]               download the jars into the cache only
--port-base N                      the cluster on loopback ports N..N+18 (NameServer on N)
                                   instead of the default ones (NameServer on 19876), as
                                   RMQ_PORT_BASE=N does; each port set has its own cluster
env: RMQ_VERSION (default ` + dev.DefaultVersion + `, 4.x: ` + dev.Version4 + `, newest: ` + dev.VersionNewest + `), RMQ_CACHE (default <repo>/.cache/rocketmq),
     RMQ_PORT_BASE (unset: the default ports)
`

func main() {
	argv, err := portBaseOption(os.Args[1:])
	if err == nil {
		_, err = dev.PortsFromEnv()
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "rmqdev:", err)
		os.Exit(2)
	}
	if len(argv) < 1 {
		fmt.Fprint(os.Stderr, usage)
		os.Exit(2)
	}
	var code int
	switch cmd, args := argv[0], argv[1:]; cmd {
	case "up":
		err = up(args)
	case "down":
		err = down(args)
	case "status":
		code, err = status()
	case "mqadmin":
		err = mqadmin(args)
	case "run":
		code, err = run(args)
	case "fetch":
		err = fetch(args)
	case "help", "-h", "--help":
		fmt.Print(usage)
	default:
		fmt.Fprintf(os.Stderr, "rmqdev: unknown command %q\n%s", cmd, usage)
		code = 2
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "rmqdev:", err)
		code = max(code, 1)
	}
	os.Exit(code)
}

// portBaseOption takes a leading "--port-base N" (or "--port-base=N") off args
// and sets RMQ_PORT_BASE from it, for this command and what it runs.
func portBaseOption(args []string) ([]string, error) {
	if len(args) == 0 {
		return args, nil
	}
	var base string
	switch a := args[0]; {
	case a == "--port-base" || a == "-port-base":
		if len(args) < 2 {
			return nil, errors.New("--port-base needs a port number")
		}
		base, args = args[1], args[2:]
	case strings.HasPrefix(a, "--port-base=") || strings.HasPrefix(a, "-port-base="):
		base, args = a[strings.Index(a, "=")+1:], args[1:]
	default:
		return args, nil
	}
	return args, os.Setenv(dev.PortBaseEnv, base)
}

// ports is the cluster's port set: RMQ_PORT_BASE's, or the default one
// (main has checked RMQ_PORT_BASE already).
func ports() dev.Ports {
	p, err := dev.PortsFromEnv()
	if err != nil {
		panic(err)
	}
	return p
}

// startupTimeout is generous: `make test` starts its cluster while the machine may be
// busy with other work, and a slow start is better than a failed run.
const startupTimeout = 4 * time.Minute

// runDir is where `up` and `run` keep a version's configs, stores, logs and
// state.json: run-<version>, with -ports<base> for a cluster on RMQ_PORT_BASE.
func runDir(version string) (string, error) {
	root, err := dev.CacheRoot()
	if err != nil {
		return "", err
	}
	dir := "run-" + version
	if base := os.Getenv(dev.PortBaseEnv); base != "" {
		dir += "-ports" + base
	}
	return filepath.Join(root, dir), nil
}

// known is a cluster recorded in a state file.
type known struct {
	path    string
	state   dev.State
	cluster *dev.Cluster
	err     error // nil when it answers
}

// loadKnown reads every run-*/state.json of a cluster on this port set (any
// version: they share the ports; clusters on other port sets are left alone)
// and checks whether each cluster still answers.
func loadKnown(ctx context.Context) ([]known, error) {
	nameServer := ports().NameServerAddr()
	root, err := dev.CacheRoot()
	if err != nil {
		return nil, err
	}
	paths, _ := filepath.Glob(filepath.Join(root, "run-*", "state.json"))
	var ks []known
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			return nil, fmt.Errorf("read state %s: %w", p, err)
		}
		var s dev.State
		if err := json.Unmarshal(data, &s); err != nil {
			return nil, fmt.Errorf("read state %s: %w", p, err)
		}
		if s.NameServer != nameServer {
			continue
		}
		c := dev.FromState(s)
		ks = append(ks, known{path: p, state: s, cluster: c, err: c.Check(ctx)})
	}
	return ks, nil
}

func writeState(c *dev.Cluster) (string, error) {
	data, err := json.MarshalIndent(c.State(), "", "  ")
	if err != nil {
		return "", err
	}
	path := filepath.Join(c.Dir, "state.json")
	if err := os.WriteFile(path, append(data, '\n'), 0o644); err != nil {
		return "", fmt.Errorf("write state: %w", err)
	}
	return path, nil
}

// running returns the cluster of version that answers, or nil. Clusters whose
// state file is stale are cleaned up (leftover processes stopped). A running
// cluster of another version is an error: it holds the ports.
func running(ctx context.Context, version string) (*known, error) {
	ks, err := loadKnown(ctx)
	if err != nil {
		return nil, err
	}
	var found *known
	for i, k := range ks {
		switch {
		case k.err == nil && k.state.Version == version:
			found = &ks[i]
		case k.err == nil:
			return nil, fmt.Errorf("RocketMQ %s from rmqdev is running on %s; `rmqdev down` first", k.state.Version, k.state.NameServer)
		default:
			fmt.Fprintf(os.Stderr, "rmqdev: cleaning up stale %s (%v)\n", k.path, k.err)
			if err := k.cluster.Stop(); err != nil {
				fmt.Fprintln(os.Stderr, "rmqdev:", err)
			}
			if live := k.cluster.Running(); len(live) > 0 {
				return nil, fmt.Errorf("stale RocketMQ %s: cannot stop %v", k.state.Version, live)
			}
			os.Remove(k.path)
		}
	}
	return found, nil
}

// reusable is running's cluster of version, or nil; one without broker-b is an
// error when second asks for it, and one whose slaves or access control differ,
// or without the Proxy when proxy asks for it.
func reusable(ctx context.Context, version string, second, slaves, acl, proxy bool) (*known, error) {
	k, err := running(ctx, version)
	if err == nil && k != nil && proxy && k.state.ProxyRemoting == "" {
		return nil, fmt.Errorf("RocketMQ %s already runs without the Proxy; `rmqdev down` first", version)
	}
	if err == nil && k != nil && second && len(k.state.Brokers) < 2 {
		return nil, fmt.Errorf("RocketMQ %s already runs without broker-b; `rmqdev down` first", version)
	}
	if err == nil && k != nil && slaves != (len(k.state.Slaves) > 0) {
		return nil, fmt.Errorf("RocketMQ %s already runs with slaves %s; `rmqdev down` first", version, onOff(len(k.state.Slaves) > 0))
	}
	if err == nil && k != nil && k.state.ACL != acl {
		return nil, fmt.Errorf("RocketMQ %s already runs with ACL %s; `rmqdev down` first", version, onOff(k.state.ACL))
	}
	return k, err
}

func onOff(b bool) string {
	if b {
		return "on"
	}
	return "off"
}

// printEnv prints what the console needs to reach c: RMQC_NAMESRV, the
// Proxy's remoting address (RMQC_PROXY) and gRPC endpoint for gRPC clients when
// it runs, and the admin account of a cluster with ACL on (a local cluster's
// fixed password).
func printEnv(s dev.State) {
	for _, kv := range clusterEnv(s) {
		fmt.Println(kv)
	}
}

// clusterEnv is the environment that points the console and the demo at s.
func clusterEnv(s dev.State) []string {
	env := []string{"RMQC_NAMESRV=" + s.NameServer}
	if s.ProxyRemoting != "" {
		env = append(env, "RMQC_PROXY="+s.ProxyRemoting, "RMQDEV_PROXY_GRPC="+s.ProxyGRPC)
	}
	if s.ACL {
		env = append(env, "RMQC_ACCESS_KEY="+dev.AdminAccount.AccessKey, "RMQC_SECRET_KEY="+dev.AdminAccount.SecretKey)
	}
	return env
}

func up(args []string) error {
	fs := flag.NewFlagSet("up", flag.ContinueOnError)
	ps := ports()
	second := fs.Bool("second-broker", false, fmt.Sprintf("also start broker-b on 127.0.0.1:%d", ps.BrokerB))
	fresh := fs.Bool("fresh", false, "delete the stores and logs of the previous run first")
	acl := fs.Bool("acl", false, "turn access control on (4.x plain ACL, 5.x ACL 2.0) with an admin and a limited account")
	slaves := fs.Bool("slaves", false, fmt.Sprintf("give each master a slave (brokerId 1): broker-a's on 127.0.0.1:%d, broker-b's on 127.0.0.1:%d",
		ps.BrokerASlave, ps.BrokerBSlave))
	proxy := fs.Bool("proxy", false, fmt.Sprintf("also run the RocketMQ Proxy %s (5.x only): remoting on 127.0.0.1:%d, gRPC on 127.0.0.1:%d",
		dev.ProxyVersion, ps.ProxyRemoting, ps.ProxyGRPC))
	if err := fs.Parse(args); err != nil {
		return err
	}
	ctx := context.Background()
	version := dev.VersionFromEnv()
	k, err := reusable(ctx, version, *second, *slaves, *acl, *proxy)
	if err != nil {
		return err
	}
	if k != nil {
		fmt.Fprintf(os.Stderr, "rmqdev: RocketMQ %s already running (%s, started %s)\n",
			version, brokerList(k.state.Brokers), k.state.StartedAt.Local().Format(time.DateTime))
		printEnv(k.state)
		return nil
	}
	dir, err := runDir(version)
	if err != nil {
		return err
	}
	if *acl {
		dir += "-acl" // its stores hold the users and plain_acl.yml
	}
	if *slaves {
		dir += "-slaves"
	}
	if *fresh {
		if err := os.RemoveAll(dir); err != nil {
			return err
		}
	}
	t := time.Now()
	c, err := dev.Start(ctx, dev.Options{Version: version, Dir: dir, Ports: ps, SecondBroker: *second, Slaves: *slaves, ACL: *acl, Proxy: *proxy, Detached: true,
		StartupTimeout: startupTimeout, Log: os.Stderr})
	if err != nil {
		return err
	}
	if _, err := writeState(c); err != nil {
		c.Stop()
		return err
	}
	fmt.Fprintf(os.Stderr, "rmqdev: RocketMQ %s up in %s (%s); logs in %s; stop with `rmqdev down`\n",
		version, time.Since(t).Round(100*time.Millisecond), brokerList(append(c.Brokers, c.Slaves...)), dir)
	printEnv(c.State())
	return nil
}

func brokerList(bs []dev.Broker) string {
	var parts []string
	for _, b := range bs {
		parts = append(parts, b.Name+" "+b.Addr)
	}
	return strings.Join(parts, ", ")
}

func down(args []string) error {
	fs := flag.NewFlagSet("down", flag.ContinueOnError)
	kill := fs.Bool("kill", false, "SIGKILL at once instead of the brokers' 10-30 s clean shutdown, for a cluster whose stores and logs nobody needs (the next `up` in its run dir recovers the store as after a crash)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	ks, err := loadKnown(context.Background())
	if err != nil {
		return err
	}
	if len(ks) == 0 {
		fmt.Fprintln(os.Stderr, "rmqdev: nothing to stop")
		return nil
	}
	var errs []error
	for _, k := range ks {
		t := time.Now()
		halt := k.cluster.Stop
		if *kill {
			halt = k.cluster.Kill
		}
		if err := halt(); err != nil {
			// Killed after the grace period is still stopped; only live processes are a failure.
			fmt.Fprintln(os.Stderr, "rmqdev:", err)
		}
		if live := k.cluster.Running(); len(live) > 0 {
			errs = append(errs, fmt.Errorf("RocketMQ %s: still running: %v", k.state.Version, live))
			continue
		}
		os.Remove(k.path)
		fmt.Fprintf(os.Stderr, "rmqdev: stopped RocketMQ %s in %s\n", k.state.Version, time.Since(t).Round(100*time.Millisecond))
	}
	return errors.Join(errs...)
}

func status() (int, error) {
	ks, err := loadKnown(context.Background())
	if err != nil {
		return 1, err
	}
	code := 1
	for _, k := range ks {
		if k.err != nil {
			fmt.Printf("RocketMQ %s: not running (%v); state %s\n", k.state.Version, k.err, k.path)
			continue
		}
		code = 0
		fmt.Printf("RocketMQ %s: running since %s, dir %s\n", k.state.Version,
			k.state.StartedAt.Local().Format(time.DateTime), k.state.Dir)
		for _, p := range k.state.Processes {
			addr := k.state.NameServer
			for _, b := range k.state.Brokers {
				if b.Name == p.Name {
					addr = b.Addr
				}
			}
			for _, b := range k.state.Slaves {
				if b.Name+"-s" == p.Name {
					addr = b.Addr
				}
			}
			if p.Name == "proxy" {
				addr = k.state.ProxyRemoting + " (remoting), " + k.state.ProxyGRPC + " (gRPC)"
			}
			fmt.Printf("  %-10s %-16s pid %d\n", p.Name, addr, p.PID)
		}
		printEnv(k.state)
	}
	if len(ks) == 0 {
		fmt.Printf("RocketMQ: not running on %s (no state file; start it with `rmqdev up`)\n", ports().NameServerAddr())
	}
	return code, nil
}

func mqadmin(args []string) error {
	ctx := context.Background()
	k, err := running(ctx, dev.VersionFromEnv())
	if err != nil {
		return err
	}
	var c *dev.Cluster
	switch {
	case k != nil:
		c = k.cluster
	case os.Getenv("RMQC_NAMESRV") != "":
		if c, err = dev.Attach(ctx, os.Getenv("RMQC_NAMESRV")); err != nil {
			return err
		}
	default:
		return errors.New("no RocketMQ running: `rmqdev up` first (or set RMQC_NAMESRV)")
	}
	out, err := c.MQAdmin(ctx, args...)
	fmt.Print(out)
	if err != nil {
		return errors.New("mqadmin failed (output above)")
	}
	return nil
}

func fetch(args []string) error {
	versions := args
	if len(versions) == 0 {
		versions = []string{dev.VersionFromEnv()}
	}
	for _, v := range versions {
		t := time.Now()
		lib, err := dev.Fetch(context.Background(), v, os.Stderr)
		if err != nil {
			return err
		}
		fmt.Printf("%s %s (%s)\n", v, lib, time.Since(t).Round(100*time.Millisecond))
	}
	return nil
}
