package dev

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Options configure Start.
type Options struct {
	// Version is the RocketMQ version to run; "" means VersionFromEnv().
	Version string
	// Dir holds configs, stores and logs. "" means a new temporary dir, which
	// Stop removes unless KeepDir is set. An existing Dir keeps its stores.
	Dir string
	// KeepDir keeps a temporary Dir after Stop (so logs can be read).
	KeepDir bool
	// SecondBroker adds broker-b (on 127.0.0.1:21911 with the default ports).
	SecondBroker bool
	// Ports are the cluster's loopback ports; the zero value means
	// DefaultPorts. A private cluster beside the shared one takes FreePorts().
	Ports Ports
	// Slaves gives each master a slave (brokerId 1, brokerRole SLAVE) on its own
	// ports (DefaultPorts' BrokerASlave, BrokerBSlave).
	Slaves bool
	// StartupTimeout bounds Start once the jars are cached; 0 means 90 s plus
	// 20 s per broker after the first. A machine shared with other heavy work
	// may need more.
	StartupTimeout time.Duration
	// ACL turns access control on: 4.x plain ACL, 5.x ACL 2.0 (authentication
	// and authorization), with AdminAccount and LimitedAccount.
	ACL bool
	// Proxy also runs a cluster-mode RocketMQ Proxy (ProxyVersion, 5.x only)
	// on the ports' ProxyRemoting and ProxyGRPC, for the 5.x gRPC SDKs.
	Proxy bool
	// Detached starts the JVMs in their own session so they outlive the
	// calling program (rmqdev up). Otherwise they get SIGTERM when it dies.
	Detached bool
	// Log receives progress lines; nil discards them.
	Log io.Writer
	// Seed, when set, is written into each master's config files before its first
	// start (seed.go): thousands of groups and topics at no broker call.
	Seed *Seed
}

// Broker is one broker master of the cluster.
type Broker struct {
	Name string `json:"name"`
	Addr string `json:"addr"`
}

// StartupTimes records how long each phase of Start took.
type StartupTimes struct {
	Fetch      time.Duration `json:"fetch"`      // making sure the jars are cached
	NameServer time.Duration `json:"nameServer"` // JVM start to the NameServer's boot line
	Brokers    time.Duration `json:"brokers"`    // broker JVM start to the last boot line
	Registered time.Duration `json:"registered"` // boot lines to every broker routed by the NameServer and answering runtime info
	Total      time.Duration `json:"total"`
}

// Cluster is a running local RocketMQ, started by Start, adopted from a
// State, or attached to by Attach.
type Cluster struct {
	Version     string   // e.g. "5.3.3"
	NameServer  string   // "127.0.0.1:19876"
	ClusterName string   // "DefaultCluster"
	Brokers     []Broker // masters, in name order
	Slaves      []Broker // with Options.Slaves: each master's slave, in name order
	Dir         string   // run dir ("" when attached)
	Startup     StartupTimes
	// ACL is set when the brokers check credentials (Options.ACL): dev's own
	// requests and mqadmin then sign with AdminAccount.
	ACL bool
	// ProxyRemoting and ProxyGRPC are the Proxy's addresses ("" without one):
	// its remoting port answers for gRPC clients, gRPC SDKs connect to the other.
	ProxyRemoting string
	ProxyGRPC     string

	procs        []*proc    // namesrv first; empty when attached
	boot         bootConfig // how the processes were started, for RestartBroker
	tempDir      bool       // Dir was made by Start
	keepDir      bool
	toolsHome    string // ROCKETMQ_HOME and user.home of mqadmin
	toolsVersion string // whose mqadmin to run; "" means Version
	stopOnce     sync.Once
	stopErr      error
}

