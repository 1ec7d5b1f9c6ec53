package dev

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"
)

// mqadminJVM keeps the CLI quick to start and small: it runs one command.
var mqadminJVM = []string{"-Xms64m", "-Xmx256m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1"}

// mqadminFailure matches what mqadmin prints when a command fails. It exits 0
// anyway (MQAdminStartup catches and prints every exception), so output is
// the only signal: a stack trace, "<X>SubCommand command failed", or an
// unknown subcommand.
var mqadminFailure = regexp.MustCompile(`(?m)(^Exception in thread|^[\w.$]+(Exception|Error)(: |$)|^\s+at [\w.$]+\(|command failed|^The sub command \S+ not exist)`)

// MQAdmin runs RocketMQ's own admin CLI (org.apache.rocketmq.tools.command.MQAdminStartup)
// with args and "-n <NameServer>" added unless args has -n. It returns stdout
// and stderr combined, and an error when mqadmin exits non-zero or its output
// shows a failure (it exits 0 after most failures).
func (c *Cluster) MQAdmin(ctx context.Context, args ...string) (string, error) {
	return c.mqadmin(ctx, nil, args...)
}

// MQAdminAs is MQAdmin signing as account a instead of AdminAccount: a real Java client
// with a's rights, to see what a user may do after its policies changed.
func (c *Cluster) MQAdminAs(ctx context.Context, a Account, args ...string) (string, error) {
	return c.mqadmin(ctx, &a, args...)
}

func (c *Cluster) mqadmin(ctx context.Context, as *Account, args ...string) (string, error) {
	if len(args) == 0 {
		return "", errors.New("mqadmin: no subcommand")
	}
	home := c.toolsHome
	if as != nil {
		home += "-as-" + as.AccessKey
	}
	toolsVersion := c.toolsVersion
	if toolsVersion == "" {
		toolsVersion = c.Version
	}
	lib, err := Fetch(ctx, toolsVersion, nil)
	if err != nil {
		return "", fmt.Errorf("mqadmin %s: %w", args[0], err)
	}
	if err := writeRocketMQHome(home); err != nil {
		return "", fmt.Errorf("mqadmin %s: %w", args[0], err)
	}
	if c.ACL || as != nil {
		a := AdminAccount
		if as != nil {
			a = *as
		}
		if err := writeToolsACL(home, a); err != nil {
			return "", fmt.Errorf("mqadmin %s: %w", args[0], err)
		}
	}
	args = append([]string{}, args...) // never write into the caller's array
	if !hasFlag(args, "-n") {
		args = append(args, "-n", c.NameServer)
	}
	jargs := append([]string{}, mqadminJVM...)
	jargs = append(jargs, jdkOpens...)
	jargs = append(jargs, "-Duser.home="+home)
	if !is4x(toolsVersion) {
		jargs = append(jargs, "-Drmq.logback.configurationFile=rmq.tools.logback.xml")
	}
	jargs = append(jargs, "-cp", filepath.Join(lib, "*"), "org.apache.rocketmq.tools.command.MQAdminStartup")
	jargs = append(jargs, args...)

	cmd := exec.CommandContext(ctx, "java", jargs...)
	cmd.Env = append(os.Environ(), "ROCKETMQ_HOME="+home)
	cmd.WaitDelay = 5 * time.Second
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	runErr := cmd.Run()
	text := out.String()
	switch {
	case runErr != nil:
		return text, fmt.Errorf("mqadmin %s: %w\n%s", args[0], runErr, text)
	case mqadminFailure.MatchString(text):
		return text, fmt.Errorf("mqadmin %s failed:\n%s", args[0], text)
	}
	return text, nil
}

func hasFlag(args []string, flag string) bool {
	for _, a := range args {
		if a == flag {
			return true
		}
	}
	return false
}

// CreateTopic creates topic with queues read and write queues on every broker
// of the cluster (mqadmin updateTopic -c), then waits until the NameServer
// routes it to every broker, so a producer started next finds it.
func (c *Cluster) CreateTopic(ctx context.Context, topic string, queues int) error {
	q := strconv.Itoa(queues)
	if err := c.updateTopic(ctx, "-c", c.ClusterName, "-t", topic, "-r", q, "-w", q); err != nil {
		return fmt.Errorf("create topic %s: %w", topic, err)
	}
	if err := c.awaitRoute(ctx, topic, c.Brokers, queues); err != nil {
		return fmt.Errorf("create topic %s: %w", topic, err)
	}
	return nil
}

// CreateTopicOn is CreateTopic on one broker of the cluster only (mqadmin
// updateTopic -b), for tests whose assertions are per queue id of one broker,
// so they hold on every cluster shape.
func (c *Cluster) CreateTopicOn(ctx context.Context, topic string, queues int, broker Broker) error {
	q := strconv.Itoa(queues)
	if err := c.updateTopic(ctx, "-b", broker.Addr, "-t", topic, "-r", q, "-w", q); err != nil {
		return fmt.Errorf("create topic %s on %s: %w", topic, broker.Name, err)
	}
	if err := c.awaitRoute(ctx, topic, []Broker{broker}, queues); err != nil {
		return fmt.Errorf("create topic %s on %s: %w", topic, broker.Name, err)
	}
	return nil
}