// Start runs a NameServer and one or two brokers (and their slaves) and returns
// once every broker is registered in the NameServer and answers requests, or
// fails after 90 s, 20 s more per broker beyond the first (or when ctx ends) with the tails of the logs in the error, leaving Dir in
// place. It refuses to start when a needed port is already taken. Fetching
// the jars first, when they are not cached, is not part of the 90 s.
func Start(ctx context.Context, opts Options) (*Cluster, error) {
	began := time.Now()
	log := opts.Log
	if log == nil {
		log = io.Discard
	}
	version := opts.Version
	if version == "" {
		version = VersionFromEnv()
	}
	if m := MissingTools(version); len(m) > 0 {
		return nil, fmt.Errorf("start rocketmq %s: %w", version, ErrMissingTools{Missing: m})
	}
	ports := opts.Ports.orDefault()
	specs := brokerSpecs(ports, opts.SecondBroker)
	if opts.Slaves {
		var err error
		if specs, err = withSlaves(ports, specs); err != nil {
			return nil, fmt.Errorf("start rocketmq %s: %w", version, err)
		}
	}
	if opts.Proxy && is4x(version) {
		return nil, fmt.Errorf("start rocketmq %s: %w", version, ErrProxyNeeds5x)
	}
	if err := checkPortsFree(ports, specs); err != nil {
		return nil, fmt.Errorf("start rocketmq %s: %w", version, err)
	}

	// A cold fetch depends on the network, not on this machine: it is not
	// part of the 90 s start-up deadline.
	lib, err := Fetch(ctx, version, log)
	if err != nil {
		return nil, fmt.Errorf("start rocketmq %s: %w", version, err)
	}
	startup := opts.StartupTimeout
	if startup <= 0 {
		// Brokers boot in parallel, but on two cores each extra JVM slows them all.
		startup = startupDeadline*time.Second + time.Duration(len(specs)-1)*20*time.Second
		if opts.Proxy {
			startup += 40 * time.Second
		}
	}
	ctx, cancel := context.WithTimeout(ctx, startup)
	defer cancel()

	c := &Cluster{
		Version:     version,
		NameServer:  ports.NameServerAddr(),
		ClusterName: ClusterName,
		Dir:         opts.Dir,
		keepDir:     opts.KeepDir,
		ACL:         opts.ACL,
	}
	c.Startup.Fetch = time.Since(began)
	if c.Dir == "" {
		if c.Dir, err = os.MkdirTemp("", "rmqdev-"+version+"-"); err != nil {
			return nil, fmt.Errorf("start rocketmq %s: %w", version, err)
		}
		c.tempDir = true
	} else if c.Dir, err = filepath.Abs(c.Dir); err != nil {
		return nil, fmt.Errorf("start rocketmq %s: %w", version, err)
	}
	c.toolsHome = filepath.Join(c.Dir, "tools")
	if err := prepareDirs(c.Dir, specs, opts.Seed); err != nil {
		return nil, fmt.Errorf("start rocketmq %s: %w", version, err)
	}
	if c.ACL && is4x(version) {
		if err := writePlainACL(c.Dir); err != nil {
			return nil, fmt.Errorf("start rocketmq %s: %w", version, err)
		}
	}

	c.boot = bootConfig{version: version, lib: lib, ports: ports, specs: specs, detached: opts.Detached,
		env: append(os.Environ(), "ROCKETMQ_HOME="+c.Dir)}
	err = c.start(ctx, log)
	if err == nil && opts.Proxy {
		var p *proc
		if p, err = c.startProxy(ctx, filepath.Join(c.Dir, "proxy"), ports, opts.Detached, log); err == nil {
			c.procs = append(c.procs, p)
		}
	}
	if err != nil {
		c.keepDir = true // the evidence: the error names files in it
		if errors.Is(ctx.Err(), context.Canceled) {
			c.Kill() // the caller gave up (a Ctrl-C during the boot): no waiting for clean shutdowns
		} else {
			c.Stop()
		}
		return nil, fmt.Errorf("start rocketmq %s (logs kept in %s): %w", version, c.Dir, err)
	}
	c.Startup.Total = time.Since(began)
	fmt.Fprintf(log, "dev: RocketMQ %s ready in %s (namesrv %s, brokers %s, registered %s) at %s\n",
		version, c.Startup.Total.Round(100*time.Millisecond), c.Startup.NameServer.Round(100*time.Millisecond),
		c.Startup.Brokers.Round(100*time.Millisecond), c.Startup.Registered.Round(100*time.Millisecond), c.NameServer)
	return c, nil
}

func prepareDirs(dir string, specs []brokerSpec, seed *Seed) error {
	for _, d := range []string{"namesrv", "tools"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o755); err != nil {
			return err
		}
	}
	for _, b := range specs {
		if err := os.MkdirAll(filepath.Join(dir, b.proc(), "store"), 0o755); err != nil {
			return err
		}
		if seed != nil && b.id == 0 {
			if err := seed.write(filepath.Join(dir, b.proc(), "store", "config")); err != nil {
				return err
			}
		}
	}
	// One ROCKETMQ_HOME for every process: only 4.x reads it (conf/logback_*.xml).
	return writeRocketMQHome(dir)
}

// nameServerBooted is the NameServer's boot line.
var nameServerBooted = regexp.MustCompile(`The Name Server boot success\.[^\n]*`)

// startNameServer writes a NameServer's configuration under home and starts it on port.
func startNameServer(version, lib, home string, env []string, port int, detached bool) (*proc, error) {
	conf := filepath.Join(home, "namesrv.properties")
	if err := writeProperties(conf, namesrvProperties(version, home, port)); err != nil {
		return nil, err
	}
	return startJava("namesrv", home, env, javaArgs(version, lib, home, "rmq.namesrv.logback.xml",
		[]string{"-Xms128m", "-Xmx256m", "-XX:MaxDirectMemorySize=128m"},
		"org.apache.rocketmq.namesrv.NamesrvStartup", "-c", conf), detached)
}

// bootConfig is how Start ran the cluster's processes.
type bootConfig struct {
	version, lib string
	ports        Ports
	specs        []brokerSpec
	detached     bool
	env          []string
}

// start starts the NameServer, then the brokers, and waits until the NameServer
// routes to every broker at its expected address.
func (c *Cluster) start(ctx context.Context, log io.Writer) error {
	version, lib, env, detached := c.boot.version, c.boot.lib, c.boot.env, c.boot.detached
	t := time.Now()
	ns, err := startNameServer(version, lib, filepath.Join(c.Dir, "namesrv"), env, c.boot.ports.NameServer, detached)
	if err != nil {
		return err
	}
	c.procs = append(c.procs, ns)
	// 5.1+ prints the address; 4.x prints only "boot success. serializeType=JSON".
	line, err := waitLine(ctx, ns, nameServerBooted)
	if err != nil {
		return err
	}
	if i := strings.Index(line, "address "); i >= 0 && strings.TrimSpace(line[i+len("address "):]) != c.NameServer {
		return fmt.Errorf("namesrv booted on the wrong address: %q, want %s", line, c.NameServer)
	}
	if err := dialOK(ctx, c.NameServer); err != nil {
		return fmt.Errorf("namesrv printed its boot line but %w\n%s", err, ns.tails())
	}
	c.Startup.NameServer = time.Since(t)
	fmt.Fprintf(log, "dev: namesrv up in %s\n", c.Startup.NameServer.Round(100*time.Millisecond))

	// Brokers start in parallel: each only needs the NameServer.
	t = time.Now()
	var brokers []*proc
	for _, b := range c.boot.specs {
		p, err := c.startBroker(b)
		if err != nil {
			return err
		}
		c.procs = append(c.procs, p)
		brokers = append(brokers, p)
	}
	for i, b := range c.boot.specs {
		if err := waitBrokerBoot(ctx, brokers[i], b); err != nil {
			return err
		}
		if b.id == 0 {
			c.Brokers = append(c.Brokers, Broker{Name: b.name, Addr: b.addr()})
		} else {
			c.Slaves = append(c.Slaves, Broker{Name: b.name, Addr: b.addr()})
		}
	}
	c.Startup.Brokers = time.Since(t)
	fmt.Fprintf(log, "dev: brokers up in %s\n", c.Startup.Brokers.Round(100*time.Millisecond))

	t = time.Now()
	if err := c.waitRegistered(ctx); err != nil {
		return err
	}
	if c.ACL && !is4x(version) {
		if err := c.createLimitedUser(ctx); err != nil {
			return err
		}
	}
	c.Startup.Registered = time.Since(t)
	return nil
}