// updateTopic runs mqadmin updateTopic, once more after a failure: on a loaded machine
// mqadmin's own 3 s call timeout is sometimes too short, and updateTopic is idempotent.
func (c *Cluster) updateTopic(ctx context.Context, args ...string) error {
	args = append([]string{"updateTopic"}, args...)
	_, err := c.MQAdmin(ctx, args...)
	if err == nil {
		return nil
	}
	select {
	case <-ctx.Done():
		return err
	case <-time.After(2 * time.Second):
	}
	if _, again := c.MQAdmin(ctx, args...); again != nil {
		return fmt.Errorf("%w\n(and again: %v)", err, again)
	}
	return nil
}

// awaitRoute waits until the NameServer routes topic to each of brokers with queues
// read and write queues.
func (c *Cluster) awaitRoute(ctx context.Context, topic string, brokers []Broker, queues int) error {
	var last error
	for {
		r, err := queryRoute(ctx, c.NameServer, topic)
		if err == nil {
			last = topicOnEveryBroker(r, brokers, queues)
			if last == nil {
				return nil
			}
		} else {
			last = err
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("route never complete (%v): %w", last, ctx.Err())
		case <-time.After(200 * time.Millisecond):
		}
	}
}

func topicOnEveryBroker(r *route, brokers []Broker, queues int) error {
	have := map[string]bool{}
	for _, q := range r.QueueDatas {
		if q.WriteQueueNums == queues && q.ReadQueueNums == queues {
			have[q.BrokerName] = true
		}
	}
	for _, b := range brokers {
		if !have[b.Name] {
			return fmt.Errorf("no %d queues on %s yet", queues, b.Name)
		}
	}
	return nil
}

// Attach returns a Cluster for a running NameServer without starting
// anything: brokers, cluster name and version come from mqadmin clusterList.
// MQAdmin and CreateTopic work on it; Stop does nothing. mqadmin comes from
// RMQ_VERSION's jars, then from the cluster's own version's when those are cached.
func Attach(ctx context.Context, nameServer string) (*Cluster, error) {
	// mqadmin clusterList prints an empty table, not an error, when nothing
	// listens; say so plainly and fast instead.
	if err := dialOK(ctx, nameServer); err != nil {
		return nil, fmt.Errorf("attach: no NameServer: %w (start one with: go run ./dev/cmd/rmqdev up)", err)
	}
	version := VersionFromEnv()
	root, err := CacheRoot()
	if err != nil {
		return nil, fmt.Errorf("attach to %s: %w", nameServer, err)
	}
	c := &Cluster{Version: version, toolsVersion: version, NameServer: nameServer,
		toolsHome: filepath.Join(root, "tools-home")}
	// mqadmin clusterList asks every broker for its runtime info: on a cluster
	// with ACL on it must sign, so find out first.
	if c.ACL, err = clusterHasACL(ctx, nameServer); err != nil {
		return nil, fmt.Errorf("attach to %s: %w", nameServer, err)
	}
	if c.ACL {
		c.toolsHome += "-acl" // its conf/tools.yml makes mqadmin sign
	}
	// mqadmin's own request timeout is short; on a busy machine one try can
	// time out, so try a few times before giving up.
	var rows []clusterListRow
	for attempt := 1; ; attempt++ {
		out, err := c.MQAdmin(ctx, "clusterList")
		if err == nil {
			if rows = parseClusterList(out); len(rows) > 0 {
				break
			}
			err = fmt.Errorf("clusterList shows no broker:\n%s", out)
		}
		if attempt == 3 || ctx.Err() != nil {
			return nil, fmt.Errorf("attach to %s: %w", nameServer, err)
		}
	}
	c.ClusterName = rows[0].cluster
	for _, r := range rows {
		switch {
		case r.cluster != c.ClusterName:
		case r.brokerID == "0":
			c.Brokers = append(c.Brokers, Broker{Name: r.broker, Addr: r.addr})
		default:
			c.Slaves = append(c.Slaves, Broker{Name: r.broker, Addr: r.addr})
		}
	}
	sort.Slice(c.Brokers, func(i, j int) bool { return c.Brokers[i].Name < c.Brokers[j].Name })
	sort.Slice(c.Slaves, func(i, j int) bool { return c.Slaves[i].Name < c.Slaves[j].Name })
	// "V5_3_3" -> "5.3.3". Use that version's mqadmin when it is cached.
	if v := strings.ReplaceAll(strings.TrimPrefix(rows[0].version, "V"), "_", "."); v != "" {
		c.Version = v
		if Cached(v) {
			c.toolsVersion = v
		}
	}
	return c, nil
}

type clusterListRow struct{ cluster, broker, brokerID, addr, version string }

// parseClusterList reads the table of `mqadmin clusterList`:
// "#Cluster Name  #Broker Name  #BID  #Addr  #Version ..." then one row per broker.
// Names and addresses hold no spaces, so fields split on whitespace.
func parseClusterList(out string) []clusterListRow {
	var rows []clusterListRow
	header := false
	sc := bufio.NewScanner(strings.NewReader(out))
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if strings.HasPrefix(line, "#Cluster Name") {
			header = true
			continue
		}
		f := strings.Fields(line)
		if !header || len(f) < 5 {
			continue
		}
		rows = append(rows, clusterListRow{cluster: f[0], broker: f[1], brokerID: f[2], addr: f[3], version: f[4]})
	}
	return rows
}