// startBroker starts broker b's JVM (its store, if any, is reused).
func (c *Cluster) startBroker(b brokerSpec) (*proc, error) {
	home := filepath.Join(c.Dir, b.proc())
	conf := filepath.Join(home, "broker.properties")
	props := brokerProperties(c.boot.version, b, filepath.Join(home, "store"), c.NameServer)
	if c.ACL {
		props = append(props, aclBrokerProperties(c.boot.version)...)
	}
	if err := writeProperties(conf, props); err != nil {
		return nil, err
	}
	// Direct memory: every broker thread that writes to the commit log (senders, and the
	// pull, ack and revive threads that write POP checkpoints) keeps an encoder buffer of
	// maxMessageSize + 64 KiB (4.06 MiB) for its lifetime; at 256 MiB, a broker whose
	// 62nd such thread wrote refused every POP after it (OutOfMemoryError in pop.log).
	return startJava(b.proc(), home, c.boot.env, javaArgs(c.boot.version, c.boot.lib, home, "rmq.broker.logback.xml",
		[]string{"-Xms256m", "-Xmx512m", "-XX:MaxDirectMemorySize=768m"},
		"org.apache.rocketmq.broker.BrokerStartup", "-c", conf), c.boot.detached)
}

// waitBrokerBoot waits for broker b's boot line and checks its name and address.
func waitBrokerBoot(ctx context.Context, p *proc, b brokerSpec) error {
	// "The broker[broker-a, 127.0.0.1:20911] boot success. serializeType=JSON and name server is ..."
	line, err := waitLine(ctx, p, regexp.MustCompile(`The broker\[[^\]]*\] boot success[^\n]*`))
	if err != nil {
		return err
	}
	if want := "[" + b.name + ", " + b.addr() + "]"; !strings.Contains(line, want) {
		return fmt.Errorf("%s booted with the wrong name or address: %q, want %s", b.proc(), line, want)
	}
	return nil
}

// waitLine polls p's stdout until re matches, p exits or ctx ends.
func waitLine(ctx context.Context, p *proc, re *regexp.Regexp) (string, error) {
	for {
		if out, err := os.ReadFile(p.stdoutPath()); err == nil {
			if m := re.Find(out); m != nil {
				return string(m), nil
			}
		}
		if gone, status := p.exited(); gone {
			return "", fmt.Errorf("%s exited (%s) before its boot line\n%s", p.name, status, p.tails())
		}
		select {
		case <-ctx.Done():
			return "", fmt.Errorf("%s: no boot line: %w\n%s", p.name, ctx.Err(), p.tails())
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// waitRegistered polls the NameServer's route of the cluster topic (every
// broker creates a topic named after its cluster) until every expected broker
// is there with its expected address and answers runtime-info requests.
func (c *Cluster) waitRegistered(ctx context.Context) error {
	var last error
	var nudged time.Time
	for {
		r, err := queryRoute(ctx, c.NameServer, c.ClusterName)
		if err == nil {
			last = c.checkBrokers(r.masters())
			if last == nil {
				last = checkRegistered(c.Slaves, r.slaves(), "slave of ")
			}
			if last == nil {
				if last = c.brokersAnswerRuntimeInfo(ctx); last == nil {
					return nil
				}
			}
		} else {
			last = err
		}
		if time.Since(nudged) > time.Second {
			nudged = time.Now()
			masters, slaves := map[string]string{}, map[string]string{}
			if r != nil {
				masters, slaves = r.masters(), r.slaves()
			}
			for _, b := range c.Brokers {
				if masters[b.Name] != b.Addr {
					nudgeRegistration(ctx, b.Addr, c.signed) // best effort: the broker retries by itself every 10 s
				}
			}
			for _, b := range c.Slaves {
				if slaves[b.Name] != b.Addr {
					nudgeRegistration(ctx, b.Addr, c.signed)
				}
			}
		}
		for _, p := range c.procs {
			if gone, status := p.exited(); gone {
				return fmt.Errorf("%s exited (%s)\n%s", p.name, status, p.tails())
			}
		}
		select {
		case <-ctx.Done():
			var tails []string
			for _, p := range c.procs {
				tails = append(tails, p.tails())
			}
			return fmt.Errorf("brokers not registered in the NameServer (%v): %w\n%s", last, ctx.Err(), strings.Join(tails, "\n"))
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// brokersAnswerRuntimeInfo checks GET_BROKER_RUNTIME_INFO on every broker. A
// broker's first second of stats is empty and the request fails with
// NoSuchElementException (seen on 4.9.7 and 5.x), which makes `mqadmin
// clusterList` fail; ready means it works.
func (c *Cluster) brokersAnswerRuntimeInfo(ctx context.Context) error {
	for _, b := range append(append([]Broker{}, c.Brokers...), c.Slaves...) {
		code, remark, _, err := call(ctx, b.Addr, codeGetBrokerRuntimeInfo, c.signed(nil, nil), nil)
		if err != nil {
			return fmt.Errorf("%s runtime info: %w", b.Name, err)
		}
		if code != 0 {
			return fmt.Errorf("%s runtime info: code %d: %s", b.Name, code, remark)
		}
	}
	return nil
}

func (c *Cluster) checkBrokers(masters map[string]string) error {
	return checkRegistered(c.Brokers, masters, "")
}

// checkRegistered checks that each of brokers is registered at its address.
func checkRegistered(brokers []Broker, registered map[string]string, what string) error {
	for _, b := range brokers {
		if got, ok := registered[b.Name]; !ok {
			return fmt.Errorf("%s%s not registered", what, b.Name)
		} else if got != b.Addr {
			return fmt.Errorf("%s%s registered as %s, want %s", what, b.Name, got, b.Addr)
		}
	}
	return nil
}

// Check reports whether the cluster answers: its processes (if it has any)
// run, and the NameServer routes to every broker.
func (c *Cluster) Check(ctx context.Context) error {
	for _, p := range c.procs {
		if gone, status := p.exited(); gone || !p.isOurs() {
			if status == "" {
				status = "pid reused by another program"
			}
			return fmt.Errorf("check rocketmq at %s: %s (pid %d) is not running: %s", c.NameServer, p.name, p.pid, status)
		}
	}
	r, err := queryRoute(ctx, c.NameServer, c.ClusterName)
	if err != nil {
		return fmt.Errorf("check rocketmq at %s: %w", c.NameServer, err)
	}
	if err := c.checkBrokers(r.masters()); err != nil {
		return fmt.Errorf("check rocketmq at %s: %w", c.NameServer, err)
	}
	if c.ProxyRemoting != "" {
		if err := dialOK(ctx, c.ProxyRemoting); err != nil {
			return fmt.Errorf("check rocketmq at %s: proxy: %w", c.NameServer, err)
		}
	}
	return nil
}

// stopGrace is how long a JVM may take to exit after SIGTERM. A 5.3.3
// broker's shutdown hook took 9-11 s on an idle 2-core machine, 31 s on a
// loaded one.
const stopGrace = 30 * time.Second

// Stop stops the cluster's processes: brokers first (they unregister from the
// NameServer), each with SIGTERM to its process group and SIGKILL after 30 s.
// It removes a temporary Dir unless KeepDir was set. Attached clusters are
// left running. Calling Stop or Kill again returns the first result.
func (c *Cluster) Stop() error { return c.halt(stopGrace) }

// Kill stops the cluster's processes at once with SIGKILL, skipping the
// brokers' slow shutdown: for throw-away clusters whose store is not reused
// (a later start from the same Dir would run RocketMQ's crash recovery).
func (c *Cluster) Kill() error { return c.halt(0) }

// StopWithin stops every process of the cluster at once, NameServer included:
// SIGTERM, then SIGKILL to those still running after grace, which is not an
// error. For a development cluster whose stores hold nothing anyone keeps: a
// broker's clean shutdown takes 10-30 s, and a broker killed part-way is
// recovered at its next start as after a crash (its commit log is intact in the
// page cache; consumer offsets of the last few seconds are read again). It
// returns the names of the processes that had to be killed.
func (c *Cluster) StopWithin(grace time.Duration) (killed []string, err error) {
	c.stopOnce.Do(func() {
		var mu sync.Mutex
		var wg sync.WaitGroup
		var errs []error
		for _, p := range c.procs {
			wg.Go(func() {
				k, err := p.halt(grace)
				mu.Lock()
				defer mu.Unlock()
				if k {
					killed = append(killed, p.name)
				}
				if err != nil {
					errs = append(errs, err)
				}
			})
		}
		wg.Wait()
		sort.Strings(killed)
		c.stopErr = errors.Join(append(errs, c.removeTempDir(errs))...)
	})
	return killed, c.stopErr
}

// KillNow sends SIGKILL to every process of the cluster still running, without
// waiting: for a second Ctrl-C while Stop or StopWithin waits for the JVMs,
// which then returns as soon as they are gone.
func (c *Cluster) KillNow() {
	for _, p := range c.procs {
		p.kill()
	}
}

// removeTempDir removes a Dir that Start made, unless it is kept or stopping
// failed (errs): its logs are the evidence.
func (c *Cluster) removeTempDir(errs []error) error {
	if c.tempDir && !c.keepDir && len(errs) == 0 {
		if err := os.RemoveAll(c.Dir); err != nil {
			return fmt.Errorf("remove %s: %w", c.Dir, err)
		}
	}
	return nil
}

func (c *Cluster) halt(grace time.Duration) error {
	c.stopOnce.Do(func() {
		var errs []error
		var wg sync.WaitGroup
		var mu sync.Mutex
		for _, p := range c.procs {
			if p.name == "namesrv" {
				continue
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				if err := p.stop(grace); err != nil {
					mu.Lock()
					errs = append(errs, err)
					mu.Unlock()
				}
			}()
		}
		wg.Wait()
		for _, p := range c.procs {
			if p.name == "namesrv" {
				if err := p.stop(grace); err != nil {
					errs = append(errs, err)
				}
			}
		}
		c.stopErr = errors.Join(append(errs, c.removeTempDir(errs))...)
	})
	return c.stopErr
}

// Running lists the cluster's processes that are still alive (none for an
// attached cluster).
func (c *Cluster) Running() []Process {
	var live []Process
	for _, p := range c.procs {
		if gone, _ := p.exited(); !gone && p.isOurs() {
			live = append(live, Process{Name: p.name, PID: p.pid, Home: p.home})
		}
	}
	return live
}

// LogFiles lists the stdout/stderr files and RocketMQ logs of every process
// (nil for an attached cluster).
func (c *Cluster) LogFiles() []string {
	var files []string
	for _, p := range c.procs {
		files = append(files, p.logFiles()...)
	}
	return files
}

// Process names one JVM of a cluster, for a State.
type Process struct {
	Name string `json:"name"`
	PID  int    `json:"pid"`
	Home string `json:"home"`
}

// State is what a detached cluster leaves behind so that later commands can
// find, check and stop it (rmqdev keeps it in state.json).
type State struct {
	Version     string       `json:"version"`
	NameServer  string       `json:"nameServer"`
	ClusterName string       `json:"clusterName"`
	Brokers     []Broker     `json:"brokers"`
	Slaves      []Broker     `json:"slaves,omitempty"`
	Dir         string       `json:"dir"`
	Processes   []Process    `json:"processes"`
	StartedAt   time.Time    `json:"startedAt"`
	Startup     StartupTimes `json:"startup"`
	ACL         bool         `json:"acl,omitempty"`
	// The Proxy's addresses, when it runs (rmqdev up --proxy).
	ProxyRemoting string `json:"proxyRemoting,omitempty"`
	ProxyGRPC     string `json:"proxyGrpc,omitempty"`
}

// State describes c for a later FromState.
func (c *Cluster) State() State {
	s := State{Version: c.Version, NameServer: c.NameServer, ClusterName: c.ClusterName,
		Brokers: c.Brokers, Slaves: c.Slaves, Dir: c.Dir, StartedAt: time.Now().UTC(), Startup: c.Startup, ACL: c.ACL,
		ProxyRemoting: c.ProxyRemoting, ProxyGRPC: c.ProxyGRPC}
	for _, p := range c.procs {
		s.Processes = append(s.Processes, Process{Name: p.name, PID: p.pid, Home: p.home})
	}
	return s
}

// FromState adopts a cluster started by another program: Check, Stop,
// LogFiles and MQAdmin work on it. Stop only signals pids whose command line
// still names their home dir, so a reused pid is never killed.
func FromState(s State) *Cluster {
	c := &Cluster{Version: s.Version, NameServer: s.NameServer, ClusterName: s.ClusterName,
		Brokers: s.Brokers, Slaves: s.Slaves, Dir: s.Dir, Startup: s.Startup, toolsHome: filepath.Join(s.Dir, "tools"), ACL: s.ACL,
		ProxyRemoting: s.ProxyRemoting, ProxyGRPC: s.ProxyGRPC}
	for _, p := range s.Processes {
		c.procs = append(c.procs, &proc{name: p.Name, pid: p.PID, home: p.Home})
	}
	return c
}

// checkPortsFree fails naming every needed port that something listens on.
func checkPortsFree(ports Ports, specs []brokerSpec) error {
	type need struct {
		port int
		what string
	}
	needs := []need{{ports.orDefault().NameServer, "NameServer"}}
	for _, b := range specs {
		for _, p := range b.ports() {
			needs = append(needs, need{p, b.proc()})
		}
	}
	var busy []string
	for _, n := range needs {
		if err := portFree(n.port); err != nil {
			busy = append(busy, fmt.Sprintf("port %d (%s): %v", n.port, n.what, err))
		}
	}
	if len(busy) > 0 {
		return ErrPortsBusy{Ports: busy}
	}
	return nil
}

// ErrPortsBusy says which of the cluster's fixed ports are already taken,
// typically by another local RocketMQ.
type ErrPortsBusy struct{ Ports []string }

func (e ErrPortsBusy) Error() string {
	return "ports already in use, is another RocketMQ running? (go run ./dev/cmd/rmqdev status / down)\n  " +
		strings.Join(e.Ports, "\n  ")
}

// portFree checks both that nothing answers on loopback and that the port can
// be bound (the HA port binds every interface, so a listener elsewhere counts).
func portFree(port int) error {
	addr := net.JoinHostPort(Host, strconv.Itoa(port))
	if conn, err := net.DialTimeout("tcp", addr, 300*time.Millisecond); err == nil {
		conn.Close()
		return errors.New("something is listening")
	}
	l, err := net.Listen("tcp", fmt.Sprintf(":%d", port))
	if err != nil {
		return err
	}
	return l.Close()
}

// dialOK checks that addr accepts TCP connections.
func dialOK(ctx context.Context, addr string) error {
	var d net.Dialer
	ctx, cancel := context.WithTimeout(ctx, 3*time.Second)
	defer cancel()
	conn, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return fmt.Errorf("%s does not accept connections: %w", addr, err)
	}
	return conn.Close()
}
